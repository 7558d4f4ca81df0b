#include "llm.h"
#include "llm_stream.h"
#include "secret.h"
#include "base/numconv.h"
#include "textcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void llm_result_free(struct llm_result *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->refusal);
	free(r->tool_name);
	free(r->tool_args);
	free(r->finish);
	free(r);
}

enum err llm_set(char **slot, const char *s)
{
	char *c = s ? strdup(s) : NULL;
	if (s && !c)
		return ERR_NOMEM;
	free(*slot);
	*slot = c;
	return ERR_OK;
}

bool llm_count(const cJSON *v, const char *what, long *out, char *why, size_t n)
{
	if (!cJSON_IsNumber(v) || numconv_long(v->valuedouble, 0, NUMCONV_COUNT_MAX, out))
		return true;
	snprintf(why, n, "%s is %g, not a count from 0 to %ld", what, v->valuedouble, NUMCONV_COUNT_MAX);
	return false;
}

bool llm_counts(const cJSON *usage, const char *in, const char *out, long *tokens_in,
		long *tokens_out, char *why, size_t n)
{
	char what[64];
	snprintf(what, sizeof what, "usage.%s", in);
	if (!llm_count(cJSON_GetObjectItemCaseSensitive(usage, in), what, tokens_in, why, n))
		return false;
	snprintf(what, sizeof what, "usage.%s", out);
	return llm_count(cJSON_GetObjectItemCaseSensitive(usage, out), what, tokens_out, why, n);
}

enum err llm_provider_error(const cJSON *error, char *why, size_t n)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(error, "message");
	snprintf(why, n, "provider error: %.160s", cJSON_IsString(m) ? m->valuestring : "unknown");
	return ERR_BACKEND;
}

enum err llm_build(const struct provider *p, const struct llm_call *c, struct http_req **out)
{
	switch (p->info->protocol) {
	case PROTO_OPENAI_CHAT:
		return llm_openai_build(p, c, out);
	case PROTO_ANTHROPIC:
		return llm_anthropic_build(p, c, out);
	default:
		return ERR_UNSUPPORTED;
	}
}

/* at_limit: whether finish says the answer stopped at the token limit on protocol proto:
 * chat completions' finish_reason "length" (platform.openai.com/docs/api-reference/chat/
 * object), the Messages API's stop_reason "max_tokens" (docs.anthropic.com/en/api/messages). */
static bool at_limit(enum provider_protocol proto, const char *finish)
{
	return finish && strcmp(finish, proto == PROTO_ANTHROPIC ? "max_tokens" : "length") == 0;
}

enum err llm_parse(const struct provider *p, const char *body, size_t len, struct llm_result **out,
		   char *why, size_t n)
{
	if (len > LLM_MAX_ANSWER_BYTES) {
		snprintf(why, n, "the answer is %zu bytes, more than the %u an answer may be; refused", len,
			 LLM_MAX_ANSWER_BYTES);
		return ERR_PARSE;
	}
	/* refused whole: a value must not lose what follows a NUL or hold bad bytes */
	if (!textcheck_answer(body, len, why, n))
		return ERR_PARSE;
	if (llm_stream_is_sse(body, len)) {
		enum err se = llm_stream_parse(p->info->protocol, body, len, out, why, n);
		if (se == ERR_OK)
			(*out)->at_limit = at_limit(p->info->protocol, (*out)->finish);
		return se;
	}
	cJSON *root = cJSON_ParseWithLength(body, len);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		snprintf(why, n, "the provider's answer is not JSON");
		return ERR_PARSE;
	}
	struct llm_result *r = calloc(1, sizeof(*r));
	enum err e = ERR_NOMEM;
	if (!r)
		goto out;
	r->tokens_in = r->tokens_out = -1;
	if (p->info->protocol == PROTO_ANTHROPIC)
		e = llm_anthropic_parse(root, r, why, n);
	else
		e = llm_openai_parse(root, r, why, n);
out:
	cJSON_Delete(root);
	if (e) {
		llm_result_free(r);
		return e;
	}
	r->at_limit = at_limit(p->info->protocol, r->finish);
	*out = r;
	return ERR_OK;
}

/* first_msg: the first string "msg" in a list of validation errors
 * ([{"loc","msg","type"}], FastAPI's shape), NULL if none. */
static const char *first_msg(const cJSON *list)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, list) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(it, "msg");
		if (cJSON_IsString(m))
			return m->valuestring;
	}
	return NULL;
}

/* error_message: the provider's own words in an error body, written to out (size n, ""
 * when there are none). Each shape is documented by its provider:
 * - {"error":{"message"}}: OpenAI (platform.openai.com/docs/guides/error-codes), Groq,
 *   OpenRouter, Anthropic's {"type":"error","error":{"type","message"}}
 *   (docs.anthropic.com/en/api/errors), Google's {"error":{"code","message","status"}}
 *   (cloud.google.com/apis/design/errors), Sarvam's {"error":{"message","code"}}
 *   (docs.sarvam.ai/api-reference-docs/errors-troubleshooting); {"error":"text"};
 *   Gemini's OpenAI-compatible endpoint wraps the object in an array;
 * - Deepgram: {"err_code","err_msg"} or {"category","message","details"}
 *   (developers.deepgram.com/docs/errors);
 * - ElevenLabs: {"detail":{"status","message"}} or, on a 422, {"detail":[{"loc","msg"}]}
 *   (elevenlabs-python's HTTPValidationError);
 * - Mistral: {"object":"error","message"}, where message may hold {"detail":[{"msg"}]}. */
static void error_message(const cJSON *root, char *out, size_t n)
{
	if (cJSON_IsArray(root))
		root = cJSON_GetArrayItem(root, 0);
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "message");
	const cJSON *detail = cJSON_GetObjectItemCaseSensitive(root, "detail");
	const cJSON *details = cJSON_GetObjectItemCaseSensitive(root, "details");
	const char *m = NULL;
	if (cJSON_IsString(err))
		m = err->valuestring;
	else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(err, "message")))
		m = cJSON_GetObjectItemCaseSensitive(err, "message")->valuestring;
	else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "err_msg")))
		m = cJSON_GetObjectItemCaseSensitive(root, "err_msg")->valuestring;
	else if (cJSON_IsString(msg))
		m = msg->valuestring;
	else if (cJSON_IsObject(msg))
		m = first_msg(cJSON_GetObjectItemCaseSensitive(msg, "detail"));
	else if (cJSON_IsString(detail))
		m = detail->valuestring;
	else if (cJSON_IsArray(detail))
		m = first_msg(detail);
	else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(detail, "message")))
		m = cJSON_GetObjectItemCaseSensitive(detail, "message")->valuestring;
	if (m && cJSON_IsString(details) && m == (cJSON_IsString(msg) ? msg->valuestring : NULL))
		snprintf(out, n, "%s (%s)", m, details->valuestring); /* Deepgram's details */
	else
		snprintf(out, n, "%s", m ? m : "");
}

bool llm_http_error(const struct provider *p, const struct http_result *res, char *why, size_t n)
{
	if (res->err != ERR_OK) {
		snprintf(why, n, "%s: %s", p->info->name, res->error);
		return true;
	}
	if (res->status >= 200 && res->status < 300)
		return false;
	if (res->status == 401 || res->status == 403) {
		snprintf(why, n, "%s: HTTP %ld: the key was refused (check %s)", p->info->name,
			 res->status, p->info->key_env ? p->info->key_env : "the server's settings");
		return true;
	}
	cJSON *root = cJSON_ParseWithLength(res->body, res->body_len);
	char buf[200]; /* cut here; the body was scrubbed whole when it arrived (secret.h) */
	error_message(root, buf, sizeof(buf));
	/* a result made without http.c (a replay, a test) was not: p's key at least goes */
	if (secret_add(p->key) == ERR_OK)
		secret_scrub_str(buf);
	cJSON_Delete(root);
	if (res->attempts > 1)
		snprintf(why, n, "%s: HTTP %ld after %d attempts%s%s", p->info->name, res->status,
			 res->attempts, buf[0] ? ": " : "", buf);
	else
		snprintf(why, n, "%s: HTTP %ld%s%s", p->info->name, res->status, buf[0] ? ": " : "", buf);
	return true;
}

void llm_usage_begin(struct backend_usage *u, const struct provider *p)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->provider, sizeof(u->provider), "%s", p->info->name);
	snprintf(u->model, sizeof(u->model), "%s", p->model);
	u->tokens_in = u->tokens_out = -1;
	u->cost_usd = -1;
	u->ack_ms = -1;
}

enum err llm_request_built(const struct provider *p, enum err e, struct backend_usage *u)
{
	if (e)
		snprintf(u->error, sizeof(u->error), "%s: could not build the request: %s",
			 p->info->name, err_str(e));
	return e;
}

void llm_usage_http(struct backend_usage *u, const struct http_result *res)
{
	u->ttfb_ms = res->ttfb_ms;
	u->total_ms = res->total_ms;
	u->attempts = res->attempts;
	u->http_status = res->status;
}

void llm_usage_tokens(struct backend_usage *u, const struct provider *p, const struct llm_result *r)
{
	u->tokens_in = r->tokens_in;
	u->tokens_out = r->tokens_out;
	if (p->usd_in_mtok > 0 || p->usd_out_mtok > 0)
		u->cost_usd = ((r->tokens_in > 0 ? (double)r->tokens_in : 0) * p->usd_in_mtok +
			       (r->tokens_out > 0 ? (double)r->tokens_out : 0) * p->usd_out_mtok) / 1e6;
}

enum err llm_response(const struct provider *p, const struct http_result *res,
		      struct llm_result **out, struct backend_usage *u)
{
	if (llm_http_error(p, res, u->error, sizeof(u->error)))
		return res->err == ERR_NOMEM ? ERR_NOMEM : ERR_BACKEND;
	struct llm_result *r = NULL;
	char why[200] = "";
	enum err e = llm_parse(p, res->body, res->body_len, &r, why, sizeof(why));
	if (e == ERR_NOMEM)
		return e;
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: %s", p->info->name, why);
		return ERR_BACKEND;
	}
	llm_usage_tokens(u, p, r);
	*out = r;
	return ERR_OK;
}

enum err llm_send(const struct provider *p, enum err built, struct http_req *hr,
		  struct http_result **res, struct backend_usage *u)
{
	llm_usage_begin(u, p);
	if (built) {
		snprintf(u->error, sizeof(u->error), "could not build the request: %s", err_str(built));
		return built;
	}
	enum err e = http_perform(hr, res);
	if (e)
		snprintf(u->error, sizeof(u->error), "%s: %s", p->info->name, err_str(e));
	return e;
}

void *llm_client_new(struct provider *p, const struct llm_stage *stage, size_t size)
{
	struct llm_client *c = calloc(1, size);
	if (!c) {
		provider_free(p);
		return NULL;
	}
	c->p = p;
	c->stage = stage;
	return c;
}

enum err llm_ops_call(void *ctx, const void *req, void *out)
{
	struct llm_client *c = ctx;
	struct http_req *hr = NULL;
	struct http_result *res = NULL;
	c->used = true;
	enum err e = c->stage->request(c, req, &hr);
	if ((e = llm_send(c->p, e, hr, &res, &c->last)))
		return e;
	e = c->stage->response(c, req, res, out, &c->last);
	http_result_free(res);
	return e;
}

enum err llm_ops_start(void *ctx, const void *req, struct http_req **hr, struct backend_usage *u)
{
	const struct llm_client *c = ctx;
	llm_usage_begin(u, c->p);
	return llm_request_built(c->p, c->stage->request(c, req, hr), u);
}

enum err llm_ops_finish(void *ctx, const void *req, const struct http_result *res, void *out,
			struct backend_usage *u)
{
	const struct llm_client *c = ctx;
	return c->stage->response(c, req, res, out, u);
}

const struct backend_usage *llm_ops_usage(const void *ctx)
{
	const struct llm_client *c = ctx;
	return c->used ? &c->last : NULL;
}

const char *llm_ops_model(const void *ctx)
{
	const struct llm_client *c = ctx;
	return c->p->model;
}

void llm_ops_free(void *ctx)
{
	struct llm_client *c = ctx;
	if (!c)
		return;
	provider_free(c->p);
	free(c);
}

cJSON *llm_history(const cJSON *history, int turns)
{
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		return NULL;
	int n = cJSON_GetArraySize(history);
	for (int i = n - turns > 0 ? n - turns : 0; i < n; i++) {
		const cJSON *h = cJSON_GetArrayItem(history, i);
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(h, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(h, "content");
		if (!cJSON_IsString(role) || !cJSON_IsString(content))
			continue;
		cJSON *m = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, m);
		cJSON_AddStringToObject(m, "role", strcmp(role->valuestring, "agent") == 0 ? "assistant" : "user");
		cJSON_AddStringToObject(m, "content", content->valuestring);
	}
	return arr;
}

enum err llm_post_json(const struct provider *p, const char *path, const cJSON *body,
		       const char *const *names, const char *const *values, size_t n,
		       struct http_req **out)
{
	struct http_req *req = NULL;
	char *text = cJSON_PrintUnformatted(body);
	enum err e = ERR_NOMEM;
	if (!text)
		goto out;
	char url[1024];
	snprintf(url, sizeof(url), "%s%s", p->base_url, path);
	if ((e = http_req_new("POST", url, &req)) != ERR_OK)
		goto out;
	for (size_t i = 0; i < n; i++)
		if ((e = http_req_header(req, names[i], values[i])) != ERR_OK)
			goto out;
	if ((e = http_req_body(req, text, strlen(text), "application/json")) != ERR_OK)
		goto out;
	*out = req;
	req = NULL;
	e = ERR_OK;
out:
	http_req_free(req);
	cJSON_free(text);
	return e;
}

enum err llm_run(const struct provider *p, const struct llm_call *c, struct llm_result **out,
		 struct backend_usage *u)
{
	struct backend_usage local;
	if (!u)
		u = &local;
	llm_usage_begin(u, p);
	struct http_req *req = NULL;
	struct http_result *res = NULL;
	struct llm_result *r = NULL;
	enum err e = llm_build(p, c, &req);
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: could not build the request: %s",
			 p->info->name, err_str(e));
		goto out;
	}
	http_req_limits(req, p->timeout_ms, p->retries, 0);
	e = http_perform(req, &res);
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: %s", p->info->name, err_str(e));
		goto out;
	}
	llm_usage_http(u, res);
	if (llm_http_error(p, res, u->error, sizeof(u->error))) {
		e = res->err == ERR_NOMEM ? ERR_NOMEM : ERR_BACKEND;
		goto out;
	}
	char why[200] = "";
	e = llm_parse(p, res->body, res->body_len, &r, why, sizeof(why));
	if (e) {
		snprintf(u->error, sizeof(u->error), "%s: %s", p->info->name, why);
		goto out;
	}
	llm_usage_tokens(u, p, r);
	*out = r;
	r = NULL;
out:
	llm_result_free(r);
	http_result_free(res);
	return e;
}
