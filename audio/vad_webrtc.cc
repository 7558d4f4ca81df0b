// vad_webrtc: the WebRTC VAD through webrtc-audio-processing's public API (0.3 in Debian
// 12: /usr/include/webrtc_audio_processing/webrtc/modules/audio_processing/include/
// audio_processing.h). An AudioProcessing instance with every component off except
// voice_detection(); ProcessStream() on a 10 ms AudioFrame, then stream_has_voice().
#include "vad_webrtc.h"

#include <new>

// The library's own headers trip -Wunused-parameter; silence that for them only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>
#pragma GCC diagnostic pop

struct vad_webrtc {
	webrtc::AudioProcessing *apm;
	webrtc::AudioFrame frame;
	int rate;
};

extern "C" struct vad_webrtc *vad_webrtc_new(int rate, int likelihood)
{
	if ((rate != 8000 && rate != 16000) || likelihood < 0 || likelihood > 3)
		return nullptr;
	vad_webrtc *v = new (std::nothrow) vad_webrtc();
	if (!v)
		return nullptr;
	v->rate = rate;
	try {
		v->apm = webrtc::AudioProcessing::Create();
	} catch (...) {
		v->apm = nullptr;
	}
	if (!v->apm)
		goto fail;
	if (v->apm->Initialize(rate, rate, rate, webrtc::AudioProcessing::kMono,
			       webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono) != 0)
		goto fail;
	if (v->apm->voice_detection()->Enable(true) != 0 ||
	    v->apm->voice_detection()->set_likelihood(
		    static_cast<webrtc::VoiceDetection::Likelihood>(likelihood)) != 0 ||
	    v->apm->voice_detection()->set_frame_size_ms(10) != 0)
		goto fail;
	return v;
fail:
	delete v->apm;
	delete v;
	return nullptr;
}

extern "C" void vad_webrtc_free(struct vad_webrtc *v)
{
	if (!v)
		return;
	delete v->apm;
	delete v;
}

extern "C" int vad_webrtc_process(struct vad_webrtc *v, const int16_t *frame)
{
	size_t n = static_cast<size_t>(v->rate / 100);

	v->frame.UpdateFrame(0, 0, frame, n, v->rate, webrtc::AudioFrame::kNormalSpeech,
			     webrtc::AudioFrame::kVadUnknown, 1);
	if (v->apm->ProcessStream(&v->frame) != 0)
		return -1;
	return v->apm->voice_detection()->stream_has_voice() ? 1 : 0;
}
