/* backend: the tables of function pointers behind which STT, EXTRACT and REPLY sit, and
 * their lookup by name ("PROVIDER[:MODEL]"). Offline backends come first: "reference"
 * (STT), "rules" (EXTRACT), "script" (REPLY). */
#ifndef FORMDESK_BACKEND_H
#define FORMDESK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "form.h"
#include "ymd.h"
#include "extraction.h"

struct lexicon;
struct http_req;
struct http_result;
struct http_xfer;

/* One caller utterance for STT. */
struct stt_request {
	const float *samples;    /* mono, sample_rate Hz, n_samples of them; may be NULL */
	size_t n_samples;
	int sample_rate;         /* Hz */
	const char *reference;   /* the corpus's reference transcript, NULL if none */
	const char *language;    /* "hi" */
};

struct stt_backend {
	const char *name;
	/* transcribe: text of the utterance. Output: *text new string (caller frees).
	 * Errors: ERR_BACKEND, ERR_NOTFOUND (reference STT without a reference), ERR_NOMEM. */
	enum err (*transcribe)(void *ctx, const struct stt_request *req, char **text);
	void *ctx;
};

struct extract_request {
	const struct form *form;
	const struct lexicon *lex;
	int asked;                /* index of the question just asked, -1 for none */
	const char *transcript;   /* the caller's latest words */
	const cJSON *history;     /* array of {"role":"agent"|"user","content"}; may be NULL */
	struct ymd today;
};

struct extract_backend {
	const char *name;
	/* extract: the fields answered in the turn. Output: *out new extraction (caller frees
	 * with extraction_free). Errors: ERR_BACKEND, ERR_NOMEM. */
	enum err (*extract)(void *ctx, const struct extract_request *req, struct extraction **out);
	void *ctx;
};

struct reply_request {
	const struct form *form;
	const cJSON *decision;    /* the rule layer's decision (agent/decision.h), as JSON */
	const cJSON *history;
};

struct reply_backend {
	const char *name;
	/* reply: the words the agent says next. Output: *text new string (caller frees).
	 * Errors: ERR_BACKEND, ERR_NOMEM. */
	enum err (*reply)(void *ctx, const struct reply_request *req, char **text);
	void *ctx;
};

/* What one call to a network backend cost, for the engine to store per turn and the
 * status bar to show. Offline backends leave it untouched. */
struct backend_usage {
	char provider[32];   /* "openrouter", "elevenlabs", ... */
	char model[96];
	double ttfb_ms;      /* request start to the first response byte, milliseconds */
	double total_ms;     /* request start to its end, retries included, milliseconds */
	int attempts;        /* HTTP attempts made (1 + retries); 0 when nothing was sent */
	long http_status;    /* of the last attempt; 0 without a response */
	long tokens_in;      /* as the provider counted them; -1 unknown */
	long tokens_out;
	double audio_s;      /* seconds of audio sent (STT), 0 otherwise */
	double cost_usd;     /* from the configured prices; -1 when no price is configured */
	double ack_ms;       /* EXTRACT: request start to the acknowledgement being complete,
	                        milliseconds (streamed: when its string closed; otherwise
	                        with the whole answer); -1 without one, 0 when not measured */
	char error[256];     /* why the call failed or what was refused, "" if nothing; never
	                        holds a key */
};

/* backend_stt / backend_extract / backend_reply: the backend named spec
 * ("PROVIDER[:MODEL]"). Offline: "reference", "rules", "script" (the defaults). Network
 * (provider registry in provider.h): STT elevenlabs, sarvam, deepgram, openai, groq,
 * google, whispercpp; EXTRACT and REPLY openai, openrouter, gemini, mistral, groq,
 * anthropic, local. Output: *out filled; a network backend's ctx lives until
 * backend_cleanup() (the caller frees nothing). Errors: ERR_NOTFOUND (unknown provider,
 * key not set in the environment), ERR_PARSE / ERR_INVALID (config file), ERR_NOMEM; with
 * *why (a static buffer, valid until the next lookup) saying which. */
enum err backend_stt(const char *spec, struct stt_backend *out, const char **why);
enum err backend_extract(const char *spec, struct extract_backend *out, const char **why);
enum err backend_reply(const char *spec, struct reply_backend *out, const char **why);

/* backend_last_usage: the measurements of the last call made through the backend whose
 * ctx is given (the ctx member of a table filled above). Output: *out. Returns false for
 * an offline backend or one that has made no call (then *out is untouched). */
bool backend_last_usage(const void *ctx, struct backend_usage *out);

/* backend_is_network: whether ctx (the ctx member of a table filled above) belongs to a
 * network backend, whose calls go over HTTP and take their time. */
bool backend_is_network(const void *ctx);

/* The two halves of one call to a network backend, for a loop that runs requests itself
 * without blocking (http_start / http_poll, agent/http.h); offline backends have none:
 * call the table's function, which completes at once.
 * backend_*_request: the HTTP request for req (caller owns *out, or hands it to
 * http_start); u is reset for the call (provider, model, tokens unknown, cost -1 when
 * unpriced; for STT the seconds of audio and their cost) and says why when building
 * fails. backend_*_response: the stage's output from res, the finished request (caller
 * frees *text / *out; an extraction's faults in its fault); u gains the timings,
 * attempts, tokens, cost and error text (never a key). The request (req) must be the
 * same for both halves.
 * Errors: ERR_UNSUPPORTED (b is not a network backend: nothing done), else as the
 * backend's blocking function (ERR_BACKEND with u->error, ERR_INVALID, ERR_NOMEM). */
enum err backend_stt_request(const struct stt_backend *b, const struct stt_request *req,
			     struct http_req **out, struct backend_usage *u);
enum err backend_stt_response(const struct stt_backend *b, const struct http_result *res,
			      char **text, struct backend_usage *u);
enum err backend_extract_request(const struct extract_backend *b, const struct extract_request *req,
				 struct http_req **out, struct backend_usage *u);
enum err backend_extract_response(const struct extract_backend *b,
				  const struct extract_request *req, const struct http_result *res,
				  struct extraction **out, struct backend_usage *u);
enum err backend_reply_request(const struct reply_backend *b, const struct reply_request *req,
			       struct http_req **out, struct backend_usage *u);
enum err backend_reply_response(const struct reply_backend *b, const struct reply_request *req,
				const struct http_result *res, char **text,
				struct backend_usage *u);

/* backend_extract_ack: the hook for speaking EXTRACT's acknowledgement early (the
 * FormBharo paper: spoken at once, before the fields are known). x is the handle
 * http_start gave for the request that backend_extract_request built. Returns true once,
 * the first time the streamed answer's "ack" is complete and not empty, with *text a new
 * string (caller frees); false before, after, for an offline backend or a provider that
 * does not stream. Poll it after each http_poll while the request is in flight; if the
 * request ends before it was taken, the same text is the extraction's ack. */
bool backend_extract_ack(const struct http_xfer *x, char **text);

/* backend_cleanup: free every network backend's ctx and the shared HTTP client (at
 * exit). Tables filled before are no longer usable. */
void backend_cleanup(void);

#endif
