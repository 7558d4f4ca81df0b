/* paths: every path through a form (the rule is in paths.h). */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/rules/validate.h"

struct walk {
	const struct form *f;
	const bool *unknown;
	bool *decides;       /* per question: a boolean whose value shapes the path */
	enum paths_answer *answers;
	paths_fn fn;
	void *ctx;
	long count;
};

const char *paths_answer_name(enum paths_answer a)
{
	switch (a) {
	case PATHS_ANSWERED: return "answered";
	case PATHS_UNKNOWN: return "unknown";
	case PATHS_TRUE: return "true";
	case PATHS_FALSE: return "false";
	case PATHS_CLOSED: break;
	}
	return "closed";
}

static int controller_of(const struct form *f, const struct form_branch *b)
{
	if (b->question >= 0 && b->question < f->n_questions)
		return b->question;
	return b->field ? form_find(f, b->field) : -1;
}

/* Whether question i is asked, given the answers so far. */
static bool asked(const struct walk *w, int i)
{
	const struct form *f = w->f;
	int b = f->questions[i].branch;
	if (b < 0)
		return true;
	if (b >= f->n_branches)
		return false;
	const struct form_branch *br = &f->branches[b];
	int c = controller_of(f, br);
	/* A controller after its question has no answer yet when the question comes. */
	enum paths_answer v = c >= 0 && c < i ? w->answers[c] : PATHS_CLOSED;
	enum form_answer a = v == PATHS_TRUE ? FORM_ANSWER_TRUE
			     : v == PATHS_FALSE ? FORM_ANSWER_FALSE
			     : v == PATHS_ANSWERED ? FORM_ANSWER_OTHER
						     : FORM_ANSWER_SKIPPED; /* unknown, or closed */
	return form_branch_open(br, a) == 1;
}

static bool ends_call(const struct form_question *q, enum paths_answer v)
{
	if (q->n_end_call_values == 0 || (v != PATHS_TRUE && v != PATHS_FALSE))
		return false;
	cJSON value = {0};
	value.type = v == PATHS_TRUE ? cJSON_True : cJSON_False;
	return validate_end_call_value(q, NULL, &value);
}

static enum err walk(struct walk *w, int i)
{
	const struct form *f = w->f;
	if (i == f->n_questions) {
		w->count++;
		return w->fn(w->ctx, w->count, w->answers) ? ERR_CANCELLED : ERR_OK;
	}
	if (!asked(w, i)) {
		w->answers[i] = PATHS_CLOSED;
		return walk(w, i + 1);
	}
	enum paths_answer values[3];
	int n = 0;
	if (w->decides[i]) {
		values[n++] = PATHS_TRUE;
		values[n++] = PATHS_FALSE;
	} else {
		values[n++] = PATHS_ANSWERED;
	}
	if (w->unknown && w->unknown[i])
		values[n++] = PATHS_UNKNOWN;
	for (int k = 0; k < n; k++) {
		w->answers[i] = values[k];
		enum err e;
		if (ends_call(&f->questions[i], values[k])) {
			for (int j = i + 1; j < f->n_questions; j++)
				w->answers[j] = PATHS_CLOSED;
			e = walk(w, f->n_questions);
		} else {
			e = walk(w, i + 1);
		}
		if (e != ERR_OK)
			return e;
	}
	w->answers[i] = PATHS_CLOSED;
	return ERR_OK;
}

static int count_only(void *ctx, long number, const enum paths_answer *answers)
{
	(void)ctx;
	(void)answers;
	return number > PATHS_MAX;
}

enum err paths_each(const struct form *f, const bool *unknown, paths_fn fn, void *ctx,
		    long *count)
{
	enum err e = ERR_NOMEM;
	struct walk w = {.f = f, .unknown = unknown, .fn = fn, .ctx = ctx};
	size_t n = f->n_questions > 0 ? (size_t)f->n_questions : 1;
	w.decides = calloc(n, sizeof *w.decides);
	w.answers = calloc(n, sizeof *w.answers);
	if (!w.decides || !w.answers)
		goto out;
	for (int i = 0; i < f->n_questions; i++)
		if (f->questions[i].type == FORM_BOOLEAN && f->questions[i].n_end_call_values > 0)
			w.decides[i] = true;
	for (int b = 0; b < f->n_branches; b++) {
		int c = controller_of(f, &f->branches[b]);
		if (c >= 0 && f->questions[c].type == FORM_BOOLEAN)
			w.decides[c] = true;
	}
	/* Count first, so that a form with too many paths is refused before fn sees one:
	 * n independent yes/no questions make 2^n paths. */
	w.fn = count_only;
	e = walk(&w, 0);
	if (e == ERR_CANCELLED) {
		e = ERR_INVALID;
		goto out;
	}
	if (e != ERR_OK)
		goto out;
	w.fn = fn;
	w.count = 0;
	e = walk(&w, 0);
	if (count)
		*count = w.count;
out:
	free(w.decides);
	free(w.answers);
	return e;
}

static char *msg(const char *fmt, const char *name, size_t len)
{
	char *s = NULL;
	if (asprintf(&s, fmt, (int)len, name) < 0)
		return NULL;
	return s;
}

enum err paths_parse_unknown(const struct form *f, const char *list, bool *unknown,
			     char **error)
{
	char *why = NULL;
	enum err e = ERR_OK;
	bool *set = calloc(f->n_questions > 0 ? (size_t)f->n_questions : 1, sizeof *set);
	if (!set)
		return ERR_NOMEM;
	const char *p = list ? list : "";
	while (*p) {
		size_t len = strcspn(p, ",");
		/* Spaces around a name are allowed: "a, b". */
		const char *s = p;
		size_t l = len;
		while (l && *s == ' ')
			s++, l--;
		while (l && s[l - 1] == ' ')
			l--;
		if (l == 0) {
			e = ERR_INVALID;
			why = msg("--unknown: empty field name in the list%.*s", "", 0);
			goto out;
		}
		int q = -1;
		for (int i = 0; i < f->n_questions; i++)
			if (strlen(f->questions[i].name) == l && !memcmp(f->questions[i].name, s, l))
				q = i;
		if (q < 0) {
			e = ERR_NOTFOUND;
			why = msg("--unknown: the form has no field '%.*s'", s, l);
			goto out;
		}
		if (f->questions[q].required) {
			e = ERR_INVALID;
			why = msg("--unknown: field '%.*s' is required, so it cannot be \"don't "
				  "know\" (only optional fields can)", s, l);
			goto out;
		}
		set[q] = true;
		p += len;
		if (*p == ',') {
			p++;
			if (!*p) {
				e = ERR_INVALID;
				why = msg("--unknown: empty field name in the list%.*s", "", 0);
				goto out;
			}
		}
	}
	memcpy(unknown, set, (size_t)f->n_questions * sizeof *set);
out:
	if (e != ERR_OK && !why)
		e = ERR_NOMEM;
	if (error)
		*error = why;
	else
		free(why);
	free(set);
	return e;
}

char *paths_json(const struct form *f, long number, const enum paths_answer *answers)
{
	char *s = NULL;
	cJSON *o = cJSON_CreateObject();
	cJSON *a = cJSON_CreateObject();
	if (!o || !a)
		goto out;
	if (!cJSON_AddNumberToObject(o, "path", (double)number))
		goto out;
	if (!cJSON_AddItemToObject(o, "answers", a))
		goto out;
	cJSON *ans = a;
	a = NULL;
	for (int i = 0; i < f->n_questions; i++) {
		cJSON *v = NULL;
		switch (answers[i]) {
		case PATHS_CLOSED: continue;
		case PATHS_TRUE: v = cJSON_CreateTrue(); break;
		case PATHS_FALSE: v = cJSON_CreateFalse(); break;
		default: v = cJSON_CreateString(paths_answer_name(answers[i])); break;
		}
		if (!v)
			goto out;
		if (!cJSON_AddItemToObject(ans, f->questions[i].name, v)) {
			cJSON_Delete(v);
			goto out;
		}
	}
	s = cJSON_PrintUnformatted(o);
out:
	cJSON_Delete(a);
	cJSON_Delete(o);
	return s;
}
