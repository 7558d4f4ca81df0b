/* live: turn-taking for a live call (see live.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audio/recorder.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "live.h"

#define QUEUE 16
#define MARGIN_MS 100 /* kept before the speech start and after its end in a turn */

struct live {
	struct sink *sink;
	struct backend tts;
	struct recorder *rec;
	struct live_options opt;
	struct endpoint *ep;
	int turn_wait;
	enum live_state state;

	float *hist;          /* caller audio since the phase (the last live_say) began */
	size_t hist_n, hist_cap;
	size_t phase_start;   /* samples fed before the phase began */
	size_t fed;           /* samples fed in all */

	float *agent;         /* the agent's words at LIVE_RATE, for the recorder */
	size_t agent_n;
	int agent_recorded;

	double stopped_at;    /* loop clock when the agent stopped */
	int heard;            /* speech started since the agent stopped */
	long said_at;         /* call time (ms) when the agent's words began */
	int silence_reported;

	struct live_event q[QUEUE];
	int q_head, q_n;
	float *turn;          /* the last LIVE_TURN_END's samples */
	double tts_ms;        /* the last live_say's synthesis, wall ms */
};

struct live_options live_defaults(void)
{
	struct live_options o = {
		.endpoint = endpoint_defaults(),
		.number_turn_wait_ms = 1200,
		.silence_ms = 3000,
		.mute_while_agent_speaks = false,
	};
	return o;
}

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static long ms_of(size_t samples)
{
	return (long)(samples * 1000 / LIVE_RATE);
}

static void push(struct live *l, const struct live_event *ev)
{
	if (l->q_n == QUEUE) { /* the loop fell far behind: drop the oldest */
		l->q_head = (l->q_head + 1) % QUEUE;
		l->q_n--;
	}
	l->q[(l->q_head + l->q_n) % QUEUE] = *ev;
	l->q_n++;
}

bool live_next(struct live *l, struct live_event *ev)
{
	if (!l->q_n)
		return false;
	*ev = l->q[l->q_head];
	l->q_head = (l->q_head + 1) % QUEUE;
	l->q_n--;
	return true;
}

/* A new endpointer for the phase that starts now, with the turn wait for the field. */
static enum err new_phase(struct live *l, bool numeric)
{
	struct endpoint_options o = l->opt.endpoint;
	struct endpoint *ep = NULL;
	enum err e;

	o.turn_wait_ms = numeric ? l->opt.number_turn_wait_ms : l->opt.endpoint.turn_wait_ms;
	if (l->ep) /* the caller gate keeps following her level from question to question */
		o.caller_level_db = endpoint_caller_level_db(l->ep);
	e = endpoint_new(LIVE_RATE, &o, &ep);
	if (e)
		return e;
	endpoint_free(l->ep);
	l->ep = ep;
	l->turn_wait = o.turn_wait_ms;
	l->phase_start = l->fed;
	l->hist_n = 0;
	return ERR_OK;
}

enum err live_new(struct sink *sink, const struct backend *tts, struct recorder *rec,
		  const struct live_options *opt, struct live **out)
{
	struct live *l = calloc(1, sizeof(*l));
	enum err e;

	if (!l)
		return ERR_NOMEM;
	l->sink = sink;
	l->tts = *tts;
	l->rec = rec;
	l->opt = opt ? *opt : live_defaults();
	if (l->opt.number_turn_wait_ms < 0 || l->opt.silence_ms < 0) {
		free(l);
		return ERR_INVALID;
	}
	l->agent_recorded = 1;
	e = new_phase(l, false);
	if (e) {
		free(l);
		return e;
	}
	*out = l;
	return ERR_OK;
}

void live_free(struct live *l)
{
	if (!l)
		return;
	endpoint_free(l->ep);
	free(l->hist);
	free(l->agent);
	free(l->turn);
	free(l);
}

/* Writes the first played samples of the agent's words (LIVE_RATE) to the recorder. */
static void record_agent(struct live *l, size_t played)
{
	if (l->agent_recorded)
		return;
	l->agent_recorded = 1;
	if (!l->rec)
		return;
	recorder_write(l->rec, RECORDER_AGENT, l->agent, played < l->agent_n ? played : l->agent_n);
}

/* The agent has stopped speaking (played out or stopped). */
static void agent_stopped(struct live *l, double now_ms)
{
	l->state = LIVE_LISTENING;
	l->stopped_at = now_ms;
	l->heard = 0;
	l->silence_reported = 0;
}

/* say_begin: the agent starts new words: what still plays is stopped (and recorded as far
 * as it played) and a new phase begins. */
static enum err say_begin(struct live *l, bool numeric)
{
	if (l->state == LIVE_SPEAKING) {
		size_t played = 0;
		sink_stop(l->sink, &played);
		record_agent(l, (size_t)((double)played * LIVE_RATE / sink_rate(l->sink)));
	}
	l->said_at = ms_of(l->fed);
	return new_phase(l, numeric);
}

enum err live_say_samples(struct live *l, const float *samples, size_t n, int rate, bool numeric,
			  double now_ms)
{
	float *at16 = NULL, *out = NULL;
	size_t n16 = 0, m = 0;
	enum err e;

	e = say_begin(l, numeric);
	if (e)
		return e;
	e = resample_buffer(samples, n, rate, LIVE_RATE, &at16, &n16);
	if (e)
		return e;
	free(l->agent);
	l->agent = at16;
	l->agent_n = n16;
	l->agent_recorded = 0;
	if (l->rec)
		recorder_align(l->rec);
	if (n16 == 0 || !l->sink) { /* nothing to play ("none", or no sink): the agent has
	                               spoken already */
		record_agent(l, n16);
		agent_stopped(l, now_ms);
		return ERR_OK;
	}
	e = resample_buffer(at16, n16, LIVE_RATE, sink_rate(l->sink), &out, &m);
	if (e)
		return e;
	e = sink_play(l->sink, out, m);
	free(out);
	if (e)
		return e;
	l->state = LIVE_SPEAKING;
	return ERR_OK;
}

/* Words played as they are synthesized (a streamed voice, the TTS cache): the pieces, at
 * LIVE_RATE, go to the sink as they come; the first one starts the agent's turn. */
struct streamed {
	struct live *l;
	bool numeric, begun;
	struct resample_stream *rs; /* the voice's rate -> LIVE_RATE */
	enum err e;
};

#define LIVE_SAY_MAX_S 120 /* the longest words a streamed utterance holds, seconds */

/* streamed_put: n samples at LIVE_RATE (borrowed) played and kept for the recorder. */
static enum err streamed_put(struct streamed *st, const float *s, size_t n)
{
	struct live *l = st->l;
	enum err e;
	if (!n)
		return ERR_OK;
	if (!st->begun) {
		if ((e = say_begin(l, st->numeric)) ||
		    (e = sink_begin(l->sink, (size_t)LIVE_SAY_MAX_S * LIVE_RATE)))
			return e;
		free(l->agent);
		l->agent = NULL;
		l->agent_n = 0;
		l->agent_recorded = 0;
		if (l->rec)
			recorder_align(l->rec);
		l->state = LIVE_SPEAKING;
		st->begun = true;
	}
	float *a = realloc(l->agent, (l->agent_n + n) * sizeof(float));
	if (!a)
		return ERR_NOMEM;
	memcpy(a + l->agent_n, s, n * sizeof(float));
	l->agent = a;
	l->agent_n += n;
	return sink_append(l->sink, s, n);
}

static void streamed_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	struct streamed *st = ud;
	float *o = NULL;
	size_t m = 0;
	(void)at_ms;
	if (st->e || (!st->rs && (st->e = resample_stream_new(rate, LIVE_RATE, &st->rs))))
		return;
	if (!(st->e = resample_stream_push(st->rs, s, n, false, &o, &m)))
		st->e = streamed_put(st, o, m);
	free(o);
}

/* say_streamed: live_say for a voice that hands its audio over in pieces. */
static enum err say_streamed(struct live *l, const char *text, bool numeric, double now_ms)
{
	struct streamed st = {.l = l, .numeric = numeric};
	struct tts_audio a = {0};
	float *o = NULL;
	size_t m = 0;
	enum err e = backend_speak_stream(&l->tts, text, streamed_piece, &st, &a);

	free(a.samples);
	if (!e && !st.e && st.rs && !(st.e = resample_stream_push(st.rs, NULL, 0, true, &o, &m)))
		st.e = streamed_put(&st, o, m);
	free(o);
	resample_stream_free(st.rs);
	if (!e)
		e = st.e;
	if (st.begun) {
		enum err end = sink_end(l->sink);
		return e ? e : end;
	}
	return e ? e : live_say_samples(l, NULL, 0, LIVE_RATE, numeric, now_ms); /* no audio */
}

enum err live_say(struct live *l, const char *text, bool numeric, double now_ms)
{
	double t0 = mono_ms();
	if (l->sink && sink_rate(l->sink) == LIVE_RATE && backend_streams(&l->tts)) {
		/* the voice's request is started: its first audio, later, is not timed yet */
		enum err se = say_streamed(l, text, numeric, now_ms);
		l->tts_ms = mono_ms() - t0;
		return se;
	}
	struct tts_audio a = {.rate = LIVE_RATE};
	enum err e = backend_speak(&l->tts, text, &a);

	l->tts_ms = mono_ms() - t0;
	if (e)
		return e;
	e = live_say_samples(l, a.samples, a.n, a.rate, numeric, now_ms);
	free(a.samples);
	return e;
}

double live_tts_ms(const struct live *l)
{
	return l->tts_ms;
}

void live_thinking(struct live *l, bool thinking, double now_ms)
{
	if (thinking)
		l->state = LIVE_THINKING;
	else if (l->state == LIVE_THINKING)
		agent_stopped(l, now_ms);
}

/* Stops the agent at once because the caller started speaking. */
static void barge_in(struct live *l, long at_ms)
{
	struct live_event ev = {.kind = LIVE_BARGE_IN, .at_ms = at_ms, .during = l->state};
	size_t played = 0;
	double t0 = mono_ms();

	if (l->state == LIVE_SPEAKING) {
		sink_stop(l->sink, &played);
		ev.stop_ms = mono_ms() - t0;
		played = (size_t)((double)played * LIVE_RATE / sink_rate(l->sink));
		ev.played_ms = ms_of(played);
		record_agent(l, played);
	}
	push(l, &ev);
	l->state = LIVE_LISTENING;
	l->heard = 1;
}

/* The turn from start_ms to end_ms (phase time) as samples, with margins. */
static void turn_end(struct live *l, long start_ms, long end_ms, long decided_ms)
{
	struct live_event ev = {.kind = LIVE_TURN_END};
	long from = start_ms - MARGIN_MS, to = end_ms + MARGIN_MS;
	size_t a, b;

	if (from < 0)
		from = 0;
	a = (size_t)from * LIVE_RATE / 1000;
	b = (size_t)to * LIVE_RATE / 1000;
	if (b > l->hist_n)
		b = l->hist_n;
	if (a > b)
		a = b;
	free(l->turn);
	l->turn = malloc((b - a ? b - a : 1) * sizeof(float));
	if (!l->turn)
		return;
	memcpy(l->turn, l->hist + a, (b - a) * sizeof(float));
	ev.samples = l->turn;
	ev.n_samples = b - a;
	ev.start_ms = ms_of(l->phase_start) + start_ms;
	ev.end_ms = ms_of(l->phase_start) + end_ms;
	ev.decided_ms = ms_of(l->phase_start) + decided_ms;
	ev.at_ms = ms_of(l->fed);
	push(l, &ev);
	l->state = LIVE_THINKING;
}

enum err live_feed(struct live *l, const float *samples, size_t n, double now_ms)
{
	static const float zeros[160];
	struct endpoint_event ev;
	enum err e;

	if (l->hist_n + n > l->hist_cap) {
		size_t cap = l->hist_cap ? l->hist_cap * 2 : LIVE_RATE * 10;
		float *h;
		while (cap < l->hist_n + n)
			cap *= 2;
		h = realloc(l->hist, cap * sizeof(float));
		if (!h)
			return ERR_NOMEM;
		l->hist = h;
		l->hist_cap = cap;
	}
	memcpy(l->hist + l->hist_n, samples, n * sizeof(float));
	l->hist_n += n;
	l->fed += n;
	if (l->rec)
		recorder_write(l->rec, RECORDER_CALLER, samples, n);
	live_tick(l, now_ms);
	if (l->state == LIVE_SPEAKING && l->opt.mute_while_agent_speaks) {
		/* Muted: the endpointer hears silence (its clock keeps going). */
		for (size_t done = 0; done < n;) {
			size_t k = n - done < 160 ? n - done : 160;
			if ((e = endpoint_feed(l->ep, zeros, k)))
				return e;
			done += k;
		}
	} else if ((e = endpoint_feed(l->ep, samples, n))) {
		return e;
	}
	while (endpoint_next(l->ep, &ev)) {
		if (ev.kind == ENDPOINT_SPEECH_START) {
			struct live_event s = {.kind = LIVE_SPEECH_START,
					       .at_ms = ms_of(l->phase_start) + ev.start_ms};
			if (l->state == LIVE_SPEAKING || l->state == LIVE_THINKING)
				barge_in(l, ms_of(l->phase_start) + ev.decided_ms);
			l->heard = 1;
			push(l, &s);
		} else if (ev.kind == ENDPOINT_TURN_END) {
			turn_end(l, ev.start_ms, ev.end_ms, ev.decided_ms);
		}
	}
	return ERR_OK;
}

void live_tick(struct live *l, double now_ms)
{
	if (l->state == LIVE_SPEAKING && !sink_playing(l->sink)) {
		struct live_event ev = {.kind = LIVE_AGENT_DONE, .at_ms = ms_of(l->fed)};
		record_agent(l, l->agent_n);
		agent_stopped(l, now_ms);
		push(l, &ev);
	}
	if (l->state == LIVE_LISTENING && !l->heard && !l->silence_reported &&
	    now_ms - l->stopped_at >= l->opt.silence_ms) {
		struct live_event ev = {.kind = LIVE_SILENCE, .at_ms = ms_of(l->fed)};
		l->silence_reported = 1;
		push(l, &ev);
	}
}

enum live_state live_state(const struct live *l)
{
	return l->state;
}

bool live_caller_speaking(const struct live *l)
{
	return endpoint_speaking(l->ep);
}

double live_level_db(const struct live *l)
{
	return endpoint_level_db(l->ep);
}

int live_turn_wait_ms(const struct live *l)
{
	return l->turn_wait;
}

long live_call_ms(const struct live *l)
{
	return ms_of(l->fed);
}

long live_agent_ms(const struct live *l)
{
	return ms_of(l->agent_n);
}

long live_agent_start_ms(const struct live *l)
{
	return l->said_at;
}

bool live_interrupt(struct live *l, double now_ms)
{
	(void)now_ms;
	if (l->state != LIVE_SPEAKING && l->state != LIVE_THINKING)
		return false;
	barge_in(l, ms_of(l->fed));
	return true;
}
