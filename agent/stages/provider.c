#include "provider.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "base/file.h"
#include "http.h"
#include "provider_stt.h"
#include "secret.h"
#include "tts_provider.h"

/* Base URLs, models and key variables: each provider's API reference (OpenAI
 * platform.openai.com/docs/api-reference; OpenRouter openrouter.ai/docs/api-reference;
 * Gemini ai.google.dev/gemini-api/docs/openai; Mistral docs.mistral.ai/api; Groq
 * console.groq.com/docs/openai; Anthropic docs.anthropic.com/en/api/messages). Default
 * models follow the FormBharo paper's choices where it made one (Gemini 3.5 Flash via
 * OpenRouter, GPT-5.4-mini). The speech-to-text providers are in provider_stt.c. */
#define LLM(n, proto, m, base, benv, kenv)                                                    \
	{.name = (n), .kind = PROVIDER_LLM, .protocol = (proto), .model = (m), .base_url = (base), \
	 .base_env = (benv), .key_env = (kenv)}
static const struct provider_info table[] = {
	LLM("openai", PROTO_OPENAI_CHAT, "gpt-5.4-mini", "https://api.openai.com/v1",
	    "OPENAI_BASE_URL", "OPENAI_API_KEY"),
	LLM("openrouter", PROTO_OPENAI_CHAT, "google/gemini-3.5-flash", "https://openrouter.ai/api/v1",
	    "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY"),
	LLM("gemini", PROTO_OPENAI_CHAT, "gemini-3.5-flash",
	    "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_BASE_URL",
	    "GEMINI_API_KEY"),
	LLM("mistral", PROTO_OPENAI_CHAT, "mistral-medium-latest", "https://api.mistral.ai/v1",
	    "MISTRAL_BASE_URL", "MISTRAL_API_KEY"),
	LLM("groq", PROTO_OPENAI_CHAT, "llama-3.3-70b-versatile", "https://api.groq.com/openai/v1",
	    "GROQ_BASE_URL", "GROQ_API_KEY"),
	LLM("anthropic", PROTO_ANTHROPIC, "claude-haiku-4-5", "https://api.anthropic.com",
	    "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
	/* an OpenAI-compatible server on this machine (llama.cpp's server, vLLM, Ollama) */
	LLM("local", PROTO_OPENAI_CHAT, "local", "http://127.0.0.1:8080/v1", "LOCAL_BASE_URL", NULL),
};

static cJSON *config;          /* the loaded config file, NULL when none */
static char *config_path;
static bool config_tried;

const struct provider_info *provider_table(enum provider_kind kind, int *n)
{
	if (kind == PROVIDER_STT)
		return provider_stt_table(n);
	if (kind == PROVIDER_TTS)
		return tts_provider_table(n);
	*n = (int)(sizeof(table) / sizeof(table[0]));
	return table;
}

const struct provider_info *provider_find(const char *name, enum provider_kind kind)
{
	int n;
	const struct provider_info *t = provider_table(kind, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

/* A key in the config file is refused: keys come from the environment only. */
static bool has_key_member(const cJSON *o)
{
	static const char *const names[] = {"key", "api_key", "apikey", "token", "secret"};
	const cJSON *m;
	cJSON_ArrayForEach(m, o) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (m->string && strcasecmp(m->string, names[i]) == 0)
				return true;
		if (cJSON_IsObject(m) && has_key_member(m))
			return true;
	}
	return false;
}

/* What a config member must be: a string, true/false, or a number in [lo, hi] (whole
 * when whole). */
struct conf_rule {
	const char *key;
	char kind; /* 's' string, 'b' boolean, 'n' number */
	double lo, hi;
	bool whole;
};

static const struct conf_rule provider_rules[] = {
	{"base_url", 's', 0, 0, false}, {"model", 's', 0, 0, false},
	{"project", 's', 0, 0, false}, {"location", 's', 0, 0, false},
	{"structured", 's', 0, 0, false}, {"reasoning", 'b', 0, 0, false},
	{"stream", 'b', 0, 0, false}, {"timeout_ms", 'n', 1, 3600000, true},
	{"retries", 'n', 0, 100, true}, {"usd_per_million_input_tokens", 'n', 0, 1e9, false},
	{"usd_per_million_output_tokens", 'n', 0, 1e9, false},
	{"usd_per_audio_minute", 'n', 0, 1e9, false},
};

/* What a "tts" entry may set (tts_provider.h). */
static const struct conf_rule tts_rules[] = {
	{"base_url", 's', 0, 0, false}, {"model", 's', 0, 0, false}, {"voice", 's', 0, 0, false},
	{"sample_rate", 'n', 8000, 48000, true}, {"timeout_ms", 'n', 1, 3600000, true},
	{"retries", 'n', 0, 100, true}, {"usd_per_million_characters", 'n', 0, 1e9, false},
};

static const struct conf_rule stage_rules[] = {
	{"reasoning_effort", 's', 0, 0, false}, {"history_turns", 'n', 0, 1000000, true},
};

/* "deadlines": milliseconds, 0 for none (a day at the most). */
static const struct conf_rule deadline_rules[] = {
	{"turn_ms", 'n', 0, 86400000, true}, {"call_ms", 'n', 0, 86400000, true},
};

/* Whether the members of o named in rules have their kind; else bad (size n) names the
 * first that does not, as PREFIX.KEY. */
static bool rules_ok(const cJSON *o, const char *prefix, const struct conf_rule *rules,
		     size_t n_rules, char *bad, size_t n)
{
	for (size_t i = 0; i < n_rules; i++) {
		const struct conf_rule *r = &rules[i];
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, r->key);
		if (!v)
			continue;
		if (r->kind == 's' && !cJSON_IsString(v)) {
			snprintf(bad, n, "%s.%s must be a string", prefix, r->key);
			return false;
		}
		if (r->kind == 'b' && !cJSON_IsBool(v)) {
			snprintf(bad, n, "%s.%s must be true or false", prefix, r->key);
			return false;
		}
		if (r->kind == 'n' && (!cJSON_IsNumber(v) || !(v->valuedouble >= r->lo &&
							     v->valuedouble <= r->hi) ||
				       (r->whole && v->valuedouble != floor(v->valuedouble)))) {
			snprintf(bad, n, "%s.%s must be a %s from %.15g to %.15g", prefix, r->key,
				 r->whole ? "whole number" : "number", r->lo, r->hi);
			return false;
		}
	}
	return true;
}

/* Whether every setting the config file gives has the type and range it must have;
 * else bad (size n) says which does not. */
static bool config_types_ok(const cJSON *root, char *bad, size_t n)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "providers")) {
		char prefix[120];
		snprintf(prefix, sizeof(prefix), "providers.%.80s", m->string);
		if (!provider_find(m->string, PROVIDER_LLM) && !provider_find(m->string, PROVIDER_STT)) {
			snprintf(bad, n, "%s: no such provider", prefix);
			return false;
		}
		if (!cJSON_IsObject(m)) {
			snprintf(bad, n, "%s must be an object", prefix);
			return false;
		}
		if (!rules_ok(m, prefix, provider_rules, sizeof(provider_rules) / sizeof(provider_rules[0]),
			      bad, n))
			return false;
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "tts")) {
		char prefix[120];
		snprintf(prefix, sizeof(prefix), "tts.%.80s", m->string);
		if (!provider_find(m->string, PROVIDER_TTS)) {
			snprintf(bad, n, "%s: no such TTS provider", prefix);
			return false;
		}
		if (!cJSON_IsObject(m)) {
			snprintf(bad, n, "%s must be an object", prefix);
			return false;
		}
		if (!rules_ok(m, prefix, tts_rules, sizeof(tts_rules) / sizeof(tts_rules[0]), bad, n))
			return false;
	}
	static const char *const stages[] = {"extract", "reply"};
	for (size_t i = 0; i < 2; i++) {
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, stages[i]);
		if (!st)
			continue;
		if (!cJSON_IsObject(st)) {
			snprintf(bad, n, "%s must be an object", stages[i]);
			return false;
		}
		if (!rules_ok(st, stages[i], stage_rules, sizeof(stage_rules) / sizeof(stage_rules[0]),
			      bad, n))
			return false;
	}
	const cJSON *dl = cJSON_GetObjectItemCaseSensitive(root, "deadlines");
	if (dl && !cJSON_IsObject(dl)) {
		snprintf(bad, n, "deadlines must be an object");
		return false;
	}
	if (dl && !rules_ok(dl, "deadlines", deadline_rules,
			    sizeof(deadline_rules) / sizeof(deadline_rules[0]), bad, n))
		return false;
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "judge");
	if (j && !cJSON_IsString(j) &&
	    !(cJSON_IsObject(j) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "spec")))) {
		snprintf(bad, n, "judge must be a string \"PROVIDER[:MODEL]\" or {\"spec\": \"...\"}");
		return false;
	}
	return true;
}

enum err provider_config_load(const char *path, char *why, size_t n)
{
	char dummy[8];
	if (!why) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	bool explicit_path = path != NULL;
	if (!path)
		path = getenv("FORMDESK_CONFIG");
	if (path && !*path)
		path = NULL;
	if (path)
		explicit_path = true;
	else
		path = "formdesk.json";
	provider_config_free();
	config_tried = true;

	char *text = NULL;
	enum err e = file_read(path, &text, NULL);
	if (e != ERR_OK) {
		if (e == ERR_IO && !explicit_path && errno == ENOENT)
			return ERR_OK; /* no default file: built-in settings */
		snprintf(why, n, "%s: %s", path, e == ERR_IO ? strerror(errno) : err_str(e));
		return e;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &end, true);
	if (!root) {
		int line = 1;
		for (const char *p = text; end && p < end && *p; p++)
			line += *p == '\n';
		free(text);
		snprintf(why, n, "%s: line %d: not valid JSON", path, line);
		return ERR_PARSE;
	}
	free(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		snprintf(why, n, "%s: not a JSON object", path);
		return ERR_PARSE;
	}
	if (has_key_member(root)) {
		cJSON_Delete(root);
		snprintf(why, n, "%s: keys are read from the environment only, not from the config file",
			 path);
		return ERR_INVALID;
	}
	static const char *const tables[] = {"providers", "tts"};
	for (size_t i = 0; i < 2; i++) {
		const cJSON *prov = cJSON_GetObjectItemCaseSensitive(root, tables[i]);
		if (prov && !cJSON_IsObject(prov)) {
			cJSON_Delete(root);
			snprintf(why, n, "%s: \"%s\" must be an object", path, tables[i]);
			return ERR_INVALID;
		}
	}
	char bad[200];
	if (!config_types_ok(root, bad, sizeof(bad))) {
		cJSON_Delete(root);
		snprintf(why, n, "%s: %s", path, bad);
		return ERR_INVALID;
	}
	config_path = strdup(path);
	if (!config_path) {
		cJSON_Delete(root);
		return ERR_NOMEM;
	}
	config = root;
	return ERR_OK;
}

void provider_config_free(void)
{
	cJSON_Delete(config);
	config = NULL;
	free(config_path);
	config_path = NULL;
	config_tried = false;
}

const char *provider_config_path(void)
{
	return config_path;
}

static const cJSON *section(const char *a, const char *b)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(config, a);
	return b ? cJSON_GetObjectItemCaseSensitive(s, b) : s;
}

bool provider_configured(const char *name)
{
	if (!config_tried)
		provider_config_load(NULL, NULL, 0);
	return cJSON_IsObject(section("providers", name));
}

/* The config entry of a provider of kind: "tts" for text-to-speech, else "providers". */
static const cJSON *entry(const char *name, enum provider_kind kind)
{
	return section(kind == PROVIDER_TTS ? "tts" : "providers", name);
}

bool provider_info_configured(const struct provider_info *info)
{
	if (!config_tried)
		provider_config_load(NULL, NULL, 0);
	return cJSON_IsObject(entry(info->name, info->kind));
}

static const char *conf_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

const char *provider_config_judge(void)
{
	if (!config_tried)
		provider_config_load(NULL, NULL, 0);
	const cJSON *j = section("judge", NULL);
	if (cJSON_IsString(j) && j->valuestring[0])
		return j->valuestring;
	return conf_str(j, "spec");
}

static bool conf_num(const cJSON *o, const char *k, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v))
		return false;
	*out = v->valuedouble;
	return true;
}

void provider_config_deadlines(long *turn_ms, long *call_ms)
{
	double v;
	if (!config_tried)
		provider_config_load(NULL, NULL, 0);
	/* whole numbers in [0, 86400000]: checked when the file was loaded */
	*turn_ms = conf_num(section("deadlines", NULL), "turn_ms", &v) ? (long)v
								       : PROVIDER_TURN_DEADLINE_MS;
	*call_ms = conf_num(section("deadlines", NULL), "call_ms", &v) ? (long)v
								       : PROVIDER_CALL_DEADLINE_MS;
}

void provider_free(struct provider *p)
{
	if (!p)
		return;
	if (p->key) {
		memset(p->key, 0, strlen(p->key));
		free(p->key);
	}
	free(p->model);
	free(p->base_url);
	free(p->project);
	free(p->location);
	free(p->extract_effort);
	free(p->reply_effort);
	free(p->voice);
	free(p);
}

static char *dup_trim_slash(const char *s)
{
	char *d = strdup(s);
	if (d) {
		size_t n = strlen(d);
		while (n > 0 && d[n - 1] == '/')
			d[--n] = '\0';
	}
	return d;
}

enum err provider_resolve(const char *spec, enum provider_kind kind, struct provider **out,
			  char *why, size_t n)
{
	char dummy[8];
	if (!why) {
		why = dummy;
		n = sizeof(dummy);
	}
	why[0] = '\0';
	enum err e = ERR_OK;
	if (!config_tried && (e = provider_config_load(NULL, why, n)) != ERR_OK)
		return e;

	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	char name[64];
	if (nlen == 0 || nlen >= sizeof(name)) {
		snprintf(why, n, "no provider named in \"%.80s\"", spec);
		return ERR_NOTFOUND;
	}
	memcpy(name, spec, nlen);
	name[nlen] = '\0';
	const struct provider_info *info = provider_find(name, kind);
	if (!info) {
		snprintf(why, n, "unknown %s provider \"%s\"",
			 kind == PROVIDER_LLM ? "model" : kind == PROVIDER_STT ? "STT" : "TTS", name);
		return ERR_NOTFOUND;
	}
	const cJSON *pc = entry(name, kind);
	const char *key_env = info->key_env;
	const char *key = key_env ? getenv(key_env) : NULL;
	if (key_env && (!key || !*key)) {
		snprintf(why, n, "%s is not set (the %s key is read from the environment)", key_env, name);
		return ERR_NOTFOUND;
	}
	if (!key_env && getenv("LOCAL_API_KEY") && info->protocol == PROTO_OPENAI_CHAT)
		key = getenv("LOCAL_API_KEY");

	struct provider *p = calloc(1, sizeof(*p));
	if (!p)
		return ERR_NOMEM;
	p->info = info;
	const char *model = colon && colon[1] ? colon + 1 : conf_str(pc, "model");
	if (!model)
		model = info->model;
	const char *base = conf_str(pc, "base_url");
	if (!base && info->base_env && getenv(info->base_env) && *getenv(info->base_env))
		base = getenv(info->base_env);
	if (!base)
		base = info->base_url;
	p->model = strdup(model);
	p->base_url = dup_trim_slash(base);
	p->key = key && *key ? strdup(key) : NULL;
	/* from now on a provider that quotes the key back is scrubbed (secret.h) */
	bool kept = secret_add(p->key) == ERR_OK;
	double v;
	p->timeout_ms = conf_num(pc, "timeout_ms", &v) && v > 0 ? (long)v : 30000;
	p->retries = conf_num(pc, "retries", &v) && v >= 0 ? (int)v : 2;
	p->usd_in_mtok = conf_num(pc, "usd_per_million_input_tokens", &v) ? v : 0;
	p->usd_out_mtok = conf_num(pc, "usd_per_million_output_tokens", &v) ? v : 0;
	p->usd_audio_min = conf_num(pc, "usd_per_audio_minute", &v) ? v : 0;
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(pc, "reasoning");
	p->reasoning = cJSON_IsBool(r) ? cJSON_IsTrue(r) : -1;
	const char *structured = conf_str(pc, "structured");
	p->use_tool = structured ? strcmp(structured, "tool") == 0 : info->protocol == PROTO_ANTHROPIC;
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(pc, "stream");
	p->stream = cJSON_IsBool(st) ? cJSON_IsTrue(st)
				     : info->protocol == PROTO_OPENAI_CHAT || info->protocol == PROTO_ANTHROPIC;
	const char *proj = conf_str(pc, "project");
	const char *loc = conf_str(pc, "location");
	p->project = proj ? strdup(proj) : NULL;
	p->location = strdup(loc ? loc : "us");
	/* the paper's pilot: reasoning effort medium for EXTRACT, low for REPLY; 200 turns */
	const char *ee = conf_str(section("extract", NULL), "reasoning_effort");
	const char *re = conf_str(section("reply", NULL), "reasoning_effort");
	p->extract_effort = strdup(ee ? ee : "medium");
	p->reply_effort = strdup(re ? re : "low");
	p->extract_history = conf_num(section("extract", NULL), "history_turns", &v) && v >= 0 ? (int)v : 200;
	p->reply_history = conf_num(section("reply", NULL), "history_turns", &v) && v >= 0 ? (int)v : 200;
	const char *voice = conf_str(pc, "voice");
	if (!voice)
		voice = info->voice;
	p->voice = voice ? strdup(voice) : NULL;
	p->rate = conf_num(pc, "sample_rate", &v) && !info->fixed_rate ? (int)v : info->rate;
	p->usd_mchar = conf_num(pc, "usd_per_million_characters", &v) ? v : 0;
	if (!p->model || !p->base_url || (key && *key && !p->key) || !kept || (proj && !p->project) ||
	    !p->location || !p->extract_effort || !p->reply_effort || (voice && !p->voice)) {
		provider_free(p);
		return ERR_NOMEM;
	}
	*out = p;
	return ERR_OK;
}

void provider_settings(const struct provider_info *info, char *model, size_t nm, char *base, size_t nb)
{
	if (!config_tried)
		provider_config_load(NULL, NULL, 0);
	const cJSON *pc = entry(info->name, info->kind);
	const char *m = conf_str(pc, "model");
	const char *b = conf_str(pc, "base_url");
	const char *env = info->base_env ? getenv(info->base_env) : NULL;
	if (!b && env && *env)
		b = env;
	snprintf(model, nm, "%s", m ? m : info->model);
	snprintf(base, nb, "%s", b ? b : info->base_url);
}

enum err provider_auth(struct http_req *r, const char *name, const char *prefix, const char *key)
{
	size_t n = strlen(prefix) + strlen(key) + 1;
	char *v = malloc(n);
	if (!v)
		return ERR_NOMEM;
	snprintf(v, n, "%s%s", prefix, key);
	enum err e = http_req_header(r, name, v);
	memset(v, 0, n);
	free(v);
	return e;
}

static bool has_prefix_ci(const char *s, const char *pre)
{
	return strncasecmp(s, pre, strlen(pre)) == 0;
}

bool provider_is_reasoning(const struct provider *p)
{
	if (p->reasoning >= 0)
		return p->reasoning == 1;
	const char *m = p->model;
	const char *slash = strrchr(m, '/');
	if (slash)
		m = slash + 1; /* OpenRouter's "vendor/model" */
	if (has_prefix_ci(m, "gpt-5") || has_prefix_ci(m, "o1") || has_prefix_ci(m, "o3") ||
	    has_prefix_ci(m, "o4") || has_prefix_ci(m, "gemini-2.5") || has_prefix_ci(m, "gemini-3") ||
	    has_prefix_ci(m, "magistral") || has_prefix_ci(m, "qwen3") || strcasestr(m, "deepseek-r1") ||
	    has_prefix_ci(m, "gpt-oss"))
		return true;
	return false;
}

const char *provider_language(const struct provider *p, const char *lang)
{
	static const struct { const char *iso1, *iso3; } iso3[] = {
		{"hi", "hin"}, {"en", "eng"}, {"mr", "mar"}, {"bn", "ben"}, {"ta", "tam"},
		{"te", "tel"}, {"kn", "kan"}, {"gu", "guj"}, {"pa", "pan"}, {"ml", "mal"},
		{"or", "ori"}, {"ur", "urd"},
	};
	static const struct { const char *iso1, *bcp; } bcp[] = {
		{"hi", "hi-IN"}, {"en", "en-IN"}, {"mr", "mr-IN"}, {"bn", "bn-IN"}, {"ta", "ta-IN"},
		{"te", "te-IN"}, {"kn", "kn-IN"}, {"gu", "gu-IN"}, {"pa", "pa-IN"}, {"ml", "ml-IN"},
		{"or", "od-IN"}, {"ur", "ur-IN"},
	};
	if (!lang || !*lang)
		lang = "hi";
	switch (p->info->lang) {
	case LANG_ISO639_3:
		for (size_t i = 0; i < sizeof(iso3) / sizeof(iso3[0]); i++)
			if (strcmp(lang, iso3[i].iso1) == 0)
				return iso3[i].iso3;
		return lang;
	case LANG_BCP47:
		for (size_t i = 0; i < sizeof(bcp) / sizeof(bcp[0]); i++)
			if (strcmp(lang, bcp[i].iso1) == 0)
				return bcp[i].bcp;
		return lang;
	default:
		return lang;
	}
}
