/* vad: dispatch to the chosen detector; converts float frames to the 16-bit PCM both
 * libraries take. */
#include "vad.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vad_speex.h"
#include "vad_webrtc.h"

/* Frame length of both detectors: 10 ms (the WebRTC VAD accepts 10, 20 or 30 ms; speexdsp
 * any length). Rates above 16 kHz are refused: the callers resample to 16 kHz or 8 kHz. */
#define FRAME_MS 10
#define MAX_FRAME (16000 * FRAME_MS / 1000)

/* WebRTC likelihood (webrtc::VoiceDetection): 0 very low .. 3 high. kLowLikelihood (1)
 * maps to the VAD's aggressive mode 2; chosen on the RESPIN clips (see endpoint.c). */
#define WEBRTC_LIKELIHOOD 1

struct vad {
	enum vad_kind kind;
	int rate;
	int frame;
	struct vad_speex *speex;
	struct vad_webrtc *webrtc;
	int16_t pcm[MAX_FRAME];
};

static const char *const names[] = {
	[VAD_WEBRTC] = "webrtc",
	[VAD_SPEEX] = "speex",
};

enum err vad_kind_parse(const char *name, enum vad_kind *kind)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name && strcmp(name, names[i]) == 0) {
			*kind = (enum vad_kind)i;
			return ERR_OK;
		}
	return ERR_NOTFOUND;
}

const char *vad_kind_name(enum vad_kind kind)
{
	if ((size_t)kind < sizeof(names) / sizeof(names[0]))
		return names[kind];
	return "?";
}

enum err vad_new(enum vad_kind kind, int rate, struct vad **out)
{
	struct vad *v;

	if (rate != 8000 && rate != 16000)
		return ERR_INVALID;
	if (kind != VAD_WEBRTC && kind != VAD_SPEEX)
		return ERR_INVALID;
	v = calloc(1, sizeof(*v));
	if (!v)
		return ERR_NOMEM;
	v->kind = kind;
	v->rate = rate;
	v->frame = rate * FRAME_MS / 1000;
	if (kind == VAD_SPEEX)
		v->speex = vad_speex_new(rate, v->frame);
	else
		v->webrtc = vad_webrtc_new(rate, WEBRTC_LIKELIHOOD);
	if (!v->speex && !v->webrtc) {
		free(v);
		return ERR_AUDIO;
	}
	*out = v;
	return ERR_OK;
}

void vad_free(struct vad *v)
{
	if (!v)
		return;
	vad_speex_free(v->speex);
	vad_webrtc_free(v->webrtc);
	free(v);
}

int vad_frame_samples(const struct vad *v)
{
	return v->frame;
}

enum err vad_process(struct vad *v, const float *frame, bool *speech)
{
	int r;

	for (int i = 0; i < v->frame; i++) {
		float x = frame[i] * 32767.0f;
		v->pcm[i] = (int16_t)(x > 32767.0f ? 32767 : x < -32768.0f ? -32768 : lrintf(x));
	}
	if (v->kind == VAD_SPEEX)
		r = vad_speex_process(v->speex, v->pcm);
	else
		r = vad_webrtc_process(v->webrtc, v->pcm);
	if (r < 0)
		return ERR_AUDIO;
	*speech = r == 1;
	return ERR_OK;
}
