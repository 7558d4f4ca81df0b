/* formlint: warnings for a form that loads but misbehaves (see formlint.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formlint.h"

/* Warnings found so far and whether memory ran out. */
struct lint {
	struct form_issues *out;
	bool nomem;
};

static void warn(struct lint *L, const char *field, const char *fmt, ...)
{
	char msg[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (form_issues_add(L->out, field, msg) != ERR_OK)
		L->nomem = true;
}

/* Whether s is NULL or only white space (the rule layer then falls back, as for none). */
static bool blank(const char *s)
{
	if (!s)
		return true;
	for (; *s; s++)
		if (!strchr(" \t\r\n", *s))
			return false;
	return true;
}

/* Whether validation rule v can ever pass for an answer of type t: date rules read a
 * DD-MM-YYYY date, the number rules a number or digits (agent/rules/validate.c). */
static bool rule_fits(enum form_validation v, enum form_type t)
{
	switch (v) {
	case VALID_DATE:
	case VALID_DATE_TODAY_OR_PAST:
	case VALID_DATE_FUTURE:
		return t == FORM_DATE;
	case VALID_NUMBER_RANGE:
	case VALID_PHONE_NUMBER:
	case VALID_EXACT_NUM_DIGITS:
		return t == FORM_NUMBER || t == FORM_STRING;
	default:
		return true;
	}
}

static void lint_question(struct lint *L, const struct form *f, int i)
{
	const struct form_question *q = &f->questions[i];
	char path[96], who[300];
	snprintf(who, sizeof(who), "Question '%.200s' (questions[%d])", q->name ? q->name : "", i);
#define AT(key) (snprintf(path, sizeof(path), "questions[%d]%s", i, key), path)

	if (blank(q->script))
		warn(L, AT(".script"),
		     "%s has no script: the agent will say its label '%.200s' instead, word for word.",
		     who, q->label ? q->label : "");

	/* Retries (retries.mdx): a required question ends the call when they run out. */
	if (q->required && q->exhausted_skip)
		warn(L, AT(".retry_config.exhausted_action"),
		     "%s is required, so exhausted_action 'skip' is ignored: the call ends when "
		     "its retries run out. Set required to false to skip it instead.",
		     who);
	int allowed = form_retry_limit(q);
	if (allowed > 0 && q->n_retry_messages > 0 && q->n_retry_messages < allowed) {
		char which[64];
		if (allowed - q->n_retry_messages == 1)
			snprintf(which, sizeof(which), "re-ask %d repeats", allowed);
		else
			snprintf(which, sizeof(which), "re-asks %d to %d repeat",
				 q->n_retry_messages + 1, allowed);
		warn(L, AT(".retry_config.retry_messages"),
		     "%s allows %d re-asks but has %d retry message%s: %s the script.", who,
		     allowed, q->n_retry_messages, q->n_retry_messages == 1 ? "" : "s", which);
	}
	if (allowed >= 0 && q->n_retry_messages > allowed)
		warn(L, AT(".retry_config.retry_messages"),
		     "%s has %d retry message%s but allows %d re-ask%s%s: the rest are never said.",
		     who, q->n_retry_messages, q->n_retry_messages == 1 ? "" : "s", allowed,
		     allowed == 1 ? "" : "s",
		     !q->allow_retries ? " (allow_retries is false)" : "");
	for (int k = 0; k < q->n_retry_messages && (allowed < 0 || k < allowed); k++)
		if (blank(q->retry_messages[k])) {
			char p2[120];
			snprintf(p2, sizeof(p2), "questions[%d].retry_config.retry_messages[%d]", i, k);
			warn(L, p2, "%s: retry message %d is blank, so that re-ask repeats the script.",
			     who, k + 1);
		}
	if (q->required && !blank(q->skip_message))
		warn(L, AT(".skip_message"),
		     "%s is required, so its skip_message is never said: a required question is "
		     "never skipped.",
		     who);

	/* Parts of the config the question's type does not use (question-types.mdx). */
	if (q->n_options > 0 && q->type != FORM_SINGLE_SELECT && q->type != FORM_MULTI_SELECT)
		warn(L, AT(".options"), "%s is of type '%s', which ignores options.", who,
		     form_type_name(q->type));
	if ((q->label_true || q->label_false) && q->type != FORM_BOOLEAN)
		warn(L, AT(".boolean_labels"), "%s is of type '%s', which ignores boolean_labels.",
		     who, form_type_name(q->type));
	if (!rule_fits(q->validation, q->type))
		warn(L, AT(".validation.type"),
		     "%s is of type '%s', so its '%s' validation can never pass: every answer "
		     "would be refused.",
		     who, form_type_name(q->type), form_validation_name(q->validation));
#undef AT
}

enum err formlint_check(const struct form *f, struct form_issues *out)
{
	if (!f || !out)
		return ERR_INVALID;
	out->v = NULL;
	out->n = 0;
	struct lint L = {out, false};
	for (int i = 0; i < f->n_questions && !L.nomem; i++)
		lint_question(&L, f, i);
	for (int b = 0; b < f->n_branches && !L.nomem; b++) {
		bool used = false;
		for (int i = 0; i < f->n_questions && !used; i++)
			used = f->questions[i].branch == b;
		if (!used) {
			char path[64];
			snprintf(path, sizeof(path), "branches[%d]", b);
			warn(&L, path, "Branch '%.200s' (branches[%d]) is named by no question's "
				       "branch_id, so it changes nothing.",
			     f->branches[b].id ? f->branches[b].id : "", b);
		}
	}
	return L.nomem ? ERR_NOMEM : ERR_OK;
}

int formlint_print(FILE *fp, const char *prefix, const struct form_issues *w)
{
	int n = 0;
	for (int i = 0; w && i < w->n; i++, n++)
		fprintf(fp, "%s: warning: %s: %s\n", prefix, w->v[i].field, w->v[i].message);
	return n;
}
