#include "replyseen.h"

#include <time.h>

#include "sessions/calls/engine.h"

double reply_seen_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void reply_seen_event(void *ud, const struct engine_event *ev)
{
	struct reply_seen *s = ud;
	if (ev->turn != s->turn || ev->turn == 0)
		return;
	if (ev->kind == ENGINE_REPLY_SENTENCE)
		s->sentences++;
	else if (ev->kind == ENGINE_AGENT_SAYS)
		s->says_at = reply_seen_ms();
}
