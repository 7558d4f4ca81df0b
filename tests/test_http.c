/* The HTTP request layer against a local server: bodies, headers and multipart parts
 * arrive as sent; 429 and 5xx are retried with Retry-After honoured; 4xx is not retried;
 * timeouts and refused connections are errors; transfers run side by side without
 * threads and are cancelled at once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/stages/http.h"
#include "tests/support/mockserver.h"
#include "tests/support/testmain.h"

static struct mockserver *ms;

static int setup(void **state)
{
	(void)state;
	ms = mockserver_start();
	return ms ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	mockserver_stop(ms);
	http_shared_free();
	return 0;
}

static char *url(const char *path)
{
	static char buf[256];
	snprintf(buf, sizeof(buf), "%s%s", mockserver_url(ms), path);
	return buf;
}

static void test_post_json(void **state)
{
	(void)state;
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"ok\":true}", NULL, 0});
	struct http_req *r;
	assert_int_equal(http_req_new("POST", url("/v1/thing"), &r), ERR_OK);
	assert_int_equal(http_req_header(r, "Authorization", "Bearer k-123"), ERR_OK);
	assert_int_equal(http_req_body(r, "{\"a\":1}", 7, "application/json"), ERR_OK);
	struct http_result *res = NULL;
	assert_int_equal(http_perform(r, &res), ERR_OK);
	assert_int_equal(res->err, ERR_OK);
	assert_int_equal(res->status, 200);
	assert_string_equal(res->body, "{\"ok\":true}");
	assert_int_equal(res->attempts, 1);
	assert_true(res->ttfb_ms > 0 && res->total_ms >= res->ttfb_ms);
	const struct mock_request *q = mockserver_request(ms, 0);
	assert_non_null(q);
	assert_string_equal(q->method, "POST");
	assert_string_equal(q->path, "/v1/thing");
	assert_string_equal(mock_header(q, "authorization"), "Bearer k-123");
	assert_string_equal(mock_header(q, "content-type"), "application/json");
	assert_string_equal(q->body, "{\"a\":1}");
	http_result_free(res);
}

static void test_multipart(void **state)
{
	(void)state;
	mockserver_clear(ms);
	struct http_req *r;
	assert_int_equal(http_req_new("POST", url("/upload"), &r), ERR_OK);
	const char bin[] = {'R', 'I', 'F', 'F', 0, 1, 2, 3};
	assert_int_equal(http_req_part(r, "model", "m1", 2, NULL, NULL), ERR_OK);
	assert_int_equal(http_req_part(r, "file", bin, sizeof(bin), "a.wav", "audio/wav"), ERR_OK);
	struct http_result *res = NULL;
	assert_int_equal(http_perform(r, &res), ERR_OK);
	assert_int_equal(res->status, 200);
	const struct mock_request *q = mockserver_request(ms, 0);
	assert_non_null(q);
	assert_non_null(strstr(mock_header(q, "content-type"), "multipart/form-data"));
	const struct mock_part *m = mock_part_named(q, "model");
	assert_non_null(m);
	assert_string_equal(m->data, "m1");
	const struct mock_part *f = mock_part_named(q, "file");
	assert_non_null(f);
	assert_int_equal(f->len, sizeof(bin));
	assert_memory_equal(f->data, bin, sizeof(bin));
	assert_string_equal(f->filename, "a.wav");
	assert_string_equal(f->type, "audio/wav");
	http_result_free(res);
}

/* get: a GET of u with the limits given, sent and answered (res->err says whether the
 * transfer failed). Returns the result (caller frees with http_result_free). */
static struct http_result *get(const char *u, long timeout_ms, int retries, long backoff_ms)
{
	struct http_req *r;
	assert_int_equal(http_req_new("GET", u, &r), ERR_OK);
	http_req_limits(r, timeout_ms, retries, backoff_ms);
	struct http_result *res = NULL;
	assert_int_equal(http_perform(r, &res), ERR_OK);
	return res;
}

static void test_retry_after(void **state)
{
	(void)state;
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){500, NULL, "{\"error\":\"boom\"}", NULL, 0});
	mockserver_push(ms, (struct mock_reply){429, NULL, "{}", "Retry-After: 1", 0});
	mockserver_push(ms, (struct mock_reply){200, NULL, "done", NULL, 0});
	struct http_result *res = get(url("/x"), 5000, 3, 10);
	assert_int_equal(res->status, 200);
	assert_string_equal(res->body, "done");
	assert_int_equal(res->attempts, 3);
	assert_int_equal(mockserver_count(ms), 3);
	/* Retry-After: 1 was waited out (a lower bound: never fails on a slow machine) */
	assert_true(res->total_ms >= 950);
	http_result_free(res);
}

static void test_retries_exhausted(void **state)
{
	(void)state;
	mockserver_clear(ms);
	for (int i = 0; i < 3; i++)
		mockserver_push(ms, (struct mock_reply){503, NULL, "{}", NULL, 0});
	struct http_result *res = get(url("/x"), 5000, 1, 5);
	assert_int_equal(res->status, 503);
	assert_int_equal(res->attempts, 2);
	http_result_free(res);
}

static void test_no_retry_on_4xx(void **state)
{
	(void)state;
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){401, NULL, "{}", NULL, 0});
	struct http_result *res = get(url("/x"), 5000, 3, 5);
	assert_int_equal(res->status, 401);
	assert_int_equal(res->attempts, 1);
	assert_int_equal(mockserver_count(ms), 1);
	http_result_free(res);
}

static void test_timeout(void **state)
{
	(void)state;
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, "late", NULL, 3000});
	struct http_result *res = get(url("/slow"), 200, 0, 0);
	assert_int_equal(res->err, ERR_BACKEND);
	assert_non_null(strstr(res->error, "timed out"));
	http_result_free(res);
}

static void test_refused(void **state)
{
	(void)state;
	/* port 1 on the loopback: nothing listens there */
	struct http_result *res = get("http://127.0.0.1:1/", 2000, 2, 5);
	assert_int_equal(res->err, ERR_BACKEND);
	assert_int_equal(res->status, 0);
	assert_true(res->error[0] != '\0');
	http_result_free(res);
}

struct tally {
	int done, ok;
};

static void count_done(void *ud, struct http_result *res)
{
	struct tally *t = ud;
	t->done++;
	t->ok += res->err == ERR_OK && res->status == 200;
	http_result_free(res);
}

static void test_parallel(void **state)
{
	(void)state;
	mockserver_clear(ms);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 100});
	struct http_client *c;
	assert_int_equal(http_client_new(&c), ERR_OK);
	struct tally t = {0, 0};
	for (int i = 0; i < 8; i++) {
		struct http_req *r;
		assert_int_equal(http_req_new("GET", url("/p"), &r), ERR_OK);
		assert_int_equal(http_start(c, r, count_done, &t, NULL), ERR_OK);
	}
	assert_int_equal(http_active(c), 8);
	while (http_active(c) > 0)
		assert_int_equal(http_poll(c, 1000, NULL, 0), ERR_OK);
	assert_int_equal(t.done, 8);
	assert_int_equal(t.ok, 8);
	http_client_free(c);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 0});
}

static void test_cancel(void **state)
{
	(void)state;
	mockserver_clear(ms);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 2000});
	struct http_client *c;
	assert_int_equal(http_client_new(&c), ERR_OK);
	struct tally t = {0, 0};
	struct http_xfer *x[3];
	for (int i = 0; i < 3; i++) {
		struct http_req *r;
		assert_int_equal(http_req_new("GET", url("/c"), &r), ERR_OK);
		assert_int_equal(http_start(c, r, count_done, &t, &x[i]), ERR_OK);
	}
	assert_int_equal(http_poll(c, 50, NULL, 0), ERR_OK);
	http_cancel(c, x[1]);
	assert_int_equal(http_active(c), 2);
	http_cancel_all(c);
	assert_int_equal(http_active(c), 0);
	assert_int_equal(http_poll(c, 0, NULL, 0), ERR_OK);
	assert_int_equal(t.done, 0);
	http_client_free(c);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 0});
}

/* Names are resolved off the loop: libcurl's resolver is asynchronous, so a slow DNS
 * server delays a request, not the loop that waits in http_poll. */
static void test_async_dns(void **state)
{
	(void)state;
	assert_true(http_async_dns());
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_post_json),
	  cmocka_unit_test(test_multipart),
	  cmocka_unit_test(test_retry_after),
	  cmocka_unit_test(test_retries_exhausted),
	  cmocka_unit_test(test_no_retry_on_4xx),
	  cmocka_unit_test(test_timeout),
	  cmocka_unit_test(test_refused),
	  cmocka_unit_test(test_parallel),
	  cmocka_unit_test(test_cancel),
	  cmocka_unit_test(test_async_dns))
