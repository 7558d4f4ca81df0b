/* llm: one language-model call, independent of the provider's protocol. A call is built
 * into an HTTP request (llm_build), the response body is parsed into one result
 * (llm_parse); llm_run does both around the blocking HTTP helper and fills the usage
 * record. The protocols live in llm_openai.c (chat completions: OpenAI, OpenRouter,
 * Gemini's and Mistral's compatible endpoints, Groq, local servers) and llm_anthropic.c
 * (Messages API).
 *
 * Messages use one neutral shape (the caller's history and injected tool calls):
 *   {"role":"user"|"assistant","content":"text"}
 *   {"role":"assistant","tool_calls":[{"id":"...","name":"...","arguments":{...}}]}
 *   {"role":"tool","tool_call_id":"...","content":"text"} */
#ifndef FORMDESK_LLM_H
#define FORMDESK_LLM_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "backend.h"
#include "http.h"
#include "provider.h"

struct llm_tool {
	const char *name;
	const char *description;
	const cJSON *parameters;   /* JSON schema of the arguments */
};

struct llm_call {
	const char *system;
	const cJSON *messages;     /* neutral messages (above), borrowed */
	const struct llm_tool *tools;
	int n_tools;
	const char *force_tool;    /* the model must call this tool; NULL lets it choose */
	const char *schema_name;   /* structured output by JSON schema; NULL for none */
	const cJSON *schema;
	const char *effort;        /* reasoning effort, for reasoning models only */
	int max_tokens;            /* 0: the protocol's default */
	bool stream;               /* ask for server-sent events (agent/stages/llm_stream.h) */
	double temperature;        /* sampling temperature; 0 (the default) for the agent's
				      stages, higher for a simulated caller's varied words */
};

struct llm_result {
	char *text;        /* the assistant's text, NULL if none */
	char *refusal;     /* the model's refusal, NULL if it did not refuse */
	char *tool_name;   /* first tool call, NULL if none */
	char *tool_args;   /* its arguments as JSON text (unchecked), NULL if none */
	char *finish;      /* finish_reason / stop_reason, NULL if not given */
	long tokens_in, tokens_out; /* -1 when not reported */
	bool cut_short;    /* a streamed answer whose end ([DONE], message_stop) never came */
	bool at_limit;     /* the answer stopped at the token limit: finish_reason "length"
			      (chat completions) or stop_reason "max_tokens" (Messages API) */
};

void llm_result_free(struct llm_result *r);

/* llm_build: the HTTP request for call c on provider p. Output: *out (caller frees with
 * http_req_free or hands it on). Errors: ERR_NOMEM, ERR_UNSUPPORTED (p is not a
 * language-model provider). */
enum err llm_build(const struct provider *p, const struct llm_call *c, struct http_req **out);

/* llm_parse: a successful response body (len bytes): one JSON document, or a stream of
 * server-sent events (llm_stream.h) when the body is one, whatever was asked for.
 * Output: *out (caller frees with llm_result_free). Errors: ERR_PARSE (not the protocol's shape; why, size n, says what),
 * ERR_BACKEND (an error object in a 200 answer), ERR_NOMEM. */
enum err llm_parse(const struct provider *p, const char *body, size_t len, struct llm_result **out,
		   char *why, size_t n);

/* llm_http_error: why (size n) a finished HTTP result is a failure: transport error, or
 * status outside 2xx with the provider's error message (never the key; 401/403 bodies
 * are not echoed). Returns true when res is a failure. */
bool llm_http_error(const struct provider *p, const struct http_result *res, char *why, size_t n);

/* llm_run: build, send (blocking, with p's timeout and retries) and parse. Output: *out on
 * ERR_OK (caller frees); u, if not NULL, is filled in every case (timings, tokens, cost,
 * error text). Errors: ERR_BACKEND (transport, HTTP status, provider error), ERR_PARSE,
 * ERR_NOMEM. */
enum err llm_run(const struct provider *p, const struct llm_call *c, struct llm_result **out,
		 struct backend_usage *u);

/* llm_usage_begin: reset u for a call on p (provider, model; cost -1 when unpriced). */
void llm_usage_begin(struct backend_usage *u, const struct provider *p);
/* llm_request_built: e, the result of building p's request; when it failed, u->error
 * says so. Returns e. */
enum err llm_request_built(const struct provider *p, enum err e, struct backend_usage *u);
/* llm_usage_http: copy res's timings and status into u. */
void llm_usage_http(struct backend_usage *u, const struct http_result *res);
/* llm_usage_tokens: copy r's token counts into u and, when p is priced, their cost. */
void llm_usage_tokens(struct backend_usage *u, const struct provider *p, const struct llm_result *r);

/* llm_response: the first half of reading a backend's finished request on p: a failed
 * transfer or HTTP status, else the body parsed, its tokens and cost put in u (u->error
 * says why on failure). Output: *out on ERR_OK (caller frees with llm_result_free).
 * Errors: ERR_BACKEND (transport, HTTP status, provider error, unparsable body), ERR_NOMEM. */
enum err llm_response(const struct provider *p, const struct http_result *res,
		      struct llm_result **out, struct backend_usage *u);

/* A language-model backend's ctx: its provider, its stage's two halves, the last blocking
 * call's measurements. A stage's own ctx struct starts with one (extract_llm.c,
 * reply_llm.c), so the backend ops below serve every stage. */
struct llm_client;

struct llm_stage {
	/* request: the HTTP request for req (caller owns *out). */
	enum err (*request)(const struct llm_client *c, const void *req, struct http_req **out);
	/* response: the stage's output from res (see struct backend_ops finish). */
	enum err (*response)(const struct llm_client *c, const void *req,
			     const struct http_result *res, void *out, struct backend_usage *u);
};

struct llm_client {
	struct provider *p;            /* owned */
	const struct llm_stage *stage; /* static */
	struct backend_usage last;
	bool used;                     /* last holds a call */
};

/* llm_client_new: a stage's ctx of size bytes (at least a struct llm_client, which it
 * starts with), zeroed, on provider p (taken over, also on failure) and stage. Returns
 * it (caller frees with llm_ops_free), NULL when out of memory. */
void *llm_client_new(struct provider *p, const struct llm_stage *stage, size_t size);

/* LLM_STAGE_DEFINE: a stage's ctx type (struct NAME, starting with its struct llm_client),
 * its halves as a static struct llm_stage, and NAME_new(p, out) (p taken over, *out freed
 * with llm_ops_free; ERR_NOMEM), from the stage's own NAME_request / NAME_response, which
 * take a const struct NAME *. Written once here for every language-model stage. */
#define LLM_STAGE_DEFINE(NAME)                                                              \
	struct NAME {                                                                       \
		struct llm_client c; /* first: the ctx the shared ops read */               \
	};                                                                                  \
	static enum err NAME##_stage_request(const struct llm_client *c, const void *req,   \
					     struct http_req **out)                         \
	{                                                                                   \
		return NAME##_request((const struct NAME *)c, req, out);                    \
	}                                                                                   \
	static enum err NAME##_stage_response(const struct llm_client *c, const void *req,  \
					      const struct http_result *res, void *out,     \
					      struct backend_usage *u)                      \
	{                                                                                   \
		return NAME##_response((const struct NAME *)c, req, res, out, u);           \
	}                                                                                   \
	static const struct llm_stage NAME##_stage = {NAME##_stage_request,                 \
						      NAME##_stage_response};               \
	enum err NAME##_new(struct provider *p, struct NAME **out)                          \
	{                                                                                   \
		struct NAME *x = llm_client_new(p, &NAME##_stage, sizeof(*x));              \
		if (!x)                                                                     \
			return ERR_NOMEM;                                                   \
		*out = x;                                                                   \
		return ERR_OK;                                                              \
	}

/* The backend ops members every language-model stage shares (backend.h: struct
 * backend_ops); ctx is a stage's ctx, which starts with a struct llm_client. call is
 * blocking (llm_send); start also resets u and says when the request cannot be built;
 * usage gives last; free wipes the provider's key and frees ctx; model is the provider's. */
enum err llm_ops_call(void *ctx, const void *req, void *out);
enum err llm_ops_start(void *ctx, const void *req, struct http_req **hr, struct backend_usage *u);
enum err llm_ops_finish(void *ctx, const void *req, const struct http_result *res, void *out,
			struct backend_usage *u);
const struct backend_usage *llm_ops_usage(const void *ctx);
void llm_ops_free(void *ctx);
const char *llm_ops_model(const void *ctx);
/* LLM_OPS: those shared members, for a stage's ops table ({.stage = ..., LLM_OPS, ...}). */
#define LLM_OPS                                                                            \
	.call = llm_ops_call, .start = llm_ops_start, .finish = llm_ops_finish,            \
	.usage = llm_ops_usage, .free = llm_ops_free

/* llm_send: the blocking half of a backend's call on p: resets u (llm_usage_begin), then
 * sends hr, the request its builder made with result built. Output: *res on ERR_OK (caller
 * frees with http_result_free); hr is taken over. Errors: built when it is not ERR_OK
 * (u->error: the request could not be built), http_perform's errors (u->error says so). */
enum err llm_send(const struct provider *p, enum err built, struct http_req *hr,
		  struct http_result **res, struct backend_usage *u);

/* llm_history: the last `turns` entries of a call's history ([{"role","content"}], role
 * "agent" becoming "assistant", any other "user"; entries without both strings skipped) as
 * neutral messages. Output: a new array (caller frees with cJSON_Delete), NULL when out of
 * memory. */
cJSON *llm_history(const cJSON *history, int turns);

/* llm_post_json: a POST of body (printed compactly, as application/json) to p's base URL
 * followed by path, with n headers names[i]: values[i] in that order. Output: *out (caller
 * frees with http_req_free or hands it on). Errors: ERR_NOMEM. */
enum err llm_post_json(const struct provider *p, const char *path, const cJSON *body,
		       const char *const *names, const char *const *values, size_t n,
		       struct http_req **out);

/* Protocol halves, used by llm.c. Same contracts as llm_build / llm_parse. */
enum err llm_openai_build(const struct provider *p, const struct llm_call *c, struct http_req **out);
enum err llm_openai_parse(const cJSON *root, struct llm_result *r, char *why, size_t n);
enum err llm_anthropic_build(const struct provider *p, const struct llm_call *c, struct http_req **out);
enum err llm_anthropic_parse(const cJSON *root, struct llm_result *r, char *why, size_t n);

/* The largest answer body taken from a model: far above any extraction or reply (a few
 * KB); a bigger one is refused whole, not stored or sent back in the history. */
#define LLM_MAX_ANSWER_BYTES (256u << 10)

/* llm_set: replace *slot with a copy of s (NULL clears). Errors: ERR_NOMEM. */
enum err llm_set(char **slot, const char *s);

/* llm_count: a usage count (tokens) from a provider's answer. Inputs: v, the answer's
 * member (NULL or not a number: nothing is done, true); what, its path in the answer
 * ("usage.prompt_tokens"), for the message. Output: *out, the count, when v is a number
 * from 0 to NUMCONV_COUNT_MAX (fractions dropped). Returns false, with why (size n) naming
 * what and the number, when it is not: a count out of long's range cannot be converted. */
bool llm_count(const cJSON *v, const char *what, long *out, char *why, size_t n);
/* llm_counts: the answer's two usage counts, usage[in] and usage[out] (llm_count each,
 * named "usage.KEY" in the message). Outputs: *tokens_in, *tokens_out. Returns false, with
 * why (size n), for a count out of range. */
bool llm_counts(const cJSON *usage, const char *in, const char *out, long *tokens_in,
		long *tokens_out, char *why, size_t n);
/* llm_provider_error: an error object in a provider's answer (its "message" string) said
 * in why (size n) as "provider error: MESSAGE". Returns ERR_BACKEND. */
enum err llm_provider_error(const cJSON *error, char *why, size_t n);

#endif
