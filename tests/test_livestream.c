/* The agent's words played as a hosted voice streams them: live_say with a voice whose
 * answer arrives in pieces (a local server answering as OpenAI's speech endpoint does,
 * raw PCM in chunks, holding its last piece back) starts playing on the first piece,
 * before the answer has ended; the whole of it is played and recorded; through the TTS
 * cache the same words play again with no request; a barge-in stops them at once. Also
 * the sink's streamed utterance and the stateful resampler on their own. And the voice off
 * the loop (below), hosted or espeak-ng. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "agent/stages/http.h"
#include "sessions/calls/livecall.h"
#include "sessions/store/latency.h"

#include "agent/stages/backend.h"
#include "audio/audiofile.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "sessions/calls/live.h"
#include "sessions/calls/ttscache.h"
#include "tests/support/mockdir.h"
#include "tests/support/mockserver.h"
#include "tests/support/testmain.h"

#define N 12000 /* half a second at 24 kHz */
#define VN 4800          /* 200 ms of audio at the voice's 24 kHz */
#define SLOW_MS 1500    /* the slow server's wait before its audio */
#define FIRST_MS 300    /* the streamed voice's wait before its first chunk */
#define REST_MS 900     /* ... and until its last chunk */

static struct mockserver *ms;
static char dir[128];
static unsigned char pcm[2 * N];
static char vpcm[2 * VN + 1]; /* 16-bit samples with no zero byte (a default reply is text) */
static double clock_ms;       /* the file sink's clock */
static int clock_reads;
static bool released_by_playback;

/* The file sink reads its clock first when playback starts: the server lets the last
 * piece go only then, so the words must start before the answer has ended. */
static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

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
	for (int i = 0; i < 2 * VN; i++)
		vpcm[i] = i % 4 < 2 ? 0x11 : 0x21;
	if (mockdir_open(dir, sizeof(dir), "livestream", mockserver_start, &ms) != 0)
		return -1;
	mockdir_provider("OPENAI", "sk-stream-key");
	return 0;
}

static void push_streamed_answer(void)
{
	static const size_t cuts[] = {3001, 9000, 16000};
	mockserver_push_pieces_bytes(ms, (struct mock_reply){200, "audio/pcm", (const char *)pcm, NULL, 0},
				     sizeof(pcm), cuts, 3, true, false);
}

/* A live speaking with voice on a file sink at out that reads test_clock, now at start_ms,
 * with the streamed answer queued and held back until playback first reads the clock.
 * Output: the live (caller frees, then *sink). */
static struct live *streamed_live(const char *out, struct backend *voice, double start_ms,
				  struct sink **sink)
{
	struct live *l = NULL;
	assert_true(backend_streams(voice));
	assert_int_equal(sink_open_file(out, LIVE_RATE, test_clock, NULL, sink, NULL), ERR_OK);
	assert_int_equal(live_new(*sink, voice, NULL, NULL, &l), ERR_OK);
	mockserver_clear(ms);
	push_streamed_answer();
	clock_ms = start_ms;
	clock_reads = 0;
	released_by_playback = false;
	return l;
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
	struct live_event ev;
	snprintf(out, sizeof(out), "%s/agent.wav", dir);
	assert_int_equal(backend_tts("openai", &voice, NULL), ERR_OK);
	struct live *l = streamed_live(out, &voice, 1000, &sink);
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

/* cached_voice: the OpenAI voice behind a TTS cache beside DIR/name (its path into db,
 * size n). Output: the cache (caller frees). */
static struct ttscache *cached_voice(const char *name, struct backend *voice, char *db, size_t n)
{
	struct ttscache *c = NULL;
	snprintf(db, n, "%s/%s", dir, name);
	assert_int_equal(backend_tts("openai", voice, NULL), ERR_OK);
	assert_int_equal(ttscache_wrap(db, voice, &c), ERR_OK);
	return c;
}

static void test_cache_and_barge_in(void **state)
{
	(void)state;
	char out[256], db[192];
	struct backend voice;
	struct sink *sink = NULL;
	snprintf(out, sizeof(out), "%s/agent2.wav", dir);
	struct ttscache *c = cached_voice("calls.db", &voice, db, sizeof(db));
	struct live *l = streamed_live(out, &voice, 0, &sink);
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

/* The agent's voice never holds the live loop: against the same server answering after a
 * known delay, live_say returns at once, the loop keeps turning while the request waits
 * (its largest gap between iterations is measured), and a barge-in 200 ms in stops the
 * words at once (the request cancelled, nothing of it played afterwards); texts said while
 * the agent speaks are queued after what plays; a typed live call's turn has its time to
 * first audio (the latency part tts_first_audio) from the start of the request to its
 * first audio: at least the server's delay before its first chunk, less than the time to
 * its last, and the parts still add up to the total. */

static double wall_clock(void *ud)
{
	(void)ud;
	return mono_ms();
}

/* live_on_voice: turn-taking on the voice spec (backend_tts), playing into DIR/name on the
 * wall clock; the server's queue and records emptied. Output: the live (caller frees, then
 * *sink). */
static struct live *live_on_voice(const char *spec, const char *name, struct sink **sink)
{
	char out[256];
	struct backend voice;
	struct live *l = NULL;
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	assert_int_equal(backend_tts(spec, &voice, NULL), ERR_OK);
	assert_int_equal(sink_open_file(out, LIVE_RATE, wall_clock, NULL, sink, NULL), ERR_OK);
	assert_int_equal(live_new(*sink, &voice, NULL, NULL, &l), ERR_OK);
	mockserver_clear(ms);
	return l;
}

/* loop_once: one turn of a loop that waits as livecall's does: on live's request (its
 * descriptors and timer) for at most 20 ms, then live_tick. */
static void loop_once(struct live *l)
{
	struct curl_waitfd w[16];
	struct pollfd p[16];
	int timeout = 20;
	unsigned n = live_waitfds(l, w, 16, &timeout);
	for (unsigned i = 0; i < n; i++)
		p[i] = (struct pollfd){.fd = w[i].fd, .events = (short)((w[i].events & CURL_WAIT_POLLIN ? POLLIN : 0) |
									(w[i].events & CURL_WAIT_POLLOUT ? POLLOUT : 0))};
	poll(p, n, timeout < 0 || timeout > 20 ? 20 : timeout);
	live_tick(l, mono_ms());
}

/* played_out: the loop turns until the agent's words have played out (LIVE_AGENT_DONE),
 * at most until 5 s after t0 (mono ms). */
static bool played_out(struct live *l, double t0)
{
	struct live_event ev;
	bool done = false;
	while (!done && mono_ms() - t0 < 5000) {
		loop_once(l);
		while (live_next(l, &ev))
			done |= ev.kind == LIVE_AGENT_DONE;
	}
	return done;
}

static void test_barge_in_during_synthesis(void **state)
{
	(void)state;
	struct sink *sink = NULL;
	struct live_event ev;
	struct live *l = live_on_voice("openai", "slow.wav", &sink);
	mockserver_push_bytes(ms, (struct mock_reply){200, "audio/pcm", vpcm, NULL, SLOW_MS}, 2 * VN);

	double t0 = mono_ms();
	assert_int_equal(live_say(l, "आपका नाम क्या है?", false, t0), ERR_OK);
	double said = mono_ms() - t0;
	if (said > 100)
		fail_msg("live_say took %.0f ms: it waited for the voice", said);
	assert_int_equal(live_state(l), LIVE_SPEAKING);
	assert_true(live_synthesizing(l));

	/* the loop turns while the server waits; 200 ms in, the caller speaks */
	double last = mono_ms(), gap = 0;
	bool barged = false;
	while (mono_ms() - t0 < SLOW_MS + 700) {
		loop_once(l);
		double now = mono_ms();
		if (now - last > gap)
			gap = now - last;
		last = now;
		if (!barged && now - t0 >= 200) {
			double b0 = mono_ms();
			assert_true(live_interrupt(l, now));
			if (mono_ms() - b0 > 50)
				fail_msg("the barge-in took %.0f ms", mono_ms() - b0);
			assert_true(live_next(l, &ev));
			assert_int_equal(ev.kind, LIVE_BARGE_IN);
			assert_int_equal(ev.during, LIVE_SPEAKING);
			assert_int_equal(ev.played_ms, 0);
			assert_false(live_synthesizing(l));
			barged = true;
		}
		if (barged) { /* nothing of that request comes afterwards */
			assert_int_equal(live_state(l), LIVE_LISTENING);
			assert_false(sink_playing(sink));
			assert_int_equal(live_agent_ms(l), 0);
		}
	}
	assert_true(barged);
	assert_int_equal(mockserver_count(ms), 1); /* the request was made, then cancelled */
	if (gap > 200)
		fail_msg("the loop stalled %.0f ms (the voice's server waits %d ms)", gap, SLOW_MS);
	while (live_next(l, &ev))
		assert_int_not_equal(ev.kind, LIVE_AGENT_DONE);
	live_free(l);
	sink_free(sink);
}

static void test_queued_after_playing(void **state)
{
	(void)state;
	struct sink *sink = NULL;
	struct live *l = live_on_voice("openai", "queued.wav", &sink);
	mockserver_push_bytes(ms, (struct mock_reply){200, "audio/pcm", vpcm, NULL, 50}, 2 * VN);
	mockserver_push_bytes(ms, (struct mock_reply){200, "audio/pcm", vpcm, NULL, 50}, 2 * VN);
	double t0 = mono_ms();
	assert_int_equal(live_say(l, "जी।", false, t0), ERR_OK);
	assert_int_equal(live_say(l, "आपका नाम क्या है?", false, t0), ERR_OK);
	assert_true(played_out(l, t0));
	assert_int_equal(mockserver_count(ms), 2);
	/* both, one after the other: 200 ms each at 16 kHz */
	assert_int_equal(live_agent_ms(l), 400);
	live_free(l);
	sink_free(sink);
}

/* espeak-ng synthesizes on a thread of its own: live_say hands nothing over itself, the
 * loop takes the pieces; a barge-in at once stops it before any sound. */
static void test_espeak_off_the_loop(void **state)
{
	(void)state;
	struct sink *sink = NULL;
	struct live_event ev;
	struct live *l = live_on_voice("espeak", "espeak.wav", &sink);
	double t0 = mono_ms();
	assert_int_equal(live_say(l, "नमस्ते! यह माँ और बच्चे के स्वास्थ्य की एक मुफ़्त सेवा है। मैं आपसे "
				  "कुछ सवाल पूछूँगी, आप बोलकर जवाब दीजिए।", false, t0), ERR_OK);
	assert_true(live_synthesizing(l));
	assert_int_equal(live_agent_ms(l), 0);
	assert_true(live_interrupt(l, mono_ms()));
	assert_true(live_next(l, &ev));
	assert_int_equal(ev.kind, LIVE_BARGE_IN);
	assert_false(live_synthesizing(l));
	while (mono_ms() - t0 < 300) {
		loop_once(l);
		assert_int_equal(live_state(l), LIVE_LISTENING);
		assert_int_equal(live_agent_ms(l), 0);
		assert_false(sink_playing(sink));
	}
	/* said again, let be: its pieces come through the loop and play out */
	assert_int_equal(live_say(l, "जी।", false, mono_ms()), ERR_OK);
	assert_int_equal(live_agent_ms(l), 0);
	assert_true(played_out(l, t0));
	assert_true(live_agent_ms(l) > 100);
	live_free(l);
	sink_free(sink);
}

/* A new sentence through the TTS cache: its file is written off the loop, so a cache
 * folder that cannot be written costs only the next miss; the words play whole, no error
 * (the write, on the loop, used to fail the words with ERR_IO). */
static void test_cache_write_off_the_loop(void **state)
{
	(void)state;
	char out[256], db[192], tts[256];
	struct backend voice;
	struct sink *sink = NULL;
	struct live *l = NULL;
	snprintf(out, sizeof(out), "%s/cached.wav", dir);
	struct ttscache *c = cached_voice("unwritable.db", &voice, db, sizeof(db));
	ttscache_dir(db, tts, sizeof(tts));
	assert_int_equal(rmdir(tts), 0); /* a file where the folder was: no write succeeds */
	FILE *f = fopen(tts, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(sink_open_file(out, LIVE_RATE, wall_clock, NULL, &sink, NULL), ERR_OK);
	assert_int_equal(live_new(sink, &voice, NULL, NULL, &l), ERR_OK);
	mockserver_clear(ms);
	mockserver_push_bytes(ms, (struct mock_reply){200, "audio/pcm", vpcm, NULL, 0}, 2 * VN);
	double t0 = mono_ms();
	assert_int_equal(live_say(l, "यह वाक्य नया है।", false, t0), ERR_OK);
	assert_true(played_out(l, t0));
	assert_int_equal(live_late_error(l), ERR_OK);
	assert_int_equal(live_agent_ms(l), 200);
	live_free(l);
	sink_free(sink);
	ttscache_free(c);
	unlink(tts);
}

static bool listening(const struct livecall *lc)
{
	return livecall_listening(lc) || !livecall_call_open(lc);
}

/* drive: livecall's loop until it listens again; a reply held before its last piece is
 * let go release_ms in (0: none). Output: the loop's largest gap, ms. */
static double drive(struct livecall *lc, double release_ms)
{
	double t0 = mono_ms(), last = t0, gap = 0;
	while (!listening(lc) && mono_ms() - t0 < 10000) {
		if (release_ms > 0 && mono_ms() - t0 >= release_ms) {
			mockserver_release(ms);
			release_ms = 0;
		}
		assert_int_equal(livecall_poll(lc, 20, NULL, 0), ERR_OK);
		double now = mono_ms();
		gap = now - last > gap ? now - last : gap;
		last = now;
	}
	assert_true(listening(lc));
	return gap;
}

static void test_first_audio_measured(void **state)
{
	(void)state;
	char out[256];
	struct form *form = NULL;
	struct lexicon *lex = NULL;
	struct engine_config cfg = {0};
	struct livecall *lc = NULL;
	struct latency lat;
	char *msg = NULL;
	assert_int_equal(form_load("forms/armman_enrollment.json", &form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &lex, NULL), ERR_OK);
	cfg.form = form;
	cfg.form_path = "forms/armman_enrollment.json";
	cfg.lex = lex;
	cfg.today = (struct ymd){2026, 3, 2};
	cfg.endpoint = endpoint_defaults();
	assert_int_equal(backend_stt("reference", &cfg.stt, NULL), ERR_OK);
	assert_int_equal(backend_extract("rules", &cfg.extract, NULL), ERR_OK);
	assert_int_equal(backend_reply("script", &cfg.reply, NULL), ERR_OK);
	snprintf(out, sizeof(out), "%s/call.wav", dir);
	struct livecall_options o = {.tts = "openai", .output_file = out, .live = live_defaults()};
	mockserver_clear(ms);
	mockserver_set_default(ms, (struct mock_reply){200, "audio/pcm", vpcm, NULL, FIRST_MS});
	assert_int_equal(livecall_new(&cfg, &o, NULL, NULL, &lc, &msg), ERR_OK);
	assert_int_equal(livecall_start(lc), ERR_OK);
	double gap = drive(lc, 0);
	/* the turn's first sound: its first chunk after FIRST_MS, the rest at REST_MS */
	static const size_t cut[] = {VN};
	mockserver_push_pieces_bytes(ms, (struct mock_reply){200, "audio/pcm", vpcm, NULL, FIRST_MS},
				     2 * VN, cut, 1, true, false);
	assert_int_equal(livecall_typed(lc, "mera naam Sunita Devi hai"), ERR_OK);
	double gap2 = drive(lc, REST_MS);
	gap = gap2 > gap ? gap2 : gap;
	assert_true(livecall_latency(lc, &lat));
	assert_int_equal(lat.turn, 1);
	assert_true(lat.played);
	if (lat.ms[LATENCY_TTS] < FIRST_MS || lat.ms[LATENCY_TTS] >= REST_MS)
		fail_msg("tts_first_audio %.1f ms, the voice's first chunk came after %d ms, its "
			 "last at %d ms", lat.ms[LATENCY_TTS], FIRST_MS, REST_MS);
	double sum = 0;
	for (int p = 0; p < LATENCY_PARTS; p++)
		sum += lat.ms[p];
	if (fabs(sum - lat.total_ms) > 1e-6)
		fail_msg("the parts add up to %.6f ms, the total is %.6f ms", sum, lat.total_ms);
	if (lat.total_ms < lat.ms[LATENCY_TTS] || lat.total_ms >= REST_MS)
		fail_msg("end of speech to first sound %.1f ms: not with the first chunk (%d ms)",
			 lat.total_ms, FIRST_MS);
	if (gap > FIRST_MS / 2)
		fail_msg("the loop stalled %.0f ms (the voice waits %d ms)", gap, FIRST_MS);
	livecall_free(lc);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 0});
	lexicon_free(lex);
	form_free(form);
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

TESTMAIN(setup, mockdir_teardown,
	  cmocka_unit_test(test_plays_as_it_arrives),
	  cmocka_unit_test(test_cache_and_barge_in),
	  cmocka_unit_test(test_resample_stream),
	  cmocka_unit_test(test_barge_in_during_synthesis),
	  cmocka_unit_test(test_queued_after_playing),
	  cmocka_unit_test(test_first_audio_measured),
	  cmocka_unit_test(test_espeak_off_the_loop),
	  cmocka_unit_test(test_cache_write_off_the_loop))
