/* rundiff: two runs compared call by call and field by field, and the gate on it.
 *
 * Calls are matched by their corpus call id (calls of a corpus), else by the call they
 * replay (calls.replay_of: a replayed live call meets the call it replays). Per matched
 * call: the final status and reason of each side; per field (every field either side's
 * form_status names): value, status, retries used (the last "retries" the decisions gave
 * for it), the last validator verdict on it ("rule ok|failed: message"), and the branches
 * it controls with whether each was taken at the end ("is_pregnant=on"); the first turn
 * at which the two sides differ and the first stage that differs there, in the order
 * transcript, extraction, decision, reply (turn 0: the opening; stage "turns" when one
 * side has no such turn); the turns a replay played as silence because the recording
 * never answered what was asked (condition "unanswered", sessions/calls/replay.h).
 *
 * A call is "fixed" when the expected form of its corpus call (corpus/README.md,
 * expected.jsonl) is met by B and not by A, "broken" the other way round, else "changed"
 * when anything above differs, else "same". Meeting the expected form: every field the
 * expectation counts is correct as sessions/corpus/score.h judges it.
 *
 * The gate: B fails when it is worse than A beyond chance on the same calls, by McNemar's
 * exact test on per-call correctness (two-sided binomial test of the discordant pairs,
 * broken against fixed, p = min(1, 2 * P(X <= min(b, c))) for X ~ Binomial(b + c, 1/2);
 * failing when broken > fixed and p < RUNDIFF_ALPHA), or when any required field's
 * accuracy over the matched calls with an expected form is lower in B than in A. */
#ifndef FORMDESK_RUNDIFF_H
#define FORMDESK_RUNDIFF_H

#include <stdbool.h>
#include <stdio.h>
#include "base/err.h"

struct store;

#define RUNDIFF_ALPHA 0.05

enum rundiff_format {
	RUNDIFF_TABLE,
	RUNDIFF_MARKDOWN,
	RUNDIFF_CSV,
	RUNDIFF_JSON,
};

/* rundiff_format_parse: "table", "markdown", "csv", "json" to *f. Returns false for any
 * other word. */
bool rundiff_format_parse(const char *s, enum rundiff_format *f);

/* The outcome of a diff. */
struct rundiff_result {
	int calls;                 /* matched calls */
	int fixed, broken, changed, same;
	int only_a, only_b;        /* calls of one run with no match in the other */
	double p;                  /* McNemar's exact p on broken against fixed */
	bool gate_failed;          /* the gate's verdict (see above) */
};

/* rundiff_run: compare run a of sa with run b of sb (sb may be sa) and print the diff to
 * out in format fmt; with gate, also print the gate's verdict and, when it fails, the
 * reasons and the calls that broke, to err. Output: *res. Errors: ERR_NOTFOUND (no such
 * run: *errmsg names it), ERR_DB, ERR_NOMEM; *errmsg (caller frees) says why. */
enum err rundiff_run(struct store *sa, long long a, struct store *sb, long long b,
		     enum rundiff_format fmt, bool gate, FILE *out, FILE *err,
		     struct rundiff_result *res, char **errmsg);

/* rundiff_match: the call of run b that the diff pairs with call (calls.id) of run a,
 * both runs in st (review's two runs side by side). Output: *match its calls.id, 0 when
 * none (or call is not a finished call of a); *turn and *stage the first divergence as
 * the diff states it (turn 0 the opening; stage static), -1 and NULL when the two do not
 * differ. Errors: ERR_NOTFOUND (no such run), ERR_DB, ERR_NOMEM; *errmsg (caller frees)
 * says why. */
enum err rundiff_match(struct store *st, long long a, long long call, long long b,
		       long long *match, int *turn, const char **stage, char **errmsg);

/* rundiff_mcnemar_p: McNemar's exact two-sided p for b and c discordant pairs: 1 when
 * b + c = 0. */
double rundiff_mcnemar_p(int b, int c);

#endif
