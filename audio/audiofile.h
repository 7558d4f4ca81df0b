/* audiofile: reading and writing audio files (libsndfile: WAV, FLAC, MP3, ...) as mono
 * float samples at a chosen rate (libsamplerate). */
#ifndef FORMDESK_AUDIOFILE_H
#define FORMDESK_AUDIOFILE_H

#include <stddef.h>
#include "base/err.h"

/* audiofile_read: decode path, mix down to mono, resample to rate Hz.
 * Output: *samples (n_samples floats in [-1, 1]; caller frees with free()), *n_samples.
 * On failure *errmsg (caller frees; may be NULL to ignore) names the file and the
 * library's message. Errors: ERR_IO (cannot open), ERR_AUDIO (decode or resample),
 * ERR_INVALID (rate outside 1000..384000 Hz), ERR_NOMEM. */
enum err audiofile_read(const char *path, int rate, float **samples, size_t *n_samples, char **errmsg);

/* audiofile_write: write n_samples mono float samples at rate Hz as 16-bit PCM; the format
 * follows the extension (.wav or .flac). Errors: ERR_IO, ERR_INVALID (unknown extension or
 * a rate the format refuses), ERR_AUDIO (with *errmsg as above). */
enum err audiofile_write(const char *path, const float *samples, size_t n_samples, int rate, char **errmsg);

#endif
