/* corpus: load and check a corpus folder (format: corpus/README.md). */
#include "corpus.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "csv.h"
#include "base/str.h"
#include "base/vec.h"

/* One row of transcripts.csv. */
struct utt {
	char *id;
	char *text;
	char *audio; /* absolute */
};

struct loader {
	struct corpus *c;
	struct utt *utts;
	int n_utts;
	char **errmsg;
};

static void set_msg(char **errmsg, const char *fmt, ...)
{
	va_list ap;
	if (!errmsg)
		return;
	free(*errmsg);
	va_start(ap, fmt);
	*errmsg = str_vprintf(fmt, ap);
	va_end(ap);
}

static char *join(const char *dir, const char *name)
{
	char *s;
	if (name[0] == '/')
		return strdup(name);
	if (asprintf(&s, "%s/%s", dir, name) < 0)
		return NULL;
	return s;
}

static bool is_file(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

char *corpus_resolve(const char *arg)
{
	char exe[PATH_MAX];
	ssize_t n;
	char *s = NULL;

	if (strcmp(arg, "demo") != 0 && strcmp(arg, "respin") != 0)
		return strdup(arg);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		if (asprintf(&s, "%s/corpus/%s", exe, arg) < 0)
			return NULL;
		if (is_dir(s))
			return s;
		free(s);
	}
	if (asprintf(&s, "corpus/%s", arg) < 0)
		return NULL;
	return s;
}

/* read_text: the whole file at path as a string (caller frees). */
static enum err read_text(const char *path, char **out, char **errmsg)
{
	size_t len;
	return csv_read_file(path, out, &len, errmsg);
}

/* line_of: the 1-based line of text at byte offset off. */
static int line_of(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && text[i]; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

/* key_line: the line where "key" first appears in text (1 when it does not): where a
 * corpus.json field is, for messages. */
static int key_line(const char *text, const char *key)
{
	char pat[64];
	const char *p;
	snprintf(pat, sizeof pat, "\"%s\"", key);
	p = strstr(text, pat);
	return p ? line_of(text, (size_t)(p - text)) : 1;
}

/* json_error: "FILE:LINE: bad JSON near '...'" for the last cJSON_Parse failure in text. */
static void json_error(char **errmsg, const char *file, int line_base, const char *text)
{
	const char *at = cJSON_GetErrorPtr();
	int line = line_base;
	char near[24] = "";
	if (at && at >= text && at <= text + strlen(text)) {
		line = line_base + line_of(text, (size_t)(at - text)) - 1;
		size_t k = 0;
		for (; k < sizeof near - 1 && at[k] && at[k] != '\n'; k++)
			near[k] = at[k];
		near[k] = '\0';
	}
	if (near[0])
		set_msg(errmsg, "%s:%d: bad JSON near '%s'", file, line, near);
	else
		set_msg(errmsg, "%s:%d: bad JSON: the text ends too soon", file, line);
}

static enum err dup_opt(const cJSON *root, const char *key, char **slot, const char *file,
			const char *text, char **errmsg)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
	if (!v || cJSON_IsNull(v))
		return ERR_OK;
	if (!cJSON_IsString(v)) {
		set_msg(errmsg, "%s:%d: field '%s': must be a string", file, key_line(text, key), key);
		return ERR_INVALID;
	}
	return (*slot = strdup(v->valuestring)) ? ERR_OK : ERR_NOMEM;
}

static enum err load_manifest(struct loader *L)
{
	struct corpus *c = L->c;
	char *file = join(c->dir, "corpus.json");
	char *text = NULL;
	cJSON *root = NULL;
	const cJSON *v;
	enum err e = ERR_NOMEM;

	if (!file)
		goto out;
	if (!is_file(file)) {
		e = ERR_IO;
		set_msg(L->errmsg, "%s: no corpus here (corpus.json is missing)", c->dir);
		goto out;
	}
	if ((e = read_text(file, &text, L->errmsg)) != ERR_OK)
		goto out;
	e = ERR_PARSE;
	if (!(root = cJSON_Parse(text))) {
		json_error(L->errmsg, file, 1, text);
		goto out;
	}
	e = ERR_INVALID;
	if (!cJSON_IsObject(root)) {
		set_msg(L->errmsg, "%s:1: must be a JSON object", file);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "name");
	if (!cJSON_IsString(v) || !v->valuestring[0]) {
		set_msg(L->errmsg, "%s:%d: field 'name': %s", file, key_line(text, "name"),
			v ? "must be a non-empty string" : "missing");
		goto out;
	}
	if (!(c->name = strdup(v->valuestring))) {
		e = ERR_NOMEM;
		goto out;
	}
	if ((e = dup_opt(root, "form", &c->form, file, text, L->errmsg)) != ERR_OK ||
	    (e = dup_opt(root, "attribution", &c->attribution, file, text, L->errmsg)) != ERR_OK ||
	    (e = dup_opt(root, "licence", &c->licence, file, text, L->errmsg)) != ERR_OK)
		goto out;
	e = ERR_INVALID;
	v = cJSON_GetObjectItemCaseSensitive(root, "synthetic");
	if (v && !cJSON_IsBool(v)) {
		set_msg(L->errmsg, "%s:%d: field 'synthetic': must be true or false", file,
			key_line(text, "synthetic"));
		goto out;
	}
	c->synthetic = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(root, "today");
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsString(v) || !ymd_parse_iso(v->valuestring, &c->today)) {
			set_msg(L->errmsg, "%s:%d: field 'today': must be a date YYYY-MM-DD", file,
				key_line(text, "today"));
			goto out;
		}
		c->has_today = true;
	}
	e = ERR_OK;
out:
	cJSON_Delete(root);
	free(text);
	free(file);
	return e;
}

/* A row wider than its header: most often an unquoted comma, which would silently cut a
 * field short. */
#define TOO_MANY_FIELDS "%s:%d: the row has %d fields, the header %d (quote a field that holds a comma)"

/* header: the column of each wanted name in the header record; -1 when absent. Fails
 * for a required column that is missing. */
static enum err header(struct loader *L, const char *file, int line, char **f, int n,
		       const char *const *names, const bool *required, int *col, int n_names)
{
	for (int k = 0; k < n_names; k++) {
		col[k] = -1;
		for (int i = 0; i < n; i++)
			if (strcmp(f[i], names[k]) == 0) {
				if (col[k] >= 0) {
					set_msg(L->errmsg,
						"%s:%d: field '%s': the header names the column twice "
						"(columns %d and %d)",
						file, line, names[k], col[k] + 1, i + 1);
					return ERR_PARSE;
				}
				col[k] = i;
			}
		if (col[k] < 0 && required[k]) {
			set_msg(L->errmsg, "%s:%d: field '%s': missing column (the header must name it)",
				file, line, names[k]);
			return ERR_PARSE;
		}
	}
	return ERR_OK;
}

/* table_open: open the CSV file with its header, which must name the required ones of
 * the k names; the column of each name goes to col (-1 when absent), the header's width
 * to *width. Output: *csv (caller frees with csv_free). Errors (L->errmsg says where):
 * those of csv_open and csv_next, ERR_PARSE (an empty file, a bad header), ERR_NOMEM. */
static enum err table_open(struct loader *L, const char *file, const char *const *names,
			   const bool *required, int *col, int k, struct csv **csv, int *width)
{
	char **f = NULL, need[200] = "";
	int n = 0, line;
	enum err e;

	if ((e = csv_open(file, csv, L->errmsg)) != ERR_OK)
		return e;
	if ((e = csv_next(*csv, &f, &n, &line, L->errmsg)) == ERR_OK && n == 0) {
		for (int i = 0; i < k; i++)
			if (required[i])
				snprintf(need + strlen(need), sizeof need - strlen(need), "%s%s",
					 need[0] ? "," : "", names[i]);
		set_msg(L->errmsg, "%s:1: field '%s': the file is empty (it needs the header %s)",
			file, names[0], need);
		e = ERR_PARSE;
	}
	if (e == ERR_OK)
		e = header(L, file, line, f, n, names, required, col, k);
	*width = n;
	csv_fields_free(f, n);
	if (e != ERR_OK) {
		csv_free(*csv);
		*csv = NULL;
	}
	return e;
}

/* table_row: the next row of a table table_open opened, its fields in *f (*n of them; 0
 * at the end; the previous row's are freed first), at *line. A row without one of the k
 * named columns, or wider than the header, is refused. Errors (L->errmsg says where):
 * those of csv_next, ERR_PARSE. */
static enum err table_row(struct loader *L, struct csv *csv, const char *file,
			  const char *const *names, const int *col, int k, int width, char ***f,
			  int *n, int *line)
{
	enum err e;

	csv_fields_free(*f, *n);
	*f = NULL;
	*n = 0;
	if ((e = csv_next(csv, f, n, line, L->errmsg)) != ERR_OK || *n == 0)
		return e;
	for (int i = 0; i < k; i++)
		if (col[i] >= *n) {
			set_msg(L->errmsg, "%s:%d: field '%s': missing (the row has %d fields)", file,
				*line, names[i], *n);
			return ERR_PARSE;
		}
	if (*n > width) {
		set_msg(L->errmsg, TOO_MANY_FIELDS, file, *line, *n, width);
		return ERR_PARSE;
	}
	return ERR_OK;
}

static int utt_cmp(const void *a, const void *b)
{
	return strcmp(((const struct utt *)a)->id, ((const struct utt *)b)->id);
}

static const struct utt *utt_find(const struct loader *L, const char *id)
{
	struct utt key = {.id = (char *)id};
	/* no utterances: no array to search (bsearch's base must not be NULL) */
	return L->n_utts ? bsearch(&key, L->utts, (size_t)L->n_utts, sizeof *L->utts, utt_cmp) : NULL;
}

/* audio_for: the audio file of utterance id: the explicit path, else audios/<id>.wav,
 * .flac or .mp3. Output: *out new absolute path or NULL when none exists. Errors: ERR_IO
 * when the file there is not a regular file (a folder, a pipe, a device: never read; *out
 * names it), ERR_NOMEM. */
static enum err audio_for(const char *dir, const char *id, const char *path, char **out)
{
	static const char *const exts[] = {"wav", "flac", "mp3"};
	char *p;
	*out = NULL;
	struct stat sb;
	if (path && path[0]) {
		if (!(p = join(dir, path)))
			return ERR_NOMEM;
		*out = p;
		if (is_file(p))
			return ERR_OK;
		*out = NULL;
		if (stat(p, &sb) == 0) { /* there, but a pipe or a device is never read */
			*out = p;
			return ERR_IO;
		}
		free(p);
		return ERR_OK;
	}
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
		if (asprintf(&p, "%s/audios/%s.%s", dir, id, exts[i]) < 0)
			return ERR_NOMEM;
		*out = p;
		if (is_file(p))
			return ERR_OK;
		if (stat(p, &sb) == 0)
			return ERR_IO;
		*out = NULL;
		free(p);
	}
	return ERR_OK;
}

static enum err load_transcripts(struct loader *L)
{
	static const char *const names[] = {"id", "text", "path"};
	static const bool required[] = {true, true, false};
	char *file = join(L->c->dir, "transcripts.csv");
	struct csv *csv = NULL;
	char **f = NULL;
	int n = 0, line, col[3], cap = 0, width;
	enum err e = ERR_NOMEM;

	if (!file || (e = table_open(L, file, names, required, col, 3, &csv, &width)) != ERR_OK)
		goto out;
	for (;;) {
		if ((e = table_row(L, csv, file, names, col, 3, width, &f, &n, &line)) != ERR_OK)
			goto out;
		if (n == 0)
			break;
		e = ERR_INVALID;
		const char *id = f[col[0]], *path = col[2] >= 0 ? f[col[2]] : NULL;
		if (!id[0]) {
			set_msg(L->errmsg, "%s:%d: field 'id': empty", file, line);
			goto out;
		}
		if (strchr(id, '/')) {
			set_msg(L->errmsg, "%s:%d: field 'id': '%s' must not contain '/'", file, line, id);
			goto out;
		}
		e = ERR_NOMEM;
		struct utt *v = vec_grow(L->utts, L->n_utts, &cap, sizeof *v, 64);
		if (!v)
			goto out;
		L->utts = v;
		struct utt *u = &L->utts[L->n_utts];
		if (!(u->id = strdup(id)) || !(u->text = strdup(f[col[1]]))) {
			free(u->id);
			free(u->text);
			goto out;
		}
		L->n_utts++;
		if ((e = audio_for(L->c->dir, id, path, &u->audio)) == ERR_IO) {
			set_msg(L->errmsg, "%s:%d: field '%s': %s is not a regular file (a folder, a pipe "
				"or a device); refused", file, line, path && path[0] ? "path" : "id", u->audio);
			e = ERR_INVALID;
			goto out;
		} else if (e != ERR_OK) {
			goto out;
		}
		e = ERR_INVALID;
		if (!u->audio) {
			if (path && path[0])
				set_msg(L->errmsg, "%s:%d: field 'path': audio file %s does not exist", file,
					line, path);
			else
				set_msg(L->errmsg,
					"%s:%d: field 'id': no audio file audios/%s.wav (nor .flac, .mp3)",
					file, line, id);
			goto out;
		}
	}
	if (L->n_utts == 0) {
		set_msg(L->errmsg, "%s: no utterances: the file holds only its header row", file);
		e = ERR_INVALID;
		goto out;
	}
	qsort(L->utts, (size_t)L->n_utts, sizeof *L->utts, utt_cmp);
	for (int i = 1; i < L->n_utts; i++)
		if (strcmp(L->utts[i - 1].id, L->utts[i].id) == 0) {
			set_msg(L->errmsg, "%s: field 'id': utterance '%s' is listed twice", file,
				L->utts[i].id);
			e = ERR_INVALID;
			goto out;
		}
	e = ERR_OK;
out:
	csv_fields_free(f, n);
	csv_free(csv);
	free(file);
	return e;
}

static bool is_condition(const char *s)
{
	if (!s[0])
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static struct corpus_call *find_call(struct corpus *c, const char *id)
{
	for (int i = c->n_calls - 1; i >= 0; i--)
		if (strcmp(c->calls[i].id, id) == 0)
			return &c->calls[i];
	return NULL;
}

static enum err load_calls(struct loader *L)
{
	enum { C_CALL, C_TURN, C_UTT, C_COND, C_CALLER, C_PATH, C_BARGE, N_COLS };
	static const char *const names[] = {"call_id", "turn", "utterance_id", "condition",
					    "caller", "path", "barge_in_ms"};
	static const bool required[] = {true, true, true, true, false, false, false};
	struct corpus *c = L->c;
	char *file = join(c->dir, "calls.csv");
	struct csv *csv = NULL;
	char **f = NULL;
	int n = 0, line, col[N_COLS], cap = 0, width;
	enum err e = ERR_NOMEM;

	if (!file ||
	    (e = table_open(L, file, names, required, col, N_COLS, &csv, &width)) != ERR_OK)
		goto out;
	for (;;) {
		e = table_row(L, csv, file, names, col, N_COLS, width, &f, &n, &line);
		if (e != ERR_OK)
			goto out;
		if (n == 0)
			break;
		const char *call_id = f[col[C_CALL]], *turn_s = f[col[C_TURN]];
		const char *utt_id = f[col[C_UTT]], *cond = f[col[C_COND]];
		const char *caller = col[C_CALLER] >= 0 ? f[col[C_CALLER]] : "";
		const char *path = col[C_PATH] >= 0 ? f[col[C_PATH]] : "";
		const char *barge = col[C_BARGE] >= 0 ? f[col[C_BARGE]] : "";
		char *end;
		long turn, barge_ms = -1;

		e = ERR_INVALID;
		if (!call_id[0]) {
			set_msg(L->errmsg, "%s:%d: field 'call_id': empty", file, line);
			goto out;
		}
		errno = 0;
		turn = strtol(turn_s, &end, 10);
		if (!turn_s[0] || *end || errno || turn < 1 || turn > 100000) {
			set_msg(L->errmsg, "%s:%d: field 'turn': '%s' is not a turn number (1, 2, ...)",
				file, line, turn_s);
			goto out;
		}
		if (barge[0]) {
			errno = 0;
			barge_ms = strtol(barge, &end, 10);
			if (*end || errno || barge_ms < 0 || barge_ms > CORPUS_MAX_BARGE_IN_MS) {
				set_msg(L->errmsg,
					"%s:%d: field 'barge_in_ms': '%s' is not a whole number of ms "
					"from 0 to %d (or empty: no barge-in)",
					file, line, barge, CORPUS_MAX_BARGE_IN_MS);
				goto out;
			}
		}
		struct corpus_call *call = c->n_calls ? &c->calls[c->n_calls - 1] : NULL;
		if (!call || strcmp(call->id, call_id) != 0) {
			if (find_call(c, call_id)) {
				set_msg(L->errmsg,
					"%s:%d: field 'call_id': call '%s' appears again after other "
					"calls (keep each call's turns together)",
					file, line, call_id);
				goto out;
			}
			e = ERR_NOMEM;
			struct corpus_call *v = vec_grow(c->calls, c->n_calls, &cap, sizeof *v, 64);
			if (!v)
				goto out;
			c->calls = v;
			call = &c->calls[c->n_calls];
			if (!(call->id = strdup(call_id)))
				goto out;
			c->n_calls++;
			if ((caller[0] && !(call->caller = strdup(caller))) ||
			    (path[0] && !(call->path = strdup(path))))
				goto out;
			e = ERR_INVALID;
		}
		if (turn != call->n_turns + 1) {
			set_msg(L->errmsg,
				"%s:%d: field 'turn': expected %d (turns of call '%s' are numbered "
				"1, 2, ... in order), got %ld",
				file, line, call->n_turns + 1, call_id, turn);
			goto out;
		}
		const struct utt *u = utt_find(L, utt_id);
		if (!u) {
			set_msg(L->errmsg,
				"%s:%d: field 'utterance_id': unknown utterance '%s' (not in "
				"transcripts.csv)",
				file, line, utt_id);
			goto out;
		}
		if (!is_condition(cond)) {
			set_msg(L->errmsg,
				"%s:%d: field 'condition': '%s' is not a condition word (ideal, noise, "
				"distance, pace, ...: lower-case letters, digits, '_' or '-')",
				file, line, cond);
			goto out;
		}
		e = ERR_NOMEM;
		struct corpus_turn *t = realloc(call->turns, (size_t)(call->n_turns + 1) * sizeof *t);
		if (!t)
			goto out;
		call->turns = t;
		t = &call->turns[call->n_turns];
		memset(t, 0, sizeof *t);
		call->n_turns++;
		if (!(t->utterance_id = strdup(u->id)) || !(t->audio = strdup(u->audio)) ||
		    !(t->transcript = strdup(u->text)) || !(t->condition = strdup(cond)))
			goto out;
		t->synthetic = c->synthetic;
		t->barge_in_ms = barge_ms;
	}
	e = ERR_OK;
	if (c->n_calls == 0) {
		set_msg(L->errmsg, "%s:%d: field 'call_id': the corpus has no calls", file, line);
		e = ERR_INVALID;
	}
out:
	csv_fields_free(f, n);
	csv_free(csv);
	free(file);
	return e;
}

static bool is_one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

/* check_expected: one parsed line of expected.jsonl; fills its call on success. */
static enum err check_expected(struct loader *L, const char *file, int line, cJSON *o)
{
	static const char *const field_words[] = {"answered", "skipped", "empty", NULL};
	static const char *const call_words[] = {"in_progress", "complete", "screened_out",
						 "failed", NULL};
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "call_id");
	cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "form_data");
	cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "form_status");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(o, "status");
	const cJSON *it;
	struct corpus_call *call;

	if (!cJSON_IsObject(o)) {
		set_msg(L->errmsg, "%s:%d: must be a JSON object", file, line);
		return ERR_INVALID;
	}
	if (!cJSON_IsString(id)) {
		set_msg(L->errmsg, "%s:%d: field 'call_id': %s", file, line,
			id ? "must be a string" : "missing");
		return ERR_INVALID;
	}
	if (!(call = find_call(L->c, id->valuestring))) {
		set_msg(L->errmsg, "%s:%d: field 'call_id': unknown call '%s' (not in calls.csv)", file,
			line, id->valuestring);
		return ERR_INVALID;
	}
	if (call->expected_status) {
		set_msg(L->errmsg, "%s:%d: field 'call_id': call '%s' is given twice", file, line,
			id->valuestring);
		return ERR_INVALID;
	}
	if (!cJSON_IsObject(data)) {
		set_msg(L->errmsg, "%s:%d: field 'form_data': %s", file, line,
			data ? "must be an object" : "missing");
		return ERR_INVALID;
	}
	if (!cJSON_IsObject(status)) {
		set_msg(L->errmsg, "%s:%d: field 'form_status': %s", file, line,
			status ? "must be an object" : "missing");
		return ERR_INVALID;
	}
	cJSON_ArrayForEach(it, status) {
		if (!cJSON_IsString(it) || !is_one_of(it->valuestring, field_words)) {
			set_msg(L->errmsg,
				"%s:%d: field 'form_status.%s': must be \"answered\", \"skipped\" or "
				"\"empty\"",
				file, line, it->string);
			return ERR_INVALID;
		}
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(data, it->string);
		if (strcmp(it->valuestring, "answered") == 0 && (!v || cJSON_IsNull(v))) {
			set_msg(L->errmsg, "%s:%d: field 'form_data.%s': answered but has no value", file,
				line, it->string);
			return ERR_INVALID;
		}
	}
	if (!cJSON_IsString(cs) || !is_one_of(cs->valuestring, call_words)) {
		set_msg(L->errmsg,
			"%s:%d: field 'status': %s", file, line,
			cs ? "must be \"complete\", \"screened_out\", \"failed\" or \"in_progress\""
			   : "missing");
		return ERR_INVALID;
	}
	if (!(call->expected_call_status = strdup(cs->valuestring)))
		return ERR_NOMEM;
	call->expected_data = cJSON_DetachItemViaPointer(o, data);
	call->expected_status = cJSON_DetachItemViaPointer(o, status);
	return ERR_OK;
}

static enum err load_expected(struct loader *L)
{
	char *file = join(L->c->dir, "expected.jsonl");
	char *text = NULL, *p, *nl;
	int line = 0;
	enum err e = ERR_NOMEM;

	if (!file)
		goto out;
	e = ERR_OK;
	struct stat sb;
	if (stat(file, &sb) != 0 && errno == ENOENT)
		goto out; /* expected forms are optional; anything else there is read, or refused */
	if ((e = read_text(file, &text, L->errmsg)) != ERR_OK)
		goto out;
	for (p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
		line++;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		const char *q = p;
		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (!*q)
			continue;
		cJSON *o = cJSON_Parse(p);
		if (!o) {
			json_error(L->errmsg, file, line, p);
			e = ERR_PARSE;
			goto out;
		}
		e = check_expected(L, file, line, o);
		cJSON_Delete(o);
		if (e != ERR_OK)
			goto out;
	}
out:
	free(text);
	free(file);
	return e;
}

/* missing_bundled: the message for a bundled corpus folder that was never made. */
static bool missing_bundled(const char *dir, char **errmsg)
{
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	if (is_dir(dir))
		return false;
	if (strcmp(base, "respin") == 0) {
		set_msg(errmsg,
			"%s: the real-speech corpus has not been made: it is built from the RESPIN "
			"sample clips (IISc, CC-BY-4.0; the sample folder of "
			"github.com/labspire/respin_did_interspeech25, laid out as "
			"bh/ ch/ mg/ mr/ mt/ with text.tsv). Put them at ../shared/corpus/respin beside "
			"the repository or name their folder in FORMDESK_RESPIN, then run 'make "
			"corpora'.",
			dir);
		return true;
	}
	if (strcmp(base, "demo") == 0) {
		set_msg(errmsg, "%s: the demo corpus has not been made: run 'make' (or 'make "
				"corpora') in the source tree",
			dir);
		return true;
	}
	set_msg(errmsg, "%s: no such corpus folder", dir);
	return true;
}

enum err corpus_load(const char *dir, struct corpus **out, char **errmsg)
{
	struct loader L = {.errmsg = errmsg};
	char real[PATH_MAX];
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	if (missing_bundled(dir, errmsg)) {
		e = ERR_IO;
		goto out;
	}
	if (!(L.c = calloc(1, sizeof *L.c)))
		goto out;
	if (!(L.c->dir = strdup(realpath(dir, real) ? real : dir)))
		goto out;
	if ((e = load_manifest(&L)) != ERR_OK || (e = load_transcripts(&L)) != ERR_OK ||
	    (e = load_calls(&L)) != ERR_OK || (e = load_expected(&L)) != ERR_OK)
		goto out;
out:
	for (int i = 0; i < L.n_utts; i++) {
		free(L.utts[i].id);
		free(L.utts[i].text);
		free(L.utts[i].audio);
	}
	free(L.utts);
	if (e == ERR_OK) {
		*out = L.c;
		return ERR_OK;
	}
	corpus_free(L.c);
	return e;
}

void corpus_free(struct corpus *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n_calls; i++) {
		struct corpus_call *call = &c->calls[i];
		for (int k = 0; k < call->n_turns; k++) {
			free(call->turns[k].utterance_id);
			free(call->turns[k].audio);
			free(call->turns[k].transcript);
			free(call->turns[k].condition);
		}
		free(call->turns);
		free(call->id);
		free(call->caller);
		free(call->path);
		cJSON_Delete(call->expected_data);
		cJSON_Delete(call->expected_status);
		free(call->expected_call_status);
	}
	free(c->calls);
	free(c->dir);
	free(c->name);
	free(c->form);
	free(c->attribution);
	free(c->licence);
	free(c);
}
