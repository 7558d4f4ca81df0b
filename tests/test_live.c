/* test_live: turn-taking for live calls, without hardware: the agent plays into a file
 * sink on a clock the test moves with the audio it feeds (10 ms per 10 ms piece), and the
 * caller's audio is espeak-ng Hindi speech (synthetic) with silences between. Barge-in
 * while speaking and while thinking, the mute option, the silence re-prompt at 3.0 s and
 * not before, the longer turn wait for number fields, and the recording of both sides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sndfile.h>

#include "fake_backend.h"
#include "agent/stages/tts.h"
#include "audio/recorder.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "sessions/calls/live.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

static char tmpdir[64];
static double now_ms;
static float *speech; /* a spoken phrase at 16 kHz, trimmed to about its speech */
static size_t n_speech;
static float agent[LIVE_RATE * 3]; /* 3 s of agent audio (a tone) */
static struct backend tts;

static double clock_fn(void *ud)
{
	(void)ud;
	return now_ms;
}

static int setup(void **state)
{
	float *s = NULL;
	size_t n = 0;
	int rate = 0;

	(void)state;
	for (size_t i = 0; i < LIVE_RATE * 3; i++)
		agent[i] = (float)(0.2 * sin(2 * M_PI * 300 * i / LIVE_RATE));
	if (tmpdir_make(tmpdir, sizeof(tmpdir), "live") != 0 || backend_tts("espeak", &tts, NULL) != ERR_OK)
		return -1;
	if (speak_parts(&tts, "मेरा नाम सुनीता देवी है", &s, &n, &rate) != ERR_OK)
		return -1;
	if (resample_buffer(s, n, rate, LIVE_RATE, &speech, &n_speech) != ERR_OK)
		return -1;
	free(s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(speech);
	tts_cleanup();
	return tmpdir_remove(tmpdir);
}

struct seen {
	struct live_event ev[64];
	int n;
	size_t turn_samples[8];
	int turns;
};

static void take(struct live *l, struct seen *s)
{
	struct live_event ev;

	while (live_next(l, &ev)) {
		if (ev.kind == LIVE_TURN_END && s->turns < 8)
			s->turn_samples[s->turns++] = ev.n_samples;
		if (s->n < 64)
			s->ev[s->n++] = ev;
	}
}

/* Feeds x (or silence when x is NULL) in 10 ms pieces, moving the clock. */
static void feed(struct live *l, const float *x, size_t n, struct seen *s)
{
	static const float zeros[160];

	for (size_t done = 0; done < n; done += 160) {
		size_t k = n - done < 160 ? n - done : 160;
		now_ms += k * 1000.0 / LIVE_RATE;
		assert_int_equal(live_feed(l, x ? x + done : zeros, k, now_ms), ERR_OK);
		live_tick(l, now_ms);
		take(l, s);
	}
}

static int count(const struct seen *s, enum live_event_kind k)
{
	int c = 0;

	for (int i = 0; i < s->n; i++)
		c += s->ev[i].kind == k;
	return c;
}

static const struct live_event *find(const struct seen *s, enum live_event_kind k)
{
	for (int i = 0; i < s->n; i++)
		if (s->ev[i].kind == k)
			return &s->ev[i];
	return NULL;
}

static struct sink *file_sink(const char *name)
{
	char path[128];
	struct sink *k = NULL;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	assert_int_equal(sink_open_file(path, LIVE_RATE, clock_fn, NULL, &k, NULL), ERR_OK);
	return k;
}

/* A live on the file sink name (its sink in *k, caller frees after the live) with the
 * recorder rec and the options o (both may be NULL), the clock at 0. */
static struct live *live_on(const char *name, struct recorder *rec, const struct live_options *o,
			    struct sink **k)
{
	struct live *l = NULL;

	now_ms = 0;
	*k = file_sink(name);
	assert_int_equal(live_new(*k, &tts, rec, o, &l), ERR_OK);
	return l;
}

/* The agent says the first n samples of its 3 s tone, now. */
static void say_agent(struct live *l, size_t n)
{
	assert_int_equal(live_say_samples(l, agent, n, LIVE_RATE, false, now_ms), ERR_OK);
}

static void test_barge_in_while_speaking(void **state)
{
	struct sink *k;
	struct live *l = live_on("agent1.wav", NULL, NULL, &k);
	struct seen s = {0};
	const struct live_event *b, *t;

	(void)state;
	say_agent(l, LIVE_RATE * 3);
	assert_int_equal(live_state(l), LIVE_SPEAKING);
	feed(l, NULL, LIVE_RATE / 2, &s);     /* 0.5 s of silence: no barge-in */
	assert_int_equal(count(&s, LIVE_BARGE_IN), 0);
	feed(l, speech, n_speech, &s);        /* the caller talks over the agent */
	feed(l, NULL, LIVE_RATE, &s);
	b = find(&s, LIVE_BARGE_IN);
	assert_non_null(b);
	assert_int_equal(b->during, LIVE_SPEAKING);
	assert_false(sink_playing(k));        /* playback stopped at once */
	/* Decided start_ms (100) after the speech began, which is after 0.5 s. */
	assert_true(b->at_ms >= 500 && b->at_ms < 500 + 1000);
	assert_true(labs(b->played_ms - b->at_ms) <= 20); /* played until the decision */
	assert_true(b->stop_ms >= 0);
	t = find(&s, LIVE_TURN_END);
	assert_non_null(t);                   /* the new speech is the caller's turn */
	assert_true(t->start_ms >= 450 && t->start_ms <= b->at_ms);
	assert_true(s.turn_samples[0] > n_speech / 2);
	assert_int_equal(count(&s, LIVE_AGENT_DONE), 0);
	assert_int_equal(live_state(l), LIVE_THINKING);
	live_free(l);
	sink_free(k);
}

static void test_barge_in_while_thinking(void **state)
{
	struct sink *k;
	struct live *l = live_on("agent2.wav", NULL, NULL, &k);
	struct seen s = {0};

	(void)state;
	feed(l, speech, n_speech, &s);
	feed(l, NULL, LIVE_RATE, &s);
	assert_int_equal(count(&s, LIVE_TURN_END), 1);
	assert_int_equal(live_state(l), LIVE_THINKING); /* the engine has the turn */
	feed(l, speech, n_speech, &s);                  /* the caller goes on */
	assert_non_null(find(&s, LIVE_BARGE_IN));
	for (int i = 0; i < s.n; i++)
		if (s.ev[i].kind == LIVE_BARGE_IN)
			assert_int_equal(s.ev[i].during, LIVE_THINKING);
	live_free(l);
	sink_free(k);
}

static void test_mute(void **state)
{
	struct sink *k;
	struct live_options o = live_defaults();
	struct seen s = {0};

	(void)state;
	o.mute_while_agent_speaks = true;
	struct live *l = live_on("agent3.wav", NULL, &o, &k);
	say_agent(l, LIVE_RATE * 3);
	feed(l, speech, n_speech, &s); /* over the agent: ignored */
	feed(l, NULL, LIVE_RATE * 3, &s);
	assert_int_equal(count(&s, LIVE_BARGE_IN), 0);
	assert_int_equal(count(&s, LIVE_TURN_END), 0);
	assert_int_equal(count(&s, LIVE_AGENT_DONE), 1);
	feed(l, speech, n_speech, &s); /* after it: a turn */
	feed(l, NULL, LIVE_RATE, &s);
	assert_int_equal(count(&s, LIVE_TURN_END), 1);
	live_free(l);
	sink_free(k);
}

static void test_silence(void **state)
{
	struct sink *k;
	struct live *l = live_on("agent4.wav", NULL, NULL, &k);
	struct seen s = {0};
	const struct live_event *d, *q;

	(void)state;
	say_agent(l, LIVE_RATE * 3);
	feed(l, NULL, LIVE_RATE * 3 + LIVE_RATE * 29 / 10, &s); /* 3 s of agent + 2.9 s */
	assert_non_null(d = find(&s, LIVE_AGENT_DONE));
	assert_int_equal(count(&s, LIVE_SILENCE), 0);          /* not yet */
	feed(l, NULL, LIVE_RATE / 5, &s);
	assert_int_equal(count(&s, LIVE_SILENCE), 1);
	q = find(&s, LIVE_SILENCE);
	d = find(&s, LIVE_AGENT_DONE);
	assert_true(q->at_ms - d->at_ms >= 3000 && q->at_ms - d->at_ms <= 3020);
	feed(l, NULL, LIVE_RATE * 5, &s);
	assert_int_equal(count(&s, LIVE_SILENCE), 1);          /* once */
	/* The agent re-prompts: the timer starts again. */
	say_agent(l, LIVE_RATE / 2);
	feed(l, NULL, LIVE_RATE * 4, &s);
	assert_int_equal(count(&s, LIVE_SILENCE), 2);
	live_free(l);
	sink_free(k);
}

/* An answer with an 800 ms pause inside: two turns for a name, one for a number. */
static int turns_with_pause(bool numeric)
{
	struct sink *k;
	struct live *l = live_on("agent5.wav", NULL, NULL, &k);
	struct seen s = {0};
	float beep = 0;
	int n;

	assert_int_equal(live_say_samples(l, &beep, 1, LIVE_RATE, numeric, now_ms), ERR_OK);
	assert_int_equal(live_turn_wait_ms(l), numeric ? 1200 : 400);
	feed(l, NULL, LIVE_RATE / 2, &s);
	feed(l, speech, n_speech, &s);
	feed(l, NULL, LIVE_RATE * 8 / 10, &s);
	live_thinking(l, false, now_ms); /* the engine would take a turn here; stay listening */
	feed(l, speech, n_speech, &s);
	feed(l, NULL, LIVE_RATE * 2, &s);
	n = count(&s, LIVE_TURN_END);
	live_free(l);
	sink_free(k);
	return n;
}

static void test_number_wait(void **state)
{
	(void)state;
	assert_int_equal(turns_with_pause(false), 2);
	assert_int_equal(turns_with_pause(true), 1);
}

static void test_recording(void **state)
{
	char dir[128], path[192];
	struct sink *k;
	struct recorder *rec = NULL;
	struct seen s = {0};
	SF_INFO info = {0};
	SNDFILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/rec", tmpdir);
	assert_int_equal(recorder_open(dir, LIVE_RATE, &rec, NULL), ERR_OK);
	struct live *l = live_on("agent6.wav", rec, NULL, &k);
	feed(l, NULL, LIVE_RATE / 4, &s);
	say_agent(l, LIVE_RATE * 3);
	feed(l, NULL, LIVE_RATE, &s);
	feed(l, speech, n_speech, &s); /* barge-in after about 1.1 s of the agent */
	feed(l, NULL, LIVE_RATE, &s);
	assert_int_equal(recorder_turn_end(rec, NULL), ERR_OK);
	live_free(l);
	assert_int_equal(recorder_close(rec, false, NULL), ERR_OK);
	/* The agent's file: 0.25 s of padding, then only what was played before the stop. */
	snprintf(path, sizeof(path), "%s/agent.wav", dir);
	f = sf_open(path, SFM_READ, &info);
	assert_non_null(f);
	sf_close(f);
	{
		const struct live_event *b = find(&s, LIVE_BARGE_IN);
		long agent_ms = (long)(info.frames * 1000 / LIVE_RATE);
		assert_non_null(b);
		assert_true(labs(agent_ms - (250 + b->played_ms)) <= 20);
	}
	snprintf(path, sizeof(path), "%s/caller.wav", dir);
	memset(&info, 0, sizeof(info));
	f = sf_open(path, SFM_READ, &info);
	assert_non_null(f);
	sf_close(f);
	assert_int_equal(info.frames, LIVE_RATE / 4 + LIVE_RATE + n_speech + LIVE_RATE);
	sink_free(k);
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_barge_in_while_speaking),
	  cmocka_unit_test(test_barge_in_while_thinking),
	  cmocka_unit_test(test_mute),
	  cmocka_unit_test(test_silence),
	  cmocka_unit_test(test_number_wait),
	  cmocka_unit_test(test_recording))
