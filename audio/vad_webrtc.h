/* vad_webrtc: a C interface to the WebRTC VAD of webrtc-audio-processing (C++; its public
 * webrtc::VoiceDetection on an AudioProcessing instance with every other component off).
 * Use it through vad.h. */
#ifndef FORMDESK_VAD_WEBRTC_H
#define FORMDESK_VAD_WEBRTC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vad_webrtc;

/* vad_webrtc_new: a detector for 10 ms frames at rate Hz (8000 or 16000).
 * likelihood: 0 (very low: the most aggressive in calling frames silence) to 3 (high),
 * webrtc::VoiceDetection::Likelihood. Returns NULL if the library refused or memory ran
 * out. Caller frees with vad_webrtc_free. */
struct vad_webrtc *vad_webrtc_new(int rate, int likelihood);

/* vad_webrtc_free: release v; NULL does nothing. */
void vad_webrtc_free(struct vad_webrtc *v);

/* vad_webrtc_process: 1 if the 10 ms frame (rate / 100 samples, borrowed) is speech, 0 if
 * not, -1 if the library failed on it. */
int vad_webrtc_process(struct vad_webrtc *v, const int16_t *frame);

#ifdef __cplusplus
}
#endif

#endif
