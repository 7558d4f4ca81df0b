/* vad_speex: speexdsp's preprocessor as a VAD. The preprocessor estimates the noise
 * spectrum and a per-frame speech probability (SPEEX_PREPROCESS_GET_PROB, percent). Its own
 * VAD switch (SPEEX_PREPROCESS_SET_VAD) applies exactly the hysteresis below to that
 * probability (speexdsp preprocess.c), but also prints a warning on stderr, which would
 * garble the screen; so the probability is read and the same rule applied here. */
#include "vad_speex.h"

#include <stdlib.h>

#include <speex/speex_preprocess.h>

/* speexdsp's defaults for SPEEX_PREPROCESS_SET_PROB_START / _CONTINUE, in percent. */
#define PROB_START 35
#define PROB_CONTINUE 20

struct vad_speex {
	SpeexPreprocessState *st;
	int was_speech;
};

struct vad_speex *vad_speex_new(int rate, int frame_samples)
{
	struct vad_speex *v = calloc(1, sizeof(*v));
	int off = 0;

	if (!v)
		return NULL;
	v->st = speex_preprocess_state_init(frame_samples, rate);
	if (!v->st) {
		free(v);
		return NULL;
	}
	/* Only the probability is wanted: no gain control or dereverberation. */
	speex_preprocess_ctl(v->st, SPEEX_PREPROCESS_SET_AGC, &off);
	speex_preprocess_ctl(v->st, SPEEX_PREPROCESS_SET_DEREVERB, &off);
	return v;
}

void vad_speex_free(struct vad_speex *v)
{
	if (!v)
		return;
	speex_preprocess_state_destroy(v->st);
	free(v);
}

int vad_speex_process(struct vad_speex *v, int16_t *frame)
{
	int prob = 0;

	speex_preprocess_run(v->st, frame);
	speex_preprocess_ctl(v->st, SPEEX_PREPROCESS_GET_PROB, &prob);
	v->was_speech = prob > PROB_START || (v->was_speech && prob > PROB_CONTINUE);
	return v->was_speech;
}
