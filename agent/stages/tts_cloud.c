#include "tts_cloud.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "llm.h"
#include "cloud.h"
#include "provider_google.h"

/* all a client holds is the shared part (cloud.h) */
struct tts_cloud {
	struct cloud c;
};

enum err tts_cloud_new(struct provider *p, struct tts_cloud **out, char *why, size_t n)
{
	void *x = NULL;
	enum err e = cloud_new(sizeof(struct tts_cloud), p, false, &x, why, n);
	if (!e)
		*out = x;
	return e;
}

void tts_cloud_free(struct tts_cloud *x)
{
	cloud_free(x ? &x->c : NULL);
}

const struct backend_usage *tts_cloud_usage(const struct tts_cloud *x)
{
	return cloud_usage(&x->c);
}

const struct provider *tts_cloud_provider(const struct tts_cloud *x)
{
	return x->c.p;
}

/* ---- decoding ---- */

/* pcm16: n little-endian 16-bit samples at data into floats. Output: *out (caller frees).
 * Errors: ERR_NOMEM. */
static enum err pcm16(const unsigned char *data, size_t n, int channels, float **out)
{
	size_t frames = channels > 0 ? n / (size_t)channels : 0;
	float *f = malloc((frames ? frames : 1) * sizeof(float));
	if (!f)
		return ERR_NOMEM;
	for (size_t i = 0; i < frames; i++) {
		float sum = 0;
		for (int c = 0; c < channels; c++) {
			const unsigned char *b = data + 2 * (i * (size_t)channels + (size_t)c);
			sum += (float)(int16_t)(uint16_t)(b[0] | b[1] << 8) / 32768.0f;
		}
		f[i] = sum / (float)channels;
	}
	*out = f;
	return ERR_OK;
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* wav: the samples of a RIFF/WAVE file of 16-bit PCM (any channels, mixed to mono). A
 * data chunk whose size is unknown (0 or past the end, as a streamed WAV has) runs to the
 * end. Errors: ERR_PARSE, ERR_NOMEM. */
static enum err wav(const unsigned char *b, size_t len, struct tts_audio *out)
{
	int channels = 0, rate = 0, bits = 0, format = 0;
	if (len < 12 || memcmp(b, "RIFF", 4) != 0 || memcmp(b + 8, "WAVE", 4) != 0)
		return ERR_PARSE;
	for (size_t at = 12; at + 8 <= len;) {
		uint32_t size = le32(b + at + 4);
		const unsigned char *body = b + at + 8;
		size_t left = len - at - 8;
		if (memcmp(b + at, "fmt ", 4) == 0 && size >= 16 && left >= 16) {
			format = body[0] | body[1] << 8;
			channels = body[2] | body[3] << 8;
			rate = (int)le32(body + 4);
			bits = body[14] | body[15] << 8;
		} else if (memcmp(b + at, "data", 4) == 0) {
			if (format != 1 || bits != 16 || channels < 1 || channels > 8 || rate < 1000 ||
			    rate > 384000)
				return ERR_PARSE;
			size_t n = size == 0 || size > left ? left : size;
			float *f = NULL;
			enum err e = pcm16(body, n / 2, channels, &f);
			if (e)
				return e;
			*out = (struct tts_audio){f, n / 2 / (size_t)channels, rate};
			if (out->n == 0) {
				free(f);
				out->samples = NULL;
			}
			return ERR_OK;
		}
		if (size > left)
			break;
		at += 8 + (size_t)size + (size & 1);
	}
	return ERR_PARSE;
}

/* b64: the bytes of base64 text s. Output: *out (caller frees), *n. Errors: ERR_PARSE,
 * ERR_NOMEM. */
static enum err b64(const char *s, unsigned char **out, size_t *n)
{
	size_t len = strlen(s);
	if (len % 4 != 0 || len > (size_t)INT32_MAX)
		return ERR_PARSE;
	unsigned char *d = malloc(len / 4 * 3 + 1);
	if (!d)
		return ERR_NOMEM;
	int got = EVP_DecodeBlock(d, (const unsigned char *)s, (int)len);
	if (got < 0) {
		free(d);
		return ERR_PARSE;
	}
	size_t pad = len >= 2 && s[len - 1] == '=' ? (s[len - 2] == '=' ? 2 : 1) : 0;
	*out = d;
	*n = (size_t)got - pad;
	return ERR_OK;
}

/* at_path: the item of o at a path such as "audios.#0" ("#N" an array index). */
static const cJSON *at_path(const cJSON *o, const char *path)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); o && k; k = strtok_r(NULL, ".", &save))
		o = k[0] == '#' ? cJSON_GetArrayItem(o, atoi(k + 1)) : cJSON_GetObjectItemCaseSensitive(o, k);
	return o;
}

enum err tts_cloud_decode(const struct provider *p, const char *body, size_t len,
			  struct tts_audio *out)
{
	const struct provider_info *info = p->info;
	if (info->audio == AUDIO_PCM16) {
		float *f = NULL;
		enum err e = pcm16((const unsigned char *)body, len / 2, 1, &f);
		if (e)
			return e;
		*out = (struct tts_audio){f, len / 2, p->rate};
		if (!out->n) {
			free(f);
			out->samples = NULL;
		}
		return ERR_OK;
	}
	if (info->audio == AUDIO_WAV)
		return wav((const unsigned char *)body, len, out);
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *s = at_path(root, info->audio_key ? info->audio_key : "");
	enum err e = ERR_PARSE;
	unsigned char *bytes = NULL;
	size_t n = 0;
	if (cJSON_IsString(s) && (e = b64(s->valuestring, &bytes, &n)) == ERR_OK)
		e = wav(bytes, n, out);
	free(bytes);
	cJSON_Delete(root);
	return e;
}

/* ---- requests ---- */

/* usage_begin: reset u for saying text on x (cost at the configured price per million
 * characters, counted as Unicode code points, which is how the providers bill). */
static void usage_begin(const struct tts_cloud *x, const char *text, struct backend_usage *u)
{
	llm_usage_begin(u, x->c.p);
	if (x->c.p->usd_mchar > 0) {
		size_t chars = 0;
		for (const unsigned char *s = (const unsigned char *)text; *s; s++)
			chars += (*s & 0xC0) != 0x80;
		u->cost_usd = (double)chars * x->c.p->usd_mchar / 1e6;
	}
}

/* request: the HTTP request saying text on x (caller owns *out). For an OAuth row a kept
 * access token is used at once; else the token is fetched on the request's own transfer,
 * before it (provider_google_authorize), so the loop never waits for the token endpoint.
 * Errors: ERR_BACKEND (signing the token request), ERR_NOMEM. */
static enum err request(struct tts_cloud *x, const char *text, struct http_req **out,
			struct backend_usage *u)
{
	const struct provider *p = x->c.p;
	struct tts_call c = {.p = p, .text = text, .lang = provider_language(p, "hi")};
	enum err e;
	if (p->info->oauth)
		c.token = provider_google_cached(x->c.google);
	if ((e = p->info->tts_request(&c, out)) != ERR_OK) {
		snprintf(u->error, sizeof(u->error), "%s: cannot build the request", p->info->name);
		return e;
	}
	if (p->info->oauth && !c.token &&
	    (e = provider_google_authorize(x->c.google, p->timeout_ms, *out, u->error,
					   sizeof(u->error)))) {
		http_req_free(*out);
		*out = NULL;
		return e;
	}
	http_req_limits(*out, p->timeout_ms, p->retries, 0);
	return ERR_OK;
}

/* response: the audio in res (u gains timings, attempts, seconds of audio, error). */
static enum err response(const struct tts_cloud *x, const struct http_result *res,
			 struct tts_audio *out, struct backend_usage *u)
{
	const struct provider *p = x->c.p;
	llm_usage_http(u, res);
	if (llm_http_error(p, res, u->error, sizeof(u->error)))
		return res->err == ERR_NOMEM ? ERR_NOMEM : ERR_BACKEND;
	enum err e = tts_cloud_decode(p, res->body, res->body_len, out);
	if (e == ERR_PARSE) {
		snprintf(u->error, sizeof(u->error), "%s: the answer has no audio", p->info->name);
		return ERR_BACKEND;
	}
	if (!e)
		u->audio_s = out->rate > 0 ? (double)out->n / out->rate : 0;
	return e;
}

/* What a streamed answer's observer keeps: the piece handler, an odd byte carried to the
 * next piece, and when the first audio arrived. */
struct stream {
	backend_piece_fn fn;
	void *ud;
	int rate, attempt;
	bool odd;
	unsigned char carry;
	double first_ms;   /* -1 until audio arrived */
};

static void on_data(void *ud, const char *data, size_t len, int attempt, double at_ms)
{
	struct stream *s = ud;
	unsigned char buf[4096];
	const unsigned char *d = (const unsigned char *)data;
	if (attempt != s->attempt) { /* a retry starts the audio again */
		s->attempt = attempt;
		s->odd = false;
	}
	while (len > 0) {
		size_t k = 0;
		if (s->odd) {
			buf[k++] = s->carry;
			s->odd = false;
		}
		size_t take = len < sizeof(buf) - k ? len : sizeof(buf) - k;
		memcpy(buf + k, d, take);
		k += take;
		d += take;
		len -= take;
		if (k & 1) {
			s->carry = buf[--k];
			s->odd = true;
		}
		float *f = NULL;
		if (k == 0 || pcm16(buf, k / 2, 1, &f) != ERR_OK)
			continue;
		if (s->first_ms < 0)
			s->first_ms = at_ms;
		if (s->fn)
			s->fn(s->ud, f, k / 2, s->rate, at_ms);
		free(f);
	}
}

static enum err speak(struct tts_cloud *x, const char *text, backend_piece_fn fn, void *ud,
		      bool stream, struct tts_audio *out)
{
	struct backend_usage *u = &x->c.last;
	struct http_req *hr = NULL;
	struct http_result *res = NULL;
	x->c.used = true;
	usage_begin(x, text, u);
	if (!text || !*text) {
		*out = (struct tts_audio){NULL, 0, x->c.p->rate};
		return ERR_OK;
	}
	enum err e = request(x, text, &hr, u);
	if (e)
		return e;
	bool piecewise = stream && x->c.p->info->streams && x->c.p->info->audio == AUDIO_PCM16;
	if (piecewise) {
		struct stream *s = calloc(1, sizeof(*s));
		if (!s) {
			http_req_free(hr);
			return ERR_NOMEM;
		}
		*s = (struct stream){.fn = fn, .ud = ud, .rate = x->c.p->rate, .attempt = 1,
				     .first_ms = -1};
		http_req_observe(hr, on_data, s, free);
	}
	e = http_perform(hr, &res);
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: %s", x->c.p->info->name, err_str(e));
		return e;
	}
	e = response(x, res, out, u);
	const struct stream *s = res->observer;
	if (!e && piecewise && s && s->first_ms >= 0)
		u->ttfb_ms = s->first_ms;
	if (!e && stream && !piecewise && fn && out->n)
		fn(ud, out->samples, out->n, out->rate, res->total_ms);
	http_result_free(res);
	return e;
}

/* A request started without blocking (ops_speak_start): its owner's callbacks and the
 * transfer that carries it. */
struct job {
	struct tts_cloud *x;
	struct http_client *c;
	struct http_xfer *xfer;
	backend_piece_fn fn;
	backend_spoken_fn done;
	void *ud;
	bool piecewise;
};

/* job_done: the transfer of job j ended (from http_poll): the audio not handed over piece
 * by piece goes whole, the usage record gets the first audio's time, the owner is told. */
static void job_done(void *ud, struct http_result *res)
{
	struct job *j = ud;
	struct tts_audio a = {0};
	enum err e = response(j->x, res, &a, &j->x->c.last);
	const struct stream *s = res->observer;
	if (!e && j->piecewise && s && s->first_ms >= 0)
		j->x->c.last.ttfb_ms = s->first_ms;
	if (!e && !j->piecewise && a.n)
		j->fn(j->ud, a.samples, a.n, a.rate, res->total_ms);
	free(a.samples);
	http_result_free(res);
	backend_spoken_fn done = j->done;
	void *owner = j->ud;
	free(j);
	done(owner, e);
}

static enum err ops_speak_start(void *ctx, struct http_client *c, const char *text,
				backend_piece_fn fn, backend_spoken_fn done, void *ud, void **out)
{
	struct tts_cloud *x = ctx;
	struct http_req *hr = NULL;
	x->c.used = true;
	usage_begin(x, text ? text : "", &x->c.last);
	if (!text || !*text) {
		done(ud, ERR_OK);
		return ERR_OK;
	}
	enum err e = request(x, text, &hr, &x->c.last);
	if (e)
		return e;
	struct job *j = calloc(1, sizeof(*j));
	struct stream *s = NULL;
	bool piecewise = x->c.p->info->streams && x->c.p->info->audio == AUDIO_PCM16;
	if (!j || (piecewise && !(s = calloc(1, sizeof(*s))))) {
		free(j);
		http_req_free(hr);
		return ERR_NOMEM;
	}
	*j = (struct job){.x = x, .c = c, .fn = fn, .done = done, .ud = ud, .piecewise = piecewise};
	if (s) {
		*s = (struct stream){.fn = fn, .ud = ud, .rate = x->c.p->rate, .attempt = 1,
				     .first_ms = -1};
		http_req_observe(hr, on_data, s, free);
	}
	if ((e = http_start(c, hr, job_done, j, &j->xfer)) != ERR_OK) {
		snprintf(x->c.last.error, sizeof(x->c.last.error), "%s: %s", x->c.p->info->name,
			 err_str(e));
		free(j);
		return e;
	}
	*out = j;
	return ERR_OK;
}

static void ops_speak_cancel(void *ctx, void *job)
{
	struct job *j = job;
	(void)ctx;
	http_cancel(j->c, j->xfer);
	free(j);
}

enum err tts_cloud_speak(struct tts_cloud *x, const char *text, struct tts_audio *out)
{
	return speak(x, text, NULL, NULL, false, out);
}

enum err tts_cloud_speak_stream(struct tts_cloud *x, const char *text, backend_piece_fn fn,
				void *ud, struct tts_audio *out)
{
	return speak(x, text, fn, ud, true, out);
}

/* ---- the backend's ops (backend.h) ---- */

static enum err ops_call(void *ctx, const void *req, void *out)
{
	return tts_cloud_speak(ctx, req, out);
}

static enum err ops_start(void *ctx, const void *req, struct http_req **hr, struct backend_usage *u)
{
	struct tts_cloud *x = ctx;
	usage_begin(x, req, u);
	return request(x, req, hr, u);
}

static enum err ops_finish(void *ctx, const void *req, const struct http_result *res, void *out,
			   struct backend_usage *u)
{
	(void)req;
	return response(ctx, res, out, u);
}

static void ops_voice(const void *ctx, char *buf, size_t n)
{
	const struct provider *p = ((const struct tts_cloud *)ctx)->c.p;
	snprintf(buf, n, "%s|%s|%d", p->model, p->voice ? p->voice : "", p->rate);
}

static enum err ops_stream(void *ctx, const char *text, backend_piece_fn fn, void *ud,
			   struct tts_audio *out)
{
	return tts_cloud_speak_stream(ctx, text, fn, ud, out);
}

const struct backend_ops tts_cloud_ops = {
	.stage = BACKEND_TTS,
	.call = ops_call,
	.start = ops_start,
	.finish = ops_finish,
	.usage = cloud_ops_usage,
	.voice = ops_voice,
	.stream = ops_stream,
	.speak_start = ops_speak_start,
	.speak_cancel = ops_speak_cancel,
	.free = cloud_ops_free,
};
