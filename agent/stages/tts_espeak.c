/* tts_espeak: espeak-ng synthesis into a buffer (see tts_espeak.h). */
#include <stdlib.h>
#include <string.h>

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>

#include "tts_espeak.h"

/* What the synth callback appends to; handed over as the synthesis's user_data. */
struct collect {
	short *buf;
	size_t n, cap;
	int failed;
};

static int started;
static char why_buf[256];

/* Called by espeak-ng (synchronously, inside espeak_ng_Synthesize) with each chunk of
 * samples; a NULL wav marks the end. Returning 1 aborts synthesis. */
static int on_samples(short *wav, int numsamples, espeak_EVENT *events)
{
	struct collect *c = events ? events->user_data : NULL;

	if (!c || !wav || numsamples <= 0)
		return 0;
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
	st = espeak_ng_SetVoiceByName(voice);
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
		st = espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8,
					  NULL, &c);
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

const struct backend_ops tts_espeak_ops = {
	.stage = BACKEND_TTS,
	.call = speak,
};

void tts_espeak_close(void)
{
	/* espeak-ng cannot be started again after espeak_ng_Terminate (a later
	 * espeak_ng_Initialize leaves Terminate waiting forever on its internal thread), so
	 * it stays up until the process exits; its memory stays reachable from its globals. */
}
