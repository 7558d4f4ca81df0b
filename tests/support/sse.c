#include "sse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mockserver.h"

cJSON *sse_openai_chunk(const char *content, const char *finish)
{
	cJSON *c = cJSON_Parse("{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\","
			       "\"created\":1767225600,\"model\":\"gpt-5.4-mini\",\"choices\":[{\"index\":0,"
			       "\"delta\":{},\"finish_reason\":null}]}");
	cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "choices"), 0);
	if (content)
		cJSON_AddStringToObject(cJSON_GetObjectItem(choice, "delta"), "content", content);
	if (finish)
		cJSON_ReplaceItemInObject(choice, "finish_reason", cJSON_CreateString(finish));
	return c;
}

void sse_add_named(struct sse_body *b, const char *type, cJSON *event)
{
	char *d = event ? cJSON_PrintUnformatted(event) : strdup("[DONE]");
	size_t k = strlen(d) + (type ? strlen(type) : 0) + 16;
	if (b->n && b->n_cuts < (int)(sizeof b->cuts / sizeof b->cuts[0]))
		b->cuts[b->n_cuts++] = b->n;
	b->p = realloc(b->p, b->n + k + 1);
	b->n += (size_t)snprintf(b->p + b->n, k + 1, "%s%s%sdata: %s\n\n", type ? "event: " : "",
				 type ? type : "", type ? "\n" : "", d);
	free(d);
	cJSON_Delete(event);
}

void sse_add(struct sse_body *b, cJSON *event)
{
	sse_add_named(b, NULL, event);
}

void sse_anthropic_answer(struct sse_body *b, const char *const *deltas, const char *stop)
{
	sse_add_named(b, "message_start", cJSON_Parse(
		"{\"type\":\"message_start\",\"message\":{\"id\":\"msg_9\",\"type\":\"message\","
		"\"role\":\"assistant\",\"content\":[],\"model\":\"claude-haiku-4-5\",\"stop_reason\":null,"
		"\"stop_sequence\":null,\"usage\":{\"input_tokens\":600,\"output_tokens\":1}}}"));
	sse_add_named(b, "content_block_start", cJSON_Parse(
		"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\","
		"\"text\":\"\"}}"));
	for (int i = 0; deltas[i]; i++) {
		cJSON *d = cJSON_Parse("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
				       "{\"type\":\"text_delta\"}}");
		cJSON_AddStringToObject(cJSON_GetObjectItem(d, "delta"), "text", deltas[i]);
		sse_add_named(b, "content_block_delta", d);
	}
	sse_add_named(b, "content_block_stop", cJSON_Parse("{\"type\":\"content_block_stop\",\"index\":0}"));
	cJSON *md = cJSON_Parse("{\"type\":\"message_delta\",\"delta\":{\"stop_sequence\":null},"
				"\"usage\":{\"output_tokens\":20}}");
	cJSON_AddStringToObject(cJSON_GetObjectItem(md, "delta"), "stop_reason", stop);
	sse_add_named(b, "message_delta", md);
	sse_add_named(b, "message_stop", cJSON_Parse("{\"type\":\"message_stop\"}"));
}

void sse_openai_answer(struct sse_body *b, const char *const *deltas, const char *finish,
		       bool done)
{
	sse_add(b, cJSON_Parse("{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\","
			       "\"created\":1767225600,\"model\":\"gpt-5.4-mini\",\"choices\":[{\"index\":0,"
			       "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}"));
	for (int i = 0; deltas[i]; i++)
		sse_add(b, sse_openai_chunk(deltas[i], NULL));
	if (finish)
		sse_add(b, sse_openai_chunk(NULL, finish));
	if (done)
		sse_add(b, NULL);
}

void sse_push(struct mockserver *ms, const struct sse_body *b, int piece_ms, bool cut_off,
	      int count)
{
	for (int i = 0; i < count; i++)
		mockserver_push_paced(ms, (struct mock_reply){200, "text/event-stream", b->p, NULL, 0},
				      b->cuts, b->n_cuts, piece_ms, cut_off);
}

void sse_push_openai(struct mockserver *ms, const char *const *deltas, const char *finish,
		     bool done, bool cut_off, int piece_ms, int count)
{
	struct sse_body b = {0};
	sse_openai_answer(&b, deltas, finish, done);
	sse_push(ms, &b, piece_ms, cut_off, count);
	sse_body_free(&b);
}

void sse_body_free(struct sse_body *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

struct mockserver *sse_openai_server(void)
{
	char base[128];
	struct mockserver *ms = mockserver_start();
	if (!ms)
		return NULL;
	snprintf(base, sizeof base, "%s/v1", mockserver_url(ms));
	setenv("OPENAI_BASE_URL", base, 1);
	setenv("OPENAI_API_KEY", "sk-test-Qw7Zr4Xp9Lm2Vb6N", 1);
	return ms;
}
