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
 *   Runs (schema 5): runs, one row per set of calls made together (a headless run, a
 *             simulator session, a typed or microphone live call, a replay, a
 *             benchmark's integration): what made it (source), the form's path, title,
 *             content kept whole and its SHA-256, the backend specs, the backends as JSON
 *             (provider, model and prompt version per stage), the options that change
 *             behaviour as JSON (today, endpointing, telephone), the corpus (name and
 *             folder), formdesk's version, the run it replays, start and end.
 *             calls.run_id names each call's run; calls.replay_of the call (in the
 *             database replayed from) a replayed call plays again.
 *   Latency (schema 6): turns.latency, the end of the caller's speech to the agent's
 *             first sound in parts that add up to it (sessions/store/latency.h), JSON
 *             {"total_ms","parts":[{"name","ms","governed_by"}]}; NULL when the turn
 *             said nothing, and in rows written before.
 *   Registered columns (sessions/store/turncol.h): turns has one more column per
 *             registered derived column (latency is the first), its value computed from
 *             the turn handed to store_turn_add. A file lacking one (written before it was
 *             registered) gets it when opened, after the versioned steps, in an IMMEDIATE
 *             transaction of its own, NULL in the rows written before; the schema version
 *             does not change for it: the column is nullable, so an older formdesk writing
 *             such a file leaves it NULL.
 * Version 2 added stage_usage and turns.cancelled; version 3 the live-call columns (turns
 * of a corpus call recorded before it get input "corpus"); version 4 stage_usage.ack_ms
 * and turns.ack (NULL in rows written before); version 5 runs and calls.run_id, with the
 * calls of an older file put in one run per source, form and backends (runs.migrated =
 * 1; the source is "run" for a corpus call, "mic" for a call with a microphone turn,
 * else "typed"; the form's content is not known). Older files are migrated in place, one
 * version at a time. */
#ifndef FORMDESK_STORE_H
#define FORMDESK_STORE_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "agent/stages/backend.h"
#include "sessions/store/turncol.h"

#define STORE_SCHEMA_VERSION 6

struct store;
struct decision; /* agent/rules/decision.h */
struct latency;  /* sessions/store/latency.h */
struct sqlite3; /* sqlite3.h: the connection, for modules keeping tables of their own */

/* Every SQLite file formdesk writes is opened by store_open_with, one way: WAL journal,
 * a busy timeout of STORE_BUSY_TIMEOUT_MS (another process's short write transaction is
 * waited for), foreign keys on, and one schema-version policy for the store's tables and
 * for each part's: a newer version than this formdesk knows is refused with a message
 * naming the file and both versions; an older one is migrated in place, one version per
 * IMMEDIATE transaction (the version is read again inside it, so two processes opening
 * an old file at once migrate it once). */
#define STORE_BUSY_TIMEOUT_MS 10000

/* A set of tables another module keeps in the store's file (the bench results, the
 * annotation desk's labels), with a version of its own. All strings static. */
struct store_part {
	const char *name;    /* what they are called in messages ("annotation tables") */
	const char *prefix;  /* the common beginning of their table names ("ann_") */
	const char *meta;    /* the table (name TEXT PRIMARY KEY, value TEXT) holding their
	                        version in row 'schema_version'; created if missing */
	const char *const *migrations; /* migrations[i] brings version i to i + 1 */
	int n_migrations;    /* = the version this formdesk writes */
	bool durable;        /* synchronous=FULL: every commit is on the disk, not only with
	                        the OS, when it returns (else NORMAL: kept across a process
	                        crash, the last commits may be lost on a power cut) */
};

enum store_mode {
	STORE_CREATE,   /* create the file and the store's tables if missing */
	STORE_EXISTING, /* the file must exist and already hold the store's tables */
};

/* store_open_with: open the database at path by the policy above, bringing the store's
 * tables and then part's (may be NULL) up to date. Output: *out (caller frees with
 * store_close), written only on success; on failure *errmsg (caller frees; may be NULL)
 * names the file and what is wrong. Errors: ERR_NOTFOUND (STORE_EXISTING: no such file,
 * or no store tables in it), ERR_DB (SQLite failed; a newer or unknown schema version;
 * tables of another program), ERR_INVALID (a registered turn column, turncol.h, has the
 * name of one of the store's own), ERR_NOMEM. */
enum err store_open_with(const char *path, enum store_mode mode, const struct store_part *part,
			 struct store **out, char **errmsg);
/* store_open: store_open_with(path, STORE_CREATE, NULL, out, errmsg). */
enum err store_open(const char *path, struct store **out, char **errmsg);
/* store_close: close st; NULL does nothing. */
void store_close(struct store *st);

/* store_error: SQLite's message for the last failure on st (static to st, valid until
 * the next call on it); "" when none. */
const char *store_error(const struct store *st);
/* store_fail: record "FILE: what: SQLite's message" as st's last error (for a part's
 * owner, after a failure on store_sqlite's connection); returns ERR_DB. */
enum err store_fail(struct store *st, const char *what);
/* store_exec: run the statements of sql on st's connection (for a part's owner, as
 * store_fail); what names the step. On failure st's last error is "FILE: what: SQLite's
 * message". Returns SQLite's result code (SQLITE_OK on success). */
int store_exec(struct store *st, const char *sql, const char *what);
/* store_begin: open an IMMEDIATE transaction on st's connection (the write lock taken now,
 * not at the first write); what names the step for messages. Errors: ERR_DB (message in
 * st). */
enum err store_begin(struct store *st, const char *what);
/* store_end: commit the open transaction when e is ERR_OK, else (or when the commit fails)
 * roll it back, so no half-written call, turn, schema step or part's write stays; what
 * names the commit for messages (unused, may be NULL, when e is not ERR_OK). Returns e, or
 * ERR_DB when the commit fails (message in st). */
enum err store_end(struct store *st, enum err e, const char *what);
/* store_sqlite: st's connection, for the owner of a part to reach its own tables only
 * (borrowed; valid until store_close). The store's tables are read with the readers
 * below. */
struct sqlite3 *store_sqlite(struct store *st);
/* store_path: the database file's path (borrowed). */
const char *store_path(const struct store *st);

/* One network request of a stage, as the backend measured it: provider, model, time to
 * first byte and total (ms), attempts, tokens (-1 unknown, stored NULL), seconds of audio
 * sent, cost in USD (-1 when no price is configured, stored NULL), error ("" none, stored
 * NULL), EXTRACT's time to its acknowledgement (0 or less none or not measured, stored
 * NULL); its http_status is not stored. */
struct store_usage {
	const char *stage;              /* "stt", "extract", "reply" */
	struct backend_usage backend;
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
	const cJSON *opening_decision_json; /* or the decision itself (agent/rules/decision.h): the
	                               store prints it into opening_decision; readers: NULL */
	const struct store_usage *usage; /* the opening REPLY's requests, n_usage of them */
	int n_usage;
	long long run_id;            /* the call's run (runs.id); 0 none */
	long long replay_of;         /* the call this one replays (calls.id where it was
	                                recorded); 0 none */
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
	const cJSON *decision_json; /* or the decision itself (agent/rules/decision.h): the store
	                               prints it into decision and reads its captures and
	                               verdicts from it, parsing nothing; readers: NULL */
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
	const char *latency;       /* latency_to_json text (sessions/store/latency.h), NULL none;
	                              readers: NULL (the column is registered: store_turn_col) */
	const struct store_usage *usage; /* the turn's network requests, n_usage of them */
	int n_usage;
	/* What else the engine knows of the turn, for the registered columns' functions
	 * (sessions/store/turncol.h); borrowed, each may be NULL; readers: NULL. */
	const struct latency *latency_parts; /* the turn's latency: the latency column prints
	                              it (in place of latency) when known */
	const struct decision *dec;  /* the rule layer's decision (decision_json as a struct) */
	const cJSON *extraction_json; /* the extraction (extraction as JSON) */
};

/* store_turn_add: record one turn of call id, with its captures and verdicts (read from
 * t->decision_json, or else t->decision) and its stage_usage rows, in one transaction: after it returns ERR_OK the turn survives a crash.
 * Errors: ERR_DB (nothing of the turn is kept), ERR_PARSE (t->decision is not JSON, or
 * t->decision_json not an object), ERR_NOMEM. */
enum err store_turn_add(struct store *st, long long call, const struct store_turn *t);

/* store_call_end: close call id: status ("complete", "failed", ...), reason (may be NULL),
 * final form_data and form_status JSON text, number of caller turns; ended now.
 * Errors: ERR_DB, ERR_NOTFOUND (no such call). */
enum err store_call_end(struct store *st, long long call, const char *status, const char *reason,
			const char *form_data, const char *form_status, int turns);

/* store_call_replay_of: record that call id replays call src (calls.id in the database
 * replayed from). Errors: ERR_DB, ERR_NOTFOUND (no such call). */
enum err store_call_replay_of(struct store *st, long long call, long long src);

/* store_call_audio_dir: the folder holding call id's recordings (dir borrowed).
 * Errors: ERR_DB, ERR_NOTFOUND (no such call). */
enum err store_call_audio_dir(struct store *st, long long call, const char *dir);

/* store_turn_reply_played: the agent's words after turn index of call (0: the call's
 * opening) as the caller heard them (text borrowed: the words played before she barged
 * in, marked as cut off; docs/turn-taking.md), in place of the words decided, known only
 * once the barge-in came, after the turn's row was written. Errors: ERR_DB, ERR_NOTFOUND
 * (no such turn or call). */
enum err store_turn_reply_played(struct store *st, long long call, int index, const char *text);

/* store_turn_agent_audio: where the agent's reply after turn index of call lies in the
 * agent's recording, ms from its start (known only once the reply has played out or been
 * stopped, after the turn's row was written). Errors: ERR_DB, ERR_NOTFOUND (no such
 * turn). */
enum err store_turn_agent_audio(struct store *st, long long call, int index, long start_ms,
				long end_ms);

/* store_turn_latency: turn index of call reached its first sound with latency (JSON text
 * of latency_to_json, borrowed), known only once it played, after the turn's row may have
 * been written. Errors: ERR_DB, ERR_NOTFOUND (no such turn). */
enum err store_turn_latency(struct store *st, long long call, int index, const char *latency);

/* Readers. Each returns an array of rows (caller frees with the matching *_free, which
 * takes NULL) in *out and its length in *n, written only on success; every string of a
 * row is owned by the array and NULL where the column is NULL. Errors: ERR_DB (message
 * in store_error), ERR_NOMEM. */

/* One row of calls: what store_call_begin was given (usage NULL), then what came later. */
struct store_call_row {
	long long id;
	struct store_call_info info;
	const char *started_at, *ended_at; /* UTC, ISO 8601; ended_at NULL while open */
	const char *status, *reason;
	const char *form_data, *form_status; /* JSON text */
	int turns;                 /* caller turns */
	const char *audio_dir;     /* the folder of the call's recordings */
};
/* Which calls to read: a zero filter reads every call. */
struct store_call_filter {
	bool finished;             /* only calls no longer in_progress */
	const char *corpus;        /* only calls of this corpus (borrowed); NULL any */
	long long run;             /* only calls of this run; 0 any */
	long long id;              /* only this call; 0 any */
};
/* store_calls: the calls f selects, by id. */
enum err store_calls(struct store *st, const struct store_call_filter *f,
		     struct store_call_row **out, int *n);
void store_calls_free(struct store_call_row *v, int n);

/* Which calls a page of the review list reads: a zero query reads every call. Strings
 * are borrowed. */
struct store_call_query {
	long long run;          /* only calls of this run; 0 any */
	const char *status;     /* only calls ended with this status; NULL any */
	const char *unanswered; /* only calls whose form_status names this field anything
	                           but "answered"; NULL any */
	const char *said;       /* only calls with a transcript holding this text, A-Z
	                           matched as a-z (SQLite's lower()); NULL or "" any */
	const char *corpus;     /* only calls of this corpus; NULL any */
	const char *fault;      /* only calls where this stage failed on some turn: "stt",
	                           "extract" or "reply" (a failed request, stage_usage.error),
	                           "validation" (a validator refused an answer), "any" (one
	                           of those); NULL any call */
};
/* store_calls_count: how many calls q selects, counted by SQL. Output: *n. Errors:
 * ERR_DB. */
enum err store_calls_count(struct store *st, const struct store_call_query *q, int *n);
/* store_calls_page: the calls q selects, by id, from the offset-th (0-based) on, at most
 * limit (> 0) of them: one page of a list that is never read whole, so a file of 100,000
 * calls opens as fast as one of ten (a run's page is read through the calls_run index).
 * Output and errors as store_calls (*n 0 past the end). */
enum err store_calls_page(struct store *st, const struct store_call_query *q, int offset,
			  int limit, struct store_call_row **out, int *n);

/* One row of turns: what store_turn_add was given (usage NULL), and the registered
 * columns' values. */
struct store_turn_row {
	long long id, call_id;
	struct store_turn t;
	long agent_audio_start_ms, agent_audio_end_ms; /* the reply after the turn in the
	                           agent's recording (store_turn_agent_audio), -1 unknown */
	struct turncol_value cols[TURNCOL_MAX]; /* cols[i]: registered column i's value
	                           (turncol_at(i)), owned by the row */
};
/* store_turn_col: row r's value of the registered column called name (borrowed from r),
 * NULL when no column of that name is registered. */
const struct turncol_value *store_turn_col(const struct store_turn_row *r, const char *name);
/* store_turns: the turns of call, by index. */
enum err store_turns(struct store *st, long long call, struct store_turn_row **out, int *n);
void store_turns_free(struct store_turn_row *v, int n);

/* One item the rule layer saw in a turn (decision "captured"); raw and value are JSON
 * text of the decision's items (strings bare). */
struct store_capture {
	long long id, turn_id;
	const char *field, *raw, *value, *status, *reason;
};
/* store_captures: the captures of turn (> 0), or of every turn of call (turn 0), by
 * turn index then in the decision's order. */
enum err store_captures(struct store *st, long long call, long long turn,
			struct store_capture **out, int *n);
void store_captures_free(struct store_capture *v, int n);

/* One validator that ran in a turn (decision "verdicts"). */
struct store_verdict {
	long long id, turn_id;
	const char *field, *rule;
	bool ok;
	const char *message;
};
/* store_verdicts: as store_captures, for verdicts. */
enum err store_verdicts(struct store *st, long long call, long long turn,
			struct store_verdict **out, int *n);
void store_verdicts_free(struct store_verdict *v, int n);

/* What is known when a run begins. Strings are borrowed and may be NULL. */
struct store_run_info {
	const char *source;          /* "run", "simulate", "typed", "mic", "replay", "bench" */
	const char *form_path, *form_title;
	const char *form_json;       /* the form's content, whole */
	const char *form_sha256;     /* its SHA-256, 64 hex digits */
	const char *stt, *extract, *reply; /* backend specs, PROVIDER[:MODEL] */
	const char *backends;        /* JSON {"stt"|"extract"|"reply": {"spec","provider",
	                                "model","prompt"}} */
	const char *options;         /* JSON {"today","endpointing":{...},"telephone"} */
	const char *corpus;          /* corpus name */
	const char *corpus_dir;      /* its folder */
	const char *version;         /* formdesk's version */
	long long replay_of;         /* the run replayed (runs.id where it was recorded); 0 */
};

/* store_run_begin: record a new run (started now). Output: *id its row id.
 * Errors: ERR_DB. */
enum err store_run_begin(struct store *st, const struct store_run_info *info, long long *id);

/* store_run_end: mark run id ended now. Errors: ERR_DB, ERR_NOTFOUND (no such run). */
enum err store_run_end(struct store *st, long long id);

/* One row of runs, and what the calls say of it. */
struct store_run_row {
	long long id;
	struct store_run_info info;
	const char *started_at, *ended_at; /* UTC, ISO 8601; ended_at NULL while open */
	bool migrated;               /* made by the version 5 migration from older calls */
	int calls;                   /* its calls */
	int complete;                /* of them, ended with status complete */
};

/* store_runs: the run id (> 0), or every run (0), by id. Errors: ERR_DB, ERR_NOMEM. */
enum err store_runs(struct store *st, long long id, struct store_run_row **out, int *n);
void store_runs_free(struct store_run_row *v, int n);

#endif
