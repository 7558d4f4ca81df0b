#include "provider_stt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "http.h"
#include "stt_cloud.h"

/* ---- what the requests share ---- */

static enum err field(struct http_req *r, const char *name, const char *value)
{
	return http_req_part(r, name, value, strlen(value), NULL, NULL);
}

static enum err wav_part(struct http_req *r, const struct stt_call *c)
{
	return http_req_part(r, "file", c->wav, c->wav_len, "audio.wav", "audio/wav");
}

/* post: a new POST request to base_url + path (printf-style). */
static enum err post(const struct stt_call *c, struct http_req **r, const char *fmt, const char *a,
		     const char *b)
{
	char path[400], url[1200];
	snprintf(path, sizeof(path), fmt, a, b);
	snprintf(url, sizeof(url), "%s%s", c->base ? c->base : c->p->base_url, path);
	return http_req_new("POST", url, r);
}

static const cJSON *member(const cJSON *o, const char *const *keys, size_t n)
{
	for (size_t i = 0; o && i < n; i++)
		o = keys[i][0] == '#' ? cJSON_GetArrayItem(o, atoi(keys[i] + 1))
				      : cJSON_GetObjectItemCaseSensitive(o, keys[i]);
	return o;
}

/* string_at: the string at keys (n of them; "#0" an array index) in the answer, without
 * the spaces some services put around it. Errors: ERR_PARSE, ERR_NOMEM. */
static enum err string_at(const char *body, size_t len, const char *const *keys, size_t n,
			  char **text)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *t = cJSON_IsObject(root) ? member(root, keys, n) : NULL;
	enum err e = ERR_PARSE;
	if (cJSON_IsString(t)) {
		char *out = strdup(t->valuestring);
		e = ERR_NOMEM;
		if (out) {
			size_t m = strlen(out);
			while (m > 0 && (out[m - 1] == ' ' || out[m - 1] == '\n'))
				out[--m] = '\0';
			size_t lead = strspn(out, " \n");
			memmove(out, out + lead, m - lead + 1);
			*text = out;
			e = ERR_OK;
		}
	}
	cJSON_Delete(root);
	return e;
}

/* The answer's "text" (ElevenLabs, OpenAI, Groq, whisper.cpp). */
static enum err text_parse(const char *body, size_t len, char **text)
{
	static const char *const k[] = {"text"};
	return string_at(body, len, k, 1, text);
}

/* ---- ElevenLabs Scribe (elevenlabs.io/docs/api-reference/speech-to-text/convert):
 * POST /v1/speech-to-text, xi-api-key, multipart model_id, language_code ("hin"), file;
 * answer "text". */
static enum err elevenlabs_request(const struct stt_call *c, struct http_req **r)
{
	enum err e;
	if ((e = post(c, r, "/v1/speech-to-text", "", "")) ||
	    (e = provider_auth(*r, "xi-api-key", "", c->p->key)) ||
	    (e = field(*r, "model_id", c->p->model)) || (e = field(*r, "language_code", c->lang)))
		return e;
	return wav_part(*r, c);
}

/* ---- Sarvam Saaras (docs.sarvam.ai/api-reference-docs/speech-to-text/transcribe):
 * POST /speech-to-text, api-subscription-key, multipart file, model, mode=transcribe,
 * language_code ("hi-IN"); answer "transcript". */
static enum err sarvam_request(const struct stt_call *c, struct http_req **r)
{
	enum err e;
	if ((e = post(c, r, "/speech-to-text", "", "")) ||
	    (e = provider_auth(*r, "api-subscription-key", "", c->p->key)) || (e = wav_part(*r, c)) ||
	    (e = field(*r, "model", c->p->model)) || (e = field(*r, "mode", "transcribe")))
		return e;
	return field(*r, "language_code", c->lang);
}

static enum err sarvam_parse(const char *body, size_t len, char **text)
{
	static const char *const k[] = {"transcript"};
	return string_at(body, len, k, 1, text);
}

/* ---- Deepgram (developers.deepgram.com/reference/speech-to-text-api/listen):
 * POST /v1/listen?model=nova-3&language=hi, Authorization: Token KEY, the WAV file as the
 * body (Content-Type audio/wav); answer results.channels[0].alternatives[0].transcript. */
static enum err deepgram_request(const struct stt_call *c, struct http_req **r)
{
	char *m = curl_easy_escape(NULL, c->p->model, 0);
	char *l = curl_easy_escape(NULL, c->lang, 0);
	enum err e = m && l ? post(c, r, "/v1/listen?model=%s&language=%s", m, l) : ERR_NOMEM;
	curl_free(m);
	curl_free(l);
	if (e || (e = provider_auth(*r, "Authorization", "Token ", c->p->key)))
		return e;
	return http_req_body(*r, c->wav, c->wav_len, "audio/wav");
}

static enum err deepgram_parse(const char *body, size_t len, char **text)
{
	static const char *const k[] = {"results", "channels", "#0", "alternatives", "#0", "transcript"};
	return string_at(body, len, k, 6, text);
}

/* ---- OpenAI and Groq (platform.openai.com/docs/api-reference/audio/createTranscription,
 * console.groq.com/docs/speech-to-text): POST /audio/transcriptions, Bearer, multipart
 * file, model, language ("hi"), response_format=json, temperature=0; answer "text". */
static enum err openai_request(const struct stt_call *c, struct http_req **r)
{
	enum err e;
	if ((e = post(c, r, "/audio/transcriptions", "", "")) ||
	    (e = provider_auth(*r, "Authorization", "Bearer ", c->p->key)) || (e = wav_part(*r, c)) ||
	    (e = field(*r, "model", c->p->model)) || (e = field(*r, "language", c->lang)) ||
	    (e = field(*r, "response_format", "json")))
		return e;
	return field(*r, "temperature", "0");
}

/* ---- Google Speech v2 with Chirp 3 (cloud.google.com/speech-to-text/v2/docs/reference/
 * rest/v2/projects.locations.recognizers/recognize): POST
 * /v2/projects/P/locations/L/recognizers/_:recognize, Bearer (service-account OAuth),
 * JSON {"config":{"autoDecodingConfig":{},"model":"chirp_3","languageCodes":["hi-IN"]},
 * "content": base64}; answer results[].alternatives[0].transcript. */
static enum err google_body(const struct stt_call *c, struct http_req *r)
{
	enum err e = ERR_NOMEM;
	char *b64 = malloc(4 * ((c->wav_len + 2) / 3) + 1);
	char *text = NULL;
	cJSON *body = cJSON_CreateObject();
	if (!b64 || !body)
		goto out;
	EVP_EncodeBlock((unsigned char *)b64, c->wav, (int)c->wav_len);
	cJSON *config = cJSON_AddObjectToObject(body, "config");
	cJSON_AddObjectToObject(config, "autoDecodingConfig");
	cJSON_AddStringToObject(config, "model", c->p->model);
	cJSON *langs = cJSON_AddArrayToObject(config, "languageCodes");
	cJSON_AddItemToArray(langs, cJSON_CreateString(c->lang));
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

static enum err google_request(const struct stt_call *c, struct http_req **r)
{
	const struct provider *p = c->p;
	char base[128], path[400];
	struct stt_call at = *c;
	enum err e;
	/* the default endpoint is the "us" one; another location has its own host */
	if (strcmp(p->base_url, p->info->base_url) == 0 && strcmp(p->location, "us") != 0) {
		snprintf(base, sizeof(base), "https://%s-speech.googleapis.com", p->location);
		at.base = base;
	}
	snprintf(path, sizeof(path), "/v2/projects/%s/locations/%s/recognizers/_:recognize",
		 c->project, p->location);
	if ((e = post(&at, r, "%s%s", path, "")) ||
	    (c->token && (e = provider_auth(*r, "Authorization", "Bearer ", c->token))))
		return e;
	return google_body(c, *r);
}

/* One result per stretch of speech: their best alternatives joined; no results at all is
 * silence, an empty transcript. */
static enum err google_parse(const char *body, size_t len, char **text)
{
	static const char *const k[] = {"alternatives", "#0", "transcript"};
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results"), *r;
	enum err e = ERR_PARSE;
	size_t n = 1;
	char *out = NULL;
	if (!cJSON_IsObject(root) || (results && !cJSON_IsArray(results)))
		goto done;
	cJSON_ArrayForEach(r, results) {
		const cJSON *s = member(r, k, 3);
		if (cJSON_IsString(s))
			n += strlen(s->valuestring) + 1;
	}
	e = ERR_NOMEM;
	if (!(out = malloc(n)))
		goto done;
	out[0] = '\0';
	cJSON_ArrayForEach(r, results) {
		const cJSON *s = member(r, k, 3);
		if (!cJSON_IsString(s) || !s->valuestring[0])
			continue;
		if (out[0])
			strcat(out, " ");
		strcat(out, s->valuestring);
	}
	*text = out;
	e = ERR_OK;
done:
	cJSON_Delete(root);
	return e;
}

/* ---- whisper.cpp's server (examples/server/README.md): POST /inference, multipart file,
 * temperature, response_format=json, language; answer "text". */
static enum err whispercpp_request(const struct stt_call *c, struct http_req **r)
{
	enum err e;
	if ((e = post(c, r, "/inference", "", "")) || (e = wav_part(*r, c)) ||
	    (e = field(*r, "temperature", "0.0")) || (e = field(*r, "response_format", "json")))
		return e;
	return field(*r, "language", c->lang);
}

/* ---- the table: one row per provider ----
 * Base URLs, models and key variables from each provider's API reference above; Scribe
 * v2 is the FormBharo paper's choice. */
#define STT(n, m, base, benv, kenv, lng, req, parse)                                         \
	{.name = (n), .kind = PROVIDER_STT, .protocol = PROTO_STT, .model = (m), .base_url = (base), \
	 .base_env = (benv), .key_env = (kenv), .lang = (lng), .stt_request = (req),             \
	 .stt_parse = (parse)}

static const struct provider_info table[] = {
	STT("elevenlabs", "scribe_v2", "https://api.elevenlabs.io", "ELEVENLABS_BASE_URL",
	    "ELEVENLABS_API_KEY", LANG_ISO639_3, elevenlabs_request, text_parse),
	STT("sarvam", "saaras:v3", "https://api.sarvam.ai", "SARVAM_BASE_URL", "SARVAM_API_KEY",
	    LANG_BCP47, sarvam_request, sarvam_parse),
	STT("deepgram", "nova-3", "https://api.deepgram.com", "DEEPGRAM_BASE_URL", "DEEPGRAM_API_KEY",
	    LANG_ISO639_1, deepgram_request, deepgram_parse),
	STT("openai", "gpt-4o-transcribe", "https://api.openai.com/v1", "OPENAI_BASE_URL",
	    "OPENAI_API_KEY", LANG_ISO639_1, openai_request, text_parse),
	STT("groq", "whisper-large-v3", "https://api.groq.com/openai/v1", "GROQ_BASE_URL",
	    "GROQ_API_KEY", LANG_ISO639_1, openai_request, text_parse),
	/* Chirp 3 is served from the us, eu and some asia locations */
	{.name = "google", .kind = PROVIDER_STT, .protocol = PROTO_STT, .model = "chirp_3",
	 .base_url = "https://us-speech.googleapis.com", .base_env = "GOOGLE_SPEECH_BASE_URL",
	 .key_env = "GOOGLE_APPLICATION_CREDENTIALS", .lang = LANG_BCP47, .oauth = true,
	 .stt_request = google_request, .stt_parse = google_parse},
	STT("whispercpp", "", "http://127.0.0.1:8080", "WHISPERCPP_BASE_URL", NULL, LANG_ISO639_1,
	    whispercpp_request, text_parse),
};

const struct provider_info *provider_stt_table(int *n)
{
	*n = (int)(sizeof(table) / sizeof(table[0]));
	return table;
}
