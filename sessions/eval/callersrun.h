/* callersrun: simulated calls through the call engine, and their report. Each call is an
 * ordinary recorded call (the engine records it in the run of its config, to open in
 * review and label); its caller's turns come from a source that sees the agent's
 * decision and words each turn: a behaviour caller (sessions/calls/callers.h) or a persona
 * caller on a language model (sessions/calls/persona.h). The report counts, per behaviour and
 * per field, completion and accuracy with 95% Wilson intervals (sessions/eval/stats.h),
 * re-asks, turns per call, the calls that failed and why, and pass^k over repeats. */
#ifndef FORMDESK_CALLERSRUN_H
#define FORMDESK_CALLERSRUN_H

#include <stdbool.h>
#include <stdio.h>
#include "agent/rules/decision.h"
#include "base/err.h"
#include "agent/rules/form.h"
#include "sessions/calls/callers.h"
#include "sessions/calls/engine.h"

/* Where a call's caller turns come from. next: her turn answering decision d (the agent's
 * last, borrowed) after the agent said said (may be NULL); false: she has nothing to say
 * (the call is hung up as failed with why, size n). ud is the source's own. */
struct callersrun_source {
	bool (*next)(void *ud, const struct decision *d, const char *said,
		     struct callers_turn *t, char *why, size_t n);
	void *ud;
	/* speak: her turn as audio (mono 16 kHz; *samples caller frees), for --audio; NULL
	 * sends her words as text. Returns false with why when it cannot be made. */
	bool (*speak)(void *ud, const struct callers_turn *t, float **samples, size_t *n,
		      char *why, size_t nwhy);
	void *speak_ud;
};

/* What became of one call. */
struct callersrun_outcome {
	enum call_status status;
	char reason[160];      /* why it ended, as stored */
	int turns;             /* caller turns */
	int reasks;            /* questions asked again (decisions with a retry) */
	int fields, correct;   /* fields scored (expected answered or skipped), right */
	signed char *field_ok; /* per question: -1 not scored, 0 wrong, 1 right; owned by the
				  runner, valid until the next call */
	bool status_ok;        /* ended with the call status expected */
	bool passed;           /* status_ok and every scored field right */
	long long row;         /* calls.id in the store, -1 none */
};

struct callersrun;

/* callersrun_new: a runner on an engine made from cfg (copied; what it points to is
 * borrowed). listener (may be NULL) also gets every engine event. Output: *out (caller
 * frees with callersrun_free). Errors: as engine_new. */
enum err callersrun_new(const struct engine_config *cfg, engine_listener listener, void *ud,
			struct callersrun **out);
void callersrun_free(struct callersrun *r);

/* callersrun_call: run call (a corpus call with expected forms, callers_call_corpus;
 * borrowed) with turns from src until the rules end it, or after turn_limit caller turns
 * hang it up as failed ("abandoned: turn limit N"), then score it against the expected
 * forms (sessions/corpus/score.h). Output: *o. Errors: ERR_DB, ERR_NOMEM, ERR_BACKEND (engine). */
enum err callersrun_call(struct callersrun *r, const struct corpus_call *call,
			 const struct callersrun_source *src, int turn_limit,
			 struct callersrun_outcome *o);

/* callersrun_engine: the runner's engine (borrowed), for its flow and usage. */
struct engine *callersrun_engine(struct callersrun *r);

/* callers_source: a behaviour caller as a source: ud is her struct callers_call. */
bool callers_source_next(void *ud, const struct decision *d, const char *said,
			 struct callers_turn *t, char *why, size_t n);

struct callersrun_report;

/* callersrun_report_new: an empty report for form f (borrowed), k repeats per call.
 * Returns it (caller frees with callersrun_report_free), NULL when out of memory. */
struct callersrun_report *callersrun_report_new(const struct form *f, int k);
void callersrun_report_free(struct callersrun_report *rep);

/* callersrun_report_add: count one finished call: its behaviours (used[b] true for each
 * behaviour it counts for; NULL: none), its id, its outcome, its repeat (0 .. k-1; a
 * planned call's repeats are added one after the other). Errors: ERR_NOMEM. */
enum err callersrun_report_add(struct callersrun_report *rep, const bool *used, const char *id,
			       const struct callersrun_outcome *o, int repeat);

/* callersrun_report_print: the report on f: calls, then a table per behaviour (calls,
 * completion and accuracy with their 95% Wilson intervals, re-asks and turns per call),
 * a table per field (scored, right, accuracy and interval), pass^k when k > 1, and the
 * failed calls with why (the first 20). */
void callersrun_report_print(const struct callersrun_report *rep, FILE *f);

/* callersrun_report_json: the summary {"calls","complete","completion","fields",
 * "correct","accuracy","failed","pass_k"?:{"k","passed","planned","rate"},
 * "behaviours":{NAME:{"calls","completion","accuracy"}},"fields":{NAME:{"scored",
 * "accuracy"}}}. Output: new object (caller frees), NULL when out of memory. */
cJSON *callersrun_report_json(const struct callersrun_report *rep);

#endif
