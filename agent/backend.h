/* backend: the tables of function pointers behind which STT, EXTRACT and REPLY sit, and
 * their lookup by name ("PROVIDER[:MODEL]"). Offline backends come first: "reference"
 * (STT), "rules" (EXTRACT), "script" (REPLY). */
#ifndef FORMDESK_BACKEND_H
#define FORMDESK_BACKEND_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "form.h"
#include "ymd.h"
#include "extraction.h"

struct lexicon;

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
	const cJSON *decision;    /* the rule layer's decision record (see flow.h) */
	const cJSON *history;
};

struct reply_backend {
	const char *name;
	/* reply: the words the agent says next. Output: *text new string (caller frees).
	 * Errors: ERR_BACKEND, ERR_NOMEM. */
	enum err (*reply)(void *ctx, const struct reply_request *req, char **text);
	void *ctx;
};

/* backend_stt / backend_extract / backend_reply: the backend named spec
 * ("PROVIDER[:MODEL]"). Output: *out filled (static tables; nothing to free).
 * Errors: ERR_NOTFOUND with *why (static string) naming the known providers. */
enum err backend_stt(const char *spec, struct stt_backend *out, const char **why);
enum err backend_extract(const char *spec, struct extract_backend *out, const char **why);
enum err backend_reply(const char *spec, struct reply_backend *out, const char **why);

#endif
