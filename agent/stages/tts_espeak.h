/* tts_espeak: speech from espeak-ng's C library (espeak_ng.h), synthesized synchronously
 * into a buffer (ENOUTPUT_MODE_SYNCHRONOUS with a synth callback that appends the 16-bit
 * samples it is handed; espeak-ng's documentation of espeak_SetSynthCallback) at
 * espeak-ng's own rate (espeak_ng_GetSampleRate(), 22050 Hz for its voices). The library
 * keeps one global state, so there is one synthesizer per process, used by one thread at
 * a time (a lock): the blocking call synthesizes on the caller's thread; started without
 * blocking (backend_speak_start) a text is synthesized on a worker thread of its own,
 * whose pieces the loop takes when its descriptor wakes it (backend_speech_fd,
 * backend_speech_pump); cancelling stops espeak-ng at its next piece. */
#ifndef FORMDESK_TTS_ESPEAK_H
#define FORMDESK_TTS_ESPEAK_H

#include <stddef.h>
#include "backend.h"
#include "base/err.h"

/* The backend's ops (backend.h), no ctx: the library's state is global. */
extern const struct backend_ops tts_espeak_ops;

/* tts_espeak_open: start espeak-ng (once; later calls only change the voice) and select
 * voice (NULL for "hi"). On failure *why (may be NULL) points at a static message.
 * Errors: ERR_BACKEND (the library or its data would not load), ERR_NOTFOUND (no such
 * voice). */
enum err tts_espeak_open(const char *voice, const char **why);

/* tts_espeak_close: nothing to do: espeak-ng cannot be restarted after
 * espeak_ng_Terminate, so it stays up until the process exits (see tts_espeak.c). */
void tts_espeak_close(void);

#endif
