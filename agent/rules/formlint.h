/* formlint: warnings about a form config that loads (FormBharo accepts it) but then behaves
 * in a way its author most likely did not mean: a part of the config is silently ignored,
 * falls back to something else, or can never be satisfied. `formdesk check-form` prints
 * them beside FormBharo's refusals (exit 0; --strict makes them errors), and the commands
 * that play a form print them on stderr.
 *
 * Source of what is ignored or falls back: the rule layer's own behaviour (agent/rules/flow.c,
 * agent/stages/reply_script.c, agent/rules/validate.c), which follows formbharo-docs
 * reference/question-types.mdx (script, skip_message, options, boolean_labels),
 * reference/retries.mdx (max_retries, retry_messages, exhausted_action) and
 * reference/validation.mdx (which rule fits which type). */
#ifndef FORMDESK_FORMLINT_H
#define FORMDESK_FORMLINT_H

#include <stdio.h>
#include "base/err.h"
#include "form.h"

/* formlint_check: the warnings for a loaded form f (borrowed). Output: *out receives them
 * as form issues (caller frees with form_issues_free): field is the JSON path
 * ("questions[2].script"), message an English sentence that names the question by its
 * name and index ("Question 'clinic_name' (questions[2]) has no script: ..."). A form
 * with nothing to warn about gives n = 0. Errors: ERR_NOMEM (*out holds what was found
 * before memory ran out), ERR_INVALID (f is NULL). */
enum err formlint_check(const struct form *f, struct form_issues *out);

/* formlint_print: one line per warning on fp, "PREFIX: warning: FIELD: MESSAGE\n" (prefix
 * such as "formdesk run: forms/x.json"). Returns the number printed. */
int formlint_print(FILE *fp, const char *prefix, const struct form_issues *w);

#endif
