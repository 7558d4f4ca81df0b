/* corpus_make: the generators of the two bundled corpora (format: corpus/README.md).
 *
 * formdesk corpus-demo --profiles FILE --out DIR [--form FILE]
 *   From invented caller profiles (corpus/demo/profiles.json), writes DIR/corpus.json,
 *   transcripts.csv, calls.csv and expected.jsonl: each caller along every branch path of
 *   the form (sessions/paths.h; 48 for the enrollment form), one caller turn per question
 *   asked, and the form FormBharo would store at the end. Prints each distinct utterance
 *   as "ID<TAB>TEXT" on stdout, for the speech synthesizer.
 *
 * formdesk corpus-respin --clips DIR --out DIR [--form FILE]
 *   From the RESPIN sample clips (DIR/<language>/text.tsv and <id>.mp3), writes a corpus
 *   whose calls take the clips in order, each call as many as the form needs to end when
 *   nothing is ever captured (the enrollment form: name 2 turns then skipped, district 3
 *   turns then the call fails: 5), and the expected end: that status, nothing answered.
 *
 * Files are replaced only when their content changes, so a rebuild is a no-op.
 * Exit status: 0 written, 2 bad usage or bad input (named on stderr). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "cli/commands.h"
#include "agent/form.h"
#include "agent/ymd.h"
#include "sessions/csv.h"
#include "sessions/paths.h"

#define DEFAULT_FORM "forms/armman_enrollment.json"

/* The RESPIN sample's licence statement (its README.md), shown wherever the clips are. */
#define RESPIN_ATTRIBUTION                                                                      \
	"RESPIN-S1.0 sample clips (SPIRE Lab, Indian Institute of Science, Bengaluru), from the " \
	"sample folder of github.com/labspire/respin_did_interspeech25. Copyright in the "        \
	"RESPIN ASR data belongs to the Indian Institute of Science, Bengaluru; distributed "     \
	"under CC-BY-4.0 (https://creativecommons.org/licenses/by/4.0/legalcode.en)."

/* write_if_changed: put len bytes of text in dir/name, through a temporary file and a
 * rename, unless the file already holds exactly that. Returns 0 or -1 (reported). */
static int write_if_changed(const char *dir, const char *name, const char *text, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((f = fopen(path, "rb"))) {
		char *old = malloc(len + 1);
		size_t got = old ? fread(old, 1, len + 1, f) : 0;
		bool same = old && got == len && memcmp(old, text, len) == 0;
		free(old);
		fclose(f);
		if (same)
			return 0;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(f = fopen(tmp, "wb"))) {
		fprintf(stderr, "formdesk: %s: cannot write: %s\n", tmp, strerror(errno));
		return -1;
	}
	if (fwrite(text, 1, len, f) != len)
		fprintf(stderr, "formdesk: %s: cannot write: %s\n", tmp, strerror(errno));
	else
		rc = 0;
	if (fclose(f) != 0 && rc == 0) {
		fprintf(stderr, "formdesk: %s: cannot write: %s\n", tmp, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		fprintf(stderr, "formdesk: %s: cannot replace: %s\n", path, strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		remove(tmp);
	return rc;
}

/* An output file being built in memory. */
struct out {
	char *text;
	size_t len;
	FILE *f;
};

static bool out_open(struct out *o)
{
	o->text = NULL;
	o->len = 0;
	o->f = open_memstream(&o->text, &o->len);
	return o->f != NULL;
}

static int out_save(struct out *o, const char *dir, const char *name)
{
	int rc;
	if (fclose(o->f) != 0) {
		o->f = NULL;
		return -1;
	}
	o->f = NULL;
	rc = write_if_changed(dir, name, o->text, o->len);
	free(o->text);
	o->text = NULL;
	return rc;
}

static void out_drop(struct out *o)
{
	if (o->f)
		fclose(o->f);
	free(o->text);
	o->f = NULL;
	o->text = NULL;
}

static void csv_row(FILE *f, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		csv_write_field(f, va_arg(ap, const char *));
	}
	fputc('\n', f);
	va_end(ap);
}

static int save_json(const cJSON *o, const char *dir, const char *name)
{
	char *s = cJSON_Print(o);
	int rc;
	if (!s)
		return -1;
	size_t n = strlen(s);
	char *t = realloc(s, n + 2);
	if (!t) {
		free(s);
		return -1;
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	rc = write_if_changed(dir, name, t, n + 1);
	free(t);
	return rc;
}

static bool make_dir(const char *dir)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return true;
	fprintf(stderr, "formdesk: %s: cannot make the folder: %s\n", dir, strerror(errno));
	return false;
}

static struct form *load_form(const char *cmd, const char *path)
{
	struct form *f = NULL;
	struct form_issues is = {0};
	enum err e = form_load(path, &f, &is);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk %s: %s: %s\n", cmd, path, err_str(e));
		for (int i = 0; i < is.n; i++)
			fprintf(stderr, "  %s%s%s\n", is.v[i].field, is.v[i].field[0] ? ": " : "",
				is.v[i].message);
	}
	form_issues_free(&is);
	return f;
}

/* ---- corpus-demo ---- */

struct utterance {
	char *id;
	const char *text; /* borrowed from the profiles */
};

struct demo {
	const char *file;       /* the profiles file, for messages */
	const struct form *form;
	const cJSON *caller;    /* the caller being laid out */
	const char *caller_id;
	int caller_index;
	const char *condition;
	const bool *unknown;    /* per question: the caller may not know it */
	struct out calls, expected;
	struct utterance *utts;
	int n_utts, cap_utts;
	bool failed;
};

static void demo_fail(struct demo *d, const char *fmt, ...)
{
	va_list ap;
	if (d->failed)
		return;
	d->failed = true;
	fprintf(stderr, "formdesk corpus-demo: %s: callers[%d] ('%s'): ", d->file, d->caller_index,
		d->caller_id);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* utterance: the id of the caller's answer text (registered once). */
static const char *utterance(struct demo *d, const char *field, const char *key, const char *text)
{
	char *id;
	if (strcmp(key, "say") == 0) {
		if (asprintf(&id, "%s_%s", d->caller_id, field) < 0)
			return NULL;
	} else if (asprintf(&id, "%s_%s_%s", d->caller_id, field, key) < 0) {
		return NULL;
	}
	for (int i = 0; i < d->n_utts; i++)
		if (strcmp(d->utts[i].id, id) == 0) {
			free(id);
			return d->utts[i].id;
		}
	if (d->n_utts == d->cap_utts) {
		int cap = d->cap_utts ? d->cap_utts * 2 : 64;
		struct utterance *v = realloc(d->utts, (size_t)cap * sizeof *v);
		if (!v) {
			free(id);
			return NULL;
		}
		d->utts = v;
		d->cap_utts = cap;
	}
	d->utts[d->n_utts].id = id;
	d->utts[d->n_utts].text = text;
	return d->utts[d->n_utts++].id;
}

/* stored: the value FormBharo stores for question q answered with v (the profile's
 * "value"), or NULL after reporting why v does not fit. */
static cJSON *stored(struct demo *d, const struct form_question *q, const cJSON *v)
{
	struct ymd date;
	switch (q->type) {
	case FORM_NUMBER:
		if (cJSON_IsNumber(v))
			return cJSON_CreateNumber(v->valuedouble);
		if (cJSON_IsString(v) && v->valuestring[0] &&
		    strspn(v->valuestring, "0123456789") == strlen(v->valuestring))
			return cJSON_CreateNumber(strtod(v->valuestring, NULL));
		demo_fail(d, "field '%s': 'value' must be a number", q->name);
		return NULL;
	case FORM_DATE:
		if (cJSON_IsString(v) && ymd_parse_stored(v->valuestring, &date))
			return cJSON_CreateString(v->valuestring);
		demo_fail(d, "field '%s': 'value' must be a date DD-MM-YYYY", q->name);
		return NULL;
	case FORM_BOOLEAN:
		if (cJSON_IsBool(v)) {
			const char *label = cJSON_IsTrue(v) ? q->label_true : q->label_false;
			return label ? cJSON_CreateString(label) : cJSON_CreateBool(cJSON_IsTrue(v));
		}
		demo_fail(d, "field '%s': 'value' must be true or false", q->name);
		return NULL;
	case FORM_SINGLE_SELECT:
		if (cJSON_IsString(v))
			for (int i = 0; i < q->n_options; i++)
				if (strcmp(q->options[i], v->valuestring) == 0)
					return cJSON_CreateString(v->valuestring);
		demo_fail(d, "field '%s': 'value' must be one of the question's options", q->name);
		return NULL;
	case FORM_STRING:
	case FORM_MULTI_SELECT:
		if (cJSON_IsString(v) && v->valuestring[0])
			return cJSON_CreateString(v->valuestring);
		demo_fail(d, "field '%s': 'value' must be a non-empty string", q->name);
		return NULL;
	}
	return NULL;
}

/* path_word: how a path answers a question, for the calls' "path" column; NULL when the
 * answer is not a choice of the path (a plain answer to a question always answered). */
static const char *path_word(const struct form_question *q, enum paths_answer a, bool unknown)
{
	switch (a) {
	case PATHS_TRUE: return "yes";
	case PATHS_FALSE: return "no";
	case PATHS_UNKNOWN: return "unknown";
	case PATHS_ANSWERED: return unknown || q->type == FORM_BOOLEAN ? "given" : NULL;
	default: return NULL;
	}
}

static int demo_path(void *ctx, long number, const enum paths_answer *answers)
{
	struct demo *d = ctx;
	const struct form *f = d->form;
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(d->caller, "answers");
	cJSON *exp = cJSON_CreateObject(), *data = cJSON_CreateObject(), *st = cJSON_CreateObject();
	const char **uids = calloc((size_t)f->n_questions + 1, sizeof *uids);
	char call_id[128], turn_s[16], *path = NULL, *line = NULL;
	size_t path_len = 0;
	FILE *pf = open_memstream(&path, &path_len);
	int turn = 0;

	snprintf(call_id, sizeof call_id, "%s-p%02ld", d->caller_id, number);
	if (!exp || !data || !st || !pf || !uids) {
		demo_fail(d, "out of memory");
		goto out;
	}
	for (int i = 0; i < f->n_questions && !d->failed; i++) {
		const struct form_question *q = &f->questions[i];
		const cJSON *ans = cJSON_GetObjectItemCaseSensitive(all, q->name), *text;
		const char *key = "say", *status = "answered", *word;
		cJSON *value = NULL;

		if (answers[i] == PATHS_CLOSED) {
			cJSON_AddItemToObject(data, q->name, cJSON_CreateNull());
			cJSON_AddStringToObject(st, q->name, "empty");
			continue;
		}
		if (answers[i] == PATHS_TRUE)
			key = "yes";
		else if (answers[i] == PATHS_FALSE)
			key = "no";
		else if (answers[i] == PATHS_UNKNOWN) {
			key = "dont_know";
			status = "skipped";
		}
		if (!cJSON_IsObject(ans)) {
			demo_fail(d, "field '%s': no answers for this question", q->name);
			break;
		}
		text = cJSON_GetObjectItemCaseSensitive(ans, key);
		if (!cJSON_IsString(text) || !text->valuestring[0] ||
		    strpbrk(text->valuestring, "\t\r\n")) {
			demo_fail(d, "field '%s': '%s' must be the caller's words (one line)", q->name, key);
			break;
		}
		if (answers[i] == PATHS_TRUE || answers[i] == PATHS_FALSE) {
			cJSON b = {0};
			b.type = answers[i] == PATHS_TRUE ? cJSON_True : cJSON_False;
			value = stored(d, q, &b);
		} else if (answers[i] == PATHS_ANSWERED) {
			value = stored(d, q, cJSON_GetObjectItemCaseSensitive(ans, "value"));
		} else {
			value = cJSON_CreateNull();
		}
		if (!value)
			break;
		cJSON_AddItemToObject(data, q->name, value);
		cJSON_AddStringToObject(st, q->name, status);
		if ((word = path_word(q, answers[i], d->unknown[i])))
			fprintf(pf, "%s%s=%s", ftell(pf) ? " " : "", q->name, word);
		if (!(uids[turn++] = utterance(d, q->name, key, text->valuestring)))
			demo_fail(d, "out of memory");
	}
	if (d->failed)
		goto out;
	fclose(pf);
	pf = NULL;
	for (int t = 0; t < turn; t++) {
		snprintf(turn_s, sizeof turn_s, "%d", t + 1);
		csv_row(d->calls.f, 6, call_id, turn_s, uids[t], d->condition, d->caller_id, path);
	}
	cJSON_AddStringToObject(exp, "call_id", call_id);
	cJSON_AddItemToObject(exp, "form_data", data);
	cJSON_AddItemToObject(exp, "form_status", st);
	data = st = NULL;
	cJSON_AddStringToObject(exp, "status", "complete");
	if (!(line = cJSON_PrintUnformatted(exp))) {
		demo_fail(d, "out of memory");
		goto out;
	}
	fprintf(d->expected.f, "%s\n", line);
out:
	if (pf)
		fclose(pf);
	free(path);
	free(line);
	free(uids);
	cJSON_Delete(exp);
	cJSON_Delete(data);
	cJSON_Delete(st);
	return d->failed ? 1 : 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (s = malloc((size_t)n + 1))) {
		if (fread(s, 1, (size_t)n, f) == (size_t)n) {
			s[n] = '\0';
		} else {
			free(s);
			s = NULL;
		}
	}
	fclose(f);
	return s;
}

int cmd_corpus_demo(int argc, char **argv)
{
	const char *profiles = NULL, *out_dir = NULL, *form_path = NULL;
	char *text = NULL, *unknown_list = NULL, *why = NULL;
	cJSON *root = NULL, *manifest = NULL;
	struct form *form = NULL;
	bool *unknown = NULL;
	struct demo d = {0};
	struct ymd today;
	const cJSON *v, *callers, *c;
	int rc = 2, k = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--profiles") && i + 1 < argc)
			profiles = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out_dir = argv[++i];
		else if (!strcmp(argv[i], "--form") && i + 1 < argc)
			form_path = argv[++i];
		else {
			fprintf(stderr, "formdesk corpus-demo: unexpected argument '%s'\n"
					"usage: formdesk corpus-demo --profiles FILE --out DIR [--form FILE]\n",
				argv[i]);
			return 2;
		}
	}
	if (!profiles || !out_dir) {
		fprintf(stderr, "usage: formdesk corpus-demo --profiles FILE --out DIR [--form FILE]\n");
		return 2;
	}
	d.file = profiles;
	if (!(text = read_file(profiles))) {
		fprintf(stderr, "formdesk corpus-demo: %s: cannot read: %s\n", profiles, strerror(errno));
		goto out;
	}
	if (!(root = cJSON_Parse(text)) || !cJSON_IsObject(root)) {
		fprintf(stderr, "formdesk corpus-demo: %s: bad JSON near '%.20s'\n", profiles,
			cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "form");
	if (!form_path)
		form_path = cJSON_IsString(v) ? v->valuestring : DEFAULT_FORM;
	if (!(form = load_form("corpus-demo", form_path)))
		goto out;
	for (int i = 0; i < form->n_questions; i++)
		if (form->questions[i].n_end_call_values > 0) {
			fprintf(stderr, "formdesk corpus-demo: %s: question '%s' has end_call_values, "
					"which these demo calls do not cover\n",
				form_path, form->questions[i].name);
			goto out;
		}
	v = cJSON_GetObjectItemCaseSensitive(root, "today");
	if (!cJSON_IsString(v) || !ymd_parse_iso(v->valuestring, &today)) {
		fprintf(stderr, "formdesk corpus-demo: %s: field 'today': must be a date YYYY-MM-DD\n",
			profiles);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "condition");
	d.condition = cJSON_IsString(v) ? v->valuestring : "ideal";
	/* The questions a caller may not know: the "unknown" set of the path rule. */
	v = cJSON_GetObjectItemCaseSensitive(root, "unknown");
	{
		size_t len = 0;
		FILE *uf = open_memstream(&unknown_list, &len);
		const cJSON *u;
		if (!uf)
			goto out;
		cJSON_ArrayForEach(u, v) if (cJSON_IsString(u))
			fprintf(uf, "%s%s", ftell(uf) ? "," : "", u->valuestring);
		fclose(uf);
	}
	if (!(unknown = calloc((size_t)form->n_questions + 1, sizeof *unknown)))
		goto out;
	if (paths_parse_unknown(form, unknown_list, unknown, &why) != ERR_OK) {
		fprintf(stderr, "formdesk corpus-demo: %s: field 'unknown': %s\n", profiles,
			why ? why : "bad list");
		goto out;
	}
	callers = cJSON_GetObjectItemCaseSensitive(root, "callers");
	if (!cJSON_IsArray(callers) || cJSON_GetArraySize(callers) == 0) {
		fprintf(stderr, "formdesk corpus-demo: %s: field 'callers': must be a non-empty list\n",
			profiles);
		goto out;
	}
	if (!out_open(&d.calls) || !out_open(&d.expected))
		goto out;
	fputs("call_id,turn,utterance_id,condition,caller,path\n", d.calls.f);
	d.form = form;
	d.unknown = unknown;
	cJSON_ArrayForEach(c, callers) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
		d.caller = c;
		d.caller_index = k++;
		d.caller_id = cJSON_IsString(id) ? id->valuestring : "?";
		if (!cJSON_IsString(id) || !id->valuestring[0] ||
		    strspn(id->valuestring, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			    strlen(id->valuestring)) {
			demo_fail(&d, "field 'id': must be lower-case letters, digits or '_'");
			goto out;
		}
		if (paths_each(form, unknown, demo_path, &d, NULL) != ERR_OK || d.failed)
			goto out;
	}
	{
		/* transcripts.csv, and the list for the synthesizer. */
		struct out tr;
		if (!out_open(&tr))
			goto out;
		fputs("id,text\n", tr.f);
		for (int i = 0; i < d.n_utts; i++) {
			csv_row(tr.f, 2, d.utts[i].id, d.utts[i].text);
			printf("%s\t%s\n", d.utts[i].id, d.utts[i].text);
		}
		if (!make_dir(out_dir) || out_save(&tr, out_dir, "transcripts.csv") != 0) {
			out_drop(&tr);
			goto out;
		}
	}
	if (out_save(&d.calls, out_dir, "calls.csv") != 0 ||
	    out_save(&d.expected, out_dir, "expected.jsonl") != 0)
		goto out;
	if (!(manifest = cJSON_CreateObject()))
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "name");
	cJSON_AddStringToObject(manifest, "name", cJSON_IsString(v) ? v->valuestring : "demo");
	cJSON_AddStringToObject(manifest, "form", form_path);
	cJSON_AddBoolToObject(manifest, "synthetic", true);
	cJSON_AddStringToObject(manifest, "today",
				cJSON_GetObjectItemCaseSensitive(root, "today")->valuestring);
	cJSON_AddStringToObject(manifest, "attribution",
				"Invented callers (corpus/demo/profiles.json), part of formdesk; "
				"their answers synthesized by espeak-ng's Hindi voice at build time.");
	v = cJSON_GetObjectItemCaseSensitive(root, "about");
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(manifest, "about", v->valuestring);
	if (save_json(manifest, out_dir, "corpus.json") != 0)
		goto out;
	rc = fflush(stdout) == 0 ? 0 : 2;
out:
	out_drop(&d.calls);
	out_drop(&d.expected);
	for (int i = 0; i < d.n_utts; i++)
		free(d.utts[i].id);
	free(d.utts);
	free(unknown);
	free(unknown_list);
	free(why);
	form_free(form);
	cJSON_Delete(root);
	cJSON_Delete(manifest);
	free(text);
	return rc;
}

/* ---- corpus-respin ---- */

struct clip {
	char *id, *text, *path;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* read_clips: every clip of every language folder of dir, folders in name order, clips
 * in text.tsv order. Returns the count, -1 on error (reported). */
static int read_clips(const char *dir, struct clip **out)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	char **langs = NULL;
	int n_langs = 0, n = 0, cap = 0;
	struct clip *clips = NULL;
	int rc = -1;

	if (!dh) {
		fprintf(stderr, "formdesk corpus-respin: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(dh))) {
		char p[PATH_MAX];
		struct stat sb;
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s/text.tsv", dir, de->d_name);
		if (stat(p, &sb) != 0)
			continue;
		char **v = realloc(langs, (size_t)(n_langs + 1) * sizeof *v);
		if (!v)
			goto out;
		langs = v;
		if (!(langs[n_langs] = strdup(de->d_name)))
			goto out;
		n_langs++;
	}
	qsort(langs, (size_t)n_langs, sizeof *langs, name_cmp);
	for (int l = 0; l < n_langs; l++) {
		char tsv[PATH_MAX], line[4096];
		int lineno = 0;
		snprintf(tsv, sizeof tsv, "%s/%s/text.tsv", dir, langs[l]);
		FILE *f = fopen(tsv, "r");
		if (!f) {
			fprintf(stderr, "formdesk corpus-respin: %s: %s\n", tsv, strerror(errno));
			goto out;
		}
		while (fgets(line, sizeof line, f)) {
			char *tab, clip_path[PATH_MAX + 4096 + 8], real[PATH_MAX];
			lineno++;
			line[strcspn(line, "\r\n")] = '\0';
			if (!line[0])
				continue;
			if (!(tab = strchr(line, '\t'))) {
				fprintf(stderr, "formdesk corpus-respin: %s:%d: expected ID<TAB>TEXT\n", tsv,
					lineno);
				fclose(f);
				goto out;
			}
			*tab = '\0';
			snprintf(clip_path, sizeof clip_path, "%s/%s/%s.mp3", dir, langs[l], line);
			if (strlen(clip_path) >= PATH_MAX || !realpath(clip_path, real)) {
				fprintf(stderr, "formdesk corpus-respin: %s:%d: clip %s: %s\n", tsv, lineno,
					clip_path, strerror(errno));
				fclose(f);
				goto out;
			}
			if (n == cap) {
				int ncap = cap ? cap * 2 : 128;
				struct clip *v = realloc(clips, (size_t)ncap * sizeof *v);
				if (!v) {
					fclose(f);
					goto out;
				}
				clips = v;
				cap = ncap;
			}
			clips[n].id = strdup(line);
			clips[n].text = strdup(tab + 1);
			clips[n].path = strdup(real);
			n++;
			if (!clips[n - 1].id || !clips[n - 1].text || !clips[n - 1].path) {
				fclose(f);
				goto out;
			}
		}
		fclose(f);
	}
	rc = n;
out:
	closedir(dh);
	for (int l = 0; l < n_langs; l++)
		free(langs[l]);
	free(langs);
	if (rc < 0) {
		for (int i = 0; i < n; i++) {
			free(clips[i].id);
			free(clips[i].text);
			free(clips[i].path);
		}
		free(clips);
		return -1;
	}
	*out = clips;
	return rc;
}

/* The walk of a call in which the caller never says anything usable. */
struct silent_call {
	int turns;              /* caller turns until the call ends */
	const char *status;     /* how it ends */
	const char **field_status; /* per question */
	char path[512];         /* "name=skipped district=failed" */
};

/* silent_walk: follow the rules of the form (retries.mdx: max_retries re-asks after the
 * first ask, default 2; allow_retries false: asked once; a required field, or
 * exhausted_action end_call, ends the call; an optional one is skipped) for a caller
 * who is never understood. Branches open only on `present: false`, since nothing is
 * ever answered. Asked until answered: the caller hangs up after 3 tries. */
static void silent_walk(const struct form *f, struct silent_call *w)
{
	size_t used = 0;
	w->turns = 0;
	w->status = "complete";
	w->path[0] = '\0';
	for (int i = 0; i < f->n_questions; i++) {
		const struct form_question *q = &f->questions[i];
		w->field_status[i] = "empty";
		if (q->branch >= 0) {
			const struct form_branch *b = &f->branches[q->branch];
			if (!(b->has_present && !b->present))
				continue;
		}
		if (strcmp(w->status, "complete") != 0)
			continue;
		if (q->until_answered) {
			w->turns += 3;
			w->status = "failed";
			used += (size_t)snprintf(w->path + used, sizeof w->path - used, "%s%s=hung_up",
						 used ? " " : "", q->name);
			continue;
		}
		w->turns += q->allow_retries ? q->max_retries + 1 : 1;
		/* Put to the caller and nothing captured: "skipped" (concepts/answers.mdx),
		 * also for the question whose exhaustion ends the call. */
		w->field_status[i] = "skipped";
		if (q->required || q->exhausted_end_call) {
			w->status = "failed";
			used += (size_t)snprintf(w->path + used, sizeof w->path - used, "%s%s=failed",
						 used ? " " : "", q->name);
		} else {
			used += (size_t)snprintf(w->path + used, sizeof w->path - used, "%s%s=skipped",
						 used ? " " : "", q->name);
		}
		if (used >= sizeof w->path)
			used = sizeof w->path - 1;
	}
}

int cmd_corpus_respin(int argc, char **argv)
{
	const char *clips_dir = NULL, *out_dir = NULL, *form_path = DEFAULT_FORM;
	struct form *form = NULL;
	struct clip *clips = NULL;
	struct silent_call w = {0};
	struct out tr = {0}, calls = {0}, expected = {0};
	cJSON *manifest = NULL;
	int n = -1, rc = 2, n_calls = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--clips") && i + 1 < argc)
			clips_dir = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out_dir = argv[++i];
		else if (!strcmp(argv[i], "--form") && i + 1 < argc)
			form_path = argv[++i];
		else {
			fprintf(stderr, "formdesk corpus-respin: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!clips_dir || !out_dir) {
		fprintf(stderr, "usage: formdesk corpus-respin --clips DIR --out DIR [--form FILE]\n");
		return 2;
	}
	if (!(form = load_form("corpus-respin", form_path)))
		goto out;
	if (!(w.field_status = calloc((size_t)form->n_questions + 1, sizeof *w.field_status)))
		goto out;
	silent_walk(form, &w);
	if (w.turns < 1) {
		fprintf(stderr, "formdesk corpus-respin: %s: the form asks nothing\n", form_path);
		goto out;
	}
	if ((n = read_clips(clips_dir, &clips)) < 0)
		goto out;
	if (n < w.turns) {
		fprintf(stderr, "formdesk corpus-respin: %s: %d clips, a call needs %d\n", clips_dir, n,
			w.turns);
		goto out;
	}
	if (!out_open(&tr) || !out_open(&calls) || !out_open(&expected))
		goto out;
	fputs("id,text,path\n", tr.f);
	fputs("call_id,turn,utterance_id,condition,caller,path\n", calls.f);
	for (int i = 0; i < n; i++)
		csv_row(tr.f, 3, clips[i].id, clips[i].text, clips[i].path);
	n_calls = n / w.turns;
	for (int c = 0; c < n_calls; c++) {
		char call_id[32], turn_s[16];
		cJSON *o = cJSON_CreateObject(), *data = cJSON_CreateObject(), *st = cJSON_CreateObject();
		char *line;
		snprintf(call_id, sizeof call_id, "respin-%02d", c + 1);
		for (int t = 0; t < w.turns; t++) {
			snprintf(turn_s, sizeof turn_s, "%d", t + 1);
			csv_row(calls.f, 6, call_id, turn_s, clips[c * w.turns + t].id, "natural", "",
				w.path);
		}
		for (int i = 0; i < form->n_questions; i++) {
			cJSON_AddItemToObject(data, form->questions[i].name, cJSON_CreateNull());
			cJSON_AddStringToObject(st, form->questions[i].name, w.field_status[i]);
		}
		cJSON_AddStringToObject(o, "call_id", call_id);
		cJSON_AddItemToObject(o, "form_data", data);
		cJSON_AddItemToObject(o, "form_status", st);
		cJSON_AddStringToObject(o, "status", w.status);
		line = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (!line)
			goto out;
		fprintf(expected.f, "%s\n", line);
		free(line);
	}
	if (n % w.turns)
		fprintf(stderr, "formdesk corpus-respin: the last %d clips make no whole call; left out\n",
			n % w.turns);
	if (!make_dir(out_dir) || out_save(&tr, out_dir, "transcripts.csv") != 0 ||
	    out_save(&calls, out_dir, "calls.csv") != 0 ||
	    out_save(&expected, out_dir, "expected.jsonl") != 0)
		goto out;
	if (!(manifest = cJSON_CreateObject()))
		goto out;
	cJSON_AddStringToObject(manifest, "name", "respin");
	cJSON_AddStringToObject(manifest, "form", form_path);
	cJSON_AddBoolToObject(manifest, "synthetic", false);
	cJSON_AddStringToObject(manifest, "licence", "CC-BY-4.0");
	cJSON_AddStringToObject(manifest, "attribution", RESPIN_ATTRIBUTION);
	cJSON_AddStringToObject(manifest, "about",
				"Real read speech (Bhojpuri, Chhattisgarhi, Magahi, Marathi, "
				"Maithili) about farming and banking: no clip answers an enrollment "
				"question, so the agent captures nothing and each call ends as the "
				"retry rules say.");
	if (save_json(manifest, out_dir, "corpus.json") != 0)
		goto out;
	fprintf(stderr, "formdesk corpus-respin: %d calls of %d turns from %d clips (%s)\n", n_calls,
		w.turns, n, w.path);
	rc = 0;
out:
	out_drop(&tr);
	out_drop(&calls);
	out_drop(&expected);
	cJSON_Delete(manifest);
	for (int i = 0; i < n; i++) {
		free(clips[i].id);
		free(clips[i].text);
		free(clips[i].path);
	}
	free(clips);
	free(w.field_status);
	form_free(form);
	return rc;
}
