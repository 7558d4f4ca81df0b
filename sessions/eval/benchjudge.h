/* benchjudge: the benchmark's language-model judge (agent/stages/judge_llm.h), asked where the
 * offline judges cannot decide, after the unit tests have run. It reads the stored rows
 * of the run's STT, EXTRACT and REPLY specs (sessions/eval/bench.h lists their members), asks
 * the judge about each undecided item it has no cached verdict on, and writes the rows
 * back with the judged verdicts beside the offline ones:
 *
 * - STT (LLM-WER, the FormBharo paper: differences an LLM judges equivalent or
 *   phonetically similar are forgiven, the rate recomputed over genuine errors): each
 *   differing segment of the word alignment that the offline judge
 *   (bench_judge_offline: the name judge, number normalization) does not forgive goes
 *   to the "wer-v1" judge with both sentences as context. Row gains
 *   "word_genuine_offline" (the offline count) and "llm_judge":
 *   {"judge","version","asked","forgiven","failed"}; "word_genuine" becomes the count
 *   over segments neither judge forgave.
 * - EXTRACT (the paper: open fields scored by a calibrated LLM judge): a "value" or
 *   "other:FIELD" check of a string field that failed because the deterministic name
 *   judge said "unsure" goes to the "name-v1" judge (the annotation work's name judge,
 *   annotations/judges.h). The check gains "ok_rules" (the deterministic verdict) and
 *   "llm_judge" (the verdict, or "failed"); "ok" becomes true when the judge says
 *   "same"; the row's "pass" is recomputed ("pass_rules" keeps the deterministic one).
 * - REPLY: a reply whose "asks the decided question" the words cannot settle
 *   (replycheck.h: asks_unsure) goes to the "asks-v1" judge with the decided wording and
 *   label. Row gains "asks_rules" and "asks_judge"; "asks" becomes true on "yes"; "pass"
 *   is recomputed ("pass_rules").
 *
 * Each verdict is cached in the bench database per judge, prompt version and item
 * (benchdb_judgement_get/put), with its cost: a rerun asks nothing again. A failed call
 * (transport, HTTP status, an answer that is not a verdict) is recorded in the cache
 * with its error and asked again next run; meanwhile the deterministic verdict stands
 * and the row names the failure. Requests run through the non-blocking halves
 * (backend_start, http_start, backend_finish) with up to `concurrency` in
 * flight. */
#ifndef FORMDESK_BENCHJUDGE_H
#define FORMDESK_BENCHJUDGE_H

#include "base/err.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"

struct benchdb;
struct lexicon;

struct benchjudge_config {
	struct benchdb *db;
	const char *scope;
	const struct form *form;
	const struct lexicon *lex;
	const struct backend *judge;    /* the language model asked (agent/stages/backend.h, stage
	                                   JUDGE: backend_judge); borrowed */
	const char *stt_spec, *extract_spec, *reply_spec; /* NULL: that stage is not judged */
	int concurrency;                /* requests in flight, >= 1 */
};

/* What one run did, per judge and in all. */
struct benchjudge_counts {
	long items;                     /* distinct undecided items found */
	long asked, cached, failed;     /* asked now (failed included), found in the cache,
	                                   failed now */
	long forgiven;                  /* items the judge accepted (same, equivalent or
	                                   similar, yes), cached ones included */
	long by_kind[3];                /* items per enum judge_llm_kind */
	double cost_usd;                /* of the calls made now, US dollars */
};

/* benchjudge_run: judge the undecided items of cfg's rows and rewrite those rows.
 * Inputs borrowed. Output: *out (may be NULL); on failure *errmsg (caller frees; may be
 * NULL). Errors: ERR_DB, ERR_NOMEM, ERR_BACKEND (the HTTP client could not run). A
 * failing judge is not an error: see above. */
enum err benchjudge_run(const struct benchjudge_config *cfg, struct benchjudge_counts *out,
			char **errmsg);

/* benchjudge_name: the judge's recorded name, "llm:PROVIDER:MODEL", into buf (size n). */
void benchjudge_name(const struct backend *judge, char *buf, size_t n);

#endif
