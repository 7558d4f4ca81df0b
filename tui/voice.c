/* voice: the agent's words of a played call, spoken off the screen's loop (see voice.h). */
#include "voice.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent/stages/http.h"
#include "base/sbuf.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "sessions/calls/live.h"
#include "sessions/calls/ttscache.h"

#define VOICE_MAX_S 120 /* the longest words an utterance on the sink holds, seconds */

struct voice {
	struct backend tts;
	struct ttscache *cache;      /* in front of a hosted voice (voice_open), or NULL */
	struct http_client *http;    /* the hosted voice's requests */
	struct sink *sink;           /* NULL: the audio is kept for voice_done */
	int rate;                    /* Hz: the sink's, or what voice_done hands back */
	struct backend_speech *job;  /* the request in flight, NULL when none or at hand */
	bool busy;                   /* a text is being synthesized */
	struct resample_stream *rs;  /* its pieces to rate, when they come at another */
	int rs_from;                 /* the rate rs converts from */
	bool open;                   /* an utterance is open on the sink */
	enum err piece_err;          /* a piece of the text in flight that failed */
	struct sbuf kept;            /* without a sink: the text's audio so far (floats) */
	bool ended;                  /* without a sink: the text ended, not yet taken */
	enum err result;
	int failures;
};

static enum err voice_init(struct voice *v, int rate)
{
	if (rate < 1000)
		return ERR_INVALID;
	v->rate = rate;
	return http_client_new(&v->http);
}

enum err voice_open(const struct livecall_options *lo, const char *db_path, struct voice **out,
		    char **errmsg)
{
	struct voice *v = calloc(1, sizeof(*v));
	const char *why = NULL;
	enum err e = ERR_NOMEM;

	if (!v)
		goto out;
	if ((e = ttscache_voice(lo->tts, db_path, &v->tts, &v->cache, &why)) != ERR_OK) {
		if (errmsg && asprintf(errmsg, "--tts %s: %s", lo->tts ? lo->tts : "espeak", why) < 0)
			*errmsg = NULL;
		goto out;
	}
	e = lo->output_file ? sink_open_file(lo->output_file, LIVE_RATE, NULL, NULL, &v->sink, errmsg)
			    : sink_open_device(lo->output_device, LIVE_RATE, &v->sink, errmsg);
	if (e || (e = voice_init(v, sink_rate(v->sink))))
		goto out;
	*out = v;
	v = NULL;
out:
	voice_free(v);
	return e;
}

enum err voice_new(const struct backend *tts, int rate, struct voice **out)
{
	struct voice *v = calloc(1, sizeof(*v));
	enum err e = ERR_NOMEM;

	if (!v)
		return e;
	v->tts = *tts;
	if ((e = voice_init(v, rate))) {
		voice_free(v);
		return e;
	}
	*out = v;
	return ERR_OK;
}

void voice_free(struct voice *v)
{
	if (!v)
		return;
	voice_stop(v);
	sink_free(v->sink);
	http_client_free(v->http);
	ttscache_free(v->cache);
	free(v->kept.p);
	free(v);
}

void voice_stop(struct voice *v)
{
	backend_speak_cancel(v->job);
	v->job = NULL;
	v->busy = false;
	resample_stream_free(v->rs);
	v->rs = NULL;
	if (v->sink)
		sink_stop(v->sink, NULL);
	v->open = false;
	v->piece_err = ERR_OK;
	sbuf_clear(&v->kept);
	v->ended = false;
}

/* emit: m samples at v->rate (borrowed) of the text: to the sink's utterance, opened at
 * the first, or kept. */
static enum err emit(struct voice *v, const float *s, size_t m)
{
	enum err e;
	if (!m)
		return ERR_OK;
	if (!v->sink)
		return sbuf_add(&v->kept, (const char *)s, m * sizeof(*s)) ? ERR_OK : ERR_NOMEM;
	if (!v->open) {
		if ((e = sink_begin(v->sink, (size_t)VOICE_MAX_S * (size_t)v->rate)))
			return e;
		v->open = true;
	}
	return sink_append(v->sink, s, m);
}

/* take: n samples at rate Hz (borrowed) of the text, converted to v->rate and emitted;
 * last: the text has ended, and what the converter still holds comes out too. A voice
 * that changes its rate mid-text starts a new converter (the old one's tail is dropped). */
static enum err take(struct voice *v, const float *s, size_t n, int rate, bool last)
{
	float *o = NULL;
	size_t m = 0;
	enum err e;
	if (rate == v->rate && !v->rs)
		return emit(v, s, n);
	if (v->rs && v->rs_from != rate) {
		resample_stream_free(v->rs);
		v->rs = NULL;
	}
	if (!v->rs && (e = resample_stream_new(rate, v->rate, &v->rs)))
		return e;
	v->rs_from = rate;
	if (!(e = resample_stream_push(v->rs, s, n, last, &o, &m)))
		e = emit(v, o, m);
	free(o);
	return e;
}

static void on_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	struct voice *v = ud;
	(void)at_ms;
	if (!v->piece_err)
		v->piece_err = take(v, s, n, rate, false);
}

/* on_done: the text's synthesis ended (e): the converter's rest out, the sink's utterance
 * closed so it plays out, or the audio ready for voice_done. */
static void on_done(void *ud, enum err e)
{
	struct voice *v = ud;
	v->job = NULL;
	v->busy = false;
	if (!e && !v->piece_err && v->rs)
		v->piece_err = take(v, NULL, 0, v->rs_from, true);
	resample_stream_free(v->rs);
	v->rs = NULL;
	if (!e)
		e = v->piece_err;
	if (v->open) {
		enum err end = sink_end(v->sink);
		if (!e)
			e = end;
		v->open = false;
	}
	if (e)
		v->failures++;
	v->ended = !v->sink;
	v->result = e;
}

void voice_say(void *ud, const char *text)
{
	struct voice *v = ud;
	struct backend_speech *job = NULL;
	enum err e;

	if (!text || !*text)
		return;
	voice_stop(v);
	v->busy = true;
	if ((e = backend_speak_start(&v->tts, v->http, text, on_piece, on_done, v, &job))) {
		v->busy = false; /* the request could not be built: no piece nor end comes */
		v->failures++;
		v->ended = !v->sink;
		v->result = e;
		return;
	}
	v->job = v->busy ? job : NULL; /* done already: the audio was at hand */
}

unsigned voice_waitfds(struct voice *v, struct curl_waitfd *fds, unsigned max, int *timeout_ms)
{
	unsigned n = 0;
	int fd;
	if (!v || !v->busy)
		return 0;
	if ((fd = backend_speech_fd(v->job)) >= 0 && max > 0) /* espeak-ng's thread */
		fds[n++] = (struct curl_waitfd){.fd = fd, .events = CURL_WAIT_POLLIN};
	n += http_client_waitfds(v->http, fds + n, max - n, timeout_ms);
	if (*timeout_ms < 0 || *timeout_ms > VOICE_TICK_MS)
		*timeout_ms = VOICE_TICK_MS;
	return n;
}

unsigned voice_pollfds(struct voice *v, struct pollfd *pf, unsigned max, int *timeout_ms)
{
	struct curl_waitfd w[VOICE_MAX_FDS];
	unsigned n = voice_waitfds(v, w, max < VOICE_MAX_FDS ? max : VOICE_MAX_FDS, timeout_ms);
	for (unsigned i = 0; i < n; i++)
		pf[i] = (struct pollfd){
			.fd = w[i].fd,
			.events = (short)(((w[i].events & CURL_WAIT_POLLIN) ? POLLIN : 0) |
					  ((w[i].events & CURL_WAIT_POLLPRI) ? POLLPRI : 0) |
					  ((w[i].events & CURL_WAIT_POLLOUT) ? POLLOUT : 0))};
	return n;
}

void voice_tick(struct voice *v)
{
	if (!v || !v->busy)
		return;
	http_poll(v->http, 0, NULL, 0); /* a hosted voice's pieces and end come in here */
	if (v->job)
		backend_speech_pump(v->job); /* or from the synthesizer's own thread */
}

bool voice_busy(const struct voice *v)
{
	return v && v->busy;
}

bool voice_done(struct voice *v, enum err *e, struct tts_audio *out)
{
	if (!v || !v->ended)
		return false;
	v->ended = false;
	*e = v->result;
	if (v->result)
		return true;
	/* sbuf's room comes from malloc, aligned for floats */
	*out = (struct tts_audio){.samples = (float *)(void *)v->kept.p,
				  .n = v->kept.n / sizeof(float), .rate = v->rate};
	v->kept = (struct sbuf){0};
	return true;
}

const char *voice_name(const struct voice *v)
{
	return v->tts.name;
}

int voice_failures(const struct voice *v)
{
	return v->failures;
}
