/* resample: change the rate of a whole buffer of mono float samples with libsamplerate
 * (SRC_SINC_MEDIUM_QUALITY: band-limited sinc interpolation, libsamplerate's
 * documentation), e.g. speech synthesized at 22050 Hz for a 16 kHz sink. */
#ifndef FORMDESK_RESAMPLE_H
#define FORMDESK_RESAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

/* resample_buffer: n samples (borrowed) at from Hz to to Hz (both 1000..384000).
 * Output: *out (caller frees with free(); a copy when the rates are equal; NULL when *m is
 * 0) and *m samples, about n * to / from. Errors: ERR_INVALID (rates), ERR_AUDIO
 * (libsamplerate failed), ERR_NOMEM. */
enum err resample_buffer(const float *in, size_t n, int from, int to, float **out, size_t *m);

/* A conversion of audio that arrives in pieces (a streamed voice): libsamplerate's
 * stateful converter (src_process), so the pieces join without a seam. */
struct resample_stream;

/* resample_stream_new: from Hz to to Hz (both 1000..384000). Output: *out (caller frees
 * with resample_stream_free). Errors: ERR_INVALID (rates), ERR_AUDIO, ERR_NOMEM. */
enum err resample_stream_new(int from, int to, struct resample_stream **out);
void resample_stream_free(struct resample_stream *r);

/* resample_stream_push: the next n samples (borrowed; last: the input ends here, and
 * what the converter holds comes out too). Output: *out (caller frees with free(); NULL
 * when *m is 0) and *m samples. Errors: ERR_AUDIO, ERR_NOMEM. */
enum err resample_stream_push(struct resample_stream *r, const float *in, size_t n, bool last,
			      float **out, size_t *m);

#endif
