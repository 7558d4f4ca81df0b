/* tts: the text-to-speech backends behind one small table of function pointers, chosen
 * by name like the other backends (backend.h). Offline first: "espeak" (the default:
 * espeak-ng's Hindi voice through its C library, tts_espeak.h) and "none" (text only: no
 * audio, the screen shows the words). */
#ifndef FORMDESK_TTS_H
#define FORMDESK_TTS_H

#include <stddef.h>
#include "err.h"

#define TTS_DEFAULT "espeak"

struct tts_backend {
	const char *name;
	/* speak: the audio of text (UTF-8). Output: *samples (mono floats in [-1, 1]; caller
	 * frees with free(); NULL when *n is 0, as for "none"), *n samples, *rate Hz (the
	 * backend's own rate; resample_buffer() in audio/ converts). Empty text gives 0
	 * samples. Errors: ERR_BACKEND (the synthesizer failed), ERR_NOMEM. */
	enum err (*speak)(void *ctx, const char *text, float **samples, size_t *n, int *rate);
	void *ctx;
};

/* tts_lookup: the backend spec names: "espeak" or "espeak:VOICE" (an espeak-ng voice name;
 * default "hi", espeak-ng's Hindi), or "none". A backend's ctx lives until tts_cleanup()
 * (the caller frees nothing). Output: *out filled. Errors: ERR_NOTFOUND (unknown name or
 * voice), ERR_BACKEND (the synthesizer would not start); with *why (may be NULL; a static
 * buffer, valid until the next lookup) saying which. */
enum err tts_lookup(const char *spec, struct tts_backend *out, const char **why);

/* tts_cleanup: release every backend's resources (at exit). Tables filled before are no
 * longer usable. */
void tts_cleanup(void);

#endif
