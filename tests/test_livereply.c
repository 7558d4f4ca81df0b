/* test_livereply: a live typed call (sessions/calls/livecall.h) speaks a streamed REPLY
 * sentence by sentence. A local server streams the reply as OpenAI's chat completions do,
 * one event every PIECE_MS; the agent speaks with espeak-ng into a WAV file:
 * - the first sentence is being spoken while REPLY's request is still in flight, and the
 *   turn's first audio (its latency, completed when played) comes long before the whole
 *   reply has arrived; every sentence is spoken, one after the other;
 * - a barge-in while the first sentence plays stops it at once, cancels the request (the
 *   server's connection is closed) and no later sentence of it is said or handed out;
 * - with a hosted voice that answers after VOICE_MS, each sentence is handed to the voice
 *   as soon as it is complete: the second's synthesis starts while the first still plays,
 *   and the sentences follow one another with no pause of a synthesis between them; a
 *   barge-in then stops the first and drops the second, queued, before any of it sounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "audio/audiofile.h"
#include "agent/rules/form.h"
#include "agent/stages/backend.h"
#include "agent/stages/tts.h"
#include "sessions/calls/livecall.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockdir.h"
#include "tests/support/mockserver.h"
#include "tests/support/replyseen.h"
#include "tests/support/sse.h"
#include "tests/support/testmain.h"

#define FORM "tests/data/bench_form.json" /* its intro is short: the opening plays soon */
#define PIECE_MS 300
#define VOICE_MS 1000 /* the hosted voice's wait before its answer */
#define LONG_MS 3000  /* the first sentence's audio */
#define SHORT_MS 200  /* the other sentences' and the opening's */
#define VOICE_HZ 24000 /* OpenAI's raw PCM */

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

/* voice_push: the hosted voice's next answer: ms of 16-bit raw PCM at VOICE_HZ after
 * delay_ms. */
static void voice_push(int ms_audio, int delay_ms)
{
	size_t n = (size_t)ms_audio * VOICE_HZ / 1000 * 2;
	char *pcm = malloc(n);
	assert_non_null(pcm);
	for (size_t i = 0; i < n; i++) /* a quiet square wave with no zero byte */
		pcm[i] = i % 4 < 2 ? 0x11 : 0x21;
	mockserver_push_bytes(ms, (struct mock_reply){200, "audio/pcm", pcm, NULL, delay_ms}, n);
	free(pcm);
}

/* rig_open: a live typed call with tts ("openai": the local server answers as OpenAI's
 * speech endpoint, VOICE_MS late for each sentence of turn 1), its opening played. */
static void rig_open_tts(struct rig *r, const char *tts)
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
	struct livecall_options o = {.tts = tts, .live = live_defaults(), .output_file = r->out};
	bool hosted = strcmp(tts, "openai") == 0;
	mockserver_clear(ms);
	sse_push_openai(ms, OPENING, "stop", true, false, PIECE_MS, 1);
	if (hosted) { /* in the order asked: the opening's voice, the reply, its sentences' */
		voice_push(SHORT_MS, 0);
		sse_push_openai(ms, DELTAS, "stop", true, false, PIECE_MS, 1);
		voice_push(LONG_MS, VOICE_MS);
		voice_push(SHORT_MS, VOICE_MS);
		voice_push(SHORT_MS, VOICE_MS);
	} else {
		sse_push_openai(ms, DELTAS, "stop", true, false, PIECE_MS, 4);
	}
	assert_int_equal(livecall_new(&cfg, &o, reply_seen_event, &r->seen, &r->lc, &msg), ERR_OK);
	assert_int_equal(livecall_start(r->lc), ERR_OK);
	double t0 = loopwait_ms();
	while (!livecall_listening(r->lc)) {
		assert_int_equal(livecall_poll(r->lc, 5, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 30000);
	}
}

static void rig_open(struct rig *r)
{
	rig_open_tts(r, TTS_DEFAULT);
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

/* A voice that answers VOICE_MS late: the second sentence's request starts while the first
 * still plays (it cannot have played out before VOICE_MS + LONG_MS after its request), and
 * the reply ends one synthesis after its first request plus its audio, not one synthesis
 * per sentence. The requests' order is the server's: 0 the opening's REPLY, 1 its voice,
 * 2 turn 1's REPLY, 3..5 its sentences' voice. */
static void test_next_synthesized_while_playing(void **state)
{
	(void)state;
	struct rig r;
	struct latency l;
	rig_open_tts(&r, "openai");
	assert_int_equal(mockserver_count(ms), 2);
	r.seen.turn = 1;
	double t0 = loopwait_ms(), asked[6] = {0};
	assert_int_equal(livecall_typed(r.lc, ""), ERR_OK);
	while (!livecall_listening(r.lc)) {
		assert_int_equal(livecall_poll(r.lc, 5, NULL, 0), ERR_OK);
		for (int i = 3, n = mockserver_count(ms); i < 6 && i < n; i++)
			if (!asked[i])
				asked[i] = loopwait_ms();
		assert_true(loopwait_ms() - t0 < 30000);
	}
	assert_int_equal(r.seen.sentences, 3);
	assert_int_equal(mockserver_count(ms), 6);
	double done = loopwait_ms();
	/* the first sentence's audio came VOICE_MS after its request and plays LONG_MS: the
	 * second was asked for long before it could have played out */
	if (asked[4] - asked[3] >= VOICE_MS + LONG_MS / 2)
		fail_msg("the second sentence asked for %.0f ms after the first (its voice waits "
			 "%d ms, its audio lasts %d ms)", asked[4] - asked[3], VOICE_MS, LONG_MS);
	/* one synthesis, then the three sentences back to back; said one after another once
	 * played, two more syntheses would lie between them */
	double spoken = VOICE_MS + LONG_MS + 2 * SHORT_MS;
	if (done - asked[3] >= spoken + VOICE_MS)
		fail_msg("the reply took %.0f ms from its first request, %.0f ms of it the voice's "
			 "wait and the audio", done - asked[3], spoken);
	/* the turn's latency ends at its first sound, the first sentence's */
	assert_true(livecall_latency(r.lc, &l));
	assert_int_equal(l.turn, 1);
	assert_true(l.played);
	if (l.ms[LATENCY_TTS] < VOICE_MS || l.ms[LATENCY_TTS] >= 2 * VOICE_MS)
		fail_msg("tts_first_audio %.0f ms, the voice answers after %d ms", l.ms[LATENCY_TTS],
			 VOICE_MS);
	print_message("second sentence asked %.0f ms after the first; reply done %.0f ms after it\n",
		      asked[4] - asked[3], done - asked[3]);
	rig_close(&r); /* the output file is whole once closed */
	/* all of it was heard: the opening and the three sentences */
	float *s = NULL;
	size_t n = 0;
	assert_int_equal(audiofile_read(r.out, LIVE_RATE, &s, &n, NULL), ERR_OK);
	free(s);
	long heard_ms = (long)(n * 1000 / LIVE_RATE);
	if (labs(heard_ms - (LONG_MS + 3 * SHORT_MS)) > 10)
		fail_msg("%ld ms heard, %d ms said", heard_ms, LONG_MS + 3 * SHORT_MS);
}

/* A barge-in while the first sentence plays and the second is being synthesized: the first
 * stops where it was, the second is never heard, the third never asked for. */
static void test_barge_in_drops_queued(void **state)
{
	(void)state;
	struct rig r;
	rig_open_tts(&r, "openai");
	r.seen.turn = 1;
	double t0 = loopwait_ms();
	assert_int_equal(livecall_typed(r.lc, ""), ERR_OK);
	/* the second sentence's request is in flight (its voice waits VOICE_MS) while the
	 * first plays (for LONG_MS) */
	while (mockserver_count(ms) < 5 || !speaking(r.lc)) {
		assert_int_equal(livecall_poll(r.lc, 5, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 10000);
	}
	double t1 = loopwait_ms();
	assert_int_equal(livecall_typed(r.lc, "mera naam Sunita hai"), ERR_OK);
	assert_true(r.seen.says_at > 0 && r.seen.says_at < t1 + 100); /* the cut turn's record */
	int sentences = r.seen.sentences, requests = mockserver_count(ms);
	assert_true(sentences >= 2);
	rig_close(&r);
	/* heard: the opening and the first sentence up to the cut, nothing after */
	float *s = NULL;
	size_t n = 0;
	assert_int_equal(audiofile_read(r.out, LIVE_RATE, &s, &n, NULL), ERR_OK);
	free(s);
	long heard_ms = (long)(n * 1000 / LIVE_RATE);
	if (heard_ms >= SHORT_MS + LONG_MS)
		fail_msg("%ld ms heard: more than the opening and the first sentence", heard_ms);
	assert_true(requests <= 6); /* the new turn's REPLY at most; no third sentence's voice */
}

static int setup(void **state)
{
	(void)state;
	if (mockdir_open(dir, sizeof dir, "test_livereply", sse_openai_server, &ms) != 0)
		return -1;
	mockserver_record(ms, false);
	return 0;
}

TESTMAIN(setup, mockdir_teardown,
	  cmocka_unit_test(test_spoken_as_it_streams),
	  cmocka_unit_test(test_barge_in_stops_it),
	  cmocka_unit_test(test_next_synthesized_while_playing),
	  cmocka_unit_test(test_barge_in_drops_queued))
