#include "replyseen.h"

#include <time.h>

#include "sessions/calls/engine.h"
#include "loopwait.h"

void reply_seen_event(void *ud, const struct engine_event *ev)
{
	struct reply_seen *s = ud;
	if (ev->turn != s->turn || ev->turn == 0)
		return;
	if (ev->kind == ENGINE_REPLY_SENTENCE)
		s->sentences++;
	else if (ev->kind == ENGINE_AGENT_SAYS)
		s->says_at = loopwait_ms();
}
