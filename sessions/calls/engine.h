/* engine: the call engine. Runs one call from a source (a corpus call's recorded caller
 * turns, or turns fed from outside: typed text, live audio) through the agent
 * (endpointing, STT, EXTRACT, the rule layer, REPLY) into the store, and tells a listener
 * every stage's result as it happens (the panes use it).
 *
 * A turn is a small state machine: audio and endpointing (local, at once) -> STT ->
 * EXTRACT -> rules -> REPLY -> one store transaction. A network stage starts its request
 * on the engine's HTTP client (agent/stages/http.h) and the turn waits; engine_poll(), called
 * from the one place the program's loop waits, moves it on when the answer arrives.
 * Offline backends (and any backend without non-blocking halves, agent/stages/backend.h)
 * complete at once in the same machinery, so with them a turn is done when
 * engine_start_turn returns. engine_cancel() abandons what is in flight at once.
 *
 * Two ways to drive it: non-blocking (engine_start_call, engine_start_turn, engine_poll,
 * engine_cancel: the simulator), or blocking (engine_begin, engine_step: the headless
 * run), which are the same calls waiting until the turn is done. */
#ifndef FORMDESK_ENGINE_H
#define FORMDESK_ENGINE_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "agent/stages/backend.h"
#include "agent/rules/flow.h"
#include "agent/stages/http.h"
#include "audio/endpoint.h"
#include "sessions/store/latency.h"

struct store;
struct corpus_call;
struct lexicon;

struct engine_config {
	const struct form *form;       /* borrowed, must outlive the engine */
	const char *form_path;         /* recorded with each call */
	const char *corpus_name;       /* recorded with each call, may be NULL */
	const struct lexicon *lex;     /* borrowed */
	struct backend stt;             /* each from backend_stt / _extract / _reply */
	struct backend extract;
	struct backend reply;
	struct store *store;           /* borrowed; NULL records nothing */
	struct ymd today;
	struct endpoint_options endpoint;
	bool telephone;                /* caller audio (a corpus turn's file or live samples)
	                                  goes through the 8 kHz mu-law telephone channel
	                                  (audio/channel.h) before VAD and STT; the turn's
	                                  condition is recorded with "+telephone" */
	long long run_id;              /* the run each call is recorded in (sessions/calls/runs.h);
	                                  0 none */
	long turn_deadline_ms;         /* a turn's (or the opening's) stages together, ms: a
	                                  request still running then is ended and recorded as
	                                  failed, as any failing backend is; 0 the config
	                                  file's (agent/stages/provider.h provider_config_deadlines),
	                                  -1 none */
	long call_deadline_ms;         /* the agent's turns of one call together (the opening
	                                  included; not the caller's time), ms: a turn's
	                                  requests end when it passes, and the call ends as
	                                  failed with reason "deadline: ..." once the turn is
	                                  recorded; 0 the config file's, -1 none */
};

/* The network stages of a turn. */
enum engine_stage {
	ENGINE_STAGE_STT,
	ENGINE_STAGE_EXTRACT,
	ENGINE_STAGE_REPLY,
	ENGINE_STAGES,
};

/* engine_stage_name: "STT", "EXTRACT", "REPLY" (static). */
const char *engine_stage_name(enum engine_stage s);

/* Per-turn stage timings, in milliseconds of wall time, and what the network requests
 * cost. */
struct engine_timings {
	double audio_ms;   /* decode + resample */
	double vad_ms;     /* endpointing */
	double stt_ms;
	double extract_ms;
	double rules_ms;
	double reply_ms;
	double total_ms;
	double speech_ms;  /* length of the caller's speech the endpointer found */
	bool cancelled;    /* the turn was abandoned while a stage was in flight */
	bool has_usage[ENGINE_STAGES];            /* the stage made a network request */
	struct backend_usage usage[ENGINE_STAGES]; /* its measurements (agent/stages/backend.h) */
	double cost_usd;   /* sum of the priced requests' costs, USD (0 when none priced) */
	struct latency latency; /* end of the caller's speech to the agent's first sound
	                           (sessions/store/latency.h), as far as the engine sees it: TTS and
	                           playback 0 until engine_latency_played; not known when the
	                           turn said nothing (cancelled, no words) */
};

enum engine_event_kind {
	ENGINE_CALL_START,  /* text: call id */
	ENGINE_AGENT_SAYS,  /* text: the agent's words (the whole reply, as stored); json: NULL,
	                       or {"sentences": N} when the reply was already handed out
	                       sentence by sentence (N ENGINE_REPLY_SENTENCE events, the last
	                       one the rest): shown, but not to be spoken again */
	ENGINE_CALLER_SAYS, /* text: the transcript; json: {"audio","segments":[{start_ms,end_ms}],
	                       "condition","utterance_id","input","silence"[,"barge_in":{"at_ms",
	                       "during"}]} */
	ENGINE_EXTRACTED,   /* json: extraction_to_json() */
	ENGINE_DECISION,    /* decision: the rule layer's decision (agent/rules/decision.h); json:
	                       the same as JSON (decision_to_json), as REPLY and the store
	                       receive it */
	ENGINE_TURN_DONE,   /* timings set (cancelled turns too); text: the turn's registered
	                       columns that are shown (sessions/store/turncol.h,
	                       turncol_shown), "" when none */
	ENGINE_CALL_END,    /* status set; json: {"form_data","form_status","reason","usage"},
	                       usage as engine_usage_json() */
	ENGINE_ERROR,       /* text: what failed, with file names */
	ENGINE_ACK,         /* text: EXTRACT's acknowledgement ("जी"), for the agent to say at
	                       once, before the rest of the turn (the FormBharo paper: spoken
	                       to cut perceived latency). At most once per turn, always before
	                       the turn's ENGINE_EXTRACTED: while a streamed answer is still
	                       arriving, as soon as its "ack" string is complete; otherwise
	                       (offline backends, unstreamed answers, a stream read in one
	                       go) right before ENGINE_EXTRACTED, from the extraction's ack.
	                       Not sent when there is none. Once sent it stands: a failed or
	                       cancelled EXTRACT does not take it back. */
	ENGINE_REPLY_SENTENCE, /* text: one sentence of a caller turn's reply, for the agent to
	                       say at once while REPLY's streamed answer still arrives
	                       (agent/stages/backend.h backend_sentence), in order. Once one was
	                       sent, the turn's reply is spoken only through these: when REPLY
	                       ends, the rest of the line follows as one last sentence event,
	                       before ENGINE_AGENT_SAYS (then {"sentences": N}); when REPLY
	                       fails or is refused after sentences were said, the last event
	                       is the form's script line for the decision, said whole (the
	                       question is then heard in full; the stored reply is the
	                       sentences, then the script line). A cancelled turn (barge-in)
	                       sends no more: its stored reply is the sentences handed out, cut
	                       by the next turn to what played. Never for the opening, nor
	                       for a reply that is not streamed (offline backends, "stream":
	                       false): then ENGINE_AGENT_SAYS alone carries the words. */
};

struct engine_event {
	enum engine_event_kind kind;
	const char *call_id;
	int turn;                          /* caller turn number, 0 before the first */
	const char *text;                  /* may be NULL */
	const cJSON *json;                 /* may be NULL; valid during the callback only */
	const struct decision *decision;   /* ENGINE_DECISION only; valid during the callback */
	const struct engine_timings *timings; /* ENGINE_TURN_DONE only */
	int stage;                         /* ENGINE_ERROR: the stage (enum engine_stage) whose
	                                      backend failed; -1 for any other error or event */
	enum call_status status;
};

/* Called synchronously for each event; must not call back into the engine. */
typedef void (*engine_listener)(void *ud, const struct engine_event *ev);

struct engine;

/* engine_new: Output: *out (caller frees with engine_free). cfg is copied; what it points
 * to is borrowed. listener may be NULL. The engine makes its own HTTP client for the
 * network stages. Errors: ERR_NOMEM, ERR_BACKEND (libcurl could not start). */
enum err engine_new(const struct engine_config *cfg, engine_listener listener, void *ud,
		    struct engine **out);
void engine_free(struct engine *e);

/* engine_start_call: open a call for call (borrowed until the call ends; NULL for a live
 * call, whose turns come from engine_start_turn's input and which never runs out of
 * them), emit CALL_START and the opening decision, and start the opening REPLY. A call
 * still open (or a turn in flight) is cancelled and recorded as failed ("abandoned")
 * first; so is an open call at engine_free. The call is recorded when the opening words
 * are known, then AGENT_SAYS follows. A failing REPLY falls back to the script replier's
 * words (agent/stages/reply_script.h) and is an ENGINE_ERROR event, recorded with the call, not
 * an error. Errors: ERR_DB, ERR_NOMEM, ERR_INVALID (the rule layer refused to start). */
enum err engine_start_call(struct engine *e, const struct corpus_call *call);

/* A caller turn fed from outside a corpus (typed text or live audio). Strings and samples
 * are copied; all may be NULL/0. No samples: transcript is what the caller said (typed),
 * or, with neither, silence. */
struct engine_input {
	const char *transcript;   /* typed words, or the reference for the STT backend */
	const float *samples;     /* mono, 16 kHz, n_samples of them: endpointed, then STT */
	size_t n_samples;
	const struct endpoint_segment *segs; /* where the speech lies in samples (ms from
	                             their start), n_segs of them, as a live endpointer
	                             found it: taken instead of endpointing the samples again
	                             (NULL: endpointed with cfg.endpoint) */
	int n_segs;
	const char *audio;        /* where the audio is kept, recorded with the turn */
	const char *condition;    /* recorded with the turn */
	const char *utterance_id; /* recorded with the turn */
	const char *input;        /* how the words came in, recorded: "typed", "mic"; NULL:
	                             "mic" with samples, else "typed" */
	bool silence;             /* the caller said nothing for the silence time (recorded) */
	bool barge_in;            /* the caller began while the agent spoke or thought */
	long barge_in_ms;         /* ms of the agent's words played by then (0: thinking) */
	const char *barge_in_during; /* "speaking" or "thinking" (NULL: "speaking") */
	long agent_ms;            /* a barge-in while speaking: the length of the agent's words
	                             it cut, ms (0: not known, taken at agent/hindi/turnkind.h's
	                             pace; -1: the words cut were no reply, an acknowledgement) */
	double endpoint_wait_ms;  /* the endpointer's wait: ms from the end of the caller's
	                             speech to its deciding the turn was over (0: typed, the
	                             turn ends on Enter) */
	double speech_end_ago_ms; /* ms from the end of the caller's speech to this call (the
	                             wait and what the loop took to notice); below
	                             endpoint_wait_ms it is taken as that */
	const char *endpoint_by;  /* what governs the wait ("endpointer: stop 200 ms + turn
	                             wait 400 ms"); NULL: "typed: the turn ends on Enter" */
	bool recorded;            /* the turn is in the call's recordings at: */
	long caller_audio_start_ms, caller_audio_end_ms; /* ms into the caller's file */
};

/* engine_start_turn: start the next caller turn: in, or (in NULL) the corpus call's next
 * recorded turn. With offline backends it is done (recorded, events emitted) on return;
 * otherwise engine_poll finishes it. A barge-in turn (in->barge_in, or a corpus turn with
 * barge_in_ms) first cancels a turn still in flight (engine_cancel(e, "barge-in")), and
 * its decision record gains "barge_in": {"at_ms": ms into the agent's speech, "during":
 * "speaking" or "thinking"}, stored with the turn (turns.barge_in, barge_in_ms).
 * Turn-taking (docs/turn-taking.md): a barge-in while speaking keeps of the agent's last
 * words only what played by barge_in_ms (of agent_ms; unknown: agent/hindi/turnkind.h's pace)
 * in the history and the store (store_turn_reply_played), marked as cut off; words of a
 * turn cancelled before the rules judged it, or held, go first in this one (its
 * ENGINE_CALLER_SAYS json has "joins_turn"); a backchannel during the agent's words
 * ("backchannel": true) is not judged (no decision, no retry) and its reply is the rest of
 * the agent's words from the sentence cut; an unfinished turn of speech ("umm", "mera
 * naam...", "held": true) is not judged and says nothing: its words join the next turn.
 * A decision of a turn with no words has "silence": true.
 * Errors: ERR_INVALID (no call begun, or a turn is still in flight: cancel or finish it
 * first), ERR_DB, ERR_NOMEM; a failing backend is recorded in the turn, not an error.
 * Starting a turn when the call has ended does nothing (ERR_OK). */
enum err engine_start_turn(struct engine *e, const struct engine_input *in);

/* engine_poll: wait at most timeout_ms (milliseconds; 0 returns at once) for network
 * activity, a due retry, or one of the extra descriptors (may be NULL; their revents are
 * set, as curl_multi_poll does), then move the turn in flight on, emitting its events and
 * recording it when it is done. While EXTRACT's answer streams in, ENGINE_ACK is emitted
 * from here as soon as its acknowledgement is complete, before the answer has ended; while
 * REPLY's streams in, ENGINE_REPLY_SENTENCE for each sentence as soon as it is complete.
 * This is meant to be the one place a loop waits.
 * Errors: ERR_DB, ERR_NOMEM (the turn is dropped, an ENGINE_ERROR says why),
 * ERR_BACKEND (libcurl failed). */
enum err engine_poll(struct engine *e, int timeout_ms, struct curl_waitfd *extra,
		     unsigned n_extra);

/* engine_busy: the opening or a turn is in progress (not yet recorded). */
bool engine_busy(const struct engine *e);

/* engine_waiting: whether a network request is in flight; if so *stage, *backend (the
 * stage's backend name, borrowed from the config) and *waited_ms (milliseconds since it
 * started) are set; each pointer may be NULL. */
bool engine_waiting(const struct engine *e, enum engine_stage *stage, const char **backend,
		    double *waited_ms);

/* engine_cancel: abandon the opening or turn in progress at once (its request is closed,
 * no answer is awaited) and record it: a turn as cancelled, with what was done before
 * (the transcript, the extraction, the decision if the rules had run) and why (the
 * stage in flight and reason, e.g. "barge-in"); the opening with no words. A turn the
 * rules had not judged yet keeps its words (or its audio, when STT was in flight) for the
 * next turn, which hears them first: nothing the caller said is lost. Then, as after
 * any turn, the call ends if the rules ended it or a corpus call's turns ran out.
 * Nothing in progress: nothing happens. Errors: ERR_DB, ERR_NOMEM. */
enum err engine_cancel(struct engine *e, const char *reason);

/* engine_hang_up: end the open call now, as failed with reason (e.g. "abandoned: ..."):
 * what is in progress is cancelled first (engine_cancel). No open call: nothing happens.
 * Errors: ERR_DB, ERR_NOMEM. */
enum err engine_hang_up(struct engine *e, const char *reason);

/* engine_call_open: a call has begun and not ended. */
bool engine_call_open(const struct engine *e);

/* engine_call_row: the current (or last) call's row id in the store (calls.id), -1 when
 * nothing is recorded (no store, or the opening is still in progress). */
long long engine_call_row(const struct engine *e);

/* engine_turns: caller turns started in the current call (the last one's index). */
int engine_turns(const struct engine *e);

/* engine_begin: engine_start_call, then wait (engine_poll) until the opening is done.
 * Errors: as engine_start_call and engine_poll. */
enum err engine_begin(struct engine *e, const struct corpus_call *call);

/* engine_step: run the next caller turn (audio, VAD, STT, EXTRACT, rules, REPLY) to its
 * end, blocking, record it in one transaction, emit its events. *ended becomes true once
 * the call has ended (by the rules, or because the caller's turns ran out: the caller
 * hung up, and the call is failed). Errors: ERR_DB, ERR_NOMEM, ERR_BACKEND (libcurl); a
 * failing backend is recorded as a turn (a failed STT is silence, a failed EXTRACT
 * captures nothing, a failed REPLY says the script's words), not an error. */
enum err engine_step(struct engine *e, bool *ended);

/* engine_usage_json: the current call's totals so far: {"cost_usd": USD of priced
 * requests, "requests": network requests, "failed_requests", "stt_ms", "extract_ms",
 * "reply_ms" (sums of the stages' wall time, opening included), "turn_ms_total",
 * "turn_ms_max" (caller turns' wall time), "turn_latency": [{"turn","latency"}] (each
 * caller turn that reached a first sound, latency as latency_to_json)}. Output: new object (caller frees), NULL when
 * out of memory. */
cJSON *engine_usage_json(const struct engine *e);

/* engine_latency: the latency of the last caller turn that reached its first sound (the
 * turn in flight once its acknowledgement is said), with its origin (monotonic ms of the
 * end of the caller's speech). Output: *out. Returns false when no turn of the current
 * call has reached one. */
bool engine_latency(const struct engine *e, struct latency *out);

/* engine_latency_played: the first sound of caller turn `turn` started playing at at_ms
 * (monotonic ms, the clock of clock_gettime(CLOCK_MONOTONIC)) after tts_ms of synthesis
 * (governed by tts_by) and playback_ms of handing it to the output (playback_by): the
 * turn's total becomes at_ms minus the end of the caller's speech, formdesk's share the
 * remainder; it is kept with the turn (stored when the turn is, or updated in the store
 * when it already is). Output: *out (may be NULL) the completed figure. A turn that is
 * not the last one to sound, or already played, is left alone (false returned).
 * Errors: none returned; a store failure is an ENGINE_ERROR event. */
bool engine_latency_played(struct engine *e, int turn, double tts_ms, const char *tts_by,
			   double playback_ms, const char *playback_by, double at_ms,
			   struct latency *out);

/* engine_flow: the current call's rule-layer state (read-only), NULL before a call. */
const struct flow *engine_flow(const struct engine *e);

#endif
