/* fake_backend: helpers for tests of backends (agent/stages/backend.h).
 * FAKE_OPS(name, stage, fn) defines a static struct backend_ops `name` of stage whose
 * blocking call is fn, a function typed for the stage (e.g. enum err fn(void *ctx, const
 * struct stt_request *req, char **text)). speak_parts() is backend_speak with the
 * audio's parts apart. */
#ifndef FORMDESK_TEST_FAKE_BACKEND_H
#define FORMDESK_TEST_FAKE_BACKEND_H

#include "agent/stages/backend.h"

#define FAKE_OPS(name, st, fn)                                                  \
	static enum err name##_call(void *ctx, const void *req, void *out)      \
	{                                                                       \
		return fn(ctx, req, out);                                       \
	}                                                                       \
	static const struct backend_ops name = {.stage = (st), .call = name##_call}

static inline enum err speak_parts(const struct backend *b, const char *text, float **samples,
				   size_t *n, int *rate)
{
	struct tts_audio a = {0};
	enum err e = backend_speak(b, text, &a);
	if (e == ERR_OK) {
		*samples = a.samples;
		*n = a.n;
		*rate = a.rate;
	}
	return e;
}

#endif
