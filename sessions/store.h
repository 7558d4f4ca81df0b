/* store: the SQLite session store: every call, turn, transcript, extraction, verdict,
 * decision, final form and status, with timings. WAL journal; one transaction per turn,
 * so a crash or a kill never loses a finished turn.
 *
 * Tables (schema version STORE_SCHEMA_VERSION, kept in PRAGMA user_version):
 *   calls     one row per call: corpus, its call id there, form path and title, the
 *             backends, "today", start and end times (UTC, ISO 8601), status, reason,
 *             the opening words and decision, final form_data / form_status JSON, the
 *             number of caller turns.
 *   turns     one row per caller turn: call, index (1 = first caller turn), audio path,
 *             speech segments (first start, last end, and all as JSON), condition,
 *             utterance id, transcript, extraction JSON, decision JSON, the agent's reply,
 *             per-stage timings in ms, error text.
 *             cancelled = 1 when the turn was abandoned while a stage was in flight
 *             (barge-in, the next call, quit): what was done before is kept.
 *   captures  one row per item the rule layer saw in a turn (decision "captured").
 *   verdicts  one row per validator that ran in a turn (decision "verdicts").
 *   stage_usage one row per network request a stage made (STT, EXTRACT, REPLY) in a turn,
 *             or in the call's opening (turn_id NULL): provider, model, time to first
 *             byte and total time in ms, attempts, tokens in and out (NULL unknown),
 *             seconds of audio sent, cost in USD from the configured prices (NULL when
 *             none is configured), error text. Never a key.
 * Rows of captures, verdicts and stage_usage belong to their turn (foreign keys, ON
 * DELETE CASCADE); stage_usage rows also name their call.
 *   Live calls (schema 3): turns.input says how the caller's words came in ("corpus",
 *             "typed", "mic"); turns.barge_in = 1 when the caller started speaking while
 *             the agent was speaking or thinking, barge_in_ms how far into the agent's
 *             speech (ms of it played; 0 when the agent was still thinking);
 *             turns.silence = 1 for a turn of caller silence (the re-prompt after
 *             silence_ms); turns.caller_audio_start_ms/end_ms and agent_audio_start_ms/
 *             end_ms: where the caller's words and the agent's reply lie in the call's
 *             recordings (ms from the start of caller.wav and agent.wav, which share one
 *             timeline: audio/recorder.h); calls.audio_dir the folder of those files.
 *   The early acknowledgement (schema 4): stage_usage.ack_ms, for an EXTRACT request, ms
 *             from its start to the acknowledgement being known (as its streamed string
 *             closed, or with the whole answer; NULL without one and for other stages);
 *             turns.ack the acknowledgement the agent said at once, before the rest of
 *             EXTRACT's answer (NULL when none was said).
 * Version 2 added stage_usage and turns.cancelled; version 3 the live-call columns (turns
 * of a corpus call recorded before it get input "corpus"); version 4 stage_usage.ack_ms
 * and turns.ack (NULL in rows written before). Older files are migrated in place, one
 * version at a time. */
#ifndef FORMDESK_STORE_H
#define FORMDESK_STORE_H

#include <stdbool.h>
#include "agent/err.h"

#define STORE_SCHEMA_VERSION 4

struct store;

/* store_open: open (creating if needed) the database at path and bring its schema up to
 * date. Output: *out (caller frees with store_close); on failure *errmsg (caller frees;
 * may be NULL) names the file and SQLite's message. Errors: ERR_DB (also for a database
 * made by a newer formdesk), ERR_NOMEM. */
enum err store_open(const char *path, struct store **out, char **errmsg);
/* store_close: close st; NULL does nothing. */
void store_close(struct store *st);

/* store_error: SQLite's message for the last failure on st (static to st, valid until
 * the next call on it); "" when none. */
const char *store_error(const struct store *st);

/* One network request of a stage (see struct backend_usage, agent/backend.h). Strings are
 * borrowed; provider, model and error may be NULL. */
struct store_usage {
	const char *stage;          /* "stt", "extract", "reply" */
	const char *provider, *model;
	double ttfb_ms, total_ms;   /* milliseconds */
	int attempts;               /* 1 + retries; 0 when nothing was sent */
	long tokens_in, tokens_out; /* -1 unknown (stored NULL) */
	double audio_s;             /* seconds of audio sent */
	double cost_usd;            /* -1 when no price is configured (stored NULL) */
	const char *error;          /* "" or NULL when the request succeeded */
	double ack_ms;              /* EXTRACT: ms from the request's start to the
	                               acknowledgement being known; 0 or less when there was
	                               none or it was not measured (stored NULL) */
};

/* What is known when a call opens. Every string is borrowed and may be NULL. */
struct store_call_info {
	const char *corpus;          /* corpus name */
	const char *corpus_call_id;  /* the call's id in its corpus */
	const char *caller;
	const char *path;            /* branch path, human readable */
	const char *form_path;
	const char *form_title;
	const char *stt, *extract, *reply; /* backend specs */
	const char *today;           /* "YYYY-MM-DD" given to the rule layer */
	const char *opening;         /* the agent's first words */
	const char *opening_decision; /* JSON text of the opening decision */
	const struct store_usage *usage; /* the opening REPLY's requests, n_usage of them */
	int n_usage;
};

/* store_call_begin: record a new call (status in_progress, started now) and its opening's
 * stage_usage rows, in one transaction. Output: *id the call's row id. Errors: ERR_DB. */
enum err store_call_begin(struct store *st, const struct store_call_info *info, long long *id);

/* One caller turn. Strings are borrowed and may be NULL; JSON fields are JSON text. */
struct store_turn {
	int index;                 /* 1 for the first caller turn */
	const char *utterance_id;
	const char *audio;
	const char *condition;
	long seg_start_ms, seg_end_ms; /* first speech start, last speech end; -1 when none */
	const char *segments;      /* JSON array of {"start_ms","end_ms"} */
	const char *transcript;
	const char *extraction;    /* extraction_to_json() text */
	const char *decision;      /* the rule layer's decision record */
	const char *reply;         /* the agent's words after the turn */
	double audio_ms, vad_ms, stt_ms, extract_ms, rules_ms, reply_ms, total_ms, speech_ms;
	const char *error;         /* what failed in the turn, NULL when nothing did */
	bool cancelled;            /* abandoned while a stage was in flight */
	const char *input;         /* "corpus", "typed", "mic"; NULL unknown */
	bool barge_in;             /* the caller spoke while the agent spoke or thought */
	long barge_in_ms;          /* ms of the agent's speech played by then (barge_in only) */
	bool silence;              /* a turn of caller silence */
	bool recorded;             /* the caller_audio offsets are known */
	long caller_audio_start_ms, caller_audio_end_ms; /* ms into the caller's recording */
	const char *ack;           /* the acknowledgement said at once (ENGINE_ACK), NULL none */
	const struct store_usage *usage; /* the turn's network requests, n_usage of them */
	int n_usage;
};

/* store_turn_add: record one turn of call id, with its captures and verdicts (read from
 * t->decision) and its stage_usage rows, in one transaction: after it returns ERR_OK the turn survives a crash.
 * Errors: ERR_DB (nothing of the turn is kept), ERR_PARSE (t->decision is not JSON),
 * ERR_NOMEM. */
enum err store_turn_add(struct store *st, long long call, const struct store_turn *t);

/* store_call_end: close call id: status ("complete", "failed", ...), reason (may be NULL),
 * final form_data and form_status JSON text, number of caller turns; ended now.
 * Errors: ERR_DB, ERR_NOTFOUND (no such call). */
enum err store_call_end(struct store *st, long long call, const char *status, const char *reason,
			const char *form_data, const char *form_status, int turns);

/* store_call_audio_dir: the folder holding call id's recordings (dir borrowed).
 * Errors: ERR_DB, ERR_NOTFOUND (no such call). */
enum err store_call_audio_dir(struct store *st, long long call, const char *dir);

/* store_turn_agent_audio: where the agent's reply after turn index of call lies in the
 * agent's recording, ms from its start (known only once the reply has played out or been
 * stopped, after the turn's row was written). Errors: ERR_DB, ERR_NOTFOUND (no such
 * turn). */
enum err store_turn_agent_audio(struct store *st, long long call, int index, long start_ms,
				long end_ms);

#endif
