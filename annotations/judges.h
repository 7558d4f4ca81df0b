/* judges: judges' decisions on annotation items, stored in ann_judgements with the
 * judge's name and prompt version, one row per item, judge and version: the cache that
 * keeps an LLM judge from being asked twice about the same item with the same prompt.
 *
 * Judges of the name-match task:
 * - JUDGES_NAMEMATCH, the deterministic name judge (agent/hindi/namematch.h), version
 *   JUDGES_NAMEMATCH_VERSION. It costs nothing, so it is run again on every item each
 *   time (its row replaced) and always speaks for the code as built.
 * - "llm:PROVIDER:MODEL", a language model asked through the model backends
 *   (agent/stages/llm.h, temperature 0 as the FormBharo paper runs its judges) with the prompt
 *   JUDGES_LLM_PROMPT_VERSION; asked only about items it has no decision on at that
 *   version.
 * Decisions are "same", "different" or "unsure". */
#ifndef FORMDESK_JUDGES_H
#define FORMDESK_JUDGES_H

#include <stddef.h>
#include "base/err.h"
#include "agent/stages/judge_llm.h"
#include "labels.h"

#define JUDGES_NAMEMATCH "namematch"
#define JUDGES_NAMEMATCH_VERSION "rules"
/* The name judge's prompt version (agent/stages/judge_llm.h, where the prompt lives and where its
 * version changes with its text): old decisions then stay with the old version, and the
 * new prompt is asked afresh. The benchmark asks the same judge (sessions/eval/benchjudge.h). */
#define JUDGES_LLM_PROMPT_VERSION JUDGE_LLM_NAME_VERSION

/* judges_put: store judge's decision on item at version (replacing the one there), with
 * raw (the judge's own output, may be NULL). Errors: ERR_INVALID (decision not same,
 * different or unsure), ERR_DB. */
enum err judges_put(struct labels *l, long long item, const char *judge, const char *version,
		    const char *decision, const char *raw);
/* judges_get: the cached decision. Output: *decision (caller frees). Errors: ERR_NOTFOUND
 * (none cached), ERR_DB, ERR_NOMEM. */
enum err judges_get(struct labels *l, long long item, const char *judge, const char *version,
		    char **decision);
/* judges_get_dated: judges_get, and day (may be NULL) the UTC day the decision was stored,
 * "YYYY-MM-DD". */
enum err judges_get_dated(struct labels *l, long long item, const char *judge,
			  const char *version, char **decision, char day[11]);

/* judges_run_namematch: decide every stored name-match item with the deterministic
 * judge. Output: *n (may be NULL) items decided. Errors: ERR_DB, ERR_NOMEM. */
enum err judges_run_namematch(struct labels *l, int *n);

/* judges_run_llm: ask the language model spec ("PROVIDER[:MODEL]", agent/stages/provider.h)
 * about every name-match item it has no cached decision on at
 * JUDGES_LLM_PROMPT_VERSION, through the judge row of the backend table (backend_judge,
 * agent/stages/backend.h, as the benchmark asks it); the instance lives until backend_cleanup().
 * Output: *asked (may be NULL) the number of model calls; why (size n) what failed. Errors: ERR_NOTFOUND (unknown provider or no key),
 * ERR_BACKEND, ERR_PARSE (an answer that is not a verdict), ERR_DB, ERR_NOMEM. */
enum err judges_run_llm(struct labels *l, const char *spec, int *asked, char *why, size_t n);

/* A judge as found in the table. */
struct judges_id {
	char *judge, *version;
};
/* judges_list: every (judge, version) with a decision on an item of task t, by name.
 * Output: *out, *n (caller frees with judges_list_free). Errors: ERR_DB, ERR_NOMEM. */
enum err judges_list(struct labels *l, enum labels_task t, struct judges_id **out, int *n);
void judges_list_free(struct judges_id *v, int n);

#endif
