/* corpus_respin: the generator of the bundled real-speech corpus (format: corpus/README.md).
 * (The demo corpus is made by `formdesk corpus build` from corpus/demo/profiles.json.)
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

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "base/ymd.h"
#include "sessions/corpus/csv.h"
#include "sessions/corpus/paths.h"

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
		compose_say_issues(&is);
	}
	form_issues_free(&is);
	return f;
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

/* The caller's one habit (not a rule of the form): asked a question until it is answered,
 * they hang up after this many tries. */
#define SILENT_HANGUP_TRIES 3

/* silent_walk: the call of a caller who is never understood, as the rule layer itself runs
 * it: flow_start, then flow_turn with nothing extracted until the call ends (retries,
 * exhausted actions, branches and the end are the flow's). Nothing is ever answered, so
 * no date is read: "today" is a fixed day. Output: w (statuses are static strings).
 * Errors: ERR_NOMEM, ERR_INVALID (a form with no questions). */
static enum err silent_walk(const struct form *f, struct silent_call *w)
{
	struct flow *fl = NULL;
	struct decision *d = NULL;
	size_t used = 0;
	bool hung_up = false;
	enum err e;

	w->turns = 0;
	w->path[0] = '\0';
	if ((e = flow_new(f, NULL, (struct ymd){2025, 1, 1}, &fl)) != ERR_OK)
		return e;
	if ((e = flow_start(fl, &d)) != ERR_OK)
		goto out;
	while (flow_status(fl) == CALL_IN_PROGRESS && !hung_up) {
		int q = flow_current(fl);
		const char *what = NULL;
		if (flow_retry_limit(fl, q) < 0 && flow_retries_used(fl, q) >= SILENT_HANGUP_TRIES) {
			hung_up = true;
			what = "hung_up";
		} else {
			decision_free(d);
			d = NULL;
			if ((e = flow_turn(fl, NULL, &d)) != ERR_OK)
				goto out;
			w->turns++;
			/* put to the caller, nothing captured, out of retries: "skipped"
			 * (concepts/answers.mdx), also when that ends the call */
			if (flow_field_status(fl, q) == FIELD_SKIPPED)
				what = flow_status(fl) == CALL_FAILED ? "failed" : "skipped";
		}
		if (what && used < sizeof w->path) {
			used += (size_t)snprintf(w->path + used, sizeof w->path - used, "%s%s=%s",
						 used ? " " : "", f->questions[q].name, what);
			if (used >= sizeof w->path)
				used = sizeof w->path - 1;
		}
	}
	w->status = hung_up ? "failed" : call_status_name(flow_status(fl));
	for (int i = 0; i < f->n_questions; i++)
		w->field_status[i] = field_status_name(flow_field_status(fl, i));
out:
	decision_free(d);
	flow_free(fl);
	return e;
}

int cmd_corpus_respin(int argc, char **argv)
{
	const char *clips_dir = NULL, *out_dir = NULL, *form_path = COMPOSE_DEFAULT_FORM;
	struct form *form = NULL;
	struct clip *clips = NULL;
	struct silent_call w = {0};
	struct out tr = {0}, calls = {0}, expected = {0};
	cJSON *manifest = NULL;
	int n = -1, rc = 2, n_calls = 0;
	enum err e;

	struct corpus_respin_opts ro = {.form = COMPOSE_DEFAULT_FORM};
	enum opts_result pr = opts_parse(&cmd_corpus_respin_opts, argc, argv, &ro, NULL, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	clips_dir = ro.clips;
	out_dir = ro.out;
	form_path = ro.form;
	if (!(form = load_form("corpus-respin", form_path)))
		goto out;
	if (!(w.field_status = calloc((size_t)form->n_questions + 1, sizeof *w.field_status)))
		goto out;
	if ((e = silent_walk(form, &w)) != ERR_OK) {
		fprintf(stderr, "formdesk corpus-respin: %s: %s\n", form_path, err_str(e));
		goto out;
	}
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
