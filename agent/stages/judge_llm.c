/* judge_llm: the benchmark's language-model judges (judge_llm.h). */
#include "judge_llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "llm.h"

struct judge_def {
	const char *name, *version, *schema_name;
	const char *system;
	const char *const verdicts[4]; /* NULL-terminated */
};

/* The texts of the prompt versions: change a version whenever its text changes. */
static const struct judge_def JUDGES[] = {
	[JUDGE_LLM_NAME] = {
		"name", JUDGE_LLM_NAME_VERSION, "name_verdict",
		"You check a voice agent that fills a form in Hindi. You are given the name a caller "
		"gave (the expected value) and the name the agent wrote down (the captured value). "
		"Names may be written in Devanagari or Latin letters, with the spelling variants "
		"Indian names are written with (Laxmi, Lakshmi, लक्ष्मी). Answer \"same\" if the "
		"captured value is the same name as the expected one, \"different\" if it is another "
		"name or misses or adds a word that matters, \"unsure\" if you cannot tell.",
		{"same", "different", "unsure", NULL},
	},
	[JUDGE_LLM_WER] = {
		"wer", JUDGE_LLM_WER_VERSION, "wer_verdict",
		"You check a speech-to-text system on Hindi phone calls. You are given the reference "
		"transcript of what a caller said, the system's transcript, and one place where the "
		"two differ: the reference's words there and the words the system wrote instead "
		"(either may be empty). Judge that difference only, in the context of the sentence. "
		"Answer \"equivalent\" if both mean the same here (the same word in another script "
		"or spelling, a number written in digits or in words, words split or joined "
		"differently, a filler that changes nothing), \"similar\" if the system's words are "
		"a phonetically similar spelling of what was said (the same sounds written "
		"differently), \"different\" if the system heard something else, or dropped or "
		"added words that change what the caller said.",
		{"equivalent", "similar", "different", NULL},
	},
	[JUDGE_LLM_ASKS] = {
		"asks", JUDGE_LLM_ASKS_VERSION, "asks_verdict",
		"You check the reply of a voice agent that fills a form by phone in Hindi. The "
		"agent's rules decided which question comes next; you are given that question in "
		"the form's own words, its short label, and the reply the agent spoke. Answer "
		"\"yes\" if the reply asks that question, in any wording, \"no\" if it asks another "
		"question, asks nothing, or leaves out what the question asks for.",
		{"yes", "no", NULL, NULL},
	},
};

const char *judge_llm_version(enum judge_llm_kind k)
{
	return JUDGES[k].version;
}

const char *judge_llm_kind_name(enum judge_llm_kind k)
{
	return JUDGES[k].name;
}

static const char *s0(const char *s)
{
	return s ? s : "";
}

char *judge_llm_key(const struct judge_llm_item *it)
{
	cJSON *a = cJSON_CreateArray();
	char *s = NULL;
	if (!a)
		return NULL;
	const char *parts[] = {JUDGES[it->kind].name, s0(it->a), s0(it->b), s0(it->ctx_a),
			       s0(it->ctx_b)};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(parts[i])))
			goto out;
	s = cJSON_PrintUnformatted(a);
out:
	cJSON_Delete(a);
	return s;
}

static cJSON *schema(enum judge_llm_kind k)
{
	cJSON *s = cJSON_CreateObject();
	cJSON *props = cJSON_AddObjectToObject(s, "properties");
	cJSON *v = cJSON_AddObjectToObject(props, "verdict");
	cJSON_AddStringToObject(v, "type", "string");
	cJSON *en = cJSON_AddArrayToObject(v, "enum");
	for (int i = 0; JUDGES[k].verdicts[i]; i++)
		cJSON_AddItemToArray(en, cJSON_CreateString(JUDGES[k].verdicts[i]));
	cJSON *req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("verdict"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	cJSON_AddStringToObject(s, "type", "object");
	if (!cJSON_GetArrayItem(req, 0) || !cJSON_GetObjectItem(s, "type")) {
		cJSON_Delete(s);
		return NULL;
	}
	return s;
}

/* user_text: the question as the user message. New string. */
static char *user_text(const struct judge_llm_item *it)
{
	char *t = NULL;
	int n = -1;
	switch (it->kind) {
	case JUDGE_LLM_NAME:
		n = asprintf(&t, "Expected: %s\nCaptured: %s", s0(it->a), s0(it->b));
		break;
	case JUDGE_LLM_WER:
		n = asprintf(&t, "Reference transcript: %s\nSystem transcript: %s\n"
			     "Reference words here: %s\nSystem words here: %s",
			     s0(it->ctx_a), s0(it->ctx_b), s0(it->a), s0(it->b));
		break;
	case JUDGE_LLM_ASKS:
		n = asprintf(&t, "Decided question: %s\nIts label: %s\nReply: %s", s0(it->a),
			     s0(it->ctx_a), s0(it->b));
		break;
	}
	return n < 0 ? NULL : t;
}

enum err judge_llm_request(const struct provider *p, const struct judge_llm_item *it,
			   struct http_req **out)
{
	enum err e = ERR_NOMEM;
	cJSON *msgs = cJSON_CreateArray(), *m = cJSON_CreateObject(), *sc = schema(it->kind);
	char *text = user_text(it);
	if (!msgs || !m || !sc || !text) {
		cJSON_Delete(m);
		goto out;
	}
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", text);
	cJSON_AddItemToArray(msgs, m);
	struct llm_call c = {
		.system = JUDGES[it->kind].system,
		.messages = msgs,
		.schema_name = JUDGES[it->kind].schema_name,
		.schema = sc,
		.effort = "low",
	};
	if ((e = llm_build(p, &c, out)) == ERR_OK)
		http_req_limits(*out, p->timeout_ms, p->retries, 0);
out:
	free(text);
	cJSON_Delete(msgs);
	cJSON_Delete(sc);
	return e;
}

enum err judge_llm_response(const struct provider *p, enum judge_llm_kind k,
			    const struct http_result *res, const char **verdict, char **raw,
			    struct backend_usage *u)
{
	struct backend_usage local;
	struct llm_result *r = NULL;
	cJSON *ans = NULL;
	enum err e;
	if (!u)
		u = &local;
	llm_usage_begin(u, p);
	llm_usage_http(u, res);
	if ((e = llm_response(p, res, &r, u)) != ERR_OK)
		goto out;
	const char *body = r->tool_args ? r->tool_args : r->text;
	ans = body ? cJSON_Parse(body) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ans, "verdict");
	*verdict = NULL;
	for (int i = 0; cJSON_IsString(v) && JUDGES[k].verdicts[i]; i++)
		if (strcmp(v->valuestring, JUDGES[k].verdicts[i]) == 0)
			*verdict = JUDGES[k].verdicts[i];
	if (!*verdict) {
		snprintf(u->error, sizeof u->error, "the model's answer is not a verdict: %.200s",
			 r->refusal ? r->refusal : body ? body : "(empty)");
		e = ERR_PARSE;
		goto out;
	}
	if (raw && !(*raw = body ? strdup(body) : NULL) && body) {
		e = ERR_NOMEM;
		goto out;
	}
	e = ERR_OK;
out:
	cJSON_Delete(ans);
	llm_result_free(r);
	return e;
}

bool judge_llm_forgives(enum judge_llm_kind k, const char *v)
{
	if (!v)
		return false;
	switch (k) {
	case JUDGE_LLM_NAME:
		return strcmp(v, "same") == 0;
	case JUDGE_LLM_WER:
		return strcmp(v, "equivalent") == 0 || strcmp(v, "similar") == 0;
	case JUDGE_LLM_ASKS:
		return strcmp(v, "yes") == 0;
	}
	return false;
}

/* ---- the backend (judge_llm.h) ---- */

static enum err judge_llm_client_request(const struct judge_llm_client *j, const void *req,
					 struct http_req **out);
static enum err judge_llm_client_response(const struct judge_llm_client *j, const void *req,
					  const struct http_result *res, void *out,
					  struct backend_usage *u);

LLM_STAGE_DEFINE(judge_llm_client)

static enum err judge_llm_client_request(const struct judge_llm_client *j, const void *req,
					 struct http_req **out)
{
	return judge_llm_request(j->c.p, req, out);
}

static enum err judge_llm_client_response(const struct judge_llm_client *j, const void *req,
					  const struct http_result *res, void *out,
					  struct backend_usage *u)
{
	const struct judge_llm_item *it = req;
	struct judge_answer *a = out, got = {NULL, NULL};
	enum err e = judge_llm_response(j->c.p, it->kind, res, &got.verdict, &got.raw, u);
	if (e == ERR_OK)
		*a = got;
	return e;
}

const struct backend_ops judge_llm_ops = {
	.stage = BACKEND_JUDGE,
	LLM_OPS,
	.model = llm_ops_model,
};
