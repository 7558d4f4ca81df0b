/* voice: the agent's words spoken in the chosen voice (--tts) from a screen, without
 * holding the screen's loop up: the simulator's played calls, each reply as the playback
 * shows it (playback_on_agent), on the output device or into a WAV file (--output-device,
 * --output-file), and annotate's v, whose audio is handed back whole for its player.
 * voice_say only starts the synthesis (backend_speak_start, agent/stages/backend.h): a
 * hosted voice's request runs on the voice's own HTTP client, espeak-ng on its worker
 * thread; the loop waits on them beside its own descriptors (voice_waitfds) and moves
 * them on when it wakes (voice_tick), the audio going to the sink piece by piece as it
 * comes. A reply stops the one before it, still synthesizing or playing. */
#ifndef FORMDESK_VOICE_H
#define FORMDESK_VOICE_H

#include <stdbool.h>
#include "base/err.h"
#include "agent/stages/backend.h"
#include "sessions/calls/livecall.h"

struct voice;
struct curl_waitfd;
struct pollfd;

/* voice_open: the voice lo->tts names, with a cache beside db_path for a hosted one, and
 * the output lo names (a device, lo->output_file, else the default device). Output: *out
 * (caller frees with voice_free); on failure *errmsg (caller frees; may be NULL). Errors:
 * backend_tts's (an unknown voice, a key not set), ERR_NOTFOUND (no output device),
 * ERR_AUDIO, ERR_IO, ERR_BACKEND (no HTTP client), ERR_NOMEM. */
enum err voice_open(const struct livecall_options *lo, const char *db_path, struct voice **out,
		    char **errmsg);

/* voice_new: a voice on tts (copied; its ctx stays the caller's, and must outlive the
 * voice) with no output: each text's audio is kept, at rate Hz, for voice_done. Output:
 * *out (caller frees with voice_free). Errors: ERR_INVALID (rate), ERR_BACKEND (no HTTP
 * client), ERR_NOMEM. */
enum err voice_new(const struct backend *tts, int rate, struct voice **out);

/* voice_free: what is synthesizing is cancelled, what plays is stopped; NULL does
 * nothing. */
void voice_free(struct voice *v);

/* voice_say: start saying text (ud is the struct voice), stopping what was still
 * synthesizing or playing (voice_stop); returns at once, before any audio (a cached or
 * silent voice may have answered already). A voice that fails says nothing (the words
 * are on the screen anyway); voice_failures counts it. */
void voice_say(void *ud, const char *text);

/* voice_stop: cancel the text being synthesized (no audio of it comes) and stop what is
 * playing. */
void voice_stop(struct voice *v);

/* voice_waitfds: while a text is being synthesized, what the loop must also wait on: up
 * to max descriptors into fds (the HTTP client's sockets, the synthesizer thread's pipe)
 * and *timeout_ms lowered to when voice_tick is due (at most VOICE_TICK_MS while
 * synthesizing). Output: the number of fds filled (0 when idle). */
#define VOICE_TICK_MS 100
#define VOICE_MAX_FDS 8
unsigned voice_waitfds(struct voice *v, struct curl_waitfd *fds, unsigned max, int *timeout_ms);

/* voice_pollfds: voice_waitfds for a loop that waits in poll(): up to max entries into
 * pf (events set, revents 0). Output: the number filled. */
unsigned voice_pollfds(struct voice *v, struct pollfd *pf, unsigned max, int *timeout_ms);

/* voice_tick: after the loop's wait, move the synthesis on: its new audio to the sink (or
 * kept), and at its end the utterance closed (it plays out) or the audio ready for
 * voice_done. Cheap when idle. */
void voice_tick(struct voice *v);

/* voice_busy: a text is being synthesized. */
bool voice_busy(const struct voice *v);

/* voice_done: for a voice without output (voice_new): true once when the text of the last
 * voice_say has ended, with *e its outcome and, on ERR_OK, *out its whole audio at the
 * voice's rate (caller frees out->samples; n may be 0: nothing was said). False while it
 * is synthesizing, after it was taken, or when it was stopped. */
bool voice_done(struct voice *v, enum err *e, struct tts_audio *out);

/* voice_name: the voice's provider name ("espeak", "sarvam"; owned by the backend). */
const char *voice_name(const struct voice *v);

/* voice_failures: texts that could not be spoken so far. */
int voice_failures(const struct voice *v);

#endif
