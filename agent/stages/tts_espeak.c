/* tts_espeak: espeak-ng synthesis into a buffer (see tts_espeak.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>

#include "tts_espeak.h"

struct job;

/* What the synth callback appends to; handed over as the synthesis's user_data. */
struct collect {
	short *buf;
	size_t n, cap;
	int failed;
	struct job *job;  /* synthesis on a worker thread: buf is guarded by its lock */
};

/* A text synthesized on a worker thread (ops speak_start): the worker appends to c under
 * mu and writes a byte to wake[1] for each piece and at the end; the loop takes the new
 * samples (speak_pump) and, at the end, joins it. */
struct job {
	pthread_t th;
	int wake[2];
	pthread_mutex_t mu;
	struct collect c;      /* guarded by mu */
	bool finished;         /* guarded by mu */
	enum err e;            /* guarded by mu; set when finished */
	int cancel;            /* read and set with __atomic builtins */
	size_t taken;          /* samples handed over (the loop's) */
	char *text;
	backend_piece_fn fn;
	backend_spoken_fn done;
	void *ud;
};

static int started;
static char why_buf[256];
/* espeak-ng keeps one global state: one synthesis (or voice change) at a time. */
static pthread_mutex_t synth_mu = PTHREAD_MUTEX_INITIALIZER;

/* append: numsamples from wav onto c's buffer. Returns 1 (abort) when out of memory. */
static int append(struct collect *c, const short *wav, int numsamples)
{
	if (c->n + (size_t)numsamples > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16384;
		short *b;
		while (cap < c->n + (size_t)numsamples)
			cap *= 2;
		b = realloc(c->buf, cap * sizeof(short));
		if (!b) {
			c->failed = 1;
			return 1;
		}
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->n, wav, (size_t)numsamples * sizeof(short));
	c->n += (size_t)numsamples;
	return 0;
}

/* Called by espeak-ng (synchronously, inside espeak_ng_Synthesize) with each chunk of
 * samples; a NULL wav marks the end. Returning 1 aborts synthesis. */
static int on_samples(short *wav, int numsamples, espeak_EVENT *events)
{
	struct collect *c = events ? events->user_data : NULL;

	if (c && c->job && __atomic_load_n(&c->job->cancel, __ATOMIC_ACQUIRE))
		return 1;
	if (!c || !wav || numsamples <= 0)
		return 0;
	if (c->job)
		pthread_mutex_lock(&c->job->mu);
	int r = append(c, wav, numsamples);
	if (c->job) {
		pthread_mutex_unlock(&c->job->mu);
		if (write(c->job->wake[1], "p", 1) < 0 && errno != EAGAIN)
			return 1;
	}
	return r;
}

static const char *status_msg(espeak_ng_STATUS st, const char *what)
{
	char lib[160];

	espeak_ng_GetStatusCodeMessage(st, lib, sizeof(lib));
	snprintf(why_buf, sizeof(why_buf), "espeak-ng: %s: %s", what, lib);
	return why_buf;
}

enum err tts_espeak_open(const char *voice, const char **why)
{
	espeak_ng_ERROR_CONTEXT ctx = NULL;
	espeak_ng_STATUS st;

	if (!voice)
		voice = "hi";
	if (!started) {
		espeak_ng_InitializePath(NULL); /* the installed espeak-ng-data */
		st = espeak_ng_Initialize(&ctx);
		espeak_ng_ClearErrorContext(&ctx);
		if (st != ENS_OK) {
			if (why)
				*why = status_msg(st, "cannot start");
			return ERR_BACKEND;
		}
		st = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL);
		if (st != ENS_OK) {
			espeak_ng_Terminate();
			if (why)
				*why = status_msg(st, "cannot set up synchronous output");
			return ERR_BACKEND;
		}
		espeak_SetSynthCallback(on_samples);
		started = 1;
	}
	pthread_mutex_lock(&synth_mu);
	st = espeak_ng_SetVoiceByName(voice);
	pthread_mutex_unlock(&synth_mu);
	if (st != ENS_OK) {
		if (why) {
			snprintf(why_buf, sizeof(why_buf), "espeak-ng has no voice '%s' (espeak-ng --voices lists them)", voice);
			*why = why_buf;
		}
		return ERR_NOTFOUND;
	}
	return ERR_OK;
}

/* speak: the audio of text (req) into *out (a struct tts_audio). Errors: ERR_BACKEND (the
 * synthesizer failed or is not started), ERR_NOMEM. */
static enum err speak(void *ctx, const void *req, void *vout)
{
	const char *text = req;
	struct tts_audio *a = vout;
	struct collect c = {0};
	espeak_ng_STATUS st;
	float *out = NULL;
	enum err e = ERR_OK;

	if (!started)
		return ERR_BACKEND;
	if (text && *text) {
		pthread_mutex_lock(&synth_mu);
		st = espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8,
					  NULL, &c);
		pthread_mutex_unlock(&synth_mu);
		if (st != ENS_OK || c.failed) {
			e = c.failed ? ERR_NOMEM : ERR_BACKEND;
			goto out;
		}
	}
	if (c.n) {
		out = malloc(c.n * sizeof(float));
		if (!out) {
			e = ERR_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < c.n; i++)
			out[i] = c.buf[i] / 32768.0f;
	}
	(void)ctx;
	*a = (struct tts_audio){.samples = out, .n = c.n, .rate = espeak_ng_GetSampleRate()};
out:
	free(c.buf);
	return e;
}

/* ---- off the loop: a worker thread per text (ops speak_start) ---- */

static void *worker(void *ud)
{
	struct job *j = ud;
	pthread_mutex_lock(&synth_mu);
	espeak_ng_STATUS st = espeak_ng_Synthesize(j->text, strlen(j->text) + 1, 0, POS_CHARACTER, 0,
						   espeakCHARS_UTF8, NULL, &j->c);
	pthread_mutex_unlock(&synth_mu);
	pthread_mutex_lock(&j->mu);
	j->e = j->c.failed ? ERR_NOMEM : st != ENS_OK ? ERR_BACKEND : ERR_OK;
	j->finished = true;
	pthread_mutex_unlock(&j->mu);
	if (write(j->wake[1], "e", 1) < 0) {
		/* a full pipe already wakes the loop */
	}
	return NULL;
}

static void job_free(struct job *j)
{
	close(j->wake[0]);
	close(j->wake[1]);
	pthread_mutex_destroy(&j->mu);
	free(j->c.buf);
	free(j->text);
	free(j);
}

static enum err ops_speak_start(void *ctx, struct http_client *c, const char *text,
				backend_piece_fn fn, backend_spoken_fn done, void *ud, void **out)
{
	(void)ctx, (void)c;
	if (!started)
		return ERR_BACKEND;
	if (!text || !*text) {
		done(ud, ERR_OK);
		return ERR_OK;
	}
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		return ERR_NOMEM;
	*j = (struct job){.fn = fn, .done = done, .ud = ud, .wake = {-1, -1}};
	if (!(j->text = strdup(text)) || pipe(j->wake) != 0) {
		free(j->text);
		free(j);
		return ERR_NOMEM;
	}
	for (int i = 0; i < 2; i++)
		fcntl(j->wake[i], F_SETFL, fcntl(j->wake[i], F_GETFL) | O_NONBLOCK);
	j->c.job = j;
	pthread_mutex_init(&j->mu, NULL);
	if (pthread_create(&j->th, NULL, worker, j) != 0) {
		job_free(j);
		return ERR_BACKEND;
	}
	*out = j;
	return ERR_OK;
}

static int ops_speak_fd(void *ctx, void *job)
{
	(void)ctx;
	return ((struct job *)job)->wake[0];
}

static void ops_speak_pump(void *ctx, void *job)
{
	struct job *j = job;
	char drain[64];
	float *f = NULL;
	size_t n = 0;
	(void)ctx;
	while (read(j->wake[0], drain, sizeof(drain)) > 0)
		;
	pthread_mutex_lock(&j->mu);
	bool finished = j->finished;
	enum err e = j->e;
	if (j->c.n > j->taken && (f = malloc((j->c.n - j->taken) * sizeof(float)))) {
		n = j->c.n - j->taken;
		for (size_t i = 0; i < n; i++)
			f[i] = j->c.buf[j->taken + i] / 32768.0f;
		j->taken = j->c.n;
	} else if (j->c.n > j->taken) {
		e = ERR_NOMEM;
	}
	pthread_mutex_unlock(&j->mu);
	if (n)
		j->fn(j->ud, f, n, espeak_ng_GetSampleRate(), 0);
	free(f);
	if (!finished)
		return;
	pthread_join(j->th, NULL);
	backend_spoken_fn done = j->done;
	void *ud = j->ud;
	job_free(j);
	done(ud, e);
}

static void ops_speak_cancel(void *ctx, void *job)
{
	struct job *j = job;
	(void)ctx;
	__atomic_store_n(&j->cancel, 1, __ATOMIC_RELEASE);
	pthread_join(j->th, NULL); /* espeak-ng stops at its next piece */
	job_free(j);
}

const struct backend_ops tts_espeak_ops = {
	.stage = BACKEND_TTS,
	.call = speak,
	.speak_start = ops_speak_start,
	.speak_cancel = ops_speak_cancel,
	.speak_fd = ops_speak_fd,
	.speak_pump = ops_speak_pump,
};

void tts_espeak_close(void)
{
	/* espeak-ng cannot be started again after espeak_ng_Terminate (a later
	 * espeak_ng_Initialize leaves Terminate waiting forever on its internal thread), so
	 * it stays up until the process exits; its memory stays reachable from its globals. */
}
