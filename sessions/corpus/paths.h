/* paths: every path a cooperative caller can take through a form, the way the
 * FormBharo paper's FormVoiceAgentBench builds its calls (2 x 3 x 4 x 2 = 48 paths of the
 * enrollment form: pregnant or not; number linked / not linked and given / not linked and
 * not remembered; WhatsApp same / not same and given / not same and not remembered / cannot
 * say if same; Aadhaar given / not known).
 *
 * The enumeration rule (docs/evaluation.md says the same):
 * - Questions are visited in config order. A question is asked on a path when it has no
 *   branch or its branch's condition holds for the answers given so far on that path;
 *   a question that is not asked is left out of the path.
 * - An asked question takes the values:
 *     a boolean that decides the path (it controls a branch, or has end_call_values):
 *       true, then false;
 *     any other question: "answered";
 *   and, when it is named in the unknown set (only optional questions may be),
 *   also "unknown": the caller does not know or declines, and the field is skipped.
 * - Branch conditions (FormBharo's reference/branching.mdx): `equals: X` holds when the
 *   controller was answered X (an "unknown" controller opens neither `equals` branch);
 *   `present: true` holds when the controller was answered (any value); `present: false`
 *   when it was not (it is "unknown", or was never asked on this path). `present` wins
 *   over `equals` when both are set, as FormBharo does.
 * - A boolean value listed in the question's end_call_values ends the call there
 *   (screened out): the questions after it are left out of that path.
 * - Paths are numbered from 1 in depth-first order: earlier questions vary slowest, and
 *   each question's values in the order true, false, "answered", "unknown".
 * A caller who fails validation until retries run out is not a path here: paths are the
 * branch structure, retries are tested per turn. */
#ifndef FORMDESK_PATHS_H
#define FORMDESK_PATHS_H

#include <stdbool.h>
#include "base/err.h"
#include "agent/rules/form.h"

enum paths_answer {
	PATHS_CLOSED = 0, /* not asked on this path (left out of the JSON) */
	PATHS_ANSWERED,
	PATHS_UNKNOWN,
	PATHS_TRUE,
	PATHS_FALSE,
};

/* paths_fn: called once per path. answers has f->n_questions entries, indexed like
 * f->questions; it is only valid during the call. number counts paths from 1. Return 0 to
 * go on, anything else to stop the enumeration. */
typedef int (*paths_fn)(void *ctx, long number, const enum paths_answer *answers);

/* paths_parse_unknown: the comma-separated question names in list (NULL or "" for none)
 * as a set. Inputs: f (borrowed), list (borrowed). Output: on ERR_OK, unknown[i] (the
 * caller's array of f->n_questions bools) is true for each question named; on failure
 * *error (caller frees; may be NULL to ignore) names the bad entry. Errors: ERR_NOTFOUND
 * (no question of that name), ERR_INVALID (a required question: a required field cannot
 * be "don't know"; or an empty name between commas), ERR_NOMEM. */
enum err paths_parse_unknown(const struct form *f, const char *list, bool *unknown,
			     char **error);

/* The most paths paths_each enumerates; a form with more is refused before the first. */
#define PATHS_MAX 100000L

/* paths_each: enumerate the paths of f by the rule above, calling fn(ctx, ...) for each.
 * unknown: NULL (no question may be "unknown") or f->n_questions flags from
 * paths_parse_unknown. Output: *count (may be NULL) the number of paths visited.
 * Errors: ERR_CANCELLED (fn asked to stop; *count includes that path), ERR_INVALID (more
 * than PATHS_MAX paths; fn was not called), ERR_NOMEM. */
enum err paths_each(const struct form *f, const bool *unknown, paths_fn fn, void *ctx,
		    long *count);

/* paths_json: one path as the JSON line {"path":N,"answers":{"field":"answered"|
 * "unknown"|true|false,...}} (fields in config order, closed ones left out, no newline).
 * Output: new string (caller frees with free()), NULL on allocation failure. */
char *paths_json(const struct form *f, long number, const enum paths_answer *answers);

/* paths_answer_name: "answered", "unknown", "true", "false" or "closed"; static. */
const char *paths_answer_name(enum paths_answer a);

#endif
