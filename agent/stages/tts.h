/* tts: the text-to-speech stage's offline backends, chosen by name like the others
 * (backend.h: backend_tts, backend_speak): "espeak" (the default: espeak-ng's Hindi voice
 * through its C library, tts_espeak.h) and "none" (text only: no audio, the screen shows
 * the words). */
#ifndef FORMDESK_TTS_H
#define FORMDESK_TTS_H

#include "backend.h"

#define TTS_DEFAULT "espeak"

/* The "none" backend's ops: silent, no ctx; its call gives 0 samples at 16 kHz. */
extern const struct backend_ops tts_none_ops;

/* tts_cleanup: release the synthesizer's resources (at exit). Backends made before are
 * no longer usable. */
void tts_cleanup(void);

#endif
