/* tts: the "none" backend (see tts.h). */
#include "tts.h"

#include "tts_espeak.h"

static enum err none_call(void *ctx, const void *req, void *out)
{
	struct tts_audio *a = out;
	(void)ctx, (void)req;
	*a = (struct tts_audio){.samples = NULL, .n = 0, .rate = 16000};
	return ERR_OK;
}

const struct backend_ops tts_none_ops = {
	.stage = BACKEND_TTS,
	.silent = true,
	.call = none_call,
};

void tts_cleanup(void)
{
	tts_espeak_close();
}
