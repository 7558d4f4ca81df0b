#include "stt_cloud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "llm.h"
#include "provider_google.h"
#include "stt_wav.h"

struct stt_cloud {
	struct provider *p;
	struct provider_google *google;
	struct backend_usage last;
	bool used;
};

enum err stt_cloud_new(struct provider *p, struct stt_cloud **out, char *why, size_t n)
{
	struct stt_cloud *x = calloc(1, sizeof(*x));
	if (!x) {
		provider_free(p);
		return ERR_NOMEM;
	}
	x->p = p;
	if (p->info->protocol == PROTO_GOOGLE_STT) {
		enum err e = provider_google_load(p->key, &x->google, why, n);
		if (e) {
			stt_cloud_free(x);
			return e;
		}
		if (!p->project && !provider_google_project(x->google)) {
			snprintf(why, n, "google: no project (set \"project\" in the config file)");
			stt_cloud_free(x);
			return ERR_NOTFOUND;
		}
	}
	*out = x;
	return ERR_OK;
}

void stt_cloud_free(struct stt_cloud *x)
{
	if (!x)
		return;
	provider_google_free(x->google);
	provider_free(x->p);
	free(x);
}

const struct backend_usage *stt_cloud_usage(const struct stt_cloud *x)
{
	return x->used ? &x->last : NULL;
}

static enum err auth(struct http_req *r, const char *name, const char *prefix, const char *key)
{
	size_t n = strlen(prefix) + strlen(key) + 1;
	char *v = malloc(n);
	if (!v)
		return ERR_NOMEM;
	snprintf(v, n, "%s%s", prefix, key);
	enum err e = http_req_header(r, name, v);
	memset(v, 0, n);
	free(v);
	return e;
}

static enum err field(struct http_req *r, const char *name, const char *value)
{
	return http_req_part(r, name, value, strlen(value), NULL, NULL);
}

static enum err google_body(const struct provider *p, const char *lang, const unsigned char *wav,
			    size_t len, struct http_req *r)
{
	enum err e = ERR_NOMEM;
	char *b64 = malloc(4 * ((len + 2) / 3) + 1);
	char *text = NULL;
	cJSON *body = cJSON_CreateObject();
	if (!b64 || !body)
		goto out;
	EVP_EncodeBlock((unsigned char *)b64, wav, (int)len);
	cJSON *config = cJSON_AddObjectToObject(body, "config");
	cJSON_AddObjectToObject(config, "autoDecodingConfig");
	cJSON_AddStringToObject(config, "model", p->model);
	cJSON *langs = cJSON_AddArrayToObject(config, "languageCodes");
	cJSON_AddItemToArray(langs, cJSON_CreateString(lang));
	cJSON_AddStringToObject(body, "content", b64);
	text = cJSON_PrintUnformatted(body);
	if (text)
		e = http_req_body(r, text, strlen(text), "application/json");
out:
	cJSON_free(text);
	cJSON_Delete(body);
	free(b64);
	return e;
}

enum err stt_cloud_request(struct stt_cloud *x, const struct stt_request *req, struct http_req **out,
			   struct backend_usage *u)
{
	const struct provider *p = x->p;
	if (!req->samples || req->sample_rate <= 0) {
		snprintf(u->error, sizeof(u->error), "%s: no audio for this turn", p->info->name);
		return ERR_INVALID;
	}
	unsigned char *wav = NULL;
	size_t wav_len = 0;
	struct http_req *r = NULL;
	char url[1200];
	const char *lang = provider_language(p, req->language);
	enum err e = stt_wav_encode(req->samples, req->n_samples, req->sample_rate, &wav, &wav_len);
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: cannot encode the audio", p->info->name);
		return e;
	}
	switch (p->info->protocol) {
	case PROTO_ELEVENLABS:
		snprintf(url, sizeof(url), "%s/v1/speech-to-text", p->base_url);
		if ((e = http_req_new("POST", url, &r)) || (e = auth(r, "xi-api-key", "", p->key)) ||
		    (e = field(r, "model_id", p->model)) || (e = field(r, "language_code", lang)) ||
		    (e = http_req_part(r, "file", wav, wav_len, "audio.wav", "audio/wav")))
			goto out;
		break;
	case PROTO_SARVAM:
		snprintf(url, sizeof(url), "%s/speech-to-text", p->base_url);
		if ((e = http_req_new("POST", url, &r)) ||
		    (e = auth(r, "api-subscription-key", "", p->key)) ||
		    (e = http_req_part(r, "file", wav, wav_len, "audio.wav", "audio/wav")) ||
		    (e = field(r, "model", p->model)) || (e = field(r, "mode", "transcribe")) ||
		    (e = field(r, "language_code", lang)))
			goto out;
		break;
	case PROTO_DEEPGRAM: {
		char *m = curl_easy_escape(NULL, p->model, 0);
		char *l = curl_easy_escape(NULL, lang, 0);
		if (m && l)
			snprintf(url, sizeof(url), "%s/v1/listen?model=%s&language=%s", p->base_url, m, l);
		curl_free(m);
		curl_free(l);
		if (!m || !l) {
			e = ERR_NOMEM;
			goto out;
		}
		if ((e = http_req_new("POST", url, &r)) || (e = auth(r, "Authorization", "Token ", p->key)) ||
		    (e = http_req_body(r, wav, wav_len, "audio/wav")))
			goto out;
		break;
	}
	case PROTO_OPENAI_STT:
		snprintf(url, sizeof(url), "%s/audio/transcriptions", p->base_url);
		if ((e = http_req_new("POST", url, &r)) || (e = auth(r, "Authorization", "Bearer ", p->key)) ||
		    (e = http_req_part(r, "file", wav, wav_len, "audio.wav", "audio/wav")) ||
		    (e = field(r, "model", p->model)) || (e = field(r, "language", lang)) ||
		    (e = field(r, "response_format", "json")) || (e = field(r, "temperature", "0")))
			goto out;
		break;
	case PROTO_WHISPERCPP:
		snprintf(url, sizeof(url), "%s/inference", p->base_url);
		if ((e = http_req_new("POST", url, &r)) ||
		    (e = http_req_part(r, "file", wav, wav_len, "audio.wav", "audio/wav")) ||
		    (e = field(r, "temperature", "0.0")) || (e = field(r, "response_format", "json")) ||
		    (e = field(r, "language", lang)))
			goto out;
		break;
	case PROTO_GOOGLE_STT: {
		const char *token = NULL;
		e = provider_google_token(x->google, p->timeout_ms, &token, u->error, sizeof(u->error));
		if (e)
			goto out;
		const char *project = p->project ? p->project : provider_google_project(x->google);
		const char *base = p->base_url;
		char regional[128];
		/* the default endpoint is the "us" one; another location has its own host */
		if (strcmp(base, p->info->base_url) == 0 && strcmp(p->location, "us") != 0) {
			snprintf(regional, sizeof(regional), "https://%s-speech.googleapis.com", p->location);
			base = regional;
		}
		snprintf(url, sizeof(url), "%s/v2/projects/%s/locations/%s/recognizers/_:recognize", base,
			 project, p->location);
		if ((e = http_req_new("POST", url, &r)) || (e = auth(r, "Authorization", "Bearer ", token)) ||
		    (e = google_body(p, lang, wav, wav_len, r)))
			goto out;
		break;
	}
	default:
		e = ERR_UNSUPPORTED;
		goto out;
	}
	http_req_limits(r, p->timeout_ms, p->retries, 0);
	*out = r;
	r = NULL;
out:
	http_req_free(r);
	free(wav);
	return e;
}

static const cJSON *path(const cJSON *o, const char *const *keys, size_t n)
{
	for (size_t i = 0; o && i < n; i++)
		o = keys[i][0] == '#' ? cJSON_GetArrayItem(o, atoi(keys[i] + 1))
				      : cJSON_GetObjectItemCaseSensitive(o, keys[i]);
	return o;
}

enum err stt_cloud_parse(const struct provider *p, const char *body, size_t len, char **text)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return ERR_PARSE;
	}
	enum err e = ERR_PARSE;
	char *out = NULL;
	const cJSON *t = NULL;
	switch (p->info->protocol) {
	case PROTO_SARVAM:
		t = cJSON_GetObjectItemCaseSensitive(root, "transcript");
		break;
	case PROTO_DEEPGRAM: {
		static const char *const k[] = {"results", "channels", "#0", "alternatives", "#0", "transcript"};
		t = path(root, k, 6);
		break;
	}
	case PROTO_GOOGLE_STT: {
		/* one result per stretch of speech: join their best alternatives */
		const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
		size_t n = 1;
		const cJSON *r;
		cJSON_ArrayForEach(r, results) {
			static const char *const k[] = {"alternatives", "#0", "transcript"};
			const cJSON *s = path(r, k, 3);
			if (cJSON_IsString(s))
				n += strlen(s->valuestring) + 1;
		}
		out = malloc(n);
		if (!out) {
			e = ERR_NOMEM;
			goto done;
		}
		out[0] = '\0';
		cJSON_ArrayForEach(r, results) {
			static const char *const k[] = {"alternatives", "#0", "transcript"};
			const cJSON *s = path(r, k, 3);
			if (!cJSON_IsString(s) || !s->valuestring[0])
				continue;
			if (out[0])
				strcat(out, " ");
			strcat(out, s->valuestring);
		}
		/* no results at all is silence: an empty transcript, not an error */
		if (results && !cJSON_IsArray(results)) {
			free(out);
			out = NULL;
			goto done;
		}
		*text = out;
		out = NULL;
		e = ERR_OK;
		goto done;
	}
	default:
		t = cJSON_GetObjectItemCaseSensitive(root, "text");
		break;
	}
	if (!cJSON_IsString(t))
		goto done;
	out = strdup(t->valuestring);
	if (!out) {
		e = ERR_NOMEM;
		goto done;
	}
	/* trim the spaces some services put around the text */
	size_t n = strlen(out);
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\n'))
		out[--n] = '\0';
	size_t lead = strspn(out, " \n");
	memmove(out, out + lead, n - lead + 1);
	*text = out;
	out = NULL;
	e = ERR_OK;
done:
	free(out);
	cJSON_Delete(root);
	return e;
}

const struct provider *stt_cloud_provider(const struct stt_cloud *x)
{
	return x->p;
}

void stt_cloud_usage_begin(const struct stt_cloud *x, const struct stt_request *req,
			   struct backend_usage *u)
{
	const struct provider *p = x->p;
	llm_usage_begin(u, p);
	u->audio_s = req->sample_rate > 0 ? (double)req->n_samples / req->sample_rate : 0;
	if (p->usd_audio_min > 0)
		u->cost_usd = u->audio_s / 60.0 * p->usd_audio_min;
}

enum err stt_cloud_response(const struct stt_cloud *x, const struct http_result *res, char **text,
			    struct backend_usage *u)
{
	const struct provider *p = x->p;
	enum err e;
	llm_usage_http(u, res);
	if (llm_http_error(p, res, u->error, sizeof(u->error)))
		return res->err == ERR_NOMEM ? ERR_NOMEM : ERR_BACKEND;
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
	const struct provider *p = x->p;
	struct backend_usage *u = &x->last;
	x->used = true;
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

static const struct backend_usage *ops_usage(const void *ctx)
{
	return stt_cloud_usage(ctx);
}

static void ops_free(void *ctx)
{
	stt_cloud_free(ctx);
}

const struct backend_ops stt_cloud_ops = {
	.stage = BACKEND_STT,
	.call = ops_call,
	.start = ops_start,
	.finish = ops_finish,
	.usage = ops_usage,
	.free = ops_free,
};
