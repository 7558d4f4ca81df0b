/* resample: change the rate of a whole buffer of mono float samples with libsamplerate
 * (SRC_SINC_MEDIUM_QUALITY: band-limited sinc interpolation, libsamplerate's
 * documentation), e.g. speech synthesized at 22050 Hz for a 16 kHz sink. */
#ifndef FORMDESK_RESAMPLE_H
#define FORMDESK_RESAMPLE_H

#include <stddef.h>
#include "base/err.h"

/* resample_buffer: n samples (borrowed) at from Hz to to Hz (both 1000..384000).
 * Output: *out (caller frees with free(); a copy when the rates are equal; NULL when *m is
 * 0) and *m samples, about n * to / from. Errors: ERR_INVALID (rates), ERR_AUDIO
 * (libsamplerate failed), ERR_NOMEM. */
enum err resample_buffer(const float *in, size_t n, int from, int to, float **out, size_t *m);

#endif
