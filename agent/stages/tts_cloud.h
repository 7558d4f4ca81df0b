/* tts_cloud: text-to-speech over HTTP, one client for every hosted voice in the provider
 * registry (tts_provider.h). Each provider's row builds the request the provider documents;
 * this module runs it, decodes the audio the way the row says it comes back (raw 16-bit
 * PCM, a WAV file, or a WAV file in base64 inside JSON) into mono floats at the
 * provider's rate, and measures it. A row whose provider streams (chunked HTTP: ElevenLabs'
 * /stream, OpenAI's speech endpoint) can be read as it arrives: tts_cloud_speak_stream
 * hands each decoded piece over before the answer has ended. The ops' speak_start runs the
 * same request on a loop's HTTP client without blocking (backend_speak_start): pieces and
 * the end come from that loop's http_poll, and cancelling closes the transfer at once. */
#ifndef FORMDESK_TTS_CLOUD_H
#define FORMDESK_TTS_CLOUD_H

#include <stddef.h>
#include "backend.h"
#include "http.h"
#include "provider.h"

struct tts_cloud;

/* What a provider row's tts_request builds from (provider.h). */
struct tts_call {
	const struct provider *p;
	const char *text;          /* UTF-8, what to say */
	const char *lang;          /* the language as the provider writes it ("hi-IN", "hi") */
	const char *token;         /* OAuth rows: the access token, else NULL */
};

/* The backend's ops (backend.h); its ctx is a struct tts_cloud. */
extern const struct backend_ops tts_cloud_ops;

/* tts_cloud_new: a TTS backend on provider p (taken over, also on failure). For an OAuth
 * row (Google) the key file named by p->key is read now. Output: *out (caller frees with
 * tts_cloud_free); why (size n) on failure. Errors: ERR_IO, ERR_PARSE (credentials),
 * ERR_NOMEM. */
enum err tts_cloud_new(struct provider *p, struct tts_cloud **out, char *why, size_t n);
void tts_cloud_free(struct tts_cloud *x);

/* tts_cloud_speak: the audio of text, blocking. Output: *out filled (samples at the
 * provider's rate, caller frees out->samples; empty text: 0 samples and no request).
 * Errors: ERR_BACKEND (transport, HTTP status, an answer with no audio: the usage record
 * says which), ERR_NOMEM. */
enum err tts_cloud_speak(struct tts_cloud *x, const char *text, struct tts_audio *out);

/* tts_cloud_speak_stream: as tts_cloud_speak, handing each piece to fn (ud passed along;
 * see backend_piece_fn) as it arrives when the provider streams raw PCM; otherwise fn gets
 * the whole audio once when the answer is complete. Output and errors: as
 * tts_cloud_speak. */
enum err tts_cloud_speak_stream(struct tts_cloud *x, const char *text, backend_piece_fn fn,
				void *ud, struct tts_audio *out);

/* tts_cloud_decode: the audio in a successful answer body (len bytes) of p's row.
 * Output: *out (caller frees out->samples). Errors: ERR_PARSE (no audio in it, or a WAV
 * that is not 16-bit PCM), ERR_NOMEM. */
enum err tts_cloud_decode(const struct provider *p, const char *body, size_t len,
			  struct tts_audio *out);

/* tts_cloud_usage: the last call's measurements (ttfb_ms is the first audio byte), NULL
 * before the first call. */
const struct backend_usage *tts_cloud_usage(const struct tts_cloud *x);

/* tts_cloud_provider: the provider x calls (owned by x). */
const struct provider *tts_cloud_provider(const struct tts_cloud *x);

#endif
