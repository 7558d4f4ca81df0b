#include "loopwait.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "agent/stages/http.h"

double loopwait_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void loopwait_keep(void *ud, struct http_result *res)
{
	*(struct http_result **)ud = res;
}

struct http_result *loopwait_http(struct http_client *c, struct http_req *req, double since,
				  int tick_ms, double limit_ms, struct loopwait *m)
{
	struct http_result *res = NULL;
	double t0 = since;
	assert_int_equal(http_start(c, req, loopwait_keep, &res, NULL), ERR_OK);
	double last = loopwait_ms(), worst = last - t0;
	int ticks = 0;
	while (!res) {
		assert_int_equal(http_poll(c, tick_ms, NULL, 0), ERR_OK);
		double now = loopwait_ms();
		if (now - last > worst)
			worst = now - last;
		last = now;
		ticks++;
		assert_true(now - t0 < limit_ms);
	}
	if (m)
		*m = (struct loopwait){last - t0, worst, ticks};
	return res;
}

struct http_result *loopwait_backend(struct http_client *c, const struct backend *be, const void *req,
				     struct backend_usage *u, struct loopwait *m)
{
	struct http_req *hr = NULL;
	double t0 = loopwait_ms();
	assert_int_equal(backend_start(be, req, &hr, u), ERR_OK);
	return loopwait_http(c, hr, t0, 10, 10000, m);
}
