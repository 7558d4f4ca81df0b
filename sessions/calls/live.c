/* live: turn-taking for a live call (see live.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/stages/http.h"
#include "audio/recorder.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "live.h"

#define QUEUE 16
#define LIVE_SAY_QUEUE 32 /* texts live_say holds at once */
#define LIVE_SAY_MAX_S 120 /* the longest words an utterance holds, seconds */

/* A text waiting to be said, and whether it asks a number. */
struct say_item {
	char *text;
	bool numeric;
};
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
	double tts_ms;        /* the last request's start to its first audio, wall ms */

	/* the agent's words being synthesized and played (live_say) */
	struct http_client *http;   /* the TTS requests' own client, made at the first say */
	struct backend_speech *job; /* the request in flight (NULL also while it starts) */
	bool job_active;            /* a request started and not ended */
	struct say_item say[LIVE_SAY_QUEUE]; /* texts queued after it */
	int say_head, n_say;
	bool numeric;               /* the turn wait in force is a number's */
	struct resample_stream *rs, *rs_out; /* voice -> LIVE_RATE -> the sink's rate */
	bool open;                  /* a streamed utterance is open on the sink */
	bool begun;                 /* the speech has sounded: the recording is lined up */
	bool first_seen;            /* the request in flight has handed audio over */
	bool in_say;                /* inside live_say */
	double req_t0;              /* mono ms the request in flight started */
	size_t base;                /* samples of agent (LIVE_RATE) before the open utterance */
	size_t agent_new;           /* of them, those being handed over now */
	float *pend;                /* sink-rate audio waiting for the sink to play out */
	size_t pend_n, pend_cap;
	enum err say_err;           /* a piece or request that failed since the last pump */
	struct live_first_audio first; /* the latest request's first audio */
	bool first_new;             /* not yet taken by live_first_audio */
	enum err late_err;          /* a request that failed after live_say returned */
};

static void speech_clear(struct live *l);

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

/* append: m samples (borrowed) after the *n in *buf (room for *cap, doubled as needed
 * from first_cap). Errors: ERR_NOMEM (nothing appended). */
static enum err append(float **buf, size_t *n, size_t *cap, const float *s, size_t m,
		       size_t first_cap)
{
	if (*n + m > *cap) {
		size_t c = *cap ? *cap * 2 : first_cap;
		while (c < *n + m)
			c *= 2;
		float *b = realloc(*buf, c * sizeof(float));
		if (!b)
			return ERR_NOMEM;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *n, s, m * sizeof(float));
	*n += m;
	return ERR_OK;
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
	speech_clear(l);
	http_client_free(l->http);
	free(l->pend);
	endpoint_free(l->ep);
	free(l->hist);
	free(l->agent);
	free(l->turn);
	free(l);
}

/* stop_sink: stop playback at once. Output: the samples of the speech played (LIVE_RATE). */
static size_t stop_sink(struct live *l)
{
	size_t played = 0;
	if (!l->sink)
		return l->agent_n;
	sink_stop(l->sink, &played);
	return l->base + (size_t)((double)played * LIVE_RATE / sink_rate(l->sink));
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
	if (l->state == LIVE_SPEAKING)
		record_agent(l, stop_sink(l));
	speech_clear(l);
	l->base = 0;
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

/* ---- the agent's words off the loop ----
 * live_say queues text; the TTS request for the head of the queue runs on live's own
 * HTTP client (the loop waits on it through live_waitfds and moves it in live_tick), its
 * pieces go to the sink as they arrive, and the next queued text follows in the same
 * speech. A barge-in cancels the request and the queue and stops the sink at once. */

/* speech_busy: the agent's words are not all handed to the sink yet. */
static bool speech_busy(const struct live *l)
{
	return l->job_active || l->n_say || l->open || l->pend_n;
}

/* speech_clear: forget the request in flight (cancelled: none of its audio comes), the
 * queue and the audio not handed to the sink. */
static void speech_clear(struct live *l)
{
	backend_speak_cancel(l->job);
	l->job = NULL;
	l->job_active = false;
	for (; l->n_say; l->n_say--) {
		free(l->say[l->say_head].text);
		l->say_head = (l->say_head + 1) % LIVE_SAY_QUEUE;
	}
	resample_stream_free(l->rs);
	resample_stream_free(l->rs_out);
	l->rs = l->rs_out = NULL;
	l->pend_n = 0;
	l->open = false;
	l->begun = false;
}

/* to_sink: m samples at the sink's rate (borrowed) into the open utterance, opening one
 * when none is (the last one has played out), or kept until then. */
static enum err to_sink(struct live *l, const float *s, size_t m)
{
	if (!m)
		return ERR_OK;
	if (!l->open && sink_playing(l->sink)) { /* after what is still playing */
		return append(&l->pend, &l->pend_n, &l->pend_cap, s, m, (size_t)sink_rate(l->sink));
	}
	enum err e;
	if (!l->open) {
		l->base = l->agent_n - l->agent_new; /* the words before this utterance */
		if ((e = sink_begin(l->sink, (size_t)LIVE_SAY_MAX_S * (size_t)sink_rate(l->sink))))
			return e;
		l->open = true;
	}
	return sink_append(l->sink, s, m);
}

/* put: n samples at LIVE_RATE (borrowed) of the words: kept for the recorder and played;
 * the first of a request is timed (live_first_audio). */
static enum err put(struct live *l, const float *s, size_t n)
{
	enum err e = ERR_OK;
	if (!n)
		return ERR_OK;
	if (!l->begun) { /* the agent's words begin: the recording is lined up with them */
		free(l->agent);
		l->agent = NULL;
		l->agent_n = 0;
		l->agent_recorded = 0;
		l->said_at = ms_of(l->fed);
		if (l->rec)
			recorder_align(l->rec);
		l->begun = true;
	}
	float *a = realloc(l->agent, (l->agent_n + n) * sizeof(float));
	if (!a)
		return ERR_NOMEM;
	memcpy(a + l->agent_n, s, n * sizeof(float));
	l->agent = a;
	l->agent_n += n;
	l->agent_new = n;
	double t0 = mono_ms();
	if (l->sink) {
		float *o = NULL;
		size_t m = n;
		const float *play = s;
		if (sink_rate(l->sink) != LIVE_RATE) {
			if (!l->rs_out && (e = resample_stream_new(LIVE_RATE, sink_rate(l->sink), &l->rs_out)))
				return e;
			if ((e = resample_stream_push(l->rs_out, s, n, false, &o, &m)))
				return e;
			play = o;
		}
		e = to_sink(l, play, m);
		free(o);
	}
	l->agent_new = 0;
	if (!l->first_seen) {
		double t1 = mono_ms();
		l->first = (struct live_first_audio){t0 - l->req_t0, t1 - t0, t1};
		l->first_seen = l->first_new = true;
		l->tts_ms = l->first.tts_ms;
	}
	return e;
}

static void on_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	struct live *l = ud;
	float *o = NULL;
	size_t m = 0;
	(void)at_ms;
	if (l->say_err || (!l->rs && (l->say_err = resample_stream_new(rate, LIVE_RATE, &l->rs))))
		return;
	if (!(l->say_err = resample_stream_push(l->rs, s, n, false, &o, &m)))
		l->say_err = put(l, o, m);
	free(o);
}

/* on_spoken: the request in flight ended: its last samples out of the resampler. */
static void on_spoken(void *ud, enum err e)
{
	struct live *l = ud;
	float *o = NULL;
	size_t m = 0;
	l->job = NULL;
	l->job_active = false;
	if (!e && !l->say_err && l->rs && !(l->say_err = resample_stream_push(l->rs, NULL, 0, true, &o, &m)))
		l->say_err = put(l, o, m);
	free(o);
	resample_stream_free(l->rs);
	l->rs = NULL;
	if (!l->first_seen) /* no audio at all: the whole request is its time */
		l->tts_ms = mono_ms() - l->req_t0;
	if (e && !l->say_err)
		l->say_err = e;
}

/* start_next: the request for the head of the queue. Errors: the backend's (that text is
 * dropped). */
static enum err start_next(struct live *l)
{
	struct say_item it = l->say[l->say_head];
	enum err e = ERR_OK;
	l->say_head = (l->say_head + 1) % LIVE_SAY_QUEUE;
	l->n_say--;
	if (it.numeric != l->numeric) /* a number asked after words said: its wait */
		e = new_phase(l, it.numeric);
	l->numeric = it.numeric;
	l->req_t0 = mono_ms();
	l->first_seen = false;
	l->job_active = true;
	if (!e)
		e = backend_speak_start(&l->tts, l->http, it.text, on_piece, on_spoken, l, &l->job);
	if (e) {
		l->job_active = false;
		l->job = NULL;
	}
	free(it.text);
	return e;
}

/* pump: start queued requests while none is in flight; once the speech's last request
 * has ended, close its utterance (it plays out) or, when nothing plays, the agent has
 * spoken (LIVE_AGENT_DONE unless inside live_say, which returns with the agent stopped).
 * Errors: the first request that failed to start or ended in error. */
static enum err pump(struct live *l, double now_ms)
{
	enum err e = ERR_OK;
	while (!l->job_active && l->n_say) {
		enum err se = start_next(l);
		if (se && !e)
			e = se;
	}
	if (l->say_err && !e)
		e = l->say_err;
	l->say_err = ERR_OK;
	if (l->job_active || l->n_say || l->state != LIVE_SPEAKING)
		return e;
	if (l->open) {
		float *o = NULL;
		size_t m = 0;
		if (l->rs_out && !resample_stream_push(l->rs_out, NULL, 0, true, &o, &m) && m)
			sink_append(l->sink, o, m);
		free(o);
		resample_stream_free(l->rs_out);
		l->rs_out = NULL;
		enum err end = sink_end(l->sink);
		if (end && !e)
			e = end;
		l->open = false;
	}
	if (!l->pend_n && !(l->sink && sink_playing(l->sink))) { /* nothing to play */
		record_agent(l, l->agent_n);
		agent_stopped(l, now_ms);
		l->begun = false;
		if (!l->in_say) {
			struct live_event ev = {.kind = LIVE_AGENT_DONE, .at_ms = ms_of(l->fed)};
			push(l, &ev);
		}
	}
	return e;
}

enum err live_say(struct live *l, const char *text, bool numeric, double now_ms)
{
	if (l->n_say == LIVE_SAY_QUEUE)
		return ERR_NOMEM;
	char *t = strdup(text ? text : "");
	if (!t)
		return ERR_NOMEM;
	if (!l->http) {
		enum err e = http_client_new(&l->http);
		if (e) {
			free(t);
			return e;
		}
	}
	if (l->state != LIVE_SPEAKING) { /* new words: a new phase, the queue empty */
		enum err e = say_begin(l, numeric);
		if (e) {
			free(t);
			return e;
		}
		l->numeric = numeric;
		l->state = LIVE_SPEAKING;
	}
	l->say[(l->say_head + l->n_say) % LIVE_SAY_QUEUE] = (struct say_item){t, numeric};
	l->n_say++;
	l->in_say = true;
	enum err e = pump(l, now_ms);
	l->in_say = false;
	return e;
}

unsigned live_waitfds(struct live *l, struct curl_waitfd *fds, unsigned max, int *timeout_ms)
{
	unsigned n = 0;
	int fd = l->job ? backend_speech_fd(l->job) : -1;
	if (!l->job_active)
		return 0;
	if (fd >= 0 && max > 0) /* a voice synthesizing on its own thread */
		fds[n++] = (struct curl_waitfd){.fd = fd, .events = CURL_WAIT_POLLIN};
	if (l->http)
		n += http_client_waitfds(l->http, fds + n, max - n, timeout_ms);
	return n;
}

bool live_first_audio(struct live *l, struct live_first_audio *out)
{
	if (!l->first_new)
		return false;
	l->first_new = false;
	*out = l->first;
	return true;
}

enum err live_late_error(struct live *l)
{
	enum err e = l->late_err;
	l->late_err = ERR_OK;
	return e;
}

bool live_synthesizing(const struct live *l)
{
	return l->job_active || l->n_say;
}

double live_tts_ms(const struct live *l)
{
	return l->tts_ms;
}

void live_thinking(struct live *l, bool thinking, double now_ms)
{
	if (thinking && l->state == LIVE_SPEAKING && speech_busy(l))
		return; /* the words still come: speech now is a barge-in either way */
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

	if (l->state == LIVE_SPEAKING) { /* the request and the queue go with the sound */
		speech_clear(l);
		played = stop_sink(l);
		ev.stop_ms = mono_ms() - t0;
		ev.played_ms = ms_of(played);
		record_agent(l, played);
		l->begun = false;
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
	ev.speech = (struct endpoint_segment){start_ms - from, end_ms - from};
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

	if ((e = append(&l->hist, &l->hist_n, &l->hist_cap, samples, n, LIVE_RATE * 10)))
		return e;
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
	if (l->job_active && l->http) /* the request's pieces come in here */
		http_poll(l->http, 0, NULL, 0);
	if (l->job) /* or from the voice's own thread */
		backend_speech_pump(l->job);
	if (l->sink && !l->open && l->pend_n && !sink_playing(l->sink)) {
		/* what was said after the last utterance ended: it plays now */
		size_t k = (size_t)((double)l->pend_n * LIVE_RATE / sink_rate(l->sink));
		l->base = l->agent_n > k ? l->agent_n - k : 0;
		if (sink_begin(l->sink, (size_t)LIVE_SAY_MAX_S * (size_t)sink_rate(l->sink)) == ERR_OK) {
			l->open = true;
			sink_append(l->sink, l->pend, l->pend_n);
		}
		l->pend_n = 0;
	}
	if (l->state == LIVE_SPEAKING) {
		enum err e = pump(l, now_ms);
		if (e && !l->late_err)
			l->late_err = e;
	}
	if (l->state == LIVE_SPEAKING && !speech_busy(l) && !(l->sink && sink_playing(l->sink))) {
		struct live_event ev = {.kind = LIVE_AGENT_DONE, .at_ms = ms_of(l->fed)};
		l->begun = false;
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
