/* voice: the agent's words of a played call, spoken (see voice.h). */
#include "voice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio/resample.h"
#include "audio/sink.h"
#include "sessions/calls/live.h"
#include "sessions/calls/ttscache.h"

struct voice {
	struct backend tts;
	struct ttscache *cache;
	struct sink *sink;
	int failures;
};

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
	if (e)
		goto out;
	*out = v;
	v = NULL;
out:
	voice_free(v);
	return e;
}

void voice_free(struct voice *v)
{
	if (!v)
		return;
	sink_free(v->sink);
	ttscache_free(v->cache);
	free(v);
}

void voice_say(void *ud, const char *text)
{
	struct voice *v = ud;
	struct tts_audio a = {0};
	float *out = NULL;
	size_t m = 0;

	if (!text || !*text)
		return;
	if (backend_speak(&v->tts, text, &a) != ERR_OK ||
	    resample_buffer(a.samples, a.n, a.rate, sink_rate(v->sink), &out, &m) != ERR_OK ||
	    (m && sink_play(v->sink, out, m) != ERR_OK))
		v->failures++;
	free(out);
	free(a.samples);
}

int voice_failures(const struct voice *v)
{
	return v->failures;
}
