/* stt_wav: audio as the speech-to-text services take it: a WAV file in memory, mono
 * 16-bit PCM at the utterance's own rate (16 kHz from the audio layer). Encoded with
 * libsndfile. */
#ifndef FORMDESK_STT_WAV_H
#define FORMDESK_STT_WAV_H

#include <stddef.h>
#include "base/err.h"

/* stt_wav_encode: n samples (mono, -1.0..1.0, clipped beyond) at rate Hz as a WAV file.
 * Output: *out (caller frees with free()), *len bytes. Errors: ERR_INVALID (rate <= 0),
 * ERR_AUDIO (libsndfile failed), ERR_NOMEM. */
enum err stt_wav_encode(const float *samples, size_t n, int rate, unsigned char **out, size_t *len);

#endif
