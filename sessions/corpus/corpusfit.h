/* corpusfit: whether a corpus fits the form it is played with. A corpus names the form it
 * was made for (corpus.json "form") and its expected forms name the fields its callers
 * answer; playing it with another form gives calls whose callers answer questions that
 * are not asked, and scores against fields that do not exist. These are warnings: a
 * developer may mean to try a changed form on an old corpus. */
#ifndef FORMDESK_CORPUSFIT_H
#define FORMDESK_CORPUSFIT_H

#include "base/err.h"
#include "agent/rules/form.h"
#include "corpus.h"

/* corpusfit_check: the warnings for playing corpus c with form f loaded from form_path
 * (all borrowed). Output: *out (caller frees with form_issues_free), field "" or
 * "corpus.json:form", each message an English sentence:
 *   - the corpus names another form: its path differs from form_path and, where both
 *     files can be read, their contents differ (a relative corpus "form" is read against
 *     the current directory, then against the corpus's parent folders, as `make` lays
 *     the bundled corpora out);
 *   - fields the form asks that no expected form of the corpus answers or skips (its
 *     callers never answer them), listed by name;
 *   - fields the expected forms give that the form does not have, listed by name.
 * Nothing is said about fields when the corpus has no expected forms.
 * Errors: ERR_NOMEM (*out holds what was found). */
enum err corpusfit_check(const struct corpus *c, const struct form *f, const char *form_path,
			 struct form_issues *out);

#endif
