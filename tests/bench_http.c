/* Speed of the model-call path, printed (never asserted):
 * 1. the overhead formdesk adds to one EXTRACT call: building the request (prompt with the
 *    enrollment form, schema, JSON body) plus parsing a response into an extraction,
 *    median over many runs, in microseconds;
 * 2. the wall time of 1,000 EXTRACT calls against a local server that answers each after
 *    200 ms, 32 at a time on one thread (libcurl multi); ideal 1000 / 32 x 0.2 s = 6.25 s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/stages/backend.h"
#include "agent/stages/extract_llm.h"
#include "agent/rules/form.h"
#include "agent/stages/http.h"
#include "agent/stages/provider.h"
#include "tests/support/benchrun.h"
#include "tests/support/mockserver.h"

#define OVERHEAD_RUNS 2000
#define CALLS 1000
#define CONCURRENCY 32
#define DELAY_MS 200

static const char RESPONSE[] =
	"{\"id\":\"chatcmpl-b\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
	"{\"role\":\"assistant\",\"content\":\"{\\\"ack\\\":\\\"ठीक है\\\",\\\"fields\\\":[{\\\"field\\\":"
	"\\\"district\\\",\\\"value\\\":1,\\\"skip\\\":false,\\\"reason\\\":\\\"none\\\"}]}\",\"refusal\":null},"
	"\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":31}}";

struct run {
	struct http_client *c;
	const struct extract_llm *x;
	const struct extract_request *rq;
	int started, done, failed;
};

static void start_one(struct run *r);

static void on_done(void *ud, struct http_result *res)
{
	struct run *r = ud;
	struct extraction *ex = NULL;
	if (extract_llm_response(r->x, r->rq, res, &ex, NULL) != ERR_OK || !ex || ex->n != 1)
		r->failed++;
	extraction_free(ex);
	http_result_free(res);
	r->done++;
	if (r->started < CALLS)
		start_one(r);
}

static void start_one(struct run *r)
{
	struct http_req *hr = NULL;
	r->started++;
	if (extract_llm_request(r->x, r->rq, &hr) != ERR_OK ||
	    http_start(r->c, hr, on_done, r, NULL) != ERR_OK) {
		r->failed++;
		r->done++;
	}
}

int main(void)
{
	struct form *form = NULL;
	if (form_load("forms/armman_enrollment.json", &form, NULL) != ERR_OK) {
		fprintf(stderr, "bench_http: cannot load forms/armman_enrollment.json\n");
		return 1;
	}
	struct mockserver *ms = mockserver_start();
	if (!ms) {
		fprintf(stderr, "bench_http: cannot start the local server\n");
		return 1;
	}
	mockserver_record(ms, false);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, RESPONSE, NULL, DELAY_MS});
	char base[128];
	snprintf(base, sizeof(base), "%s/v1", mockserver_url(ms));
	unsetenv("FORMDESK_CONFIG");
	setenv("OPENAI_BASE_URL", base, 1);
	setenv("OPENAI_API_KEY", "sk-bench", 1);
	struct backend be;
	const char *why = NULL;
	if (backend_extract("openai", &be, &why) != ERR_OK) {
		fprintf(stderr, "bench_http: %s\n", why);
		return 1;
	}
	const struct extract_llm *x = be.ctx;
	cJSON *history = cJSON_Parse("[{\"role\":\"agent\",\"content\":\"नमस्ते! कृपया अपना पूरा नाम बताइए।\"},"
				     "{\"role\":\"user\",\"content\":\"मेरा नाम सुनीता देवी है\"},"
				     "{\"role\":\"agent\",\"content\":\"आप किस ज़िले में रहती हैं?\"}]");
	struct extract_request rq = {form, NULL, form_find(form, "district"), "मैं गया से हूँ", history,
				     {2026, 3, 15}};

	/* 1. overhead: build + parse, no network */
	struct http_result canned = {.err = ERR_OK, .status = 200, .body = (char *)RESPONSE,
				     .body_len = sizeof(RESPONSE) - 1, .ttfb_ms = 1, .total_ms = 1,
				     .attempts = 1};
	static double t[OVERHEAD_RUNS];
	for (int i = 0; i < OVERHEAD_RUNS; i++) {
		double t0 = benchrun_wall_s();
		struct http_req *hr = NULL;
		struct extraction *ex = NULL;
		if (extract_llm_request(x, &rq, &hr) != ERR_OK ||
		    extract_llm_response(x, &rq, &canned, &ex, NULL) != ERR_OK) {
			fprintf(stderr, "bench_http: build or parse failed\n");
			return 1;
		}
		http_req_free(hr);
		extraction_free(ex);
		t[i] = (benchrun_wall_s() - t0) * 1e6; /* microseconds */
	}
	benchrun_sort(t, OVERHEAD_RUNS);
	printf("EXTRACT request build + response parse: median %.1f us, p95 %.1f us (%d runs)\n",
	       t[OVERHEAD_RUNS / 2], t[OVERHEAD_RUNS * 95 / 100], OVERHEAD_RUNS);

	/* 2. 1,000 calls, 32 in flight, server answering after 200 ms */
	struct http_client *c = NULL;
	if (http_client_new(&c) != ERR_OK)
		return 1;
	struct run r = {c, x, &rq, 0, 0, 0};
	double t0 = benchrun_wall_s();
	for (int i = 0; i < CONCURRENCY; i++)
		start_one(&r);
	while (r.done < CALLS)
		if (http_poll(c, 1000, NULL, 0) != ERR_OK)
			break;
	double wall = benchrun_wall_s() - t0;
	printf("%d EXTRACT calls, %d at a time, server delay %d ms: wall %.2f s (ideal %.2f s), "
	       "%d failed\n", CALLS, CONCURRENCY, DELAY_MS, wall,
	       (double)CALLS / CONCURRENCY * DELAY_MS / 1000.0, r.failed);
	http_client_free(c);
	cJSON_Delete(history);
	backend_cleanup();
	mockserver_stop(ms);
	form_free(form);
	return r.failed ? 1 : 0;
}
