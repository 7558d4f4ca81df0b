/* The agent's words played as a hosted voice streams them: live_say with a voice whose
 * answer arrives in pieces (a local server answering as OpenAI's speech endpoint does,
 * raw PCM in chunks, holding its last piece back) starts playing on the first piece,
 * before the answer has ended; the whole of it is played and recorded; through the TTS
 * cache the same words play again with no request; a barge-in stops them at once. Also
 * the sink's streamed utterance and the stateful resampler on their own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "audio/audiofile.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "sessions/calls/live.h"
#include "sessions/calls/ttscache.h"
#include "tests/support/mockserver.h"
#include "tests/support/tmpdir.h"

#define N 12000 /* half a second at 24 kHz */

static struct mockserver *ms;
static char dir[128];
static unsigned char pcm[2 * N];
static double clock_ms;       /* the file sink's clock */
static int clock_reads;
static bool released_by_playback;

/* The file sink reads its clock first when playback starts: the server lets the last
 * piece go only then, so the words must start before the answer has ended. */
static double test_clock(void *ud)
{
	(void)ud;
	if (clock_reads++ == 0) {
		released_by_playback = true;
		mockserver_release(ms);
	}
	return clock_ms;
}

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < N; i++) {
		int16_t v = (int16_t)lrint(9000 * sin(2 * 3.14159265 * 300 * i / 24000.0));
		memcpy(pcm + 2 * i, &v, 2);
	}
	ms = mockserver_start();
	if (!ms || tmpdir_make(dir, sizeof(dir), "livestream") != 0)
		return -1;
	setenv("OPENAI_BASE_URL", mockserver_url(ms), 1);
	setenv("OPENAI_API_KEY", "sk-stream-key", 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mockserver_stop(ms);
	backend_cleanup();
	unsetenv("OPENAI_BASE_URL");
	unsetenv("OPENAI_API_KEY");
	return tmpdir_remove(dir);
}

static void push_streamed_answer(void)
{
	static const size_t cuts[] = {3001, 9000, 16000};
	mockserver_push_pieces_bytes(ms, (struct mock_reply){200, "audio/pcm", (const char *)pcm, NULL, 0},
				     sizeof(pcm), cuts, 3, true, false);
}

/* say: live_say, then the loop's ticks until the words' request has ended (live_say no
 * longer waits for it). */
static enum err say(struct live *l, const char *text, double now_ms)
{
	enum err e = live_say(l, text, false, now_ms);
	for (int i = 0; i < 5000 && live_synthesizing(l); i++) {
		usleep(1000);
		live_tick(l, now_ms);
	}
	assert_false(live_synthesizing(l));
	return e;
}

static size_t played_file_samples(const char *path)
{
	float *s = NULL;
	size_t n = 0;
	assert_int_equal(audiofile_read(path, LIVE_RATE, &s, &n, NULL), ERR_OK);
	free(s);
	return n;
}

static void test_plays_as_it_arrives(void **state)
{
	(void)state;
	char out[256];
	struct backend voice;
	struct sink *sink = NULL;
	struct live *l = NULL;
	struct live_event ev;
	snprintf(out, sizeof(out), "%s/agent.wav", dir);
	assert_int_equal(backend_tts("openai", &voice, NULL), ERR_OK);
	assert_true(backend_streams(&voice));
	assert_int_equal(sink_open_file(out, LIVE_RATE, test_clock, NULL, &sink, NULL), ERR_OK);
	assert_int_equal(live_new(sink, &voice, NULL, NULL, &l), ERR_OK);
	mockserver_clear(ms);
	push_streamed_answer();
	clock_ms = 1000;
	clock_reads = 0;
	released_by_playback = false;
	assert_int_equal(say(l, "नमस्ते जी", 0), ERR_OK);
	assert_true(released_by_playback);
	assert_int_equal(live_state(l), LIVE_SPEAKING);
	assert_int_equal(live_agent_ms(l), 500);
	/* still speaking until all of it has played */
	clock_ms = 1400;
	live_tick(l, 400);
	assert_int_equal(live_state(l), LIVE_SPEAKING);
	clock_ms = 1600;
	live_tick(l, 600);
	assert_int_equal(live_state(l), LIVE_LISTENING);
	assert_true(live_next(l, &ev));
	assert_int_equal(ev.kind, LIVE_AGENT_DONE);
	live_free(l);
	sink_free(sink);
	size_t n = played_file_samples(out);
	assert_true(n >= 8000 - 8 && n <= 8000 + 8);
}

static void test_cache_and_barge_in(void **state)
{
	(void)state;
	char out[256], db[192];
	struct backend voice;
	struct ttscache *c = NULL;
	struct sink *sink = NULL;
	struct live *l = NULL;
	snprintf(out, sizeof(out), "%s/agent2.wav", dir);
	snprintf(db, sizeof(db), "%s/calls.db", dir);
	assert_int_equal(backend_tts("openai", &voice, NULL), ERR_OK);
	assert_int_equal(ttscache_wrap(db, &voice, &c), ERR_OK);
	assert_true(backend_streams(&voice));
	assert_int_equal(sink_open_file(out, LIVE_RATE, test_clock, NULL, &sink, NULL), ERR_OK);
	assert_int_equal(live_new(sink, &voice, NULL, NULL, &l), ERR_OK);
	mockserver_clear(ms);
	push_streamed_answer();
	clock_ms = 0;
	clock_reads = 0;
	released_by_playback = false;
	/* a new sentence: streamed through the cache as it arrives */
	assert_int_equal(say(l, "आपका नाम क्या है?", 0), ERR_OK);
	assert_true(released_by_playback);
	assert_int_equal(mockserver_count(ms), 1);
	/* the caller barges in 200 ms in: stopped at once, 200 ms played */
	clock_ms = 200;
	assert_true(live_interrupt(l, 200));
	struct live_event ev;
	assert_true(live_next(l, &ev));
	assert_int_equal(ev.kind, LIVE_BARGE_IN);
	assert_int_equal(ev.played_ms, 200);
	/* the same words again: from the cache, no request, all of them */
	clock_ms = 1000;
	assert_int_equal(say(l, "आपका नाम क्या है?", 1000), ERR_OK);
	assert_int_equal(mockserver_count(ms), 1);
	assert_int_equal(live_agent_ms(l), 500);
	clock_ms = 1600;
	live_tick(l, 1600);
	assert_int_equal(live_state(l), LIVE_LISTENING);
	live_free(l);
	sink_free(sink);
	ttscache_free(c);
	size_t n = played_file_samples(out);
	assert_true(n >= 3200 + 8000 - 8 && n <= 3200 + 8000 + 8);
}

/* Pieces resampled one after another give what the whole buffer gives. */
static void test_resample_stream(void **state)
{
	(void)state;
	float in[N], *whole = NULL, *part = NULL, *all = malloc(sizeof(float) * 20000);
	size_t nw = 0, total = 0, m = 0;
	for (int i = 0; i < N; i++)
		in[i] = 0.4f * sinf(2 * 3.14159265f * 300 * (float)i / 24000.0f);
	assert_int_equal(resample_buffer(in, N, 24000, 16000, &whole, &nw), ERR_OK);
	struct resample_stream *r = NULL;
	assert_int_equal(resample_stream_new(24000, 16000, &r), ERR_OK);
	static const size_t cuts[] = {0, 1001, 1002, 5000, N};
	for (int k = 0; k < 4; k++) {
		assert_int_equal(resample_stream_push(r, in + cuts[k], cuts[k + 1] - cuts[k], false, &part, &m),
				 ERR_OK);
		if (m)
			memcpy(all + total, part, m * sizeof(float));
		total += m;
		free(part);
	}
	assert_int_equal(resample_stream_push(r, NULL, 0, true, &part, &m), ERR_OK);
	if (m)
		memcpy(all + total, part, m * sizeof(float));
	total += m;
	free(part);
	resample_stream_free(r);
	if (total + 2 < nw || total > nw + 2)
		fail_msg("%zu samples streamed, %zu whole", total, nw);
	for (size_t i = 100; i + 100 < nw; i++)
		if (fabsf(all[i] - whole[i]) > 1e-3f)
			fail_msg("sample %zu: %f streamed, %f whole", i, all[i], whole[i]);
	free(whole);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plays_as_it_arrives),
		cmocka_unit_test(test_cache_and_barge_in),
		cmocka_unit_test(test_resample_stream),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
