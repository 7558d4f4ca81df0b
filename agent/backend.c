#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract_llm.h"
#include "extract_rules.h"
#include "http.h"
#include "llm.h"
#include "provider.h"
#include "reply_llm.h"
#include "reply_script.h"
#include "stt_cloud.h"
#include "stt_reference.h"

/* Every network backend made, so that its ctx can be found (usage) and freed. */
enum net_kind { NET_STT, NET_EXTRACT, NET_REPLY };

struct net {
	enum net_kind kind;
	void *ctx;
	struct net *next;
};

static struct net *nets;
static char why_buf[256];

/* provider part of "PROVIDER[:MODEL]" equals name */
static int provider_is(const char *spec, const char *name)
{
	size_t n = strlen(name);
	return strncmp(spec, name, n) == 0 && (spec[n] == '\0' || spec[n] == ':');
}

static enum err keep(enum net_kind kind, void *ctx)
{
	struct net *n = malloc(sizeof(*n));
	if (!n)
		return ERR_NOMEM;
	*n = (struct net){kind, ctx, nets};
	nets = n;
	return ERR_OK;
}

static void free_ctx(enum net_kind kind, void *ctx)
{
	switch (kind) {
	case NET_STT:
		stt_cloud_free(ctx);
		break;
	case NET_EXTRACT:
		extract_llm_free(ctx);
		break;
	case NET_REPLY:
		reply_llm_free(ctx);
		break;
	}
}

static enum err fail(enum err e, const char **why)
{
	if (why)
		*why = why_buf;
	return e;
}

enum err backend_stt(const char *spec, struct stt_backend *out, const char **why)
{
	if (provider_is(spec, "reference")) {
		*out = (struct stt_backend){"reference", stt_reference_transcribe, NULL};
		return ERR_OK;
	}
	struct provider *p = NULL;
	enum err e = provider_resolve(spec, PROVIDER_STT, &p, why_buf, sizeof(why_buf));
	if (e) {
		if (e == ERR_NOTFOUND && !provider_find(spec, PROVIDER_STT) && !strchr(spec, ':'))
			snprintf(why_buf, sizeof(why_buf), "unknown STT provider \"%.40s\" (known: reference, "
				 "elevenlabs, sarvam, deepgram, openai, groq, google, whispercpp)", spec);
		return fail(e, why);
	}
	const char *name = p->info->name;
	struct stt_cloud *x = NULL;
	if ((e = stt_cloud_new(p, &x, why_buf, sizeof(why_buf))))
		return fail(e, why);
	if ((e = keep(NET_STT, x))) {
		stt_cloud_free(x);
		return e;
	}
	*out = (struct stt_backend){name, stt_cloud_transcribe, x};
	return ERR_OK;
}

enum err backend_extract(const char *spec, struct extract_backend *out, const char **why)
{
	if (provider_is(spec, "rules")) {
		*out = (struct extract_backend){"rules", extract_rules_extract, NULL};
		return ERR_OK;
	}
	struct provider *p = NULL;
	enum err e = provider_resolve(spec, PROVIDER_LLM, &p, why_buf, sizeof(why_buf));
	if (e) {
		if (e == ERR_NOTFOUND && !provider_find(spec, PROVIDER_LLM) && !strchr(spec, ':'))
			snprintf(why_buf, sizeof(why_buf), "unknown EXTRACT provider \"%.40s\" (known: rules, "
				 "openai, openrouter, gemini, mistral, groq, anthropic, local)", spec);
		return fail(e, why);
	}
	const char *name = p->info->name;
	struct extract_llm *x = NULL;
	if ((e = extract_llm_new(p, &x)))
		return e;
	if ((e = keep(NET_EXTRACT, x))) {
		extract_llm_free(x);
		return e;
	}
	*out = (struct extract_backend){name, extract_llm_extract, x};
	return ERR_OK;
}

enum err backend_reply(const char *spec, struct reply_backend *out, const char **why)
{
	if (provider_is(spec, "script")) {
		*out = (struct reply_backend){"script", reply_script_reply, NULL};
		return ERR_OK;
	}
	struct provider *p = NULL;
	enum err e = provider_resolve(spec, PROVIDER_LLM, &p, why_buf, sizeof(why_buf));
	if (e) {
		if (e == ERR_NOTFOUND && !provider_find(spec, PROVIDER_LLM) && !strchr(spec, ':'))
			snprintf(why_buf, sizeof(why_buf), "unknown REPLY provider \"%.40s\" (known: script, "
				 "openai, openrouter, gemini, mistral, groq, anthropic, local)", spec);
		return fail(e, why);
	}
	const char *name = p->info->name;
	struct reply_llm *x = NULL;
	if ((e = reply_llm_new(p, &x)))
		return e;
	if ((e = keep(NET_REPLY, x))) {
		reply_llm_free(x);
		return e;
	}
	*out = (struct reply_backend){name, reply_llm_reply, x};
	return ERR_OK;
}

bool backend_last_usage(const void *ctx, struct backend_usage *out)
{
	if (!ctx)
		return false;
	for (struct net *n = nets; n; n = n->next) {
		if (n->ctx != ctx)
			continue;
		const struct backend_usage *u = NULL;
		switch (n->kind) {
		case NET_STT:
			u = stt_cloud_usage(ctx);
			break;
		case NET_EXTRACT:
			u = extract_llm_usage(ctx);
			break;
		case NET_REPLY:
			u = reply_llm_usage(ctx);
			break;
		}
		if (!u)
			return false;
		*out = *u;
		return true;
	}
	return false;
}

/* The kind of network backend ctx is, or -1 when it is none of ours. */
static int net_kind_of(const void *ctx)
{
	if (!ctx)
		return -1;
	for (struct net *n = nets; n; n = n->next)
		if (n->ctx == ctx)
			return (int)n->kind;
	return -1;
}

bool backend_is_network(const void *ctx)
{
	return net_kind_of(ctx) >= 0;
}

enum err backend_stt_request(const struct stt_backend *b, const struct stt_request *req,
			     struct http_req **out, struct backend_usage *u)
{
	if (net_kind_of(b->ctx) != NET_STT)
		return ERR_UNSUPPORTED;
	stt_cloud_usage_begin(b->ctx, req, u);
	return stt_cloud_request(b->ctx, req, out, u);
}

enum err backend_stt_response(const struct stt_backend *b, const struct http_result *res,
			      char **text, struct backend_usage *u)
{
	if (net_kind_of(b->ctx) != NET_STT)
		return ERR_UNSUPPORTED;
	return stt_cloud_response(b->ctx, res, text, u);
}

enum err backend_extract_request(const struct extract_backend *b, const struct extract_request *req,
				 struct http_req **out, struct backend_usage *u)
{
	if (net_kind_of(b->ctx) != NET_EXTRACT)
		return ERR_UNSUPPORTED;
	const struct provider *p = extract_llm_provider(b->ctx);
	llm_usage_begin(u, p);
	enum err e = extract_llm_request(b->ctx, req, out);
	if (e)
		snprintf(u->error, sizeof(u->error), "%s: could not build the request: %s",
			 p->info->name, err_str(e));
	return e;
}

enum err backend_extract_response(const struct extract_backend *b,
				  const struct extract_request *req, const struct http_result *res,
				  struct extraction **out, struct backend_usage *u)
{
	if (net_kind_of(b->ctx) != NET_EXTRACT)
		return ERR_UNSUPPORTED;
	return extract_llm_response(b->ctx, req, res, out, u);
}

enum err backend_reply_request(const struct reply_backend *b, const struct reply_request *req,
			       struct http_req **out, struct backend_usage *u)
{
	if (net_kind_of(b->ctx) != NET_REPLY)
		return ERR_UNSUPPORTED;
	const struct provider *p = reply_llm_provider(b->ctx);
	llm_usage_begin(u, p);
	enum err e = reply_llm_request(b->ctx, req, out);
	if (e)
		snprintf(u->error, sizeof(u->error), "%s: could not build the request: %s",
			 p->info->name, err_str(e));
	return e;
}

enum err backend_reply_response(const struct reply_backend *b, const struct reply_request *req,
				const struct http_result *res, char **text,
				struct backend_usage *u)
{
	if (net_kind_of(b->ctx) != NET_REPLY)
		return ERR_UNSUPPORTED;
	return reply_llm_response(b->ctx, req, res, text, u);
}

bool backend_extract_ack(const struct http_xfer *x, char **text)
{
	return x && extract_llm_ack_ready(x, text);
}

void backend_cleanup(void)
{
	while (nets) {
		struct net *n = nets;
		nets = n->next;
		free_ctx(n->kind, n->ctx);
		free(n);
	}
	http_shared_free();
	provider_config_free();
}
