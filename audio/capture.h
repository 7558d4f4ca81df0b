/* capture: live input from a PortAudio device as mono float samples at a chosen rate.
 *
 * The PortAudio callback only copies the device's samples into a lock-free ring
 * (ring.h) and counts overflows; it never allocates, locks, logs or writes files. The
 * main loop drains the ring with capture_read(), which mixes down to mono and, when the
 * device cannot run at the requested rate, resamples (libsamplerate) on the main
 * thread. */
#ifndef FORMDESK_CAPTURE_H
#define FORMDESK_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "base/err.h"

struct capture;

/* capture_open: open the input device spec names (padev_find: NULL default, an index or
 * a name) for mono audio at rate Hz (8000..48000), with a ring of ring_ms (20..60000) of
 * device audio. Starts PortAudio (padev_init) for as long as the capture lives; stderr is
 * silenced while the device opens. The stream is not started. Output: *out (caller frees
 * with capture_free); on failure *errmsg (caller frees; may be NULL) says which device and
 * why. Errors: ERR_NOTFOUND (no such device, or none at all), ERR_AUDIO (PortAudio refused
 * the stream), ERR_INVALID (rate, ring_ms), ERR_NOMEM. */
enum err capture_open(const char *spec, int rate, int ring_ms, struct capture **out, char **errmsg);

/* capture_free: stop and close c; capture_free(NULL) does nothing. */
void capture_free(struct capture *c);

/* capture_start / capture_stop: start or stop the stream (samples arrive only while
 * started). Errors: ERR_AUDIO. */
enum err capture_start(struct capture *c);
enum err capture_stop(struct capture *c);

/* capture_read: main thread: up to max mono samples at the requested rate into out
 * (caller's buffer of max floats); never waits. Output: samples written (0 when nothing is
 * waiting). Errors are not possible after open except a resampler failure, reported as 0
 * samples and counted in capture_overruns. */
size_t capture_read(struct capture *c, float *out, size_t max);

/* capture_overruns: times audio was lost: the ring was full when the callback wrote
 * (the main loop fell behind) or PortAudio reported an input overflow. */
uint64_t capture_overruns(const struct capture *c);

/* capture_device_rate: the rate the device runs at, Hz (the requested one when it
 * supports it). */
int capture_device_rate(const struct capture *c);

/* capture_device_name: PortAudio's name of the open device; static to c. */
const char *capture_device_name(const struct capture *c);

#endif
