/* callervoice: a simulated caller's turn as audio (callervoice.h). */
#include "callervoice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/stages/backend.h"
#include "audio/channel.h"
#include "audio/resample.h"
#include "callers.h"

#define RATE 16000

struct callervoice {
	struct backend tts;
	char *cond;
};

enum err callervoice_new(const char *tts, const char *cond, struct callervoice **out,
			 char **errmsg)
{
	struct callervoice *v = calloc(1, sizeof *v);
	const char *why = NULL;
	enum err e;
	float one = 0, *probe = NULL;
	size_t m = 0;

	if (!v || !(v->cond = strdup(cond ? cond : "ideal"))) {
		free(v);
		return ERR_NOMEM;
	}
	/* an unknown condition is said now, before any call */
	if (strcmp(v->cond, "noise") != 0 &&
	    (e = channel_condition(&one, 1, RATE, v->cond, &probe, &m, NULL)) != ERR_OK) {
		if (errmsg && asprintf(errmsg, "no acoustic condition '%s' (ideal, noise, distance, "
				       "pace-fast, pace-slow)", v->cond) < 0)
			*errmsg = NULL;
		goto fail;
	}
	free(probe);
	if ((e = backend_tts(tts, &v->tts, &why)) != ERR_OK) {
		if (errmsg && asprintf(errmsg, "TTS '%s': %s", tts ? tts : "espeak",
				       why ? why : err_str(e)) < 0)
			*errmsg = NULL;
		goto fail;
	}
	*out = v;
	return ERR_OK;
fail:
	free(v->cond);
	free(v);
	return e;
}

void callervoice_free(struct callervoice *v)
{
	if (!v)
		return;
	free(v->cond);
	free(v);
}

/* grow: room for n more samples in *buf (holding *len of *cap). */
static bool grow(float **buf, size_t *len, size_t *cap, size_t n)
{
	if (*len + n <= *cap)
		return true;
	size_t c = (*len + n) * 2;
	float *b = realloc(*buf, c * sizeof *b);
	if (!b)
		return false;
	*buf = b;
	*cap = c;
	return true;
}

static bool silence(float **buf, size_t *len, size_t *cap, long ms)
{
	size_t n = (size_t)ms * RATE / 1000;
	if (!grow(buf, len, cap, n))
		return false;
	memset(*buf + *len, 0, n * sizeof **buf);
	*len += n;
	return true;
}

bool callervoice_speak(void *ud, const struct callers_turn *t, float **samples, size_t *n,
		       char *why, size_t nwhy)
{
	struct callervoice *v = ud;
	float *buf = NULL, *cond = NULL;
	size_t len = 0, cap = 0, m = 0;
	char *msg = NULL;

	if (!silence(&buf, &len, &cap, CALLERVOICE_LEAD_MS))
		goto nomem;
	for (int i = 0; i < t->n_pieces; i++) {
		char words[CALLERS_TEXT_MAX];
		struct tts_audio a = {0};
		float *r = NULL;
		size_t rn = 0;
		snprintf(words, sizeof words, "%.*s", t->piece_len[i], t->text + t->piece_off[i]);
		if (!silence(&buf, &len, &cap, t->gap_ms[i]))
			goto nomem;
		enum err e = backend_speak(&v->tts, words, &a);
		if (e == ERR_OK && a.n && a.rate != RATE)
			e = resample_buffer(a.samples, a.n, a.rate, RATE, &r, &rn);
		if (e != ERR_OK) {
			free(a.samples);
			snprintf(why, nwhy, "speaking '%s': %s", words, err_str(e));
			free(buf);
			return false;
		}
		const float *src = r ? r : a.samples;
		size_t sn = r ? rn : a.n;
		if (!grow(&buf, &len, &cap, sn)) {
			free(a.samples);
			free(r);
			goto nomem;
		}
		if (sn)
			memcpy(buf + len, src, sn * sizeof *buf);
		len += sn;
		free(a.samples);
		free(r);
	}
	if (!silence(&buf, &len, &cap, CALLERVOICE_TAIL_MS))
		goto nomem;
	if (channel_condition(buf, len, RATE, v->cond, &cond, &m, &msg) != ERR_OK) {
		snprintf(why, nwhy, "condition '%s': %s", v->cond, msg ? msg : "failed");
		free(msg);
		free(buf);
		return false;
	}
	free(buf);
	*samples = cond;
	*n = m;
	return true;
nomem:
	free(buf);
	snprintf(why, nwhy, "out of memory");
	return false;
}
