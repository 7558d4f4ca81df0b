/* endpointeval: endpointing measured per kind of answer (`formdesk endpoint-eval`), the way
 * LiveKit's eot-bench measures end-of-turn detection: for each setting of the endpointer,
 * how often a turn is ended inside an answer (a false cut-off) against how long after the
 * end of speech the turn ends (the latency the caller waits).
 *
 * Answers with pauses inside them (digit groups, "mera naam... Sunita", a hesitation) are
 * made from a corpus by joining two of its utterances of the same kind with a chosen gap
 * (each utterance once with each gap, then another utterance of its kind):
 * 500 ms of silence, utterance A, the gap, utterance B, 3 s of silence. Each utterance is
 * trimmed to its speech first (endpoint_extent), so the truth is known: the answer ends
 * where B ends. A turn is cut off when the endpointer's first turn ends more than
 * CUTOFF_TOL_MS before that (inside the gap or a pause of A or B), or no turn is found;
 * otherwise its latency is the moment the turn end was decided minus the end of B.
 *
 * The kind of an utterance is the kind of the form question whose name its utterance id
 * holds (the demo corpus names them "<caller>_<question>[_variant]"); utterances that
 * name no question (the real-speech corpus's read sentences) are of kind "other". */
#ifndef FORMDESK_ENDPOINTEVAL_H
#define FORMDESK_ENDPOINTEVAL_H

#include <stdbool.h>
#include <stdio.h>
#include "base/err.h"
#include "agent/rules/form.h"
#include "sessions/corpus/corpus.h"

#define ENDPOINTEVAL_CUTOFF_TOL_MS 200

enum endpointeval_kind {
	ENDPOINTEVAL_DIGITS, /* a number, a phone number, exact digits */
	ENDPOINTEVAL_DATE,
	ENDPOINTEVAL_NAME,   /* free text: names, places */
	ENDPOINTEVAL_YESNO,
	ENDPOINTEVAL_OPTION, /* single or multi select */
	ENDPOINTEVAL_OTHER,  /* names no question */
	ENDPOINTEVAL_KINDS
};

/* endpointeval_kind_name: "digits", "date", "name", "yes/no", "option", "other"; static. */
const char *endpointeval_kind_name(enum endpointeval_kind k);

/* endpointeval_kind_of: the kind of answer question q takes (NULL: other). Digits are the
 * questions for which a live call waits longer (sessions/calls/livecall.c): number type, phone
 * number or exact-digits validation. */
enum endpointeval_kind endpointeval_kind_of(const struct form_question *q);

struct endpointeval_setting {
	int stop_ms;  /* endpoint_options.stop_ms */
	int wait_ms;  /* endpoint_options.turn_wait_ms */
};

struct endpointeval_options {
	const int *gaps_ms;     /* the pauses put inside answers, used in turn (borrowed) */
	int n_gaps;
	bool telephone;         /* the joined audio through the 8 kHz mu-law channel first */
	const char *conditions; /* comma-separated corpus conditions to keep; NULL: all */
};

/* One kind at one setting. */
struct endpointeval_row {
	enum endpointeval_kind kind;
	struct endpointeval_setting setting;
	int items;      /* joined answers */
	int cutoffs;    /* of them, ended inside the answer or not found */
	double p50_ms;  /* latency from the end of speech to the end of the turn, over the */
	double p95_ms;  /* answers not cut off (0 when all were) */
};

/* endpointeval_run: every setting s[0..n_s) on the answers made from corpus c's
 * utterances (kinds from form f; f NULL: all "other"), with the other endpoint options at
 * their defaults. Output: *rows (caller frees with free()), *n_rows: one per kind that has
 * utterances, per setting, kinds in enum order. *errmsg (caller frees; may be NULL) names
 * the file on failure. Errors: ERR_INVALID (no settings or gaps, a negative value, no
 * utterance kept), ERR_IO / ERR_AUDIO (an audio file, the channel), ERR_NOMEM. */
enum err endpointeval_run(const struct corpus *c, const struct form *f, const struct endpointeval_setting *s,
			  int n_s, const struct endpointeval_options *o, struct endpointeval_row **rows,
			  int *n_rows, char **errmsg);

/* endpointeval_print: rows as a table, one line each, under a header; to out. */
void endpointeval_print(FILE *out, const struct endpointeval_row *rows, int n);

/* endpointeval_chart: an SVG of answers kept whole (%, 1 - cut-off rate) against p95
 * latency (ms), one labelled point per row ("digits 200/400": kind stop/wait), with
 * sessions/eval/chart.h's trade-off chart. Errors: as chart_tradeoff. */
enum err endpointeval_chart(const char *path, const char *title, const struct endpointeval_row *rows, int n);

#endif
