/* corpusgen: a benchmark corpus from caller profiles and the paths of a form
 * (corpusgen.h). */
#include "corpusgen.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ymd.h"
#include "base/str.h"
#include "audio/audiofile.h"
#include "audio/channel.h"
#include "csv.h"
#include "paths.h"
#include "base/vec.h"

extern char **environ;

#define MAX_CONDITIONS 16

struct utt {
	char *id;
	const char *text;   /* borrowed from the profiles */
	char *audio;        /* absolute path of a recording, or "audios/<id>.wav" */
	int condition;
	bool synthetic, variant;
};

struct gen {
	const struct form *form;
	const struct corpusgen_options *o;
	char *profile_dir;
	const cJSON *caller;
	const char *caller_id;
	int caller_index;
	bool *unknown;
	char *cond[MAX_CONDITIONS];
	int n_cond;
	bool dropped[MAX_CONDITIONS];
	bool writing;       /* second pass: write the calls */
	FILE *calls, *expected;
	struct utt *utts;
	int n_utts, cap_utts;
	enum err err;
	char *msg;
};

static void fail(struct gen *g, enum err e, const char *fmt, ...)
{
	va_list ap;
	char *m = NULL;
	if (g->err != ERR_OK)
		return;
	g->err = e;
	va_start(ap, fmt);
	m = str_vprintf(fmt, ap);
	va_end(ap);
	if (g->caller_id) {
		if (asprintf(&g->msg, "%s: callers[%d] ('%s'): %s", g->o->profiles_path,
			     g->caller_index, g->caller_id, m ? m : "?") < 0)
			g->msg = NULL;
	} else if (asprintf(&g->msg, "%s: %s", g->o->profiles_path, m ? m : "?") < 0) {
		g->msg = NULL;
	}
	free(m);
}

/* run: run argv (argv[0] looked up in PATH), its output thrown away; true on exit 0. */
static bool run(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0;
	bool ok = false;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return false;
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) == 0 &&
	    waitpid(pid, &status, 0) == pid)
		ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	posix_spawn_file_actions_destroy(&fa);
	return ok;
}

static bool file_exists(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

/* same_text: whether the file at p holds exactly text. */
static bool same_text(const char *p, const char *text)
{
	FILE *f = fopen(p, "rb");
	size_t n = strlen(text);
	char *buf;
	bool same = false;
	if (!f)
		return false;
	if ((buf = malloc(n + 2))) {
		same = fread(buf, 1, n + 1, f) == n && memcmp(buf, text, n) == 0;
		free(buf);
	}
	fclose(f);
	return same;
}

/* synthesize: speak text with espeak-ng's Hindi voice into dir/audios/id.wav, unless the
 * file is there already with the same words (kept beside it in .wav.txt). */
static void synthesize(struct gen *g, const char *id, const char *text)
{
	char wav[PATH_MAX], part[PATH_MAX + 8], txt[PATH_MAX + 8];
	FILE *f;
	snprintf(wav, sizeof wav, "%s/audios/%s.wav", g->o->out_dir, id);
	snprintf(txt, sizeof txt, "%s.txt", wav);
	if (file_exists(wav) && same_text(txt, text))
		return;
	snprintf(part, sizeof part, "%s.part", wav);
	char *argv[] = {"espeak-ng", "-v", "hi", "-w", part, (char *)text, NULL};
	if (!run(argv) || !file_exists(part)) {
		remove(part);
		fail(g, ERR_AUDIO, "espeak-ng could not speak '%s' (apt-get install espeak-ng)", id);
		return;
	}
	if (rename(part, wav) != 0 || !(f = fopen(txt, "wb"))) {
		fail(g, ERR_IO, "%s: cannot write: %s", wav, strerror(errno));
		return;
	}
	fputs(text, f);
	if (fclose(f) != 0)
		fail(g, ERR_IO, "%s: cannot write: %s", txt, strerror(errno));
}

/* variant: the acoustic variant of src for condition cond into dir/audios/id.wav, made
 * with audio/channel.h (the conditions of `formdesk audio-variants`); "pace" is faster
 * for half the utterances and slower for the other half, by a hash of id. False after
 * saying why (a condition the channel does not know, or audio that cannot be made). */
static bool variant(struct gen *g, const char *src, int cond, const char *id)
{
	char dst[PATH_MAX], srcp[PATH_MAX];
	snprintf(dst, sizeof dst, "%s/audios/%s.wav", g->o->out_dir, id);
	if (file_exists(dst))
		return true;
	if (src[0] == '/')
		snprintf(srcp, sizeof srcp, "%s", src);
	else
		snprintf(srcp, sizeof srcp, "%s/%s", g->o->out_dir, src);
	const char *name = g->cond[cond];
	if (strcmp(name, "pace") == 0) {
		unsigned h = 0;
		for (const char *p = id; *p; p++)
			h = h * 31u + (unsigned char)*p;
		name = h % 2 ? "pace-slow" : "pace-fast";
	}
	float *in = NULL, *out = NULL;
	size_t n = 0, m = 0;
	char *msg = NULL;
	bool ok = audiofile_read(srcp, 16000, &in, &n, &msg) == ERR_OK &&
		  channel_condition(in, n, 16000, name, &out, &m, &msg) == ERR_OK &&
		  audiofile_write(dst, out, m, 16000, &msg) == ERR_OK;
	if (!ok)
		fail(g, ERR_AUDIO, "condition '%s' of %s: %s", g->cond[cond], srcp,
		     msg ? msg : "cannot be made");
	free(in);
	free(out);
	free(msg);
	return ok;
}

/* recording: the profile's recording of answer key in condition cond, as an absolute
 * path; NULL when there is none (or after a failure). */
static char *recording(struct gen *g, const char *field, const cJSON *ans, const char *key,
		       int cond)
{
	const cJSON *recs = cJSON_GetObjectItemCaseSensitive(ans, "recordings");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(recs, key);
	char rel[PATH_MAX * 2], real[PATH_MAX];
	if (cJSON_IsObject(r))
		r = cJSON_GetObjectItemCaseSensitive(r, g->cond[cond]);
	else if (cJSON_IsString(r) && strcmp(g->cond[cond], "ideal") != 0)
		r = NULL; /* a plain path is the ideal recording */
	if (!r)
		return NULL;
	if (!cJSON_IsString(r) || !r->valuestring[0]) {
		fail(g, ERR_INVALID, "field '%s': recordings.%s: must be a file path", field, key);
		return NULL;
	}
	if (r->valuestring[0] == '/')
		snprintf(rel, sizeof rel, "%s", r->valuestring);
	else
		snprintf(rel, sizeof rel, "%s/%s", g->profile_dir, r->valuestring);
	if (!realpath(rel, real)) {
		fail(g, ERR_NOTFOUND, "field '%s': recordings.%s (%s): %s: %s", field, key,
		     g->cond[cond], rel, strerror(errno));
		return NULL;
	}
	return strdup(real);
}

/* utterance: the registered utterance of the caller's answer key to field in condition
 * cond, made on first use; NULL when its audio cannot be had (the condition is then
 * dropped) or after a failure. */
static struct utt *utterance(struct gen *g, const char *field, const cJSON *ans,
			     const char *key, const char *text, int cond)
{
	char *id;
	struct utt *u;
	bool ideal = strcmp(g->cond[cond], "ideal") == 0;
	int r;
	if (strcmp(key, "say") == 0)
		r = ideal ? asprintf(&id, "%s_%s", g->caller_id, field)
			  : asprintf(&id, "%s_%s__%s", g->caller_id, field, g->cond[cond]);
	else
		r = ideal ? asprintf(&id, "%s_%s_%s", g->caller_id, field, key)
			  : asprintf(&id, "%s_%s_%s__%s", g->caller_id, field, key, g->cond[cond]);
	if (r < 0) {
		fail(g, ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < g->n_utts; i++)
		if (strcmp(g->utts[i].id, id) == 0) {
			free(id);
			return g->utts[i].audio ? &g->utts[i] : NULL;
		}
	struct utt *v = vec_grow(g->utts, g->n_utts, &g->cap_utts, sizeof *v, 64);
	if (!v) {
		free(id);
		fail(g, ERR_NOMEM, "out of memory");
		return NULL;
	}
	g->utts = v;
	u = &g->utts[g->n_utts++];
	*u = (struct utt){.id = id, .text = text, .condition = cond};
	if ((u->audio = recording(g, field, ans, key, cond)))
		return u;
	if (g->err != ERR_OK)
		return NULL;
	if (ideal) {
		if (!g->o->synthesize) {
			fail(g, ERR_NOTFOUND,
			     "field '%s': no recording for '%s' in condition 'ideal' (give one in "
			     "'recordings', or pass --synthesize)",
			     field, key);
			return NULL;
		}
		synthesize(g, id, text);
		u->synthetic = true;
	} else {
		/* Another condition: the variant of the ideal audio. */
		int ideal_i = -1;
		for (int c = 0; c < g->n_cond; c++)
			if (strcmp(g->cond[c], "ideal") == 0)
				ideal_i = c;
		struct utt *base = ideal_i >= 0 ? utterance(g, field, ans, key, text, ideal_i) : NULL;
		u = &g->utts[g->n_utts - 1]; /* the array may have moved */
		for (int i = 0; i < g->n_utts; i++)
			if (strcmp(g->utts[i].id, id) == 0)
				u = &g->utts[i];
		if (!base || !variant(g, base->audio, cond, id)) {
			g->dropped[cond] = true;
			return NULL;
		}
		u->synthetic = base->synthetic;
		u->variant = true;
	}
	if (g->err != ERR_OK)
		return NULL;
	if (asprintf(&u->audio, "audios/%s.wav", id) < 0) {
		u->audio = NULL;
		fail(g, ERR_NOMEM, "out of memory");
		return NULL;
	}
	return u;
}

cJSON *corpusgen_stored(const struct form_question *q, const cJSON *v, char *why, size_t n)
{
	struct ymd date;
	const char *must = NULL;
	switch (q->type) {
	case FORM_NUMBER:
		if (cJSON_IsNumber(v))
			return cJSON_CreateNumber(v->valuedouble);
		if (cJSON_IsString(v) && v->valuestring[0] &&
		    strspn(v->valuestring, "0123456789") == strlen(v->valuestring))
			return cJSON_CreateNumber(strtod(v->valuestring, NULL));
		must = "a number";
		break;
	case FORM_DATE:
		if (cJSON_IsString(v) && ymd_parse_stored(v->valuestring, &date))
			return cJSON_CreateString(v->valuestring);
		must = "a date DD-MM-YYYY";
		break;
	case FORM_BOOLEAN:
		if (cJSON_IsBool(v)) {
			const char *label = cJSON_IsTrue(v) ? q->label_true : q->label_false;
			return label ? cJSON_CreateString(label) : cJSON_CreateBool(cJSON_IsTrue(v));
		}
		must = "true or false";
		break;
	case FORM_SINGLE_SELECT:
		if (cJSON_IsString(v))
			for (int i = 0; i < q->n_options; i++)
				if (strcmp(q->options[i], v->valuestring) == 0)
					return cJSON_CreateString(v->valuestring);
		must = "one of the question's options";
		break;
	case FORM_STRING:
	case FORM_MULTI_SELECT:
		if (cJSON_IsString(v) && v->valuestring[0])
			return cJSON_CreateString(v->valuestring);
		must = "a non-empty string";
		break;
	}
	snprintf(why, n, "field '%s': 'value' must be %s", q->name, must ? must : "set");
	return NULL;
}

/* stored: the value FormBharo stores for q answered v, or NULL after saying why. */
static cJSON *stored(struct gen *g, const struct form_question *q, const cJSON *v)
{
	char why[256];
	cJSON *r = corpusgen_stored(q, v, why, sizeof why);
	if (!r)
		fail(g, ERR_INVALID, "%s", why);
	return r;
}

bool corpusgen_ends_call(const struct form_question *q, bool b)
{
	const char *word = b ? "true" : "false", *label = b ? q->label_true : q->label_false;
	for (int i = 0; i < q->n_end_call_values; i++)
		if (strcmp(q->end_call_values[i], word) == 0 ||
		    (label && strcmp(q->end_call_values[i], label) == 0))
			return true;
	return false;
}

static void csv_line(FILE *f, int n, const char *const *v)
{
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		csv_write_field(f, v[i]);
	}
	fputc('\n', f);
}

/* One caller turn of a path: the answer object, which of its words, the words, the field. */
struct turn_plan {
	const cJSON *ans;
	const char *key, *text, *field;
};

static int on_path(void *ctx, long number, const enum paths_answer *answers)
{
	struct gen *g = ctx;
	const struct form *f = g->form;
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(g->caller, "answers");
	cJSON *exp = NULL, *data = cJSON_CreateObject(), *st = cJSON_CreateObject();
	const char *status_word = "complete";
	char *path = NULL, *line = NULL;
	size_t path_len = 0;
	FILE *pf = open_memstream(&path, &path_len);
	struct turn_plan turns[256];
	int n_turns = 0;

	if (!data || !st || !pf) {
		fail(g, ERR_NOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < f->n_questions && g->err == ERR_OK; i++) {
		const struct form_question *q = &f->questions[i];
		const cJSON *ans = cJSON_GetObjectItemCaseSensitive(all, q->name), *text;
		const char *key = "say", *status = "answered";
		cJSON *value;
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
			fail(g, ERR_INVALID, "field '%s': no answers for this question", q->name);
			break;
		}
		text = cJSON_GetObjectItemCaseSensitive(ans, key);
		if (!cJSON_IsString(text) || !text->valuestring[0] ||
		    strpbrk(text->valuestring, "\r\n")) {
			fail(g, ERR_INVALID, "field '%s': '%s' must be the caller's words (one line)",
			     q->name, key);
			break;
		}
		if (answers[i] == PATHS_TRUE || answers[i] == PATHS_FALSE) {
			cJSON b = {0};
			b.type = answers[i] == PATHS_TRUE ? cJSON_True : cJSON_False;
			value = stored(g, q, &b);
			if (corpusgen_ends_call(q, answers[i] == PATHS_TRUE))
				status_word = "screened_out";
		} else if (answers[i] == PATHS_ANSWERED) {
			value = stored(g, q, cJSON_GetObjectItemCaseSensitive(ans, "value"));
		} else {
			value = cJSON_CreateNull();
		}
		if (!value)
			break;
		cJSON_AddItemToObject(data, q->name, value);
		cJSON_AddStringToObject(st, q->name, status);
		if (answers[i] != PATHS_ANSWERED || g->unknown[i] || q->type == FORM_BOOLEAN)
			fprintf(pf, "%s%s=%s", ftell(pf) ? " " : "", q->name,
				answers[i] == PATHS_TRUE    ? "yes"
				: answers[i] == PATHS_FALSE ? "no"
				: answers[i] == PATHS_UNKNOWN ? "unknown"
							      : "given");
		if (n_turns < 256)
			turns[n_turns++] = (struct turn_plan){ans, key, text->valuestring, q->name};
	}
	if (g->err != ERR_OK)
		goto out;
	fclose(pf);
	pf = NULL;
	for (int c = 0; c < g->n_cond; c++) {
		char call_id[192], turn_s[16];
		if (g->dropped[c])
			continue;
		snprintf(call_id, sizeof call_id, "%s-p%02ld-%s", g->caller_id, number, g->cond[c]);
		for (int t = 0; t < n_turns; t++) {
			struct utt *u = utterance(g, turns[t].field, turns[t].ans, turns[t].key,
						  turns[t].text, c);
			if (g->err != ERR_OK)
				goto out;
			if (!u)
				break; /* condition dropped: its audio cannot be had */
			if (g->writing) {
				snprintf(turn_s, sizeof turn_s, "%d", t + 1);
				const char *row[] = {call_id, turn_s, u->id, g->cond[c], g->caller_id,
						     path ? path : ""};
				csv_line(g->calls, 6, row);
			}
		}
		if (!g->writing || g->dropped[c])
			continue;
		if (!(exp = cJSON_CreateObject()) || !cJSON_AddStringToObject(exp, "call_id", call_id) ||
		    !cJSON_AddItemReferenceToObject(exp, "form_data", data) ||
		    !cJSON_AddItemReferenceToObject(exp, "form_status", st) ||
		    !cJSON_AddStringToObject(exp, "status", status_word) ||
		    !(line = cJSON_PrintUnformatted(exp))) {
			fail(g, ERR_NOMEM, "out of memory");
			goto out;
		}
		fprintf(g->expected, "%s\n", line);
		free(line);
		line = NULL;
		cJSON_Delete(exp);
		exp = NULL;
	}
out:
	if (pf)
		fclose(pf);
	free(path);
	free(line);
	cJSON_Delete(exp);
	cJSON_Delete(data);
	cJSON_Delete(st);
	return g->err != ERR_OK;
}

/* write_if_changed: text into dir/name through a temporary file, unless it is already
 * there. */
static void write_if_changed(struct gen *g, const char *name, const char *text, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;
	if (g->err != ERR_OK)
		return;
	snprintf(path, sizeof path, "%s/%s", g->o->out_dir, name);
	if ((f = fopen(path, "rb"))) {
		char *old = malloc(len + 1);
		bool same = old && fread(old, 1, len + 1, f) == len && memcmp(old, text, len) == 0;
		free(old);
		fclose(f);
		if (same)
			return;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(f = fopen(tmp, "wb")) || fwrite(text, 1, len, f) != len) {
		fail(g, ERR_IO, "%s: cannot write: %s", tmp, strerror(errno));
		if (f)
			fclose(f);
		remove(tmp);
		return;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fail(g, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
		remove(tmp);
	}
}

/* list_of: the strings of a JSON array joined by commas (new string), or NULL. */
static char *list_of(const cJSON *a)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	const cJSON *v;
	if (!f)
		return NULL;
	cJSON_ArrayForEach(v, a) if (cJSON_IsString(v))
		fprintf(f, "%s%s", ftell(f) ? "," : "", v->valuestring);
	fclose(f);
	return s;
}

static void parse_conditions(struct gen *g, const char *list)
{
	char *copy = strdup(list ? list : "ideal"), *save = NULL;
	if (!copy) {
		fail(g, ERR_NOMEM, "out of memory");
		return;
	}
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!t[0] || strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(t)) {
			fail(g, ERR_INVALID, "field 'conditions': '%s' must be lower-case letters, "
					     "digits, '_' or '-'", t);
			break;
		}
		if (g->n_cond == MAX_CONDITIONS) {
			fail(g, ERR_INVALID, "field 'conditions': more than %d", MAX_CONDITIONS);
			break;
		}
		if (!(g->cond[g->n_cond++] = strdup(t)))
			fail(g, ERR_NOMEM, "out of memory");
	}
	if (g->err == ERR_OK && g->n_cond == 0)
		fail(g, ERR_INVALID, "field 'conditions': empty");
	free(copy);
}

/* each_caller: the paths of every caller (one pass). */
static void each_caller(struct gen *g, const cJSON *callers)
{
	const cJSON *c;
	int k = 0;
	cJSON_ArrayForEach(c, callers) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
		g->caller = c;
		g->caller_index = k++;
		g->caller_id = cJSON_IsString(id) ? id->valuestring : "?";
		if (!cJSON_IsString(id) || !id->valuestring[0] ||
		    strspn(id->valuestring, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			    strlen(id->valuestring)) {
			fail(g, ERR_INVALID, "field 'id': must be lower-case letters, digits or '_'");
			return;
		}
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "answers"))) {
			fail(g, ERR_INVALID, "field 'answers': must be an object keyed by field name");
			return;
		}
		enum err pe = paths_each(g->form, g->unknown, on_path, g, NULL);
		if (pe != ERR_OK || g->err != ERR_OK) {
			if (g->err == ERR_OK && pe == ERR_INVALID)
				fail(g, ERR_INVALID, "the form has more than 100000 paths");
			else if (g->err == ERR_OK)
				fail(g, ERR_NOMEM, "out of memory");
			return;
		}
	}
	g->caller_id = NULL;
}

enum err corpusgen_build(const struct form *form, const cJSON *profiles,
			 const struct corpusgen_options *o, struct corpusgen_result *res,
			 char **errmsg)
{
	struct gen g = {.form = form, .o = o};
	char *unknown_list = NULL, *cond_list = NULL, *why = NULL, *pcopy = NULL;
	char *calls_s = NULL, *exp_s = NULL, *tr_s = NULL, *man_s = NULL;
	size_t calls_n = 0, exp_n = 0, tr_n = 0;
	FILE *tr = NULL;
	cJSON *man = NULL;
	const cJSON *v, *callers;
	struct ymd today;
	struct corpusgen_result r = {0};
	char audios[PATH_MAX];

	if (!(pcopy = strdup(o->profiles_path)) || !(g.profile_dir = strdup(dirname(pcopy)))) {
		fail(&g, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!cJSON_IsObject(profiles)) {
		fail(&g, ERR_PARSE, "must be a JSON object");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(profiles, "today");
	if (!cJSON_IsString(v) || !ymd_parse_iso(v->valuestring, &today)) {
		fail(&g, ERR_INVALID, "field 'today': must be a date YYYY-MM-DD");
		goto out;
	}
	if (o->unknown)
		unknown_list = strdup(o->unknown);
	else
		unknown_list = list_of(cJSON_GetObjectItemCaseSensitive(profiles, "unknown"));
	if (o->conditions)
		cond_list = strdup(o->conditions);
	else if ((v = cJSON_GetObjectItemCaseSensitive(profiles, "conditions")))
		cond_list = list_of(v);
	parse_conditions(&g, cond_list);
	if (g.err != ERR_OK)
		goto out;
	if (!(g.unknown = calloc((size_t)form->n_questions + 1, sizeof *g.unknown))) {
		fail(&g, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (paths_parse_unknown(form, unknown_list, g.unknown, &why) != ERR_OK) {
		fail(&g, ERR_INVALID, "field 'unknown': %s", why ? why : "bad list");
		goto out;
	}
	callers = cJSON_GetObjectItemCaseSensitive(profiles, "callers");
	if (!cJSON_IsArray(callers) || cJSON_GetArraySize(callers) == 0) {
		fail(&g, ERR_INVALID, "field 'callers': must be a non-empty list");
		goto out;
	}
	if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
		fail(&g, ERR_IO, "%s: cannot make the folder: %s", o->out_dir, strerror(errno));
		goto out;
	}
	snprintf(audios, sizeof audios, "%s/audios", o->out_dir);
	if (mkdir(audios, 0777) != 0 && errno != EEXIST) {
		fail(&g, ERR_IO, "%s: cannot make the folder: %s", audios, strerror(errno));
		goto out;
	}
	/* Pass 1 finds (and makes) every audio file, dropping conditions that cannot have
	 * theirs; pass 2 writes the calls of the conditions kept. */
	each_caller(&g, callers);
	if (g.err != ERR_OK)
		goto out;
	if (!(g.calls = open_memstream(&calls_s, &calls_n)) ||
	    !(g.expected = open_memstream(&exp_s, &exp_n)) || !(tr = open_memstream(&tr_s, &tr_n))) {
		fail(&g, ERR_NOMEM, "out of memory");
		goto out;
	}
	fputs("call_id,turn,utterance_id,condition,caller,path\n", g.calls);
	g.writing = true;
	each_caller(&g, callers);
	if (g.err != ERR_OK)
		goto out;
	fputs("id,text,path,condition,synthetic\n", tr);
	for (int i = 0; i < g.n_utts; i++) {
		struct utt *u = &g.utts[i];
		if (g.dropped[u->condition] || !u->audio)
			continue;
		const char *row[] = {u->id, u->text, u->audio, g.cond[u->condition],
				     u->synthetic ? "true" : "false"};
		csv_line(tr, 5, row);
		r.utterances++;
		r.synthesized += u->synthetic;
		r.variants += u->variant;
		r.recorded += !u->synthetic && !u->variant;
	}
	for (int c = 0; c < g.n_cond; c++)
		if (g.dropped[c])
			snprintf(r.dropped + strlen(r.dropped), sizeof r.dropped - strlen(r.dropped),
				 "%s%s", r.dropped[0] ? "," : "", g.cond[c]);
	fclose(g.calls);
	fclose(g.expected);
	fclose(tr);
	g.calls = g.expected = tr = NULL;
	for (size_t i = 0; i < exp_n; i++)
		r.calls += exp_s[i] == '\n';
	if (r.calls == 0) {
		fail(&g, ERR_INVALID, "no call could be written (conditions left out: %s)",
		     r.dropped[0] ? r.dropped : "none");
		goto out;
	}
	write_if_changed(&g, "transcripts.csv", tr_s, tr_n);
	write_if_changed(&g, "calls.csv", calls_s, calls_n);
	write_if_changed(&g, "expected.jsonl", exp_s, exp_n);
	if (!(man = cJSON_CreateObject())) {
		fail(&g, ERR_NOMEM, "out of memory");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(profiles, "name");
	cJSON_AddStringToObject(man, "name", cJSON_IsString(v) ? v->valuestring : "bench");
	if (o->form_path)
		cJSON_AddStringToObject(man, "form", o->form_path);
	cJSON_AddBoolToObject(man, "synthetic", r.synthesized == r.utterances);
	cJSON_AddStringToObject(man, "today",
				cJSON_GetObjectItemCaseSensitive(profiles, "today")->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(profiles, "attribution");
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(man, "attribution", v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(profiles, "about");
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(man, "about", v->valuestring);
	if (!(man_s = cJSON_Print(man))) {
		fail(&g, ERR_NOMEM, "out of memory");
		goto out;
	}
	{
		size_t n = strlen(man_s);
		char *t = realloc(man_s, n + 2);
		if (!t) {
			fail(&g, ERR_NOMEM, "out of memory");
			goto out;
		}
		man_s = t;
		man_s[n] = '\n';
		man_s[n + 1] = '\0';
		write_if_changed(&g, "corpus.json", man_s, n + 1);
	}
out:
	if (g.calls)
		fclose(g.calls);
	if (g.expected)
		fclose(g.expected);
	if (tr)
		fclose(tr);
	if (g.err == ERR_OK && res)
		*res = r;
	if (g.err != ERR_OK && errmsg) {
		*errmsg = g.msg;
		g.msg = NULL;
	}
	free(g.msg);
	for (int i = 0; i < g.n_utts; i++) {
		free(g.utts[i].id);
		free(g.utts[i].audio);
	}
	free(g.utts);
	for (int c = 0; c < g.n_cond; c++)
		free(g.cond[c]);
	free(g.unknown);
	free(g.profile_dir);
	free(pcopy);
	free(unknown_list);
	free(cond_list);
	free(why);
	free(calls_s);
	free(exp_s);
	free(tr_s);
	free(man_s);
	cJSON_Delete(man);
	return g.err;
}
