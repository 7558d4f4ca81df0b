/* livecall: a live call at the desk, end to end, without a terminal: the caller's words
 * come from a microphone (capture into the lock-free ring, drained by the loop into the
 * turn-taking of sessions/calls/live.h) or are typed; each caller turn goes through the call
 * engine (sessions/calls/engine.h); the agent's words are spoken through a TTS backend into a
 * sink (a PortAudio device, or a WAV file); a microphone call's caller and agent audio is
 * recorded next to the database (audio/recorder.h) and placed per turn in the store.
 *
 * The rules of the conversation that no language model makes:
 * - a caller turn ends by endpointing (longer wait while a number is asked);
 * - barge-in: speech (or typed words) while the agent thinks or speaks stops playback at
 *   once, cancels the engine's turn in flight (engine_cancel(e, "barge-in")), and the new
 *   words are the caller's turn, recorded as a barge-in with how much of the agent's words
 *   had played (and how long they were, so the engine keeps only what she heard); the
 *   cancelled turn's words go first in it, a backchannel lets the agent go on
 *   (docs/turn-taking.md); unless the form sets mute_user_while_agent_speaking (then
 *   speech during the agent's words is not heard);
 * - silence (microphone calls): nothing said for live_options.silence_ms after the agent
 *   stops is a silent caller turn through the engine, whose retry rules decide the
 *   re-prompt or the end of the call;
 * - the acknowledgement (ENGINE_ACK) is spoken at once, while the engine still works on
 *   the turn; the reply follows when it has played. It is agent speech: a barge-in stops
 *   it and cancels the turn. It has no place of its own in the store (only the turn's
 *   reply is placed in the recordings);
 * - a reply streamed from a model (ENGINE_REPLY_SENTENCE) is spoken sentence by sentence
 *   as the sentences complete, each once the one before has played (the acknowledgement
 *   first), while the rest still arrives; between two the agent is thinking, so speech
 *   is still a barge-in, which stops the sentence playing, drops those not yet said and
 *   cancels the request. The reply's place in the recordings runs from its first
 *   sentence to its last; a barge-in's played time counts the sentences played before.
 *
 * One thread: the loop calls livecall_poll, the one place it waits (engine_poll with the
 * loop's own descriptors); PortAudio has no descriptor, so while capturing the wait is cut
 * to LIVECALL_POLL_MS and the ring is drained on every wake. */
#ifndef FORMDESK_LIVECALL_H
#define FORMDESK_LIVECALL_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "engine.h"
#include "live.h"

/* While capturing, the loop wakes at least this often (ms) to drain the ring: 20 ms of
 * audio is two of the endpointer's 10 ms frames. */
#define LIVECALL_POLL_MS 20
/* The capture ring holds this much device audio (ms), so a busy loop (a slow TTS
 * synthesis, a redraw) loses nothing. */
#define LIVECALL_RING_MS 30000

struct livecall_options {
	bool mic;                  /* capture from a microphone; false: the words are typed */
	const char *input_device;  /* padev_find spec (index or name), NULL the default */
	const char *output_device; /* likewise for the agent's words */
	const char *output_file;   /* instead of a device, the agent's words into this WAV; on a
	                              microphone call it plays on the call's audio clock (ms of
	                              caller audio captured), so a capture device that runs
	                              faster than real time keeps both sides in step */
	const char *tts;           /* TTS spec (agent/stages/tts.h), NULL for TTS_DEFAULT */
	const char *db_path;       /* microphone calls are recorded beside it
	                              (recorder_dir()); NULL: not recorded */
	const char *references;    /* a file of reference transcripts, one a line, handed to
	                              the STT backend with each caller turn that has speech, in
	                              order (the "reference" backend returns them: piloting a
	                              script read aloud); NULL: none */
	struct live_options live;  /* endpointing, number wait, silence; mute is the form's */
};

struct livecall;

/* livecall_new: a desk for live calls. cfg is copied into the engine (what it points to
 * is borrowed); opt's strings are borrowed and must outlive lc; listener (may be NULL)
 * gets every engine event (sessions/calls/engine.h), synchronously. Opens the input device
 * (microphone calls) and the output: with no output device the words are shown only and
 * livecall_note() says so; an output device named explicitly must open. Output: *out
 * (caller frees with livecall_free); on failure *errmsg (caller frees; may be NULL) says
 * which device or file and why. Errors: ERR_NOTFOUND (no such input device, or none at
 * all: padev_no_device_hint), ERR_AUDIO, ERR_IO (output file, references file),
 * ERR_BACKEND (TTS or libcurl), ERR_NOMEM. */
enum err livecall_new(const struct engine_config *cfg, const struct livecall_options *opt,
		      engine_listener listener, void *ud, struct livecall **out, char **errmsg);

/* livecall_free: stop the devices, end an open call as abandoned, close the recordings;
 * NULL does nothing. */
void livecall_free(struct livecall *lc);

/* livecall_start: open a new live call (a call still open is abandoned first): the
 * engine's opening is spoken, capture starts. Errors: engine_start_call's, ERR_AUDIO. */
enum err livecall_start(struct livecall *lc);

/* livecall_typed: the caller says text (UTF-8, borrowed; "" is silence), typed at the
 * desk: STT is skipped; while the agent thinks or speaks it is a barge-in. Nothing
 * happens when no call is open. Errors: ERR_INVALID when text is not valid UTF-8 (the
 * line is refused: an error event says so, no turn starts, nothing is stored);
 * engine_start_turn's. */
enum err livecall_typed(struct livecall *lc, const char *text);

/* livecall_poll: the loop's one wait: at most timeout_ms (cut while capturing or playing,
 * see above) on the engine's requests and the extra descriptors (revents set, as
 * engine_poll), then the work that is due: the ring drained into the endpointer, barge-in,
 * turn ends, silence, the agent's next words. Errors: ERR_DB, ERR_NOMEM, ERR_BACKEND. */
enum err livecall_poll(struct livecall *lc, int timeout_ms, struct curl_waitfd *extra,
		       unsigned n_extra);

/* livecall_hang_up: end the open call now as failed with reason; playback stops.
 * Errors: engine_hang_up's. */
enum err livecall_hang_up(struct livecall *lc, const char *reason);

/* livecall_call_open: a call is open. livecall_done: the call has ended and the agent's
 * last words have played out. */
bool livecall_call_open(const struct livecall *lc);
bool livecall_done(const struct livecall *lc);
/* livecall_listening: the agent neither thinks nor speaks: the caller's turn. */
bool livecall_listening(const struct livecall *lc);

/* livecall_status: the status bar's live part into buf (size n): for a microphone call
 * the input level meter and dBFS, whether the VAD hears speech, when the turn is
 * considered over, the turn wait in force, ring overruns; the agent's state; then the
 * last turn's end of speech to the agent's first sound in parts (latency_line). */
void livecall_status(const struct livecall *lc, char *buf, size_t n);

/* livecall_latency: the last caller turn's end of speech to the agent's first sound
 * (sessions/store/latency.h), completed with its synthesis and playback once it played.
 * Output: *out. Returns false while no turn of the current call has one. */
bool livecall_latency(const struct livecall *lc, struct latency *out);

/* livecall_note: a standing remark for the status bar ("no audio output device: ..."),
 * "" when none; static to lc. */
const char *livecall_note(const struct livecall *lc);

/* livecall_engine: the engine (for the form's state); livecall_audio_dir: the current
 * call's recordings folder, "" when not recorded; static to lc. livecall_counts: barge-ins
 * and silence turns of the current call. */
const struct engine *livecall_engine(const struct livecall *lc);
const char *livecall_audio_dir(const struct livecall *lc);
void livecall_counts(const struct livecall *lc, int *barge_ins, int *silences);

#endif
