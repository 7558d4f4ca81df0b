/* playback: plays a corpus's calls through the call engine at a pace a person can
 * follow. The engine's events are queued and released on a clock into a callview: the
 * caller's words, the agent's acknowledgement at once (as soon as it is known), then
 * (after a beat) the extraction, verdicts and decision with the form
 * as the rules left it, then (after another) the agent's reply. With offline backends a
 * turn's events all come at once; with network backends they come as playback_poll
 * delivers them, and each is shown a beat after the one before or at once when the model
 * took longer than that. When a call ends its status stays up for a while, then the next
 * call begins. Time is an input (milliseconds on any monotonic clock), so the pacing is
 * deterministic given the times passed in and the engine's answers. */
#ifndef FORMDESK_PLAYBACK_H
#define FORMDESK_PLAYBACK_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "agent/stages/http.h"
#include "sessions/calls/engine.h"

struct corpus;
struct callview;
struct playback;

/* One caller turn takes PLAYBACK_TURN_MS / speed on screen (split as in playback.c). */
#define PLAYBACK_TURN_MS 1500.0

/* playback_new: ready to play corpus c from its first call. Inputs: cfg (copied into the
 * engine; what it points to is borrowed, as are c and view, which must outlive the
 * playback), speed (> 0; 2 plays twice as fast). Output: *out (caller frees with
 * playback_free). Errors: ERR_NOMEM, ERR_INVALID (speed not > 0), and engine_new's. */
enum err playback_new(const struct engine_config *cfg, const struct corpus *c,
		      struct callview *view, double speed, struct playback **out);
void playback_free(struct playback *p);

/* playback_tick: release into the view everything due at now_ms, starting the engine's
 * next turn when the queue is empty and it is time. Output: ms until something is next
 * due (0 or more), or -1 when every call has been played (the view is then in its
 * finished mode), the playback is paused, or it waits for the engine (then
 * playback_poll wakes the loop when the engine moves on). */
int playback_tick(struct playback *p, double now_ms);

/* playback_pause: pause (the clock stops; nothing is released) or resume at now_ms. */
void playback_pause(struct playback *p, bool paused, double now_ms);
bool playback_paused(const struct playback *p);

/* playback_next: finish the current call at once, show it, and begin the next call (if
 * any) at now_ms. With offline backends every remaining turn still runs, unpaced, and is
 * recorded; with a network backend the call is left as it stands: a request in flight is
 * abandoned at once (the turn recorded as cancelled) and the call recorded as failed
 * ("abandoned: the next call was asked for"). */
void playback_next(struct playback *p, double now_ms);

/* playback_goto: as playback_next, but the call begun is call index (0-based) of the
 * corpus: an earlier one (played again, recorded as a new call) or a later one; after
 * every call was played it plays on from index. false (nothing done) when there is no
 * such call. playback_call: the index of the call on screen, -1 before the first. */
bool playback_goto(struct playback *p, int index, double now_ms);
int playback_call(const struct playback *p);

/* playback_step: while paused, show the rest of the turn on screen at once, or, when it
 * is all shown, run the call's next caller turn and show it at once (with a network
 * backend its events come as playback_poll delivers them, and show on resuming). false
 * when there is nothing to step: not paused, the call has ended, or the engine is busy. */
bool playback_step(struct playback *p);

/* playback_poll: the loop's one wait: engine_poll (sessions/calls/engine.h) for at most
 * timeout_ms on the engine's requests and the extra descriptors (their revents set).
 * An engine failure is also shown in the view. Errors: as engine_poll. */
enum err playback_poll(struct playback *p, int timeout_ms, struct curl_waitfd *extra,
		       unsigned n_extra);

/* playback_on_agent: fn(ud, text) is called with the agent's words (its replies and
 * acknowledgements) as each is shown, to speak them (tui/voice.h); NULL fn: none. */
void playback_on_agent(struct playback *p, void (*fn)(void *ud, const char *text), void *ud);

/* playback_busy: the engine is working on the opening or a turn. */
bool playback_busy(const struct playback *p);

/* playback_waiting: whether a model or speech service is being waited for; if so buf
 * (size n) says which stage, its backend and for how long, in tenths of a second
 * ("waiting for EXTRACT (openai) 1.2 s"). */
bool playback_waiting(const struct playback *p, char *buf, size_t n);

/* playback_finished: every call has been played. */
bool playback_finished(const struct playback *p);

#endif
