/* playback: plays a corpus's calls through the call engine at a pace a person can
 * follow. The engine runs a whole caller turn at once; its events are queued and released
 * on a clock into a callview: the caller's words, then (after a beat) the extraction,
 * verdicts and decision with the form as the rules left it, then (after another) the
 * agent's reply. When a call ends its status stays up for a while, then the next call
 * begins. Time is an input (milliseconds on any monotonic clock), so the pacing is
 * deterministic given the times passed in. */
#ifndef FORMDESK_PLAYBACK_H
#define FORMDESK_PLAYBACK_H

#include <stdbool.h>
#include "agent/err.h"
#include "sessions/engine.h"

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

/* playback_tick: release into the view everything due at now_ms, running the engine
 * when the queue is empty and it is time. Output: ms until something is next due (0 or
 * more), or -1 when every call has been played (the view is then in its finished mode)
 * or the playback is paused. */
int playback_tick(struct playback *p, double now_ms);

/* playback_pause: pause (the clock stops; nothing is released) or resume at now_ms. */
void playback_pause(struct playback *p, bool paused, double now_ms);
bool playback_paused(const struct playback *p);

/* playback_next: finish the current call at once, without pacing (every remaining turn
 * still runs and is recorded), show it, and begin the next call (if any) at now_ms. */
void playback_next(struct playback *p, double now_ms);

/* playback_finished: every call has been played. */
bool playback_finished(const struct playback *p);

#endif
