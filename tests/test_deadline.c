/* test_deadline: an unresponsive provider is bounded. Against the local test server that
 * never answers (or answers 503 after a while): the HTTP client's deadline ends a request
 * long before its own 20 s timeout, says why, and makes no retry past it; the engine's
 * turn deadline records the turn with its failed request (nothing captured, the call goes
 * on) and its call deadline ends the call as failed with reason "deadline: ..."; the
 * config file's "deadlines" and their checks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/stages/http.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/provider.h"
#include "sessions/calls/engine.h"
#include "sessions/store/store.h"
#include "tests/support/enginefix.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockdir.h"
#include "tests/support/dbq.h"
#include "tests/support/mockserver.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

#define FORM "forms/armman_enrollment.json"
#define NEVER 3600000 /* ms: the server's answer comes after the test is over */

static struct mockserver *ms;
static char dir[128];

/* run: req on c until it ends, the deadline set in_ms after the start (at once: 0).
 * Output: the result (caller frees), *took its wall time, ms. */
static struct http_result *run(struct http_client *c, struct http_req *req, long deadline_ms,
			       long set_after_ms, double *took)
{
	struct http_result *res = NULL;
	double t0 = loopwait_ms();
	http_client_deadline(c, set_after_ms ? 0 : deadline_ms, "the test's deadline passed");
	assert_int_equal(http_start(c, req, loopwait_keep, &res, NULL), ERR_OK);
	while (!res) {
		if (set_after_ms && loopwait_ms() - t0 >= (double)set_after_ms) {
			http_client_deadline(c, deadline_ms, "the test's deadline passed");
			set_after_ms = 0;
		}
		assert_int_equal(http_poll(c, 50, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 15000); /* the request's own timeout is 20 s */
	}
	*took = loopwait_ms() - t0;
	return res;
}

static struct http_req *request(int retries)
{
	struct http_req *r = NULL;
	assert_int_equal(http_req_new("POST", mockserver_url(ms), &r), ERR_OK);
	http_req_limits(r, 20000, retries, 1000);
	return r;
}

static void test_http_deadline(void **state)
{
	(void)state;
	struct http_client *c = NULL;
	double took;
	assert_int_equal(http_client_new(&c), ERR_OK);

	/* a server that never answers: ended at the deadline, saying so */
	mockserver_set_default(ms, (struct mock_reply){.status = 200, .body = "{}", .delay_ms = NEVER});
	struct http_result *res = run(c, request(0), 300, 0, &took);
	assert_int_equal(res->err, ERR_BACKEND);
	assert_string_equal(res->error, "the test's deadline passed");
	assert_true(took >= 250 && took < 3000);
	http_result_free(res);

	/* a deadline set while the request is in flight ends it too */
	res = run(c, request(0), 200, 300, &took);
	assert_int_equal(res->err, ERR_BACKEND);
	assert_string_equal(res->error, "the test's deadline passed");
	assert_true(took >= 450 && took < 3000);
	http_result_free(res);

	/* 503 at once, retries left, the next wait (1 s) past the deadline: no retry, the
	 * answer in hand stands */
	mockserver_set_default(ms, (struct mock_reply){.status = 503, .body = "{\"error\":\"busy\"}"});
	int before = mockserver_count(ms);
	res = run(c, request(5), 700, 0, &took);
	assert_int_equal(res->err, ERR_OK);
	assert_int_equal(res->status, 503);
	assert_int_equal(res->attempts, 1);
	assert_int_equal(mockserver_count(ms) - before, 1);
	assert_true(took < 600);
	http_result_free(res);

	/* no deadline: retries as before */
	before = mockserver_count(ms);
	res = run(c, request(1), 0, 0, &took);
	assert_int_equal(res->attempts, 2);
	assert_int_equal(mockserver_count(ms) - before, 2);
	http_result_free(res);
	http_client_free(c);
}

/* A live typed call whose EXTRACT model never answers: each turn ends at the turn's
 * deadline (400 ms) with the request recorded as failed and nothing captured; the third
 * runs into what is left of the call's deadline (1000 ms), which then ends the call. */
static void test_engine_deadlines(void **state)
{
	(void)state;
	struct enginefix_rig r;
	struct engine *e = NULL;
	char *msg = NULL, db[200];

	snprintf(db, sizeof db, "%s/deadline.db", dir);
	mockserver_set_default(ms, (struct mock_reply){.status = 200, .body = "{}", .delay_ms = NEVER});
	setenv("OPENAI_BASE_URL", mockserver_url(ms), 1);
	setenv("OPENAI_API_KEY", "sk-test-Qw7Zr4Xp9Lm2Vb6N", 1);
	enginefix_rig_open(&r, db, "reference", "openai:gpt-test");
	r.cfg.turn_deadline_ms = 400;
	r.cfg.call_deadline_ms = 1000;
	assert_int_equal(engine_new(&r.cfg, NULL, NULL, &e), ERR_OK);

	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	int turns = 0;
	double t0 = loopwait_ms();
	while (engine_call_open(e)) {
		struct engine_input in = {.transcript = "mera naam Jhanvi hai", .input = "typed"};
		double ts = loopwait_ms();
		assert_int_equal(engine_start_turn(e, &in), ERR_OK);
		while (engine_busy(e))
			assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - ts < 2500);
		assert_true(++turns <= 5);
	}
	assert_true(loopwait_ms() - t0 < 6000);
	assert_int_equal(turns, 3);
	/* every turn is kept, its request failed for the deadline, nothing answered */
	dbq_expect(db, "SELECT count(*) FROM turns", "3");
	dbq_expect(db, "SELECT count(*) FROM turns WHERE transcript = 'mera naam Jhanvi hai' AND "
		   "error LIKE '%the turn''s deadline of 400 ms passed%'", "2");
	dbq_expect(db, "SELECT count(*) FROM turns WHERE error LIKE '%the call''s deadline of 1000 ms passed%'",
	       "1");
	dbq_expect(db, "SELECT count(*) FROM stage_usage WHERE stage = 'extract' AND error <> ''", "3");
	dbq_expect(db, "SELECT coalesce(json_extract(form_data, '$.name'), 'null') FROM calls", "null");
	dbq_expect(db, "SELECT status || '|' || (reason LIKE 'deadline: the agent''s turns took % ms, the "
		   "call''s deadline is 1000 ms') FROM calls", "failed|1");
	enginefix_rig_close(&r, e);
	free(msg);
	backend_cleanup();
}

static void test_config(void **state)
{
	(void)state;
	char path[200], why[300];
	long turn, call;
	snprintf(path, sizeof path, "%s/formdesk.json", dir);
	tmpdir_write(path, "{\"deadlines\": {\"turn_ms\": 1500, \"call_ms\": 0}}");
	assert_int_equal(provider_config_load(path, why, sizeof why), ERR_OK);
	provider_config_deadlines(&turn, &call);
	assert_int_equal(turn, 1500);
	assert_int_equal(call, 0);
	tmpdir_write(path, "{\"deadlines\": {\"call_ms\": 60000}}");
	assert_int_equal(provider_config_load(path, why, sizeof why), ERR_OK);
	provider_config_deadlines(&turn, &call);
	assert_int_equal(turn, PROVIDER_TURN_DEADLINE_MS);
	assert_int_equal(call, 60000);
	tmpdir_write(path, "{\"deadlines\": {\"turn_ms\": -1}}");
	assert_int_equal(provider_config_load(path, why, sizeof why), ERR_INVALID);
	assert_non_null(strstr(why, "deadlines.turn_ms must be a whole number from 0 to 86400000"));
	tmpdir_write(path, "{\"deadlines\": 5}");
	assert_int_equal(provider_config_load(path, why, sizeof why), ERR_INVALID);
	assert_non_null(strstr(why, "deadlines must be an object"));
	provider_config_free();
}

static int setup(void **state)
{
	(void)state;
	if (mockdir_open(dir, sizeof dir, "test_deadline", mockserver_start, &ms) != 0)
		return -1;
	mockserver_record(ms, false);
	return 0;
}

TESTMAIN(setup, mockdir_teardown,
	  cmocka_unit_test(test_http_deadline),
	  cmocka_unit_test(test_engine_deadlines),
	  cmocka_unit_test(test_config))
