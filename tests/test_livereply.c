/* test_livereply: a live typed call (sessions/calls/livecall.h) speaks a streamed REPLY
 * sentence by sentence. A local server streams the reply as OpenAI's chat completions do,
 * one event every PIECE_MS; the agent speaks with espeak-ng into a WAV file:
 * - the first sentence is being spoken while REPLY's request is still in flight, and the
 *   turn's first audio (its latency, completed when played) comes long before the whole
 *   reply has arrived; every sentence is spoken, one after the other;
 * - a barge-in while the first sentence plays stops it at once, cancels the request (the
 *   server's connection is closed) and no later sentence of it is said or handed out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "agent/stages/backend.h"
#include "agent/stages/tts.h"
#include "sessions/calls/livecall.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockdir.h"
#include "tests/support/mockserver.h"
#include "tests/support/replyseen.h"
#include "tests/support/sse.h"

#define FORM "tests/data/bench_form.json" /* its intro is short: the opening plays soon */
#define PIECE_MS 300

static struct mockserver *ms;
static char dir[128];

static const char *const DELTAS[] = {"जी, कोई बात नहीं।", " कृपया अपना पूरा", " नाम बताइए।",
				     " आपका नाम लिखा", " जाएगा।", NULL};

static const char *const OPENING[] = {"नाम बताइए।", NULL};

struct rig {
	struct form *form;
	struct lexicon *lex;
	struct livecall *lc;
	struct reply_seen seen;
	char out[200];
};

static void rig_open(struct rig *r)
{
	struct engine_config cfg = {0};
	char *msg = NULL;
	const char *why = NULL;

	memset(r, 0, sizeof *r);
	assert_int_equal(form_load(FORM, &r->form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &r->lex, &msg), ERR_OK);
	free(msg);
	cfg.form = r->form;
	cfg.form_path = FORM;
	cfg.lex = r->lex;
	cfg.today = (struct ymd){2026, 3, 2};
	cfg.endpoint = endpoint_defaults();
	cfg.turn_deadline_ms = cfg.call_deadline_ms = -1;
	assert_int_equal(backend_stt("reference", &cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract("rules", &cfg.extract, &why), ERR_OK);
	assert_int_equal(backend_reply("openai", &cfg.reply, &why), ERR_OK);
	snprintf(r->out, sizeof r->out, "%s/agent.wav", dir);
	struct livecall_options o = {.tts = TTS_DEFAULT, .live = live_defaults(),
				     .output_file = r->out};
	mockserver_clear(ms);
	sse_push_openai(ms, OPENING, "stop", true, false, PIECE_MS, 1);
	sse_push_openai(ms, DELTAS, "stop", true, false, PIECE_MS, 4);
	assert_int_equal(livecall_new(&cfg, &o, reply_seen_event, &r->seen, &r->lc, &msg), ERR_OK);
	assert_int_equal(livecall_start(r->lc), ERR_OK);
	double t0 = loopwait_ms();
	while (!livecall_listening(r->lc)) {
		assert_int_equal(livecall_poll(r->lc, 5, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 30000);
	}
}

static void rig_close(struct rig *r)
{
	livecall_free(r->lc);
	lexicon_free(r->lex);
	form_free(r->form);
	backend_cleanup();
}

static bool speaking(const struct livecall *lc)
{
	char st[400];
	livecall_status(lc, st, sizeof st);
	return strstr(st, "agent speaking") != NULL;
}

/* the caller says nothing (typed silence): the reply is the first sound */
static void test_spoken_as_it_streams(void **state)
{
	(void)state;
	struct rig r;
	struct latency l;
	rig_open(&r);
	r.seen.turn = 1;
	double t0 = loopwait_ms(), spoke_at = 0;
	bool in_flight_while_speaking = false;
	assert_int_equal(livecall_typed(r.lc, ""), ERR_OK);
	while (!livecall_listening(r.lc)) {
		assert_int_equal(livecall_poll(r.lc, 5, NULL, 0), ERR_OK);
		if (!spoke_at && speaking(r.lc)) {
			spoke_at = loopwait_ms();
			in_flight_while_speaking = engine_waiting(livecall_engine(r.lc), NULL, NULL, NULL);
		}
		assert_true(loopwait_ms() - t0 < 30000);
	}
	/* the first sentence was spoken while REPLY's answer was still streaming */
	assert_true(spoke_at > 0);
	assert_true(in_flight_while_speaking);
	assert_true(r.seen.says_at - spoke_at > 2 * PIECE_MS);
	assert_int_equal(r.seen.sentences, 3);
	assert_true(livecall_latency(r.lc, &l));
	assert_int_equal(l.turn, 1);
	assert_true(l.played);
	if (l.total_ms > r.seen.says_at - t0 - 2 * PIECE_MS)
		fail_msg("first audio after %.0f ms, the whole reply after %.0f ms", l.total_ms,
			 r.seen.says_at - t0);
	rig_close(&r);
}

/* a barge-in while the first sentence plays stops everything of that reply */
static void test_barge_in_stops_it(void **state)
{
	(void)state;
	struct rig r;
	rig_open(&r);
	r.seen.turn = 1;
	double t0 = loopwait_ms();
	assert_int_equal(livecall_typed(r.lc, ""), ERR_OK);
	while (!speaking(r.lc)) {
		assert_int_equal(livecall_poll(r.lc, 5, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 10000);
	}
	assert_int_equal(r.seen.sentences, 1);
	assert_true(engine_waiting(livecall_engine(r.lc), NULL, NULL, NULL));
	int requests = mockserver_count(ms);
	/* she speaks: the reply stops, its request is cancelled, her turn begins */
	double t1 = loopwait_ms();
	assert_int_equal(livecall_typed(r.lc, "mera naam Sunita hai"), ERR_OK);
	assert_true(loopwait_ms() - t1 < 2000);
	assert_false(speaking(r.lc) && r.seen.sentences > 1);
	while (loopwait_ms() - t1 < 5 * PIECE_MS)
		assert_int_equal(livecall_poll(r.lc, 5, NULL, 0), ERR_OK);
	/* nothing more of turn 1; the new turn's REPLY is the only request after it */
	assert_int_equal(r.seen.sentences, 1);
	assert_int_equal(mockserver_count(ms), requests + 1);
	assert_true(r.seen.says_at > 0 && r.seen.says_at < t1 + 100); /* the cancelled turn's
		record: what was said, at the cut */
	rig_close(&r);
}

static int setup(void **state)
{
	(void)state;
	if (mockdir_open(dir, sizeof dir, "test_livereply", sse_openai_server, &ms) != 0)
		return -1;
	mockserver_record(ms, false);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spoken_as_it_streams),
		cmocka_unit_test(test_barge_in_stops_it),
	};
	return cmocka_run_group_tests(tests, setup, mockdir_teardown);
}
