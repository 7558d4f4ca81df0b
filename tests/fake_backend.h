/* fake_backend: a test's own backend function behind an ops table (agent/backend.h).
 * FAKE_OPS(name, stage, fn) defines a static struct backend_ops `name` of stage whose
 * blocking call is fn, a function typed for the stage (e.g. enum err fn(void *ctx, const
 * struct stt_request *req, char **text)). */
#ifndef FORMDESK_TEST_FAKE_BACKEND_H
#define FORMDESK_TEST_FAKE_BACKEND_H

#include "agent/backend.h"

#define FAKE_OPS(name, st, fn)                                                  \
	static enum err name##_call(void *ctx, const void *req, void *out)      \
	{                                                                       \
		return fn(ctx, req, out);                                       \
	}                                                                       \
	static const struct backend_ops name = {.stage = (st), .call = name##_call}

#endif
