/* tts: backend lookup by name (see tts.h). */
#include <stdio.h>
#include <string.h>

#include "tts.h"
#include "tts_espeak.h"

static char why_buf[256];

/* "none": text only. */
static enum err none_speak(void *ctx, const char *text, float **samples, size_t *n, int *rate)
{
	*samples = NULL;
	*n = 0;
	*rate = 16000;
	return ERR_OK;
}

enum err tts_lookup(const char *spec, struct tts_backend *out, const char **why)
{
	const char *colon;
	char provider[32], model[96] = "";
	size_t plen;
	enum err e;

	if (!spec || !*spec)
		spec = TTS_DEFAULT;
	colon = strchr(spec, ':');
	plen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (plen >= sizeof(provider) || (colon && strlen(colon + 1) >= sizeof(model)))
		goto unknown;
	memcpy(provider, spec, plen);
	provider[plen] = 0;
	if (colon)
		snprintf(model, sizeof(model), "%s", colon + 1);
	if (strcmp(provider, "none") == 0 && !colon) {
		*out = (struct tts_backend){.name = "none", .speak = none_speak};
		return ERR_OK;
	}
	if (strcmp(provider, "espeak") == 0) {
		e = tts_espeak_open(model[0] ? model : NULL, why);
		if (e)
			return e;
		*out = (struct tts_backend){.name = "espeak", .speak = tts_espeak_speak};
		return ERR_OK;
	}
unknown:
	snprintf(why_buf, sizeof(why_buf), "unknown speech backend '%s' (espeak[:VOICE] or none)", spec);
	if (why)
		*why = why_buf;
	return ERR_NOTFOUND;
}

void tts_cleanup(void)
{
	tts_espeak_close();
}
