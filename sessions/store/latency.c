/* latency: a turn's end-of-speech-to-first-sound figure in parts (latency.h). */
#include "latency.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const names[LATENCY_PARTS] = {
	"endpointing", "stt", "extract_ack", "rules", "reply_first_sentence", "tts_first_audio",
	"playback_start", "formdesk",
};
static const char *const labels[LATENCY_PARTS] = {
	"wait", "STT", "EXTRACT", "rules", "REPLY", "TTS", "play", "formdesk",
};

const char *latency_part_name(enum latency_part p)
{
	return p >= 0 && p < LATENCY_PARTS ? names[p] : "?";
}

const char *latency_part_label(enum latency_part p)
{
	return p >= 0 && p < LATENCY_PARTS ? labels[p] : "?";
}

void latency_set(struct latency *l, enum latency_part p, double ms, const char *by)
{
	if (p < 0 || p >= LATENCY_PARTS)
		return;
	l->ms[p] = ms > 0 && isfinite(ms) ? ms : 0;
	snprintf(l->by[p], sizeof l->by[p], "%s", by ? by : "");
}

/* us: ms as whole microseconds. */
static long long us(double ms)
{
	return isfinite(ms) ? llround(ms * 1000.0) : 0;
}

void latency_close(struct latency *l, double total_ms)
{
	long long total = us(total_ms), rest = total;

	for (int p = 0; p < LATENCY_FORMDESK; p++) {
		long long v = us(l->ms[p]);
		l->ms[p] = (double)v / 1000.0;
		rest -= v;
	}
	l->ms[LATENCY_FORMDESK] = (double)rest / 1000.0;
	if (!l->by[LATENCY_FORMDESK][0])
		snprintf(l->by[LATENCY_FORMDESK], sizeof l->by[LATENCY_FORMDESK], "formdesk");
	l->total_ms = (double)total / 1000.0;
	l->known = true;
}

cJSON *latency_to_json(const struct latency *l)
{
	cJSON *o = cJSON_CreateObject(), *a;

	if (!o || !cJSON_AddNumberToObject(o, "total_ms", l->total_ms) ||
	    !(a = cJSON_AddArrayToObject(o, "parts")))
		goto fail;
	for (int p = 0; p < LATENCY_PARTS; p++) {
		cJSON *x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(a, x) ||
		    !cJSON_AddStringToObject(x, "name", names[p]) ||
		    !cJSON_AddNumberToObject(x, "ms", l->ms[p]) ||
		    !cJSON_AddStringToObject(x, "governed_by", l->by[p])) {
			cJSON_Delete(x);
			goto fail;
		}
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

enum err latency_from_json(const cJSON *o, struct latency *l)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "total_ms"), *x;

	memset(l, 0, sizeof *l);
	if (!cJSON_IsObject(o) || !cJSON_IsNumber(t))
		return ERR_PARSE;
	l->total_ms = t->valuedouble;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "parts")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(x, "name");
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(x, "ms");
		const cJSON *by = cJSON_GetObjectItemCaseSensitive(x, "governed_by");
		for (int p = 0; p < LATENCY_PARTS; p++)
			if (cJSON_IsString(n) && strcmp(n->valuestring, names[p]) == 0) {
				l->ms[p] = cJSON_IsNumber(ms) ? ms->valuedouble : 0;
				snprintf(l->by[p], sizeof l->by[p], "%s",
					 cJSON_IsString(by) ? by->valuestring : "");
			}
	}
	l->known = true;
	return ERR_OK;
}

enum err latency_from_text(const char *text, struct latency *l)
{
	cJSON *o = text && *text ? cJSON_Parse(text) : NULL;
	enum err e = latency_from_json(o, l);

	cJSON_Delete(o);
	return e;
}

void latency_line(const struct latency *l, char *buf, size_t n)
{
	size_t at;
	int k;

	if (!n)
		return;
	buf[0] = '\0';
	if (!l->known)
		return;
	k = snprintf(buf, n, "speech end to sound %.0f ms:", l->total_ms);
	at = k < 0 ? 0 : (size_t)k;
	for (int p = 0; p < LATENCY_PARTS && at < n; p++) {
		if (p != LATENCY_FORMDESK && !(fabs(l->ms[p]) >= 0.5))
			continue;
		k = snprintf(buf + at, n - at, "%s %s %.0f", at > 0 && buf[at - 1] == ':' ? "" : " ·",
			     labels[p], l->ms[p]);
		if (k < 0)
			break;
		at += (size_t)k;
	}
}
