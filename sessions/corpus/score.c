/* score: form-completion accuracy (score.h). */
#include "score.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "agent/hindi/namematch.h"

/* fold: s under NFKC case folding, spaces trimmed and runs made one; new string or NULL. */
static char *fold(const char *s)
{
	utf8proc_uint8_t *f = NULL;
	char *out, *w;
	bool space = false;

	if (utf8proc_map((const utf8proc_uint8_t *)s, 0, &f,
			 UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
				 UTF8PROC_CASEFOLD) < 0)
		return NULL;
	out = w = (char *)f;
	for (const char *r = (const char *)f; *r; r++) {
		if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') {
			space = w != out;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = false;
		*w++ = *r;
	}
	*w = '\0';
	return out;
}

bool score_same_value(const struct form_question *q, const cJSON *want, const cJSON *got)
{
	if (!want || !got)
		return want == got;
	if (q && q->type == FORM_STRING && cJSON_IsString(want) && cJSON_IsString(got)) {
		char *a = fold(want->valuestring), *b = fold(got->valuestring);
		/* Open fields are judged as names: the same text, or the same name in another
		 * spelling or script; "unsure" is not correct. */
		bool same = (a && b && strcmp(a, b) == 0) ||
			    namematch_judge(want->valuestring, got->valuestring) == NAMEMATCH_SAME;
		free(a);
		free(b);
		return same;
	}
	return cJSON_Compare(want, got, true);
}

static const char *status_of(const cJSON *status, const char *field)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(status, field);
	return cJSON_IsString(v) ? v->valuestring : "empty";
}

static enum err add_miss(cJSON *misses, const char *field, const char *ws, const char *gs,
			 const cJSON *want, const cJSON *got)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "field", field) ||
	    !cJSON_AddStringToObject(o, "want_status", ws) ||
	    !cJSON_AddStringToObject(o, "got_status", gs) ||
	    !cJSON_AddItemToObject(o, "want", want ? cJSON_Duplicate(want, 1) : cJSON_CreateNull()) ||
	    !cJSON_AddItemToObject(o, "got", got ? cJSON_Duplicate(got, 1) : cJSON_CreateNull()) ||
	    !cJSON_AddItemToArray(misses, o)) {
		cJSON_Delete(o);
		return ERR_NOMEM;
	}
	return ERR_OK;
}

enum err score_call(const struct form *form, const cJSON *want_data, const cJSON *want_status,
		    const cJSON *got_data, const cJSON *got_status, struct score *acc,
		    cJSON *misses)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, want_status) {
		const char *field = it->string;
		const char *ws = cJSON_IsString(it) ? it->valuestring : "empty";
		const char *gs = status_of(got_status, field);
		const cJSON *want = cJSON_GetObjectItemCaseSensitive(want_data, field);
		const cJSON *got = cJSON_GetObjectItemCaseSensitive(got_data, field);
		int qi = form ? form_find(form, field) : -1;
		bool ok;

		if (strcmp(ws, "answered") != 0 && strcmp(ws, "skipped") != 0)
			continue; /* a branch that never opened */
		acc->fields++;
		ok = strcmp(ws, gs) == 0;
		if (ok && strcmp(ws, "answered") == 0)
			ok = score_same_value(qi >= 0 ? &form->questions[qi] : NULL, want, got);
		if (ok)
			acc->correct++;
		else if (misses && add_miss(misses, field, ws, gs, want, got) != ERR_OK)
			return ERR_NOMEM;
	}
	return ERR_OK;
}

double score_accuracy(const struct score *s)
{
	return s->fields ? (double)s->correct / (double)s->fields : 0.0;
}
