/* test_micturn: the mechanisms that keep a microphone turn's way from the end of her
 * speech to the agent's first sound short (docs/latency.md, "Measured"); each is checked
 * by what happens, never by a clock:
 * - http_start sends the request at once: the server has it before the owner polls;
 * - a multipart form retried after a 503 goes out whole again (written once, closed once);
 * - the engine takes the live endpointer's segment for a turn's audio instead of running
 *   the VAD over it again (audio the VAD would call silence is transcribed as given);
 * - a live call's agent is already speaking when the engine records the turn (the voice
 *   was started from the engine's event, before the store's write). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "agent/stages/backend.h"
#include "agent/stages/http.h"
#include "agent/stages/tts.h"
#include "sessions/calls/engine.h"
#include "sessions/calls/livecall.h"
#include "tests/support/enginefix.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockdir.h"
#include "tests/support/mockserver.h"
#include "tests/support/testmain.h"

#define FORM "tests/data/bench_form.json" /* its intro is short: the opening plays soon */
#define ANSWER "mera naam Sunita hai"

static struct mockserver *ms;
static char dir[128];

static int setup(void **state)
{
	(void)state;
	return mockdir_open(dir, sizeof dir, "micturn", mockserver_start, &ms);
}

static char *url(const char *path)
{
	static char u[200];
	snprintf(u, sizeof u, "%s%s", mockserver_url(ms), path);
	return u;
}

/* post_to_end: a POST of body to path on c, polled to its end. Returns its status. */
static long post_to_end(struct http_client *c, const char *path)
{
	struct http_req *r;
	assert_int_equal(http_req_new("POST", url(path), &r), ERR_OK);
	assert_int_equal(http_req_body(r, "{}", 2, "application/json"), ERR_OK);
	struct http_result *res = loopwait_http(c, r, loopwait_ms(), 5, 10000, NULL);
	long status = res->status;
	http_result_free(res);
	return status;
}

/* The request is on its way when http_start returns: over the connection kept from the
 * request before, the server receives it whole while the client is not polled at all. */
static void test_sent_at_once(void **state)
{
	(void)state;
	struct http_client *c;
	struct http_req *r;
	struct http_xfer *x = NULL;
	struct http_result *res = NULL;

	mockserver_clear(ms);
	assert_int_equal(http_client_new(&c), ERR_OK);
	assert_int_equal(post_to_end(c, "/warm"), 200);
	assert_int_equal(mockserver_count(ms), 1);
	assert_int_equal(http_req_new("POST", url("/stt"), &r), ERR_OK);
	assert_int_equal(http_req_part(r, "file", "RIFF....", 8, "audio.wav", "audio/wav"), ERR_OK);
	assert_int_equal(http_start(c, r, loopwait_keep, &res, &x), ERR_OK);
	double t0 = loopwait_ms(); /* only a bound: the request must come without a poll */
	while (mockserver_count(ms) < 2 && loopwait_ms() - t0 < 5000) {
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	assert_int_equal(mockserver_count(ms), 2);
	while (!res)
		assert_int_equal(http_poll(c, 10, NULL, 0), ERR_OK);
	assert_int_equal(res->status, 200);
	const struct mock_part *p = mock_part_named(mockserver_request(ms, 1), "file");
	assert_non_null(p);
	assert_memory_equal(p->data, "RIFF....", 8);
	http_result_free(res);
	http_client_free(c);
}

/* A form answered 503 is sent again as it was: its parts, its closing boundary once. */
static void test_form_retried_whole(void **state)
{
	(void)state;
	struct http_req *r;
	struct http_result *res = NULL;
	const char bin[] = {'R', 'I', 'F', 'F', 0, 1, 2, 3};

	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){503, NULL, "{}", NULL, 0});
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"text\":\"x\"}", NULL, 0});
	assert_int_equal(http_req_new("POST", url("/stt"), &r), ERR_OK);
	assert_int_equal(http_req_part(r, "model_id", "scribe_v1", 9, NULL, NULL), ERR_OK);
	assert_int_equal(http_req_part(r, "file", bin, sizeof bin, "a.wav", "audio/wav"), ERR_OK);
	http_req_limits(r, 5000, 1, 10);
	assert_int_equal(http_perform(r, &res), ERR_OK);
	assert_int_equal(res->status, 200);
	assert_int_equal(res->attempts, 2);
	const struct mock_request *a = mockserver_request(ms, 0), *b = mockserver_request(ms, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->body_len, b->body_len);
	assert_memory_equal(a->body, b->body, a->body_len);
	assert_int_equal(b->n_parts, 2);
	assert_memory_equal(mock_part_named(b, "file")->data, bin, sizeof bin);
	http_result_free(res);
}

/* What the engine said of the caller's words. */
struct heard {
	int says;
	char text[200];
	char segments[200];
};

static void on_heard(void *ud, const struct engine_event *ev)
{
	struct heard *h = ud;
	if (ev->kind != ENGINE_CALLER_SAYS)
		return;
	h->says++;
	snprintf(h->text, sizeof h->text, "%s", ev->text ? ev->text : "");
	char *s = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(ev->json, "segments"));
	snprintf(h->segments, sizeof h->segments, "%s", s ? s : "");
	free(s);
}

/* A second of silence with the live endpointer's segment is her speech as given; the
 * same audio without it is endpointed by the engine: silence. */
static void test_live_segment_taken(void **state)
{
	(void)state;
	char db[200];
	struct enginefix_rig rig;
	struct engine *e = NULL;
	struct heard h = {0};
	float *quiet = calloc(16000, sizeof *quiet);
	struct endpoint_segment seg = {100, 900};

	assert_non_null(quiet);
	snprintf(db, sizeof db, "%s/seg.db", dir);
	enginefix_rig_open(&rig, db, "reference", "rules");
	assert_int_equal(engine_new(&rig.cfg, on_heard, &h, &e), ERR_OK);
	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	struct engine_input in = {.samples = quiet, .n_samples = 16000, .input = "mic",
				  .transcript = ANSWER};
	assert_int_equal(engine_start_turn(e, &in), ERR_OK);
	assert_int_equal(h.says, 1);
	assert_string_equal(h.segments, "[]");
	assert_string_equal(h.text, "");
	in.segs = &seg;
	in.n_segs = 1;
	assert_int_equal(engine_start_turn(e, &in), ERR_OK);
	assert_int_equal(h.says, 2);
	assert_string_equal(h.segments, "[{\"start_ms\":100,\"end_ms\":900}]");
	assert_string_equal(h.text, ANSWER);
	enginefix_rig_close(&rig, e);
	free(quiet);
}

/* A live typed call's events, and whether the agent was speaking when each turn was
 * recorded. */
struct watch {
	struct livecall *lc;
	int recorded, speaking;
};

static void on_event(void *ud, const struct engine_event *ev)
{
	struct watch *w = ud;
	char status[400];
	if (ev->kind != ENGINE_TURN_DONE || ev->turn < 1 || !w->lc)
		return;
	w->recorded++;
	livecall_status(w->lc, status, sizeof status);
	if (strstr(status, "agent speaking"))
		w->speaking++;
}

/* The agent's words (espeak-ng, on its own thread) are on their way when the engine
 * records the turn: the voice was started from the engine's event, not after it. */
static void test_voice_before_store(void **state)
{
	(void)state;
	struct form *form = NULL;
	struct lexicon *lex = NULL;
	struct engine_config cfg = {0};
	struct watch w = {0};
	char out[200], *msg = NULL;
	const char *why = NULL;

	assert_int_equal(form_load(FORM, &form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &lex, &msg), ERR_OK);
	free(msg);
	cfg.form = form;
	cfg.form_path = FORM;
	cfg.lex = lex;
	cfg.today = (struct ymd){2026, 3, 2};
	cfg.endpoint = endpoint_defaults();
	assert_int_equal(backend_stt("reference", &cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract("rules", &cfg.extract, &why), ERR_OK);
	assert_int_equal(backend_reply("script", &cfg.reply, &why), ERR_OK);
	snprintf(out, sizeof out, "%s/agent.wav", dir);
	struct livecall_options o = {.tts = TTS_DEFAULT, .live = live_defaults(), .output_file = out};
	assert_int_equal(livecall_new(&cfg, &o, on_event, &w, &w.lc, &msg), ERR_OK);
	assert_int_equal(livecall_start(w.lc), ERR_OK);
	double t0 = loopwait_ms();
	while (!livecall_listening(w.lc)) {
		assert_int_equal(livecall_poll(w.lc, 5, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 30000);
	}
	assert_int_equal(livecall_typed(w.lc, ANSWER), ERR_OK);
	assert_int_equal(w.recorded, 1);
	assert_int_equal(w.speaking, 1);
	livecall_free(w.lc);
	backend_cleanup();
	lexicon_free(lex);
	form_free(form);
}

TESTMAIN(setup, mockdir_teardown,
	  cmocka_unit_test(test_sent_at_once),
	  cmocka_unit_test(test_form_retried_whole),
	  cmocka_unit_test(test_live_segment_taken),
	  cmocka_unit_test(test_voice_before_store))
