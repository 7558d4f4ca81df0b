/* sink: where the agent's speech goes: a PortAudio output device, or a file (for tests
 * and headless runs). One utterance plays at a time from a buffer the sink owns; it can
 * be stopped at once (barge-in), and the sink says when playback has actually stopped.
 *
 * The PortAudio callback only copies from the buffer and advances an atomic position; it
 * never allocates, locks, logs or writes files. Stopping aborts the stream
 * (Pa_AbortStream: "terminates audio processing immediately without waiting for pending
 * buffers to complete", PortAudio's documentation), so what the device has queued is
 * dropped, not played out.
 *
 * The file sink plays in time with a clock (CLOCK_MONOTONIC, or one the caller gives, so
 * tests can run on a clock of their own): an utterance that started t ms ago has played
 * t * rate / 1000 samples. What was played, up to a stop, is appended to a WAV file
 * (libsndfile), so a test can see exactly what a caller would have heard. */
#ifndef FORMDESK_SINK_H
#define FORMDESK_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

struct sink;

/* A clock in milliseconds on any monotonic scale. */
typedef double (*sink_clock)(void *ud);

/* sink_open_device: the output device spec names (padev_find: NULL default, an index or a
 * name), playing mono float samples at rate Hz (8000..48000; when the device cannot run
 * at that rate it runs at its own and sink_play resamples with libsamplerate). Starts
 * PortAudio (padev_init) while the sink lives; stderr is silenced while the device opens.
 * Output: *out (caller frees with sink_free); on failure *errmsg (caller frees; may be
 * NULL). Errors: ERR_NOTFOUND (no such device, or none at all), ERR_AUDIO (PortAudio
 * refused the stream), ERR_INVALID (rate), ERR_NOMEM. */
enum err sink_open_device(const char *spec, int rate, struct sink **out, char **errmsg);

/* sink_open_file: a sink that writes what it plays, as 16-bit mono WAV at rate Hz, to path
 * (created or truncated), paced by clock (NULL: CLOCK_MONOTONIC) with clock_ud passed to
 * it. Output: *out (caller frees with sink_free, which closes the file); on failure
 * *errmsg as above. Errors: ERR_IO (cannot create path), ERR_INVALID (rate), ERR_NOMEM. */
enum err sink_open_file(const char *path, int rate, sink_clock clock, void *clock_ud,
			struct sink **out, char **errmsg);

/* sink_free: stop and close s; sink_free(NULL) does nothing. */
void sink_free(struct sink *s);

/* sink_rate: the rate sink_play takes, Hz. */
int sink_rate(const struct sink *s);

/* sink_play: stop whatever is playing, then start playing n samples (copied; mono at
 * sink_rate Hz, in [-1, 1]). Errors: ERR_AUDIO (the stream would not start), ERR_IO (the
 * file sink could not write what the stopped utterance played), ERR_NOMEM. */
enum err sink_play(struct sink *s, const float *samples, size_t n);

/* sink_begin: stop whatever is playing, then start an utterance whose samples will come
 * in pieces (a voice streamed as it is synthesized), at most max_n of them (at sink_rate;
 * a buffer of that size is made now, so the device never waits on an allocation). Until
 * the first piece, and whenever the next is late, silence plays; the utterance is not
 * over (sink_playing stays true) until sink_end and all of it has played. Errors:
 * ERR_AUDIO, ERR_IO, ERR_NOMEM. */
enum err sink_begin(struct sink *s, size_t max_n);

/* sink_append: the next n samples (copied; mono at sink_rate) of the utterance sink_begin
 * started. Errors: ERR_INVALID (no utterance open), ERR_NOMEM (past max_n: the rest is
 * dropped), ERR_AUDIO (resampling). */
enum err sink_append(struct sink *s, const float *samples, size_t n);

/* sink_end: the utterance sink_begin started has no more pieces. Nothing open: nothing
 * to do. Errors: ERR_AUDIO, ERR_NOMEM (as sink_append). */
enum err sink_end(struct sink *s);

/* sink_stop: stop at once. When it returns, no more of the utterance will be heard.
 * Output: *played (may be NULL): samples of the utterance that were played (at
 * sink_rate). Stopping an idle sink does nothing. Errors: ERR_AUDIO, ERR_IO (file sink). */
enum err sink_stop(struct sink *s, size_t *played);

/* sink_playing: true while the utterance is still being played; false once it has played
 * out or been stopped (the sink then tidies up: a finished stream is stopped, the file
 * sink writes the utterance). */
bool sink_playing(struct sink *s);

/* sink_remaining_ms: milliseconds of the utterance still to play (0 when idle), so the
 * main loop knows how long it may sleep in poll(). */
int sink_remaining_ms(struct sink *s);

/* sink_device_name: PortAudio's name of the device, or the file's path; static to s. */
const char *sink_device_name(const struct sink *s);

#endif
