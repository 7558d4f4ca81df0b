/* callervoice: a simulated caller's turn as audio, for `formdesk callers --audio`: each
 * stretch of her words (sessions/calls/callers.h, struct callers_turn) synthesized by the TTS
 * backend (espeak-ng's Hindi voice: synthetic speech), the silences the behaviour names
 * between them (a hesitation, digit groups), lead-in and trailing silence so the
 * endpointer can find the turn's end, then one acoustic condition (audio/channel.h:
 * ideal, noise, distance, pace-fast, pace-slow). The call engine then passes it through
 * the telephone channel, VAD, endpointing and STT, with her words as the reference
 * transcript. */
#ifndef FORMDESK_CALLERVOICE_H
#define FORMDESK_CALLERVOICE_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

struct callers_turn;
struct callervoice;

/* The silence before and after her words, ms. */
#define CALLERVOICE_LEAD_MS 300
#define CALLERVOICE_TAIL_MS 1000

/* callervoice_new: a voice on TTS backend tts (NULL: espeak-ng's Hindi voice) in
 * acoustic condition cond (NULL: "ideal"). Output: *out (caller frees with
 * callervoice_free); on failure *errmsg (caller frees; may be NULL) says why. Errors:
 * ERR_BACKEND (the synthesizer would not start), ERR_INVALID (unknown condition),
 * ERR_NOMEM. */
enum err callervoice_new(const char *tts, const char *cond, struct callervoice **out,
			 char **errmsg);
void callervoice_free(struct callervoice *v);

/* callervoice_speak: turn t as mono 16 kHz samples (*samples caller frees, *n of them);
 * ud is a struct callervoice (the shape of struct callersrun_source's speak). Returns
 * false with why (size nwhy) when the audio cannot be made. */
bool callervoice_speak(void *ud, const struct callers_turn *t, float **samples, size_t *n,
		       char *why, size_t nwhy);

#endif
