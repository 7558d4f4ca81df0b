/* vad: one small interface over the voice activity detectors formdesk can use, chosen by
 * name. Each takes 10 ms frames of mono float audio and says whether the frame is speech.
 * The endpointer (endpoint.h) turns those frame decisions into utterances. */
#ifndef FORMDESK_VAD_H
#define FORMDESK_VAD_H

#include <stdbool.h>
#include "base/err.h"

enum vad_kind {
	VAD_WEBRTC, /* the WebRTC VAD through webrtc-audio-processing (vad_webrtc.h) */
	VAD_SPEEX,  /* speexdsp's preprocessor VAD (vad_speex.h) */
};

struct vad;

/* vad_kind_parse: "webrtc" or "speex" to *kind (written only on success).
 * Errors: ERR_NOTFOUND (any other name). */
enum err vad_kind_parse(const char *name, enum vad_kind *kind);

/* vad_kind_name: the name vad_kind_parse accepts; a static string. */
const char *vad_kind_name(enum vad_kind kind);

/* vad_new: a detector of kind for mono audio at rate Hz (8000 or 16000).
 * Output: *out (caller frees with vad_free). Errors: ERR_INVALID (rate), ERR_AUDIO (the
 * library refused to start), ERR_NOMEM. */
enum err vad_new(enum vad_kind kind, int rate, struct vad **out);

/* vad_free: release v; vad_free(NULL) does nothing. */
void vad_free(struct vad *v);

/* vad_frame_samples: the frame length vad_process takes: 10 ms, i.e. rate / 100 samples. */
int vad_frame_samples(const struct vad *v);

/* vad_process: classify one frame of vad_frame_samples(v) floats in [-1, 1] (borrowed).
 * Output: *speech. Errors: ERR_AUDIO (the library failed on the frame). */
enum err vad_process(struct vad *v, const float *frame, bool *speech);

#endif
