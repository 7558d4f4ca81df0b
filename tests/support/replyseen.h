/* replyseen: what a test or bench sees of one caller turn's streamed reply through the
 * engine's events (sessions/calls/engine.h). */
#ifndef FORMDESK_TESTS_REPLYSEEN_H
#define FORMDESK_TESTS_REPLYSEEN_H

struct engine_event;

struct reply_seen {
	int turn;           /* the caller turn watched (set by the caller; 0 watches none) */
	int sentences;      /* its ENGINE_REPLY_SENTENCE events */
	double says_at;     /* its ENGINE_AGENT_SAYS (the whole reply), loopwait_ms clock, ms;
	                       0 before */
};

/* reply_seen_event: an engine_listener counting into ud, a struct reply_seen. */
void reply_seen_event(void *ud, const struct engine_event *ev);

#endif
