/* vad_speex: speexdsp's preprocessor as a VAD (its speech probability,
 * SPEEX_PREPROCESS_GET_PROB, with speexdsp's own start/continue thresholds), for frames of
 * 16-bit mono audio.
 * Use it through vad.h. */
#ifndef FORMDESK_VAD_SPEEX_H
#define FORMDESK_VAD_SPEEX_H

#include <stdint.h>

struct vad_speex;

/* vad_speex_new: a detector for frame_samples-sample frames at rate Hz. Returns NULL if
 * speexdsp could not allocate its state. Caller frees with vad_speex_free. */
struct vad_speex *vad_speex_new(int rate, int frame_samples);

/* vad_speex_free: release v; NULL does nothing. */
void vad_speex_free(struct vad_speex *v);

/* vad_speex_process: 1 if the frame (frame_samples samples, borrowed, modified in place
 * by the preprocessor) is speech, 0 if not. */
int vad_speex_process(struct vad_speex *v, int16_t *frame);

#endif
