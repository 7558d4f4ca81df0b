#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract_llm.h"
#include "extract_rules.h"
#include "http.h"
#include "judge_llm.h"
#include "provider.h"
#include "reply_llm.h"
#include "reply_script.h"
#include "stt_cloud.h"
#include "stt_reference.h"
#include "tts.h"
#include "tts_cloud.h"
#include "tts_espeak.h"

/* The offline backends' constructors (model: what follows "NAME:", NULL when nothing;
 * NULL constructor: no ctx) and the network backends' on a resolved provider (taken
 * over, also on failure); why (size n) says what failed. */
static enum err rules_new(const char *model, void **ctx, char *why, size_t n)
{
	(void)model, (void)why, (void)n;
	return extract_rules_new((struct extract_rules **)ctx);
}

static enum err espeak_new(const char *voice, void **ctx, char *why, size_t n)
{
	const char *w = NULL;
	enum err e = tts_espeak_open(voice, &w);
	(void)ctx; /* espeak-ng keeps one global state: no ctx */
	if (e)
		snprintf(why, n, "%s", w ? w : err_str(e));
	return e;
}

static enum err stt_net_new(struct provider *p, void **ctx, char *why, size_t n)
{
	return stt_cloud_new(p, (struct stt_cloud **)ctx, why, n);
}

static enum err tts_net_new(struct provider *p, void **ctx, char *why, size_t n)
{
	return tts_cloud_new(p, (struct tts_cloud **)ctx, why, n);
}

static enum err extract_net_new(struct provider *p, void **ctx, char *why, size_t n)
{
	(void)why, (void)n;
	return extract_llm_new(p, (struct extract_llm **)ctx);
}

static enum err reply_net_new(struct provider *p, void **ctx, char *why, size_t n)
{
	(void)why, (void)n;
	return reply_llm_new(p, (struct reply_llm **)ctx);
}

static enum err judge_net_new(struct provider *p, void **ctx, char *why, size_t n)
{
	(void)why, (void)n;
	return judge_llm_client_new(p, (struct judge_llm_client **)ctx);
}

/* An offline backend: its name, ops and constructor; whole: no ":MODEL" after it. */
struct offline {
	const char *name;
	const struct backend_ops *ops;
	enum err (*new)(const char *model, void **ctx, char *why, size_t n);
	bool whole;
};

/* One table per stage: its offline backends, then (net_ops set) one row per provider of
 * kind in the provider registry (provider.h), all served by net_ops. */
static const struct stage {
	const char *label;
	struct offline offline[2];
	enum provider_kind kind;
	const struct backend_ops *net_ops;
	enum err (*net_new)(struct provider *p, void **ctx, char *why, size_t n);
} stages[BACKEND_STAGES] = {
	[BACKEND_STT] = {"STT", {{"reference", &stt_reference_ops}}, PROVIDER_STT, &stt_cloud_ops,
			 stt_net_new},
	[BACKEND_EXTRACT] = {"EXTRACT", {{"rules", &extract_rules_ops, rules_new}}, PROVIDER_LLM,
			     &extract_llm_ops, extract_net_new},
	[BACKEND_REPLY] = {"REPLY", {{"script", &reply_script_ops}}, PROVIDER_LLM, &reply_llm_ops,
			   reply_net_new},
	[BACKEND_TTS] = {"TTS", {{"espeak", &tts_espeak_ops, espeak_new},
				 {"none", &tts_none_ops, NULL, true}},
			 PROVIDER_TTS, &tts_cloud_ops, tts_net_new},
	[BACKEND_JUDGE] = {"JUDGE", {{NULL}}, PROVIDER_LLM, &judge_llm_ops, judge_net_new},
};

#define N_OFFLINE (sizeof(stages[0].offline) / sizeof(stages[0].offline[0]))

/* Every instance made, so that backend_cleanup can free its ctx (never searched). */
struct made {
	struct backend b;
	struct made *next;
};

static struct made *made;
static char why_buf[256];

/* provider part of "PROVIDER[:MODEL]" equals name */
static int provider_is(const char *spec, const char *name)
{
	size_t n = strlen(name);
	return strncmp(spec, name, n) == 0 && (spec[n] == '\0' || spec[n] == ':');
}

const char *backend_stage_name(enum backend_stage stage)
{
	return stage >= 0 && stage < BACKEND_STAGES ? stages[stage].label : "?";
}

const char *backend_default(enum backend_stage stage)
{
	return stages[stage].offline[0].name;
}

const char *backend_known(enum backend_stage stage, char *buf, size_t n)
{
	const struct stage *st = &stages[stage];
	size_t len = 0;
	int np = 0;
	const struct provider_info *t = st->net_ops ? provider_table(st->kind, &np) : NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < N_OFFLINE && st->offline[i].name && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
					st->offline[i].name);
	for (int i = 0; i < np && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", t[i].name);
	return buf;
}

/* offline_of: the offline backend spec names, NULL when none. */
static const struct offline *offline_of(const struct stage *st, const char *spec)
{
	for (size_t i = 0; i < N_OFFLINE && st->offline[i].name; i++) {
		const struct offline *o = &st->offline[i];
		if (provider_is(spec, o->name) && !(o->whole && spec[strlen(o->name)] == ':'))
			return o;
	}
	return NULL;
}

/* unknown: the error for a provider the stage's table does not have. */
static enum err unknown(enum backend_stage stage, const char *spec)
{
	char known[200];
	snprintf(why_buf, sizeof(why_buf), "unknown %s provider \"%.40s\" (known: %s)",
		 stages[stage].label, spec, backend_known(stage, known, sizeof(known)));
	return ERR_NOTFOUND;
}

/* keep: b (ctx taken over) goes on the list of instances to free at cleanup. */
static enum err keep(struct backend *b)
{
	struct made *m = malloc(sizeof(*m));
	if (!m) {
		if (b->ops->free)
			b->ops->free(b->ctx);
		return ERR_NOMEM;
	}
	*m = (struct made){*b, made};
	made = m;
	return ERR_OK;
}

static enum err lookup(enum backend_stage stage, const char *spec, struct backend *out,
		       const char **why)
{
	const struct stage *st = &stages[stage];
	const struct offline *o = offline_of(st, spec);
	struct backend b = {0};
	struct provider *p = NULL;
	enum err e;

	if (why)
		*why = why_buf;
	why_buf[0] = '\0';
	if (o) {
		const char *colon = strchr(spec, ':');
		b = (struct backend){o->name, o->ops, NULL};
		if (o->new && (e = o->new(colon && colon[1] ? colon + 1 : NULL, &b.ctx, why_buf,
					  sizeof(why_buf))) != ERR_OK)
			return e;
	} else if (!st->net_ops) {
		return unknown(stage, spec);
	} else {
		e = provider_resolve(spec, st->kind, &p, why_buf, sizeof(why_buf));
		if (e) {
			if (e == ERR_NOTFOUND && !provider_find(spec, st->kind) && !strchr(spec, ':'))
				unknown(stage, spec);
			return e;
		}
		b = (struct backend){p->info->name, st->net_ops, NULL};
		if ((e = st->net_new(p, &b.ctx, why_buf, sizeof(why_buf))) != ERR_OK)
			return e;
	}
	if (b.ctx && (e = keep(&b)) != ERR_OK)
		return e;
	*out = b;
	return ERR_OK;
}

enum err backend_stt(const char *spec, struct backend *out, const char **why)
{
	return lookup(BACKEND_STT, spec, out, why);
}

enum err backend_extract(const char *spec, struct backend *out, const char **why)
{
	return lookup(BACKEND_EXTRACT, spec, out, why);
}

enum err backend_reply(const char *spec, struct backend *out, const char **why)
{
	return lookup(BACKEND_REPLY, spec, out, why);
}

enum err backend_judge(const char *spec, struct backend *out, const char **why)
{
	return lookup(BACKEND_JUDGE, spec, out, why);
}

enum err backend_tts(const char *spec, struct backend *out, const char **why)
{
	return lookup(BACKEND_TTS, spec && *spec ? spec : TTS_DEFAULT, out, why);
}

const char *backend_tts_voice(const struct backend *b, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "%s", b->name ? b->name : "?");
	if (b->ops && b->ops->voice && len + 1 < n) {
		buf[len++] = '|';
		b->ops->voice(b->ctx, buf + len, n - len);
	}
	return buf;
}

enum err backend_call(const struct backend *b, const void *req, void *out)
{
	if (!b->ops || !b->ops->call)
		return ERR_UNSUPPORTED;
	return b->ops->call(b->ctx, req, out);
}

static enum err typed_call(const struct backend *b, enum backend_stage stage, const void *req,
			   void *out)
{
	if (b->ops && b->ops->stage != stage)
		return ERR_INVALID;
	return backend_call(b, req, out);
}

enum err backend_transcribe(const struct backend *b, const struct stt_request *req, char **text)
{
	return typed_call(b, BACKEND_STT, req, text);
}

enum err backend_extract_fields(const struct backend *b, const struct extract_request *req,
				struct extraction **out)
{
	return typed_call(b, BACKEND_EXTRACT, req, out);
}

enum err backend_say(const struct backend *b, const struct reply_request *req, char **text)
{
	return typed_call(b, BACKEND_REPLY, req, text);
}

enum err backend_speak(const struct backend *b, const char *text, struct tts_audio *out)
{
	return typed_call(b, BACKEND_TTS, text, out);
}

enum err backend_ask_judge(const struct backend *b, const struct judge_llm_item *item,
			   struct judge_answer *out)
{
	return typed_call(b, BACKEND_JUDGE, item, out);
}

const char *backend_model(const struct backend *b)
{
	return b->ops && b->ops->model ? b->ops->model(b->ctx) : NULL;
}

enum err backend_speak_stream(const struct backend *b, const char *text, backend_piece_fn fn,
			      void *ud, struct tts_audio *out)
{
	if (b->ops && b->ops->stage != BACKEND_TTS)
		return ERR_INVALID;
	if (!backend_streams(b)) {
		enum err e = backend_speak(b, text, out);
		if (!e && fn && out->n)
			fn(ud, out->samples, out->n, out->rate, 0);
		return e;
	}
	return b->ops->stream(b->ctx, text, fn, ud, out);
}

struct backend_speech {
	const struct backend_ops *ops;
	void *ctx;
	void *job;
	backend_piece_fn fn;
	backend_spoken_fn done;
	void *ud;
	bool ended, started; /* done came; speak_start has returned */
};

static void speech_piece(void *ud, const float *samples, size_t n, int rate, double at_ms)
{
	struct backend_speech *s = ud;
	s->fn(s->ud, samples, n, rate, at_ms);
}

/* spoken: the request of backend_speech s ended: tell its owner; s is freed here unless
 * speak_start has not returned yet (then backend_speak_start frees it). */
static void spoken(void *ud, enum err e)
{
	struct backend_speech *s = ud;
	backend_spoken_fn done = s->done;
	void *owner = s->ud;
	s->ended = true;
	if (s->started)
		free(s);
	done(owner, e);
}

enum err backend_speak_start(const struct backend *b, struct http_client *c, const char *text,
			     backend_piece_fn fn, backend_spoken_fn done, void *ud,
			     struct backend_speech **out)
{
	if (!b->ops || b->ops->stage != BACKEND_TTS)
		return ERR_INVALID;
	*out = NULL;
	if (!b->ops->speak_start) { /* offline: made at once, no network to wait for */
		struct tts_audio a = {0};
		enum err e = backend_speak_stream(b, text, fn, ud, &a);
		free(a.samples);
		if (e)
			return e;
		done(ud, ERR_OK);
		return ERR_OK;
	}
	struct backend_speech *s = calloc(1, sizeof(*s));
	if (!s)
		return ERR_NOMEM;
	*s = (struct backend_speech){.ops = b->ops, .ctx = b->ctx, .fn = fn, .done = done, .ud = ud};
	enum err e = b->ops->speak_start(b->ctx, c, text, speech_piece, spoken, s, &s->job);
	if (e || s->ended) {
		free(s);
		return e;
	}
	s->started = true;
	*out = s;
	return ERR_OK;
}

int backend_speech_fd(const struct backend_speech *s)
{
	return s && s->ops->speak_fd ? s->ops->speak_fd(s->ctx, s->job) : -1;
}

void backend_speech_pump(struct backend_speech *s)
{
	if (s && s->ops->speak_pump)
		s->ops->speak_pump(s->ctx, s->job);
}

void backend_speak_cancel(struct backend_speech *s)
{
	if (!s)
		return;
	s->ops->speak_cancel(s->ctx, s->job);
	free(s);
}

bool backend_streams(const struct backend *b)
{
	return b->ops && b->ops->stream;
}

enum err backend_start(const struct backend *b, const void *req, struct http_req **hr,
		       struct backend_usage *u)
{
	if (!backend_is_network(b))
		return ERR_UNSUPPORTED;
	return b->ops->start(b->ctx, req, hr, u);
}

enum err backend_finish(const struct backend *b, const void *req, const struct http_result *res,
			void *out, struct backend_usage *u)
{
	if (!backend_is_network(b) || !b->ops->finish)
		return ERR_UNSUPPORTED;
	return b->ops->finish(b->ctx, req, res, out, u);
}

bool backend_ack(const struct backend *b, const struct http_xfer *x, char **text)
{
	return x && b->ops && b->ops->ack && b->ops->ack(x, text);
}

bool backend_sentence(const struct backend *b, const struct http_xfer *x, char **text)
{
	return x && b->ops && b->ops->sentence && b->ops->sentence(x, text);
}

bool backend_last_usage(const struct backend *b, struct backend_usage *out)
{
	const struct backend_usage *u = b->ops && b->ops->usage ? b->ops->usage(b->ctx) : NULL;
	if (!u)
		return false;
	*out = *u;
	return true;
}

bool backend_is_network(const struct backend *b)
{
	return b->ops && b->ops->start;
}

void backend_cleanup(void)
{
	while (made) {
		struct made *m = made;
		made = m->next;
		if (m->b.ops->free)
			m->b.ops->free(m->b.ctx);
		free(m);
	}
	http_shared_free();
	provider_config_free();
}
