/* bench: the FormBharo paper's FormVoiceAgentBench on any form and corpus: STT, EXTRACT
 * and REPLY tested in isolation (unit tests) and chained (integration), results kept in
 * the bench database (sessions/store/benchdb.h) so a rerun does only what is missing.
 * docs/evaluation.md ("The benchmark") says the same.
 *
 * The expected conversation of a call: the rule layer (agent/rules/flow.c) is driven from
 * empty with what each caller turn's words give EXTRACT for the question asked (the
 * expected value, the skip flag, or nothing), the first choices with which the rules end
 * the call after exactly its turns with the expected status (docs/evaluation.md: a field
 * "skipped" because its retries ran out is the rules' status, not EXTRACT's), and the
 * agent's words are the script replier's for each decision. Each distinct prefix
 * of it (caller, condition, the utterances so far) is one unit test of each kind, so
 * paths that share their first turns share those tests (the paper's count: 94 prefixes
 * of the enrollment form's 48 paths, x 5 callers x 4 conditions = 1,880).
 *
 * - STT, one per distinct utterance: WER and CER after Indic normalization and LLM-WER
 *   (sessions/eval/wer.h) with the offline judge: a differing segment is forgiven when the
 *   name judge says "same" or both sides say the same digits (parse_digits) or the same
 *   number (parse_number); with an LLM judge configured, the segments it leaves go to it
 *   (sessions/eval/benchjudge.h). Row data: {"utterance","condition","ref","hyp","words",
 *   "word_errors","word_genuine","segments","forgiven_offline","chars","char_errors",
 *   "ms","cost","error"}.
 * - EXTRACT, one per prefix: the latest reference transcript, the expected history and
 *   the question asked go to the EXTRACT backend; its output is normalized by the rule
 *   layer (flow_check) and checked: the asked field's status (the skip flag) and value
 *   (closed fields exactly, open string fields by the name judge: score_same_value);
 *   a number field must come back as a JSON number (the paper's "numbers returned as
 *   strings"); every other field captured must have its expected value. It passes only
 *   when every check does. Row: {"call","turn","field","condition","pass","checks":
 *   [{"check","ok","want","got"}],"extraction"?,"ms","cost","error"}.
 * - REPLY, one per prefix: the decision built from the expected values goes to the REPLY
 *   backend. A decision that ends the call is an end-call test: it passes when the tool
 *   call is exactly end_call with the call's expected status and REPLY answered. Any
 *   other is graded on five dimensions (sessions/eval/replycheck.h); where the words cannot
 *   settle "asks", the row keeps the decided wording for the LLM judge. Row:
 *   {"kind":"ask"|"end","pass","asks","asks_unsure","question"?,"label"?,"hindi",
 *   "single_line","no_ack","no_echo","why","text","ms","cost","error"}.
 * - Integration, one per call, run by the call engine (sessions/calls/engine.h) as any call
 *   is: STT's output for each turn (from the STT results) is the caller's turn, typed
 *   in; EXTRACT sees the history as it happened, the rule layer starts from an empty
 *   form, REPLY phrases each decision (a failed REPLY counts as failed, though the
 *   engine says the script's words and the call goes on); the final form is scored
 *   (sessions/corpus/score.h).
 *   Row: {"caller","condition","fields","correct","status_want","status_got","turns",
 *   "replies_opening","replies_opening_ok","replies_turn","replies_turn_ok",
 *   "replies_end","replies_end_ok" (the replies by kind: the opening question, a question
 *   after a caller turn, graded on the five checks; the call's closing words, ok when
 *   REPLY gave some), "opening_ms" (the opening REPLY's time), "turn_ms":[...] (each caller
 *   turn from the end of her speech: the STT result's own time, EXTRACT, the rules,
 *   REPLY), "cost","misses":[...], "path" (the corpus's), "per_field":{FIELD:[asked,
 *   ok,ok_all]} and "fields_all","correct_all" (bench_score_fields), and when the final
 *   form is wrong "fault":{"turn","stage"}: the first caller turn where the call went
 *   wrong against its expected conversation and the stage at fault, "STT" (its
 *   transcript has genuine errors), "EXTRACT" (its output is not what the words say),
 *   "rules" (the form differs though EXTRACT gave what was said), "REPLY" (a question
 *   failing its checks came first; turn 0 is the opening), or "unattributed" (turn -1:
 *   no turn's form differed from the expected conversation's, e.g. a plan mismatch).
 *   Endpointing is not run here: the turns are typed in.}
 *
 * A request that got no answer (nothing listening, a timeout, an HTTP error after the
 * provider's retries) is not a result: its row is {"errored":true,"error":CAUSE,...}
 * (an integration call whose STT, EXTRACT or REPLY request failed: {"caller",
 * "condition","errored","error"}), left out of every figure, and asked again next run.
 *
 * With an LLM judge (bench_config.judge), after the unit tests: undecided items of the
 * STT, EXTRACT and REPLY rows are judged and the rows rewritten (sessions/eval/benchjudge.h).
 *
 * Network EXTRACT and REPLY backends run through the non-blocking halves of their ops
 * (backend_start / backend_finish, http_start, http_poll) with up to `concurrency` unit
 * tests in flight, and up to `concurrency` integration calls side by side, each on an
 * engine of its own; offline backends and STT run inline. */
#ifndef FORMDESK_BENCH_H
#define FORMDESK_BENCH_H

#include <stdbool.h>
#include "agent/stages/backend.h"
#include "base/err.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"
#include "base/ymd.h"
#include "benchjudge.h"

struct corpus;
struct lexicon;
struct benchdb;
struct store;

/* The parts of a run (bench_config.stages); 0 means all. */
enum bench_stage {
	BENCH_STT = 1,
	BENCH_EXTRACT = 2,
	BENCH_REPLY = 4,
	BENCH_CALLS = 8,
};

/* Progress: stage ("stt", "extract", "reply", "calls"), units done and in all. */
typedef void (*bench_progress_fn)(void *ud, const char *stage, long done, long total);

struct bench_config {
	const struct form *form;     /* borrowed */
	const char *form_path;
	const struct lexicon *lex;   /* borrowed */
	const struct corpus *corpus; /* borrowed; calls without an expected form are skipped */
	struct ymd today;
	const char *stt_spec, *extract_spec, *reply_spec; /* recorded names ("rules") */
	struct backend stt;
	struct backend extract;
	struct backend reply;
	int concurrency;             /* requests in flight for network backends, >= 1 */
	const struct backend *judge;  /* the LLM judge (sessions/eval/benchjudge.h; backend_judge),
	                                borrowed; NULL: the offline judges only */
	unsigned stages;             /* enum bench_stage bits to run; 0: all */
	bench_progress_fn progress;  /* may be NULL */
	void *ud;
	struct store *store;         /* the integration's calls are recorded here (borrowed;
	                                NULL: nowhere), in run run_id (sessions/calls/runs.h) */
	long long run_id;
};

/* What the plan holds and what this run did. */
struct bench_counts {
	long utterances;   /* STT unit tests */
	long extract;      /* EXTRACT unit tests (= prefixes) */
	long reply_ask;    /* REPLY tests that need a reply */
	long reply_end;    /* REPLY end-call tests */
	long calls;        /* integration calls */
	long callers, conditions; /* distinct, in the calls benchmarked */
	long new_stt, new_extract, new_reply, new_calls; /* run now (the rest were in the db) */
	long plan_mismatches; /* calls whose expected form the rules cannot reach */
	/* requests of this run that failed (no answer from the provider: nothing listening,
	 * a timeout, an HTTP error after the retries): stored as errors ("errored":true and
	 * the cause in "error"), not scored, asked again on the next run */
	long errors_stt, errors_extract, errors_reply, errors_calls;
	char first_error[256]; /* the first one's cause, "" when none */
	struct benchjudge_counts judge; /* what the LLM judge did in this run (zero without) */
};

/* bench_scope: the scope string results are kept under: "corpus=DIR;form=PATH;today=D".
 * Output: new string (caller frees), NULL on allocation failure. */
char *bench_scope(const struct bench_config *cfg);

/* bench_run: run every unit test and integration call not yet in db. Inputs borrowed.
 * Output: *counts (may be NULL); on failure *errmsg (caller frees; may be NULL) says
 * what failed. Errors: ERR_DB, ERR_NOMEM, ERR_INVALID (no call with an expected form),
 * ERR_BACKEND (the HTTP client could not run). A backend that answered wrongly (or with
 * words that do not parse) fails its test; a request the provider never answered (see
 * bench_counts.errors_*) is stored as an error with its cause, is no test result, and
 * is asked again on the next run (docs/evaluation.md, "Failed requests"). */
enum err bench_run(const struct bench_config *cfg, struct benchdb *db, struct bench_counts *counts,
		   char **errmsg);

/* One field of a call's final form, scored over both denominators (docs/evaluation.md,
 * "Field-level completion"). */
struct bench_field_score {
	bool asked;  /* the call's path asks it: its expected status is answered or skipped */
	bool ok;     /* asked, and the final status is the expected one and, answered, so is
	                the value (score_same_value: names by the name judge, the rest exactly,
	                so a number given as a string or another option is wrong) */
	bool ok_all; /* over all fields: ok when asked; a field the path never asks is right
	                only when left empty, so a value captured for a field of a branch that
	                never opened is wrong */
};

/* bench_score_fields: score each of form's questions (out[i] for question i, n_questions
 * entries, caller's) from the expected and the final form_data / form_status (borrowed).
 * The path denominator's sums equal score_call's (sessions/corpus/score.h). */
void bench_score_fields(const struct form *form, const cJSON *want_data, const cJSON *want_status,
			const cJSON *got_data, const cJSON *got_status, struct bench_field_score *out);

/* bench_judge_offline: the offline LLM-WER judge (wer_judge_fn; ctx a struct lexicon or
 * NULL): equivalent when the name judge says "same" or both segments say the same
 * digits or the same number. */
enum err bench_judge_offline(void *ctx, const char *ref, const char *hyp, bool *equivalent);

#endif
