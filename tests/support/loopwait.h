/* loopwait: the clock and the waiting that tests of the non-blocking loop share: a
 * monotonic clock in milliseconds, the callback that keeps an HTTP transfer's result, and
 * a loop that polls a transfer to its end measuring the longest wait between two ticks. */
#ifndef FORMDESK_TESTS_LOOPWAIT_H
#define FORMDESK_TESTS_LOOPWAIT_H

/* declared in agent/stages/http.h, which loopwait.c includes; a test that only reads the
 * clock needs nothing of HTTP */
struct backend;
struct backend_usage;
struct http_client;
struct http_req;
struct http_result;

/* loopwait_ms: now on CLOCK_MONOTONIC, in milliseconds (an arbitrary origin: only
 * differences mean anything). */
double loopwait_ms(void);

/* loopwait_keep: an http_done_fn that stores the result (taken over) at ud, which points
 * to a struct http_result * the test starts at NULL and polls until it is set. */
void loopwait_keep(void *ud, struct http_result *res);

/* What loopwait_http measured, milliseconds: from since to the last tick (total_ms), the
 * longest time between two ticks or from since to the first (worst_ms), and how many ticks
 * the loop made. */
struct loopwait {
	double total_ms, worst_ms;
	int ticks;
};

/* loopwait_http: start req (taken over) on c and call http_poll every tick_ms until it
 * ends, as the live loop does. since: loopwait_ms() when the test began making the
 * request, so the time its own start took counts as a wait of the loop. Output: the
 * result (caller frees with http_result_free); *m, if not NULL, the timings. A start or
 * poll that fails, or a transfer not over limit_ms after since, fails the running test. */
struct http_result *loopwait_http(struct http_client *c, struct http_req *req, double since,
				  int tick_ms, double limit_ms, struct loopwait *m);

/* loopwait_backend: backend_start of be on req (its stage's request; usage into *u), then
 * loopwait_http on c every 10 ms for at most 10 s, counted from before the start, so a
 * start that blocks shows as the loop's longest wait. Output: the result (caller frees;
 * hand it to backend_finish); *m the timings. Anything that fails fails the running test. */
struct http_result *loopwait_backend(struct http_client *c, const struct backend *be, const void *req,
				     struct backend_usage *u, struct loopwait *m);

#endif
