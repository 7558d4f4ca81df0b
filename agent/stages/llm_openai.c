/* The OpenAI chat-completions protocol (POST {base}/chat/completions, Authorization:
 * Bearer KEY), as documented at platform.openai.com/docs/api-reference/chat/create and
 * served, with the same request and response, by OpenRouter (openrouter.ai/docs), Gemini
 * (ai.google.dev/gemini-api/docs/openai), Mistral (docs.mistral.ai/api), Groq
 * (console.groq.com/docs/openai) and local servers (llama.cpp, vLLM, Ollama).
 *
 * Differences handled here: OpenRouter takes reasoning effort as "reasoning":{"effort"}
 * (openrouter.ai/docs/use-cases/reasoning-tokens); OpenAI takes max_completion_tokens,
 * the others max_tokens. */
#include "llm.h"

#include <stdio.h>
#include <string.h>

static bool is(const struct provider *p, const char *name)
{
	return strcmp(p->info->name, name) == 0;
}

/* groq_family: p's model on Groq is a qwen3 (Q), an openai/gpt-oss (G) or another ('\0'). */
static char groq_family(const struct provider *p)
{
	if (!is(p, "groq"))
		return '\0';
	return strstr(p->model, "qwen3") ? 'Q' : strstr(p->model, "gpt-oss") ? 'G' : '\0';
}

/* effort_for: the reasoning effort p's model takes for effort, NULL: send none. Groq
 * (groq-python, src/groq/types/chat/completion_create_params.py, reasoning_effort): qwen3
 * models take only "none" or "default", openai/gpt-oss "low"/"medium"/"high", other
 * models none at all. */
static const char *effort_for(const struct provider *p, const char *effort)
{
	if (!is(p, "groq"))
		return effort;
	switch (groq_family(p)) {
	case 'Q': return strcmp(effort, "none") == 0 ? "none" : "default";
	case 'G': return effort;
	default: return NULL;
	}
}

/* Neutral messages to chat-completions messages. */
static cJSON *messages(const char *system, const cJSON *in)
{
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		return NULL;
	if (system) {
		cJSON *m = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, m);
		cJSON_AddStringToObject(m, "role", "system");
		cJSON_AddStringToObject(m, "content", system);
	}
	const cJSON *it;
	cJSON_ArrayForEach(it, in) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(it, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(it, "content");
		const cJSON *calls = cJSON_GetObjectItemCaseSensitive(it, "tool_calls");
		if (!cJSON_IsString(role))
			continue;
		cJSON *m = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, m);
		cJSON_AddStringToObject(m, "role", role->valuestring);
		if (cJSON_IsArray(calls)) {
			cJSON_AddNullToObject(m, "content");
			cJSON *tc = cJSON_AddArrayToObject(m, "tool_calls");
			const cJSON *call;
			cJSON_ArrayForEach(call, calls) {
				cJSON *c = cJSON_CreateObject();
				cJSON_AddItemToArray(tc, c);
				const cJSON *id = cJSON_GetObjectItemCaseSensitive(call, "id");
				const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
				const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
				cJSON_AddStringToObject(c, "id", cJSON_IsString(id) ? id->valuestring : "call_0");
				cJSON_AddStringToObject(c, "type", "function");
				cJSON *fn = cJSON_AddObjectToObject(c, "function");
				cJSON_AddStringToObject(fn, "name", cJSON_IsString(name) ? name->valuestring : "");
				char *a = args ? cJSON_PrintUnformatted(args) : NULL;
				cJSON_AddStringToObject(fn, "arguments", a ? a : "{}");
				cJSON_free(a);
			}
		} else {
			cJSON_AddStringToObject(m, "content",
						cJSON_IsString(content) ? content->valuestring : "");
		}
		const cJSON *tcid = cJSON_GetObjectItemCaseSensitive(it, "tool_call_id");
		if (cJSON_IsString(tcid))
			cJSON_AddStringToObject(m, "tool_call_id", tcid->valuestring);
	}
	return arr;
}

enum err llm_openai_build(const struct provider *p, const struct llm_call *c, struct http_req **out)
{
	enum err e = ERR_NOMEM;
	cJSON *body = cJSON_CreateObject();
	if (!body)
		goto out;
	cJSON_AddStringToObject(body, "model", p->model);
	cJSON *msgs = messages(c->system, c->messages);
	if (!msgs)
		goto out;
	cJSON_AddItemToObject(body, "messages", msgs);
	bool reasoning = provider_is_reasoning(p);
	if (!reasoning) {
		cJSON_AddNumberToObject(body, "temperature", c->temperature);
	} else if (c->effort && *c->effort && effort_for(p, c->effort)) {
		if (is(p, "openrouter")) {
			cJSON *r = cJSON_AddObjectToObject(body, "reasoning");
			cJSON_AddStringToObject(r, "effort", c->effort);
		} else {
			cJSON_AddStringToObject(body, "reasoning_effort", effort_for(p, c->effort));
		}
	}
	if (c->max_tokens > 0)
		cJSON_AddNumberToObject(body, is(p, "openai") ? "max_completion_tokens" : "max_tokens",
					c->max_tokens);
	if (c->schema) {
		cJSON *rf = cJSON_AddObjectToObject(body, "response_format");
		cJSON_AddStringToObject(rf, "type", "json_schema");
		cJSON *js = cJSON_AddObjectToObject(rf, "json_schema");
		cJSON_AddStringToObject(js, "name", c->schema_name ? c->schema_name : "answer");
		/* Groq: strict only on openai/gpt-oss, best-effort elsewhere
		 * (console.groq.com/docs/structured-outputs, "Supported models") */
		cJSON_AddBoolToObject(js, "strict", !is(p, "groq") || groq_family(p) == 'G');
		cJSON_AddItemToObject(js, "schema", cJSON_Duplicate(c->schema, 1));
	}
	if (c->stream) {
		/* usage comes in a last chunk only when asked for (OpenAI, OpenRouter and the
		 * local servers take stream_options; Gemini's and Mistral's endpoints send usage
		 * without it; Groq's request parameters have no stream_options (groq-python,
		 * completion_create_params.py) and its last chunk carries x_groq.usage) */
		cJSON_AddBoolToObject(body, "stream", 1);
		if (!is(p, "gemini") && !is(p, "mistral") && !is(p, "groq")) {
			cJSON *so = cJSON_AddObjectToObject(body, "stream_options");
			cJSON_AddBoolToObject(so, "include_usage", 1);
		}
	}
	if (c->n_tools > 0) {
		cJSON *tools = cJSON_AddArrayToObject(body, "tools");
		for (int i = 0; i < c->n_tools; i++) {
			cJSON *t = cJSON_CreateObject();
			cJSON_AddItemToArray(tools, t);
			cJSON_AddStringToObject(t, "type", "function");
			cJSON *fn = cJSON_AddObjectToObject(t, "function");
			cJSON_AddStringToObject(fn, "name", c->tools[i].name);
			cJSON_AddStringToObject(fn, "description", c->tools[i].description);
			cJSON_AddItemToObject(fn, "parameters", cJSON_Duplicate(c->tools[i].parameters, 1));
		}
		if (c->force_tool) {
			cJSON *tc = cJSON_AddObjectToObject(body, "tool_choice");
			cJSON_AddStringToObject(tc, "type", "function");
			cJSON *fn = cJSON_AddObjectToObject(tc, "function");
			cJSON_AddStringToObject(fn, "name", c->force_tool);
		} else {
			cJSON_AddStringToObject(body, "tool_choice", "auto");
		}
	}
	static const char *const names[] = {"Authorization"};
	if (p->key) {
		size_t n = strlen(p->key) + 8;
		char auth[n];
		snprintf(auth, n, "Bearer %s", p->key);
		const char *values[] = {auth};
		e = llm_post_json(p, "/chat/completions", body, names, values, 1, out);
		memset(auth, 0, n);
	} else {
		e = llm_post_json(p, "/chat/completions", body, names, NULL, 0, out);
	}
out:
	cJSON_Delete(body);
	return e;
}

enum err llm_openai_parse(const cJSON *root, struct llm_result *r, char *why, size_t n)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (err && !cJSON_IsNull(err)) /* OpenRouter can answer 200 with an error object */
		return llm_provider_error(err, why, n);
	if (!llm_counts(cJSON_GetObjectItemCaseSensitive(root, "usage"), "prompt_tokens",
			"completion_tokens", &r->tokens_in, &r->tokens_out, why, n))
		return ERR_PARSE;
	const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "choices"), 0);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
	if (!cJSON_IsObject(msg)) {
		snprintf(why, n, "no choices[0].message in the answer");
		return ERR_PARSE;
	}
	const cJSON *fr = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	const cJSON *refusal = cJSON_GetObjectItemCaseSensitive(msg, "refusal");
	const cJSON *call = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"), 0);
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(call, "function");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
	if ((cJSON_IsString(fr) && llm_set(&r->finish, fr->valuestring)) ||
	    (cJSON_IsString(content) && llm_set(&r->text, content->valuestring)) ||
	    (cJSON_IsString(refusal) && llm_set(&r->refusal, refusal->valuestring)) ||
	    (cJSON_IsString(name) && llm_set(&r->tool_name, name->valuestring)))
		return ERR_NOMEM;
	if (cJSON_IsString(args)) {
		if (llm_set(&r->tool_args, args->valuestring))
			return ERR_NOMEM;
	} else if (args) {
		/* some compatible servers send the arguments as an object */
		char *a = cJSON_PrintUnformatted(args);
		enum err e = a ? llm_set(&r->tool_args, a) : ERR_NOMEM;
		cJSON_free(a);
		if (e)
			return e;
	}
	if (!r->refusal && r->finish && strcmp(r->finish, "content_filter") == 0 &&
	    llm_set(&r->refusal, "the provider's content filter stopped the answer"))
		return ERR_NOMEM;
	return ERR_OK;
}
