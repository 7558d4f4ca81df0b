/* persona: a persona caller on a language model (persona.h). */
#include "persona.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent/rules/decision.h"
#include "agent/stages/llm.h"
#include "agent/stages/provider.h"
#include "callers.h"
#include "sessions/corpus/corpus.h"
#include "runs.h"

struct persona {
	char *text;
	cJSON *root;
	const char *name, *who, *speaks, *patience, *mix;
	double temperature;
	int turn_limit;
	struct provider *prov;
	char *system;          /* the current call's instructions */
	cJSON *history;        /* the current call: agent words are "user", hers "assistant" */
	long requests, failed, tokens_in, tokens_out;
	double cost, latency;
	bool priced;
};

static int line_of(const char *text, const char *key)
{
	char quoted[64];
	const char *at;
	int line = 1;
	snprintf(quoted, sizeof quoted, "\"%s\"", key);
	if (!(at = strstr(text, quoted)))
		return 1;
	for (const char *x = text; x < at; x++)
		line += *x == '\n';
	return line;
}

static enum err bad(char **errmsg, const char *path, const char *text, const char *key,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static enum err bad(char **errmsg, const char *path, const char *text, const char *key,
		    const char *fmt, ...)
{
	va_list ap;
	char what[200];
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (errmsg && asprintf(errmsg, "%s:%d: field '%s': %s", path, line_of(text, key), key, what) < 0)
		*errmsg = NULL;
	return ERR_INVALID;
}

static const char *text_field(const cJSON *root, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

enum err persona_load(const char *path, struct persona **out, char **errmsg)
{
	struct persona *p = calloc(1, sizeof *p);
	static const char *const required[] = {"who", "speaks", "patience", "language_mix"};
	const char *end = NULL;
	const cJSON *v;
	enum err e = ERR_NOMEM;

	if (!p)
		return ERR_NOMEM;
	if (!(p->text = runs_read_file(path))) {
		if (errmsg && asprintf(errmsg, "%s: cannot be read", path) < 0)
			*errmsg = NULL;
		e = ERR_IO;
		goto out;
	}
	if (!(p->root = cJSON_ParseWithOpts(p->text, &end, 0)) || !cJSON_IsObject(p->root)) {
		int line = 1;
		for (const char *x = p->text; end && x < end && *x; x++)
			line += *x == '\n';
		if (errmsg && asprintf(errmsg, "%s:%d: not a JSON object", path, line) < 0)
			*errmsg = NULL;
		e = ERR_PARSE;
		goto out;
	}
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		if (!text_field(p->root, required[i])) {
			e = bad(errmsg, path, p->text, required[i], "must be a non-empty string");
			goto out;
		}
	p->who = text_field(p->root, "who");
	p->speaks = text_field(p->root, "speaks");
	p->patience = text_field(p->root, "patience");
	p->mix = text_field(p->root, "language_mix");
	p->name = text_field(p->root, "name");
	if (strcmp(p->patience, "low") && strcmp(p->patience, "medium") && strcmp(p->patience, "high")) {
		e = bad(errmsg, path, p->text, "patience", "must be low, medium or high, not '%s'",
			p->patience);
		goto out;
	}
	p->temperature = 0.7;
	if ((v = cJSON_GetObjectItemCaseSensitive(p->root, "temperature"))) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 2) {
			e = bad(errmsg, path, p->text, "temperature", "must be a number from 0 to 2");
			goto out;
		}
		p->temperature = v->valuedouble;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(p->root, "turn_limit"))) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1000 ||
		    v->valuedouble != (int)v->valuedouble) {
			e = bad(errmsg, path, p->text, "turn_limit", "must be a whole number from 1 to 1000");
			goto out;
		}
		p->turn_limit = (int)v->valuedouble;
	}
	*out = p;
	p = NULL;
	e = ERR_OK;
out:
	persona_free(p);
	return e;
}

void persona_free(struct persona *p)
{
	if (!p)
		return;
	provider_free(p->prov);
	cJSON_Delete(p->root);
	cJSON_Delete(p->history);
	free(p->system);
	free(p->text);
	free(p);
}

enum err persona_connect(struct persona *p, const char *spec, double temperature,
			 char **errmsg)
{
	char why[256] = "";
	enum err e = provider_resolve(spec, PROVIDER_LLM, &p->prov, why, sizeof why);
	if (e != ERR_OK) {
		if (errmsg && asprintf(errmsg, "%s", why[0] ? why : err_str(e)) < 0)
			*errmsg = NULL;
		return e;
	}
	if (temperature > 0)
		p->temperature = temperature;
	return ERR_OK;
}

int persona_turn_limit(const struct persona *p, int dflt)
{
	return p->turn_limit ? p->turn_limit : dflt;
}

void persona_begin(struct persona *p, const struct callers_profiles *prof,
		   const struct callers_call *call)
{
	const struct corpus_call *cc = callers_call_corpus(call);
	cJSON *known = cJSON_CreateObject();
	const cJSON *v;
	char *facts;
	/* what she will be asked on her path: a branch that does not open is left out */
	cJSON_ArrayForEach(v, cc->expected_data) {
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(cc->expected_status, v->string);
		if (known && !(cJSON_IsString(st) && strcmp(st->valuestring, "empty") == 0))
			cJSON_AddItemToObject(known, v->string, cJSON_Duplicate(v, true));
	}
	facts = known ? cJSON_PrintUnformatted(known) : NULL;
	cJSON_Delete(known);
	cJSON_Delete(p->history);
	p->history = cJSON_CreateArray();
	free(p->system);
	(void)prof;
	if (asprintf(&p->system,
		     "You are a woman receiving a phone call from a health programme's voice agent "
		     "that fills a form by asking questions. Play her; never say you are an AI.\n"
		     "Who you are: %s%s%s.\nHow you speak: %s.\nYour language mix: %s.\n"
		     "Your patience: %s.\n"
		     "Your true answers (null: you do not know or will not say; answer only what "
		     "is asked, in your own words, never as JSON): %s\n"
		     "Reply with only the words you say in this turn, one or two short sentences. "
		     "Say [silence] to stay silent.",
		     p->name ? p->name : "", p->name ? ", " : "", p->who, p->speaks, p->mix,
		     p->patience, facts ? facts : "{}") < 0)
		p->system = NULL;
	free(facts);
}

static bool add_message(cJSON *history, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();
	if (!m || !cJSON_AddStringToObject(m, "role", role) ||
	    !cJSON_AddStringToObject(m, "content", content) || !cJSON_AddItemToArray(history, m)) {
		cJSON_Delete(m);
		return false;
	}
	return true;
}

bool persona_next(void *ud, const struct decision *d, const char *said,
		  struct callers_turn *t, char *why, size_t n)
{
	struct persona *p = ud;
	struct llm_result *r = NULL;
	struct backend_usage u;
	enum err e;

	memset(t, 0, sizeof *t);
	t->field = d && d->tool == DECISION_ASK_QUESTION ? d->ask.field : NULL;
	if (!p->system || !p->history || !add_message(p->history, "user", said ? said : "")) {
		snprintf(why, n, "abandoned: caller model: out of memory");
		return false;
	}
	struct llm_call c = {.system = p->system, .messages = p->history, .max_tokens = 200,
			     .temperature = p->temperature};
	e = llm_run(p->prov, &c, &r, &u);
	p->requests++;
	p->latency += u.total_ms;
	if (u.cost_usd >= 0) {
		p->cost += u.cost_usd;
		p->priced = true;
	}
	if (u.tokens_in > 0)
		p->tokens_in += u.tokens_in;
	if (u.tokens_out > 0)
		p->tokens_out += u.tokens_out;
	if (e != ERR_OK || !r || !r->text) {
		p->failed++;
		snprintf(why, n, "abandoned: caller model: %s", u.error[0] ? u.error : err_str(e));
		llm_result_free(r);
		return false;
	}
	const char *words = r->text;
	while (*words == ' ' || *words == '\n')
		words++;
	if (!add_message(p->history, "assistant", words)) {
		llm_result_free(r);
		snprintf(why, n, "abandoned: caller model: out of memory");
		return false;
	}
	if (!*words || strstr(words, "[silence]")) {
		t->silence = true;
	} else {
		snprintf(t->text, sizeof t->text, "%s", words);
		t->n_pieces = 1;
		t->piece_len[0] = (int)strlen(t->text);
	}
	llm_result_free(r);
	return true;
}

bool persona_add_usage(const struct persona *p, cJSON *o)
{
	cJSON *u = cJSON_AddObjectToObject(o, "caller_model");
	return u && cJSON_AddStringToObject(u, "model", p->prov ? p->prov->model : "") &&
	       cJSON_AddNumberToObject(u, "requests", (double)p->requests) &&
	       cJSON_AddNumberToObject(u, "failed", (double)p->failed) &&
	       (p->priced ? cJSON_AddNumberToObject(u, "cost_usd", p->cost) != NULL
			  : cJSON_AddNullToObject(u, "cost_usd") != NULL) &&
	       cJSON_AddNumberToObject(u, "latency_ms_total", p->latency) &&
	       cJSON_AddNumberToObject(u, "latency_ms_mean",
				       p->requests ? p->latency / (double)p->requests : 0) &&
	       cJSON_AddNumberToObject(u, "tokens_in", (double)p->tokens_in) &&
	       cJSON_AddNumberToObject(u, "tokens_out", (double)p->tokens_out);
}

void persona_print_usage(const struct persona *p, FILE *f)
{
	fprintf(f, "\ncaller model %s (apart from the agent's): %ld requests, %ld failed, "
		   "latency %.0f ms mean, cost %s%.4f USD, tokens %ld in %ld out\n",
		p->prov ? p->prov->model : "?", p->requests, p->failed,
		p->requests ? p->latency / (double)p->requests : 0, p->priced ? "" : "unpriced ",
		p->priced ? p->cost : 0.0, p->tokens_in, p->tokens_out);
}
