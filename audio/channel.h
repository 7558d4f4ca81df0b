/* channel: what the telephone line and the room do to a caller's voice.
 *
 * - The telephone channel (the FormBharo pilot ran over 8 kHz mu-law telephony, paper's
 *   pilot settings): band limit to 300-3400 Hz (the telephone voice band, ITU-T G.712),
 *   resample to 8 kHz, G.711 mu-law encode and decode, then back to the caller's rate.
 * - The acoustic conditions of FormVoiceAgentBench (the paper records each answer ideal,
 *   with background noise, at a microphone distance, at a different pace): noise or
 *   chatter mixed at a chosen signal-to-noise ratio, a far microphone, faster or slower
 *   speech.
 * Filtering, resampling, reverberation, noise generation and tempo are libsox effects
 * (sinc, rate, lowpass, reverb, gain, synth, tempo; see sox(1) for each); mu-law is
 * libsndfile's G.711 codec (SF_FORMAT_ULAW). Only the mixing (a sum with one gain) is
 * done here. All audio is mono float in [-1, 1]. Nothing here is for the audio thread. */
#ifndef FORMDESK_CHANNEL_H
#define FORMDESK_CHANNEL_H

#include <stddef.h>
#include "base/err.h"

/* channel_telephone: in (n samples at rate Hz, 8000..48000) through the telephone
 * channel, returned at rate Hz. Output: *out (caller frees with free()), *m samples (about
 * n). On failure *errmsg (caller frees; may be NULL) gives libsox's or libsndfile's
 * message. Errors: ERR_INVALID (rate), ERR_AUDIO, ERR_NOMEM. */
enum err channel_telephone(const float *in, size_t n, int rate, float **out, size_t *m, char **errmsg);

/* channel_mulaw: G.711 mu-law encode then decode n samples (any rate: companding is per
 * sample). Output: *out (caller frees), n samples. Errors: ERR_AUDIO, ERR_NOMEM. */
enum err channel_mulaw(const float *in, size_t n, float **out, char **errmsg);

/* channel_noise: n samples of generated noise at rate Hz, kind "whitenoise", "pinknoise"
 * or "brownnoise" (sox's synth effect), about -20 dBFS, the same for the same arguments
 * (libsox's PRNG re-seeded each time). Output: *out (caller frees). Errors: ERR_INVALID (kind,
 * rate), ERR_AUDIO, ERR_NOMEM. */
enum err channel_noise(size_t n, int rate, const char *kind, float **out, char **errmsg);

/* channel_mix: in plus noise scaled so that the ratio of the power of in to the power of
 * the added noise, over the whole of in, is snr_db dB (power = mean square). noise is
 * repeated when shorter than in (n_noise > 0). If the sum would clip, the whole mix is
 * scaled down (the ratio is kept). Output: *out (caller frees), n samples; *gain (may be
 * NULL) the overall scale applied to the mix (1 unless it would have clipped).
 * Errors: ERR_INVALID (silent in or noise, n_noise 0), ERR_NOMEM. */
enum err channel_mix(const float *in, size_t n, const float *noise, size_t n_noise, double snr_db,
		     float **out, double *gain);

/* channel_far: the far-microphone condition: high frequencies lost (lowpass 3000 Hz),
 * the room's reflections (reverb: reverberance 60%, HF damping 50%, room scale 80%,
 * pre-delay 10 ms) and 10 dB quieter. n samples at rate Hz in, n out (the reverb's tail
 * is cut). Output: *out (caller frees). Errors: ERR_INVALID, ERR_AUDIO, ERR_NOMEM. */
enum err channel_far(const float *in, size_t n, int rate, float **out, char **errmsg);

/* channel_tempo: speech factor times as fast without changing its pitch (sox's tempo
 * effect with its speech setting, WSOLA); factor 0.5..2 (1.25 faster, 0.8 slower). n
 * samples at rate Hz in, about n / factor out. Output: *out (caller frees), *m.
 * Errors: ERR_INVALID (factor, rate), ERR_AUDIO, ERR_NOMEM. */
enum err channel_tempo(const float *in, size_t n, int rate, double factor, float **out, size_t *m,
		       char **errmsg);

/* channel_snr_db: the signal-to-noise ratio of mixed against clean (n samples each):
 * 10 log10(sum clean^2 / sum (mixed - clean)^2), dB; +inf when they are equal. */
double channel_snr_db(const float *clean, const float *mixed, size_t n);

/* channel_condition: in (n samples at rate Hz) in one FormVoiceAgentBench acoustic
 * condition, with the defaults of `formdesk audio-variants`: "ideal" (a copy), "noise"
 * (generated pink noise at 10 dB SNR), "distance" (channel_far), "pace-fast" (1.25 times
 * as fast) or "pace-slow" (0.8). Output: *out (caller frees), *m samples. On failure
 * *errmsg (caller frees; may be NULL) says why. Errors: ERR_INVALID (unknown condition,
 * silent input for "noise"), ERR_AUDIO, ERR_NOMEM. */
enum err channel_condition(const float *in, size_t n, int rate, const char *cond, float **out,
			   size_t *m, char **errmsg);

#endif
