/* stt_cloud: speech-to-text over HTTP, one client for every hosted and local service in
 * the provider registry. Each request is the one the provider documents:
 * - ElevenLabs Scribe (elevenlabs.io/docs/api-reference/speech-to-text/convert):
 *   POST /v1/speech-to-text, xi-api-key, multipart model_id, language_code ("hin"), file;
 *   answer "text".
 * - Sarvam Saaras (docs.sarvam.ai/api-reference-docs/speech-to-text/transcribe):
 *   POST /speech-to-text, api-subscription-key, multipart file, model, mode=transcribe,
 *   language_code ("hi-IN"); answer "transcript".
 * - Deepgram (developers.deepgram.com/reference/speech-to-text-api/listen):
 *   POST /v1/listen?model=nova-3&language=hi, Authorization: Token KEY, the WAV file as
 *   the body (Content-Type audio/wav); answer results.channels[0].alternatives[0].transcript.
 * - OpenAI and Groq (platform.openai.com/docs/api-reference/audio/createTranscription,
 *   console.groq.com/docs/speech-to-text): POST /audio/transcriptions, Bearer, multipart
 *   file, model, language ("hi"), response_format=json, temperature=0; answer "text".
 * - Google Speech v2 with Chirp 3 (cloud.google.com/speech-to-text/v2/docs/reference/rest/
 *   v2/projects.locations.recognizers/recognize): POST
 *   /v2/projects/P/locations/L/recognizers/_:recognize, Bearer (service-account OAuth),
 *   JSON {"config":{"autoDecodingConfig":{},"model":"chirp_3","languageCodes":["hi-IN"]},
 *   "content": base64}; answer results[].alternatives[0].transcript.
 * - whisper.cpp's server (examples/server/README.md): POST /inference, multipart file,
 *   temperature, response_format=json, language; answer "text".
 * Audio goes as 16-bit PCM mono WAV at the utterance's rate (16 kHz from the audio
 * layer), which every one of them accepts. */
#ifndef FORMDESK_STT_CLOUD_H
#define FORMDESK_STT_CLOUD_H

#include "backend.h"
#include "http.h"
#include "provider.h"

struct stt_cloud;

/* The backend's ops (backend.h); its ctx is a struct stt_cloud. */
extern const struct backend_ops stt_cloud_ops;

/* stt_cloud_new: an STT backend on provider p (taken over, also on failure). For Google
 * the key file named by p->key (GOOGLE_APPLICATION_CREDENTIALS) is read now. Output:
 * *out (caller frees with stt_cloud_free); why (size n) on failure. Errors: ERR_IO,
 * ERR_PARSE (credentials), ERR_NOTFOUND (no Google project), ERR_NOMEM. */
enum err stt_cloud_new(struct provider *p, struct stt_cloud **out, char *why, size_t n);
void stt_cloud_free(struct stt_cloud *x);

/* stt_cloud_transcribe: see struct stt_backend.transcribe; ctx is a struct stt_cloud.
 * Blocking. Output: *text (caller frees). Errors: ERR_INVALID (no audio), ERR_BACKEND
 * (request failed or the answer has no transcript: the usage record says why),
 * ERR_AUDIO, ERR_NOMEM. */
enum err stt_cloud_transcribe(void *ctx, const struct stt_request *req, char **text);

/* stt_cloud_usage: the last call's measurements, NULL before the first call. */
const struct backend_usage *stt_cloud_usage(const struct stt_cloud *x);

/* stt_cloud_request: the HTTP request for req (caller owns *out). For Google this may
 * fetch an access token first (blocking). Errors: as stt_cloud_transcribe. */
enum err stt_cloud_request(struct stt_cloud *x, const struct stt_request *req, struct http_req **out,
			   struct backend_usage *u);

/* stt_cloud_usage_begin: reset u for a request on req (provider, model, seconds of audio
 * and their cost at the configured price per audio minute, else -1). */
void stt_cloud_usage_begin(const struct stt_cloud *x, const struct stt_request *req,
			   struct backend_usage *u);

/* stt_cloud_response: the transcript in res, the finished request built by
 * stt_cloud_request (u reset by stt_cloud_usage_begin gains timings, attempts, error).
 * Output: *text (caller frees). Errors: ERR_BACKEND (transport, HTTP status, no
 * transcript: u->error says which), ERR_NOMEM. */
enum err stt_cloud_response(const struct stt_cloud *x, const struct http_result *res, char **text,
			    struct backend_usage *u);

/* stt_cloud_provider: the provider x calls (owned by x). */
const struct provider *stt_cloud_provider(const struct stt_cloud *x);

/* stt_cloud_parse: the transcript in a successful answer body (len bytes) of p's
 * protocol. Output: *text (caller frees). Errors: ERR_PARSE, ERR_NOMEM. */
enum err stt_cloud_parse(const struct provider *p, const char *body, size_t len, char **text);

#endif
