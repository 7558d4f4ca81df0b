/* engine: the call engine. Runs one call from a source (a corpus call's recorded caller
 * turns) through the agent (endpointing, STT, EXTRACT, the rule layer, REPLY) into the
 * store, and tells a listener every stage's result as it happens (the panes use it).
 *
 * The caller of the engine drives it: engine_begin() opens a call and produces the
 * agent's first words; each engine_step() consumes one caller turn. So the simulator can
 * pace a call on screen, and the headless run can loop. */
#ifndef FORMDESK_ENGINE_H
#define FORMDESK_ENGINE_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "agent/err.h"
#include "agent/backend.h"
#include "agent/flow.h"
#include "audio/endpoint.h"

struct store;
struct corpus_call;
struct lexicon;

struct engine_config {
	const struct form *form;       /* borrowed, must outlive the engine */
	const char *form_path;         /* recorded with each call */
	const char *corpus_name;       /* recorded with each call, may be NULL */
	const struct lexicon *lex;     /* borrowed */
	struct stt_backend stt;
	struct extract_backend extract;
	struct reply_backend reply;
	struct store *store;           /* borrowed; NULL records nothing */
	struct ymd today;
	struct endpoint_options endpoint;
};

/* Per-turn stage timings, in milliseconds of wall time. */
struct engine_timings {
	double audio_ms;   /* decode + resample */
	double vad_ms;     /* endpointing */
	double stt_ms;
	double extract_ms;
	double rules_ms;
	double reply_ms;
	double total_ms;
	double speech_ms;  /* length of the caller's speech the endpointer found */
};

enum engine_event_kind {
	ENGINE_CALL_START,  /* text: call id */
	ENGINE_AGENT_SAYS,  /* text: the agent's words */
	ENGINE_CALLER_SAYS, /* text: the transcript; json: {"audio","segments":[{start_ms,end_ms}],"condition"} */
	ENGINE_EXTRACTED,   /* json: extraction_to_json() */
	ENGINE_DECISION,    /* json: the decision record (flow.h) */
	ENGINE_TURN_DONE,   /* timings set */
	ENGINE_CALL_END,    /* status set; json: {"form_data","form_status"} */
	ENGINE_ERROR,       /* text: what failed, with file names */
};

struct engine_event {
	enum engine_event_kind kind;
	const char *call_id;
	int turn;                          /* caller turn number, 0 before the first */
	const char *text;                  /* may be NULL */
	const cJSON *json;                 /* may be NULL; valid during the callback only */
	const struct engine_timings *timings; /* ENGINE_TURN_DONE only */
	enum call_status status;
};

/* Called synchronously for each event; must not call back into the engine. */
typedef void (*engine_listener)(void *ud, const struct engine_event *ev);

struct engine;

/* engine_new: Output: *out (caller frees with engine_free). cfg is copied; what it points
 * to is borrowed. listener may be NULL. Errors: ERR_NOMEM. */
enum err engine_new(const struct engine_config *cfg, engine_listener listener, void *ud,
		    struct engine **out);
void engine_free(struct engine *e);

/* engine_begin: open a call for call (borrowed until the call ends), record it, emit
 * CALL_START, the opening decision and the agent's first words. A call still open from
 * an earlier engine_begin is recorded as failed ("abandoned") first; so is an open call at
 * engine_free. A failing REPLY is an ENGINE_ERROR event and is recorded, not an error.
 * Errors: ERR_DB, ERR_NOMEM, ERR_INVALID (the rule layer refused to start). */
enum err engine_begin(struct engine *e, const struct corpus_call *call);

/* engine_step: run the next caller turn (audio, VAD, STT, EXTRACT, rules, REPLY), record
 * it in one transaction, emit its events. *ended becomes true once the call has ended
 * (by the rules, or because the caller's turns ran out: the caller hung up, and the call
 * is failed). Errors: ERR_DB, ERR_NOMEM; a failing backend is recorded as a turn with
 * nothing captured, not an error. */
enum err engine_step(struct engine *e, bool *ended);

/* engine_flow: the current call's rule-layer state (read-only), NULL before a call. */
const struct flow *engine_flow(const struct engine *e);

#endif
