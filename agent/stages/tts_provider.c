#include "tts_provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "http.h"
#include "tts_cloud.h"

/* ---- what the requests share ---- */

/* post_json: a POST of body (consumed) to base + path with the key header name: prefix+key. */
static enum err post_json(const struct tts_call *c, const char *base, const char *path,
			  const char *key_header, const char *prefix, const char *key, cJSON *body,
			  struct http_req **r)
{
	char url[1200];
	enum err e = ERR_NOMEM;
	char *text = body ? cJSON_PrintUnformatted(body) : NULL;
	cJSON_Delete(body);
	if (!text)
		return ERR_NOMEM;
	snprintf(url, sizeof(url), "%s%s", base ? base : c->p->base_url, path);
	if ((e = http_req_new("POST", url, r)) != ERR_OK)
		goto out;
	if (key && (e = provider_auth(*r, key_header, prefix, key)))
		goto out;
	e = http_req_body(*r, text, strlen(text), "application/json");
out:
	cJSON_free(text);
	return e;
}

/* ---- Sarvam Bulbul (docs.sarvam.ai/api-reference-docs/text-to-speech/convert; the REST
 * guide api-guides-tutorials/text-to-speech/rest-api): POST /text-to-speech,
 * api-subscription-key, JSON text, target_language_code ("hi-IN"), speaker, model
 * ("bulbul:v3"), speech_sample_rate (8000, 16000, 22050, 24000); answer {"request_id",
 * "audios": [base64 WAV]}. */
static enum err sarvam_request(const struct tts_call *c, struct http_req **r)
{
	cJSON *b = cJSON_CreateObject();
	if (!b || !cJSON_AddStringToObject(b, "text", c->text) ||
	    !cJSON_AddStringToObject(b, "target_language_code", c->lang) ||
	    !cJSON_AddStringToObject(b, "speaker", c->p->voice) ||
	    !cJSON_AddStringToObject(b, "model", c->p->model) ||
	    !cJSON_AddNumberToObject(b, "speech_sample_rate", c->p->rate)) {
		cJSON_Delete(b);
		return ERR_NOMEM;
	}
	return post_json(c, NULL, "/text-to-speech", "api-subscription-key", "", c->p->key, b, r);
}

/* ---- ElevenLabs (elevenlabs.io/docs/api-reference/text-to-speech/stream): POST
 * /v1/text-to-speech/VOICE_ID/stream?output_format=pcm_16000, xi-api-key, JSON text,
 * model_id, language_code (ISO 639-1, "hi": enforced by the Flash/Turbo v2.5 models); the
 * answer is the audio itself, streamed as it is made: for pcm_RATE raw 16-bit
 * little-endian mono PCM. */
static enum err elevenlabs_request(const struct tts_call *c, struct http_req **r)
{
	char path[400];
	char *v = curl_easy_escape(NULL, c->p->voice, 0);
	cJSON *b = cJSON_CreateObject();
	if (!v || !b || !cJSON_AddStringToObject(b, "text", c->text) ||
	    !cJSON_AddStringToObject(b, "model_id", c->p->model) ||
	    !cJSON_AddStringToObject(b, "language_code", c->lang)) {
		curl_free(v);
		cJSON_Delete(b);
		return ERR_NOMEM;
	}
	snprintf(path, sizeof(path), "/v1/text-to-speech/%s/stream?output_format=pcm_%d", v, c->p->rate);
	curl_free(v);
	return post_json(c, NULL, path, "xi-api-key", "", c->p->key, b, r);
}

/* ---- Google Cloud Text-to-Speech (cloud.google.com/text-to-speech/docs/reference/rest/
 * v1/text/synthesize): POST /v1/text:synthesize, Bearer (service-account OAuth, scope
 * cloud-platform), JSON {"input":{"text"},"voice":{"languageCode":"hi-IN","name"},
 * "audioConfig":{"audioEncoding":"LINEAR16","sampleRateHertz"}}; answer {"audioContent":
 * base64}, which for LINEAR16 "includes the WAV header". */
static enum err google_request(const struct tts_call *c, struct http_req **r)
{
	cJSON *b = cJSON_CreateObject();
	cJSON *in = cJSON_AddObjectToObject(b, "input");
	cJSON *voice = cJSON_AddObjectToObject(b, "voice");
	cJSON *ac = cJSON_AddObjectToObject(b, "audioConfig");
	if (!in || !voice || !ac || !cJSON_AddStringToObject(in, "text", c->text) ||
	    !cJSON_AddStringToObject(voice, "languageCode", c->lang) ||
	    !cJSON_AddStringToObject(voice, "name", c->p->voice) ||
	    !cJSON_AddStringToObject(ac, "audioEncoding", "LINEAR16") ||
	    !cJSON_AddNumberToObject(ac, "sampleRateHertz", c->p->rate)) {
		cJSON_Delete(b);
		return ERR_NOMEM;
	}
	return post_json(c, NULL, "/v1/text:synthesize", "Authorization", "Bearer ", c->token, b, r);
}

/* ---- OpenAI (platform.openai.com/docs/api-reference/audio/createSpeech; openai-python
 * resources/audio/speech.py): POST /audio/speech, Bearer, JSON model, input, voice,
 * response_format "pcm" (raw 16-bit little-endian mono PCM at 24 kHz, no header); the
 * answer is streamed with chunked transfer encoding as it is made. No language field:
 * the model speaks the language of the text. */
static enum err openai_request(const struct tts_call *c, struct http_req **r)
{
	cJSON *b = cJSON_CreateObject();
	if (!b || !cJSON_AddStringToObject(b, "model", c->p->model) ||
	    !cJSON_AddStringToObject(b, "input", c->text) ||
	    !cJSON_AddStringToObject(b, "voice", c->p->voice) ||
	    !cJSON_AddStringToObject(b, "response_format", "pcm")) {
		cJSON_Delete(b);
		return ERR_NOMEM;
	}
	return post_json(c, NULL, "/audio/speech", "Authorization", "Bearer ", c->p->key, b, r);
}

/* xml_escape: s with & < > " ' as entities (SSML is XML). Output: a new string (caller
 * frees), NULL when out of memory. */
static char *xml_escape(const char *s)
{
	size_t n = 1;
	for (const char *p = s; *p; p++)
		n += strchr("&<>\"'", *p) ? 6 : 1;
	char *out = malloc(n), *o = out;
	if (!out)
		return NULL;
	for (const char *p = s; *p; p++) {
		const char *ent = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
				: *p == '"' ? "&quot;" : *p == '\'' ? "&apos;" : NULL;
		if (ent) {
			strcpy(o, ent);
			o += strlen(ent);
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

/* ---- Azure AI Speech (learn.microsoft.com/azure/ai-services/speech-service/
 * rest-text-to-speech): POST https://REGION.tts.speech.microsoft.com/cognitiveservices/v1,
 * Ocp-Apim-Subscription-Key, Content-Type application/ssml+xml, X-Microsoft-OutputFormat
 * (riff-24khz-16bit-mono-pcm: a WAV file), User-Agent; the body is SSML:
 * <speak version='1.0' xml:lang='hi-IN'><voice name='hi-IN-SwaraNeural'>TEXT</voice></speak>.
 * The region comes from AZURE_SPEECH_REGION when the base URL is the default one. */
static enum err azure_request(const struct tts_call *c, struct http_req **r)
{
	const struct provider *p = c->p;
	char base[256], fmt[64], url[1200];
	const char *region = getenv("AZURE_SPEECH_REGION");
	const char *at = p->base_url;
	if (region && *region && strcmp(p->base_url, p->info->base_url) == 0 &&
	    strspn(region, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(region)) {
		snprintf(base, sizeof(base), "https://%s.tts.speech.microsoft.com", region);
		at = base;
	}
	snprintf(fmt, sizeof(fmt), "riff-%dkhz-16bit-mono-pcm", p->rate / 1000);
	snprintf(url, sizeof(url), "%s/cognitiveservices/v1", at);
	char *text = xml_escape(c->text), *voice = xml_escape(p->voice), *ssml = NULL;
	enum err e = ERR_NOMEM;
	if (!text || !voice ||
	    asprintf(&ssml, "<speak version='1.0' xml:lang='%s'><voice xml:lang='%s' name='%s'>%s"
		     "</voice></speak>", c->lang, c->lang, voice, text) < 0) {
		ssml = NULL;
		goto out;
	}
	if ((e = http_req_new("POST", url, r)) ||
	    (e = provider_auth(*r, "Ocp-Apim-Subscription-Key", "", p->key)) ||
	    (e = http_req_header(*r, "X-Microsoft-OutputFormat", fmt)) ||
	    (e = http_req_header(*r, "User-Agent", "formdesk")))
		goto out;
	e = http_req_body(*r, ssml, strlen(ssml), "application/ssml+xml");
out:
	free(text);
	free(voice);
	free(ssml);
	return e;
}

/* ---- the table: one row per provider ----
 * Default voices are Hindi ones each provider lists (Sarvam's default Bulbul v3 speaker;
 * Google hi-IN Neural2; Azure hi-IN-SwaraNeural; OpenAI's "coral"; ElevenLabs' documented
 * example voice, to be replaced in the config by a Hindi voice of the account's library).
 * Rates: what each documents for raw or WAV output. */
#define TTS(n, m, base, benv, kenv, lng, v, hz, aud, key, req)                                 \
	{.name = (n), .kind = PROVIDER_TTS, .protocol = PROTO_TTS, .model = (m), .base_url = (base), \
	 .base_env = (benv), .key_env = (kenv), .lang = (lng), .voice = (v), .rate = (hz),         \
	 .audio = (aud), .audio_key = (key), .tts_request = (req)}

static const struct provider_info table[] = {
	TTS("sarvam", "bulbul:v3", "https://api.sarvam.ai", "SARVAM_BASE_URL", "SARVAM_API_KEY",
	    LANG_BCP47, "shubh", 16000, AUDIO_JSON_WAV, "audios.#0", sarvam_request),
	{.name = "elevenlabs", .kind = PROVIDER_TTS, .protocol = PROTO_TTS,
	 .model = "eleven_flash_v2_5", .base_url = "https://api.elevenlabs.io",
	 .base_env = "ELEVENLABS_BASE_URL", .key_env = "ELEVENLABS_API_KEY", .lang = LANG_ISO639_1,
	 .voice = "JBFqnCBsd6RMkjVDRZzb", .rate = 16000, .streams = true, .audio = AUDIO_PCM16,
	 .tts_request = elevenlabs_request},
	{.name = "google", .kind = PROVIDER_TTS, .protocol = PROTO_TTS, .model = "",
	 .base_url = "https://texttospeech.googleapis.com", .base_env = "GOOGLE_TTS_BASE_URL",
	 .key_env = "GOOGLE_APPLICATION_CREDENTIALS", .lang = LANG_BCP47, .oauth = true,
	 .voice = "hi-IN-Neural2-A", .rate = 24000, .audio = AUDIO_JSON_WAV,
	 .audio_key = "audioContent", .tts_request = google_request},
	{.name = "openai", .kind = PROVIDER_TTS, .protocol = PROTO_TTS, .model = "gpt-4o-mini-tts",
	 .base_url = "https://api.openai.com/v1", .base_env = "OPENAI_BASE_URL",
	 .key_env = "OPENAI_API_KEY", .lang = LANG_ISO639_1, .voice = "coral", .rate = 24000,
	 .fixed_rate = true, .streams = true, .audio = AUDIO_PCM16, .tts_request = openai_request},
	TTS("azure", "", "https://centralindia.tts.speech.microsoft.com", "AZURE_SPEECH_BASE_URL",
	    "AZURE_SPEECH_KEY", LANG_BCP47, "hi-IN-SwaraNeural", 24000, AUDIO_WAV, NULL, azure_request),
};

const struct provider_info *tts_provider_table(int *n)
{
	*n = (int)(sizeof(table) / sizeof(table[0]));
	return table;
}
