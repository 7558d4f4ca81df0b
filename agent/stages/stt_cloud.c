#include "stt_cloud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "llm.h"
#include "cloud.h"
#include "provider_google.h"
#include "textcheck.h"
#include "stt_wav.h"

/* all a client holds is the shared part (cloud.h) */
struct stt_cloud {
	struct cloud c;
};

enum err stt_cloud_new(struct provider *p, struct stt_cloud **out, char *why, size_t n)
{
	void *x = NULL;
	enum err e = cloud_new(sizeof(struct stt_cloud), p, true, &x, why, n);
	if (!e)
		*out = x;
	return e;
}

void stt_cloud_free(struct stt_cloud *x)
{
	cloud_free(x ? &x->c : NULL);
}

const struct backend_usage *stt_cloud_usage(const struct stt_cloud *x)
{
	return cloud_usage(&x->c);
}

enum err stt_cloud_request(struct stt_cloud *x, const struct stt_request *req, struct http_req **out,
			   struct backend_usage *u)
{
	const struct provider *p = x->c.p;
	if (!req->samples || req->sample_rate <= 0) {
		snprintf(u->error, sizeof(u->error), "%s: no audio for this turn", p->info->name);
		return ERR_INVALID;
	}
	unsigned char *wav = NULL;
	size_t wav_len = 0;
	struct http_req *r = NULL;
	enum err e = stt_wav_encode(req->samples, req->n_samples, req->sample_rate, &wav, &wav_len);
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: cannot encode the audio", p->info->name);
		return e;
	}
	struct stt_call c = {.p = p, .lang = provider_language(p, req->language), .wav = wav,
			     .wav_len = wav_len};
	if (p->info->oauth) {
		/* a kept token now; else it is fetched on the request's own transfer, before
		 * it, so the loop never waits for the token endpoint */
		c.token = provider_google_cached(x->c.google);
		c.project = p->project ? p->project : provider_google_project(x->c.google);
	}
	if (!p->info->stt_request) {
		e = ERR_UNSUPPORTED;
		goto out;
	}
	if ((e = p->info->stt_request(&c, &r)))
		goto out;
	if (p->info->oauth && !c.token &&
	    (e = provider_google_authorize(x->c.google, p->timeout_ms, r, u->error, sizeof(u->error))))
		goto out;
	http_req_limits(r, p->timeout_ms, p->retries, 0);
	*out = r;
	r = NULL;
out:
	http_req_free(r);
	free(wav);
	return e;
}

enum err stt_cloud_parse(const struct provider *p, const char *body, size_t len, char **text)
{
	return p->info->stt_parse ? p->info->stt_parse(body, len, text) : ERR_PARSE;
}

const struct provider *stt_cloud_provider(const struct stt_cloud *x)
{
	return x->c.p;
}

void stt_cloud_usage_begin(const struct stt_cloud *x, const struct stt_request *req,
			   struct backend_usage *u)
{
	const struct provider *p = x->c.p;
	llm_usage_begin(u, p);
	u->audio_s = req->sample_rate > 0 ? (double)req->n_samples / req->sample_rate : 0;
	if (p->usd_audio_min > 0)
		u->cost_usd = u->audio_s / 60.0 * p->usd_audio_min;
}

enum err stt_cloud_response(const struct stt_cloud *x, const struct http_result *res, char **text,
			    struct backend_usage *u)
{
	const struct provider *p = x->c.p;
	enum err e;
	llm_usage_http(u, res);
	if (llm_http_error(p, res, u->error, sizeof(u->error)))
		return res->err == ERR_NOMEM ? ERR_NOMEM : ERR_BACKEND;
	char why[120];
	if (!textcheck_answer(res->body, res->body_len, why, sizeof(why))) {
		/* refused whole: a transcript must not lose what follows a NUL or hold bad bytes */
		snprintf(u->error, sizeof(u->error), "%s: %s", p->info->name, why);
		return ERR_BACKEND;
	}
	e = stt_cloud_parse(p, res->body, res->body_len, text);
	if (e == ERR_PARSE) {
		snprintf(u->error, sizeof(u->error), "%s: the answer has no transcript", p->info->name);
		e = ERR_BACKEND;
	}
	return e;
}

enum err stt_cloud_transcribe(void *ctx, const struct stt_request *req, char **text)
{
	struct stt_cloud *x = ctx;
	const struct provider *p = x->c.p;
	struct backend_usage *u = &x->c.last;
	x->c.used = true;
	stt_cloud_usage_begin(x, req, u);
	struct http_req *hr = NULL;
	struct http_result *res = NULL;
	enum err e = stt_cloud_request(x, req, &hr, u);
	if (e)
		return e;
	e = http_perform(hr, &res);
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: %s", p->info->name, err_str(e));
		return e;
	}
	e = stt_cloud_response(x, res, text, u);
	http_result_free(res);
	return e;
}

/* ---- the backend's ops (backend.h) ---- */

static enum err ops_call(void *ctx, const void *req, void *out)
{
	return stt_cloud_transcribe(ctx, req, out);
}

static enum err ops_start(void *ctx, const void *req, struct http_req **hr, struct backend_usage *u)
{
	stt_cloud_usage_begin(ctx, req, u);
	return stt_cloud_request(ctx, req, hr, u);
}

static enum err ops_finish(void *ctx, const void *req, const struct http_result *res, void *out,
			   struct backend_usage *u)
{
	(void)req;
	return stt_cloud_response(ctx, res, out, u);
}

const struct backend_ops stt_cloud_ops = {
	.stage = BACKEND_STT,
	.call = ops_call,
	.start = ops_start,
	.finish = ops_finish,
	.usage = cloud_ops_usage,
	.free = cloud_ops_free,
};
