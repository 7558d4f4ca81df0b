/* Anthropic's Messages API (docs.anthropic.com/en/api/messages): POST {base}/v1/messages
 * with x-api-key, anthropic-version: 2023-06-01 and a JSON body; tools as
 * {name, description, input_schema}, a forced tool as tool_choice {"type":"tool","name"}
 * (docs.anthropic.com/en/docs/build-with-claude/tool-use). Structured output is asked
 * for by a forced tool call; the caller turns a schema into one. */
#include "llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANTHROPIC_VERSION "2023-06-01"
#define ANTHROPIC_DEFAULT_MAX_TOKENS 1024

/* Append blocks to the last message when it has the same role: the API wants user and
 * assistant turns to alternate, starting with the user. */
static void push(cJSON *arr, const char *role, cJSON *block)
{
	cJSON *last = cJSON_GetArrayItem(arr, cJSON_GetArraySize(arr) - 1);
	const cJSON *lr = cJSON_GetObjectItemCaseSensitive(last, "role");
	if (!last && strcmp(role, "assistant") == 0) {
		/* the call opens with the agent speaking: give the model a user turn first */
		cJSON *m = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, m);
		cJSON_AddStringToObject(m, "role", "user");
		cJSON *c = cJSON_AddArrayToObject(m, "content");
		cJSON *b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "text");
		cJSON_AddStringToObject(b, "text", "(the call is connected)");
		cJSON_AddItemToArray(c, b);
		last = m;
		lr = cJSON_GetObjectItemCaseSensitive(m, "role");
	}
	if (last && cJSON_IsString(lr) && strcmp(lr->valuestring, role) == 0) {
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(last, "content"), block);
		return;
	}
	cJSON *m = cJSON_CreateObject();
	cJSON_AddItemToArray(arr, m);
	cJSON_AddStringToObject(m, "role", role);
	cJSON *c = cJSON_AddArrayToObject(m, "content");
	cJSON_AddItemToArray(c, block);
}

static cJSON *messages(const cJSON *in)
{
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		return NULL;
	const cJSON *it;
	cJSON_ArrayForEach(it, in) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(it, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(it, "content");
		const cJSON *calls = cJSON_GetObjectItemCaseSensitive(it, "tool_calls");
		if (!cJSON_IsString(role))
			continue;
		if (cJSON_IsArray(calls)) {
			const cJSON *call;
			cJSON_ArrayForEach(call, calls) {
				const cJSON *id = cJSON_GetObjectItemCaseSensitive(call, "id");
				const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
				const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
				cJSON *b = cJSON_CreateObject();
				cJSON_AddStringToObject(b, "type", "tool_use");
				cJSON_AddStringToObject(b, "id", cJSON_IsString(id) ? id->valuestring : "toolu_0");
				cJSON_AddStringToObject(b, "name", cJSON_IsString(name) ? name->valuestring : "");
				cJSON_AddItemToObject(b, "input", cJSON_IsObject(args) ? cJSON_Duplicate(args, 1)
										       : cJSON_CreateObject());
				push(arr, "assistant", b);
			}
		} else if (strcmp(role->valuestring, "tool") == 0) {
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "tool_call_id");
			cJSON *b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "tool_result");
			cJSON_AddStringToObject(b, "tool_use_id", cJSON_IsString(id) ? id->valuestring : "toolu_0");
			cJSON_AddStringToObject(b, "content", cJSON_IsString(content) ? content->valuestring : "");
			push(arr, "user", b);
		} else {
			cJSON *b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "text");
			const char *t = cJSON_IsString(content) && content->valuestring[0] ? content->valuestring
											  : "(silence)";
			cJSON_AddStringToObject(b, "text", t);
			push(arr, strcmp(role->valuestring, "assistant") == 0 ? "assistant" : "user", b);
		}
	}
	return arr;
}

enum err llm_anthropic_build(const struct provider *p, const struct llm_call *c, struct http_req **out)
{
	enum err e = ERR_NOMEM;
	cJSON *body = cJSON_CreateObject();
	if (!body)
		goto out;
	cJSON_AddStringToObject(body, "model", p->model);
	cJSON_AddNumberToObject(body, "max_tokens", c->max_tokens > 0 ? c->max_tokens
								       : ANTHROPIC_DEFAULT_MAX_TOKENS);
	if (c->system)
		cJSON_AddStringToObject(body, "system", c->system);
	cJSON *msgs = messages(c->messages);
	if (!msgs)
		goto out;
	cJSON_AddItemToObject(body, "messages", msgs);
	/* extended thinking cannot be combined with a forced tool; temperature 0 for the
	 * agent's stages */
	cJSON_AddNumberToObject(body, "temperature", c->temperature);
	if (c->stream)
		cJSON_AddBoolToObject(body, "stream", 1);
	int n_tools = c->n_tools + (c->schema ? 1 : 0);
	const char *force = c->force_tool;
	if (n_tools > 0) {
		cJSON *tools = cJSON_AddArrayToObject(body, "tools");
		for (int i = 0; i < c->n_tools; i++) {
			cJSON *t = cJSON_CreateObject();
			cJSON_AddItemToArray(tools, t);
			cJSON_AddStringToObject(t, "name", c->tools[i].name);
			cJSON_AddStringToObject(t, "description", c->tools[i].description);
			cJSON_AddItemToObject(t, "input_schema", cJSON_Duplicate(c->tools[i].parameters, 1));
		}
		if (c->schema) {
			const char *name = c->schema_name ? c->schema_name : "answer";
			cJSON *t = cJSON_CreateObject();
			cJSON_AddItemToArray(tools, t);
			cJSON_AddStringToObject(t, "name", name);
			cJSON_AddStringToObject(t, "description", "Record the answer in this exact structure.");
			cJSON_AddItemToObject(t, "input_schema", cJSON_Duplicate(c->schema, 1));
			force = name;
		}
		cJSON *tc = cJSON_AddObjectToObject(body, "tool_choice");
		if (force) {
			cJSON_AddStringToObject(tc, "type", "tool");
			cJSON_AddStringToObject(tc, "name", force);
		} else {
			cJSON_AddStringToObject(tc, "type", "auto");
		}
	}
	/* the key's header only when there is a key */
	static const char *const names[] = {"x-api-key", "anthropic-version"};
	const char *values[] = {p->key, ANTHROPIC_VERSION};
	size_t skip = p->key ? 0 : 1;
	e = llm_post_json(p, "/v1/messages", body, names + skip, values + skip, 2 - skip, out);
out:
	cJSON_Delete(body);
	return e;
}

enum err llm_anthropic_parse(const cJSON *root, struct llm_result *r, char *why, size_t n)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
	if (cJSON_IsString(type) && strcmp(type->valuestring, "error") == 0)
		return llm_provider_error(cJSON_GetObjectItemCaseSensitive(root, "error"), why, n);
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(root, "content");
	if (!cJSON_IsArray(content)) {
		snprintf(why, n, "no content array in the answer");
		return ERR_PARSE;
	}
	if (!llm_counts(cJSON_GetObjectItemCaseSensitive(root, "usage"), "input_tokens",
			"output_tokens", &r->tokens_in, &r->tokens_out, why, n))
		return ERR_PARSE;
	const cJSON *stop = cJSON_GetObjectItemCaseSensitive(root, "stop_reason");
	if (cJSON_IsString(stop) && llm_set(&r->finish, stop->valuestring))
		return ERR_NOMEM;
	const cJSON *b;
	cJSON_ArrayForEach(b, content) {
		const cJSON *bt = cJSON_GetObjectItemCaseSensitive(b, "type");
		if (!cJSON_IsString(bt))
			continue;
		if (strcmp(bt->valuestring, "text") == 0) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "text");
			if (!cJSON_IsString(t))
				continue;
			if (!r->text) {
				if (llm_set(&r->text, t->valuestring))
					return ERR_NOMEM;
			} else {
				size_t a = strlen(r->text), l = strlen(t->valuestring);
				char *s = realloc(r->text, a + l + 1);
				if (!s)
					return ERR_NOMEM;
				memcpy(s + a, t->valuestring, l + 1);
				r->text = s;
			}
		} else if (strcmp(bt->valuestring, "tool_use") == 0 && !r->tool_name) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
			const cJSON *input = cJSON_GetObjectItemCaseSensitive(b, "input");
			char *a = input ? cJSON_PrintUnformatted(input) : NULL;
			enum err e = llm_set(&r->tool_name, cJSON_IsString(name) ? name->valuestring : "");
			if (!e && a)
				e = llm_set(&r->tool_args, a);
			cJSON_free(a);
			if (e)
				return e;
		}
	}
	if (r->finish && strcmp(r->finish, "refusal") == 0 &&
	    llm_set(&r->refusal, r->text ? r->text : "the model declined to answer"))
		return ERR_NOMEM;
	return ERR_OK;
}
