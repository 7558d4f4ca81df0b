/* stt_cloud: speech-to-text over HTTP, one client for every hosted and local service in
 * the provider registry. Each provider's row (provider_stt.h) builds the request the
 * provider documents and reads its answer; this module encodes the audio, fetches
 * Google's access token for a row that needs OAuth, runs the request and measures it.
 * Audio goes as 16-bit PCM mono WAV at the utterance's rate (16 kHz from the audio
 * layer), which every one of them accepts. */
#ifndef FORMDESK_STT_CLOUD_H
#define FORMDESK_STT_CLOUD_H

#include "backend.h"
#include "http.h"
#include "provider.h"

struct stt_cloud;

/* What a provider row's stt_request builds from (provider.h). */
struct stt_call {
	const struct provider *p;
	const char *lang;          /* the language as the provider writes it */
	const unsigned char *wav;  /* the utterance as a WAV file, wav_len bytes */
	size_t wav_len;
	const char *base;          /* the base URL to use instead of p->base_url, or NULL */
	const char *token;         /* OAuth rows: the access token; NULL while it is being
	                              fetched (the header is added when it arrives) */
	const char *project;       /* OAuth rows: the Google project */
};

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

/* stt_cloud_request: the HTTP request for req (caller owns *out). For Google without a
 * kept access token, the token request goes first on the same transfer
 * (provider_google_authorize): nothing blocks. Errors: as stt_cloud_transcribe. */
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
