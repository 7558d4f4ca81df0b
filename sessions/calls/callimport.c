/* callimport: outside calls read as a corpus (see callimport.h). */
#include "callimport.h"

#include <libgen.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "base/utf8.h"
#include "base/str.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/csv.h"
#include "runs.h"

/* add_call: a new call id at the end of c. Returns it, NULL when out of memory. */
static struct corpus_call *add_call(struct corpus *c, const char *id)
{
	struct corpus_call *v = realloc(c->calls, (size_t)(c->n_calls + 1) * sizeof *v), *call;
	if (!v)
		return NULL;
	c->calls = v;
	call = &v[c->n_calls];
	memset(call, 0, sizeof *call);
	if (!(call->id = strdup(id)))
		return NULL;
	c->n_calls++;
	return call;
}

/* add_turn: the caller's words text (and recording audio, NULL none, relative to dir) as
 * the next turn of call. Errors: ERR_INVALID (the recording is not there: *errmsg),
 * ERR_NOMEM. */
static enum err add_turn(struct corpus_call *call, const char *dir, const char *text,
			 const char *audio, const char *where, char **errmsg)
{
	struct corpus_turn *v = realloc(call->turns, (size_t)(call->n_turns + 1) * sizeof *v), *t;
	char *path = NULL;

	if (!v)
		return ERR_NOMEM;
	call->turns = v;
	if (audio) {
		path = audio[0] == '/' ? strdup(audio) : str_printf("%s/%s", dir, audio);
		if (!path)
			return ERR_NOMEM;
		if (access(path, R_OK) != 0) {
			*errmsg = str_printf("%s: audio '%s': no such file", where, path);
			free(path);
			return ERR_INVALID;
		}
	}
	t = &v[call->n_turns];
	memset(t, 0, sizeof *t);
	t->barge_in_ms = -1;
	t->audio = path;
	if (!(t->transcript = strdup(text)) || !(t->condition = strdup("imported")) ||
	    !(t->utterance_id = str_printf("%s-%d", call->id, call->n_turns + 1))) {
		free(t->transcript);
		free(t->condition);
		free(path);
		return ERR_NOMEM;
	}
	call->n_turns++;
	return ERR_OK;
}

static const char *str_of(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* utterance: one {"speaker","text"[,"audio"]} of call: a user's becomes a turn. */
static enum err utterance(struct corpus_call *call, const char *dir, const cJSON *u,
			  const char *where, char **errmsg)
{
	const char *speaker = str_of(u, "speaker"), *text = str_of(u, "text");
	const cJSON *audio = cJSON_GetObjectItemCaseSensitive(u, "audio");

	if (!cJSON_IsObject(u) || !speaker || !text ||
	    (audio && !cJSON_IsNull(audio) && !cJSON_IsString(audio))) {
		*errmsg = str_printf("%s: expected {\"speaker\": \"agent\"|\"user\", \"text\": "
				      "\"...\"[, \"audio\": \"FILE\"]}", where);
		return ERR_INVALID;
	}
	if (strcmp(speaker, "agent") == 0)
		return ERR_OK;
	if (strcmp(speaker, "user") != 0) {
		*errmsg = str_printf("%s: speaker '%s': expected agent or user", where, speaker);
		return ERR_INVALID;
	}
	return add_turn(call, dir, text, cJSON_GetStringValue(audio), where, errmsg);
}

static enum err load_jsonl(const char *path, const char *text, const char *dir,
			   struct corpus *c, char **errmsg)
{
	int line = 0;
	enum err e = ERR_OK;

	for (const char *p = text; *p && e == ERR_OK;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *l = strndup(p, n), where[PATH_MAX + 32];
		cJSON *o = NULL;
		const char *id;

		line++;
		p += n + (end != NULL);
		snprintf(where, sizeof where, "%s:%d", path, line);
		if (!l)
			return ERR_NOMEM;
		if (strspn(l, " \t\r") == strlen(l)) {
			free(l);
			continue;
		}
		if (!(o = cJSON_Parse(l))) {
			*errmsg = str_printf("%s: not a JSON object", where);
			e = ERR_PARSE;
		} else if (!(id = str_of(o, "call")) || !id[0]) {
			*errmsg = str_printf("%s: no \"call\" (the call's id)", where);
			e = ERR_INVALID;
		} else {
			struct corpus_call *call = c->n_calls ? &c->calls[c->n_calls - 1] : NULL;
			if (!call || strcmp(call->id, id) != 0) {
				for (int i = 0; i < c->n_calls; i++)
					if (strcmp(c->calls[i].id, id) == 0) {
						*errmsg = str_printf("%s: call '%s' again after other "
								      "calls: a call's lines go together",
								      where, id);
						e = ERR_INVALID;
					}
				if (e == ERR_OK && !(call = add_call(c, id)))
					e = ERR_NOMEM;
			}
			if (e == ERR_OK)
				e = utterance(call, dir, o, where, errmsg);
		}
		cJSON_Delete(o);
		free(l);
	}
	return e;
}

/* conversation: one FormBharo conversation (id NULL), or a bare transcript (an array)
 * named id. */
static enum err conversation(const char *path, const char *dir, const cJSON *conv,
			     const char *id, struct corpus *c, char **errmsg)
{
	const cJSON *tr = cJSON_IsArray(conv) ? conv : cJSON_GetObjectItemCaseSensitive(conv, "transcript"),
		    *u;
	struct corpus_call *call;
	char where[PATH_MAX + 64];
	int i = 0;
	enum err e = ERR_OK;

	if (!id && !cJSON_IsObject(conv)) {
		*errmsg = str_printf("%s: conversation %d: expected an object {\"conversation_id\", "
				      "\"transcript\": [...]}", path, c->n_calls + 1);
		return ERR_INVALID;
	}
	if (!id) {
		id = str_of(conv, "conversation_id");
		if (!id || !id[0]) {
			*errmsg = str_printf("%s: conversation %d: no \"conversation_id\"", path,
					      c->n_calls + 1);
			return ERR_INVALID;
		}
		if (!cJSON_IsArray(tr)) {
			*errmsg = str_printf("%s: conversation %s: no \"transcript\" (list the calls "
					      "with include_transcript=true)", path, id);
			return ERR_INVALID;
		}
	}
	if (!(call = add_call(c, id)))
		return ERR_NOMEM;
	cJSON_ArrayForEach(u, tr) {
		snprintf(where, sizeof where, "%s: conversation %s, transcript entry %d", path, id, ++i);
		if ((e = utterance(call, dir, u, where, errmsg)) != ERR_OK)
			break;
	}
	return e;
}

static enum err load_formbharo(const char *path, const char *text, const char *dir,
			       struct corpus *c, char **errmsg)
{
	cJSON *j = cJSON_Parse(text), *list, *it;
	enum err e = ERR_OK;

	if (!j) {
		*errmsg = str_printf("%s: not JSON", path);
		return ERR_PARSE;
	}
	list = cJSON_IsObject(j) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "data"))
		       ? cJSON_GetObjectItemCaseSensitive(j, "data") : j;
	if (cJSON_IsArray(list) && cJSON_GetArraySize(list) > 0 &&
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, 0), "speaker")) {
		/* one transcript: the call is named by the file */
		char *copy = strdup(path), *base, *dot;
		if (!copy) {
			cJSON_Delete(j);
			return ERR_NOMEM;
		}
		base = basename(copy);
		if ((dot = strrchr(base, '.')) && dot != base)
			*dot = '\0';
		e = conversation(path, dir, list, base, c, errmsg);
		free(copy);
	} else if (cJSON_IsObject(list)) {
		e = conversation(path, dir, list, NULL, c, errmsg);
	} else if (cJSON_IsArray(list)) {
		cJSON_ArrayForEach(it, list)
			if ((e = conversation(path, dir, it, NULL, c, errmsg)) != ERR_OK)
				break;
	} else {
		*errmsg = str_printf("%s: expected FormBharo conversations or a transcript", path);
		e = ERR_INVALID;
	}
	cJSON_Delete(j);
	return e;
}

/* not_text: why text (len bytes) is not whole UTF-8 text, into *errmsg ("FILE:LINE:
 * ..."): a byte that is not UTF-8, a NUL byte, or a NUL written as JSON's \u0000 (the
 * parser would cut the string there, dropping what follows without a word). Returns
 * whether it is not. */
static bool not_text(const char *path, const char *text, size_t len, char **errmsg)
{
	const char *bad = utf8_bad(text, len, false), *p;
	for (p = text; !bad && p < text + len; p++)
		if (*p == '\\' && p + 1 < text + len) {
			if (p + 6 <= text + len && memcmp(p + 1, "u0000", 5) == 0)
				bad = p;
			p++; /* the escaped character, a backslash too, is not an escape */
		}
	if (!bad)
		return false;
	int line = 1;
	for (p = text; p < bad; p++)
		line += *p == '\n';
	if (*bad == '\\')
		*errmsg = str_printf("%s:%d: \\u0000 (a NUL) in a string; not text", path, line);
	else if (*bad)
		*errmsg = str_printf("%s:%d: not UTF-8 text (byte 0x%02X)", path, line,
				      (unsigned)(unsigned char)*bad);
	else
		*errmsg = str_printf("%s:%d: the file holds a NUL byte; not text", path, line);
	return true;
}

enum err callimport_load(const char *path, enum callimport_format fmt, const char *name,
			 struct corpus **out, char **errmsg)
{
	struct corpus *c = calloc(1, sizeof *c);
	char *text = NULL, *copy = NULL;
	size_t len = 0;
	enum err e = ERR_NOMEM;

	*errmsg = NULL;
	if (!c || !(copy = strdup(path)) || !(c->name = strdup(name)) ||
	    !(c->dir = strdup(dirname(copy))))
		goto out;
	if ((e = csv_read_file(path, &text, &len, errmsg)) != ERR_OK)
		goto out;
	if (not_text(path, text, len, errmsg)) {
		e = ERR_PARSE;
		goto out;
	}
	e = fmt == CALLIMPORT_JSONL ? load_jsonl(path, text, c->dir, c, errmsg)
				    : load_formbharo(path, text, c->dir, c, errmsg);
	if (e == ERR_OK && c->n_calls == 0) {
		*errmsg = str_printf("%s: no calls in it", path);
		e = ERR_INVALID;
	}
out:
	free(text);
	free(copy);
	if (e != ERR_OK) {
		if (!*errmsg)
			*errmsg = strdup(err_str(e));
		corpus_free(c);
		return e;
	}
	*out = c;
	return ERR_OK;
}
