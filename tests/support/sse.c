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

void sse_add(struct sse_body *b, cJSON *event)
{
	char *d = event ? cJSON_PrintUnformatted(event) : strdup("[DONE]");
	size_t k = strlen(d) + 8;
	if (b->n && b->n_cuts < (int)(sizeof b->cuts / sizeof b->cuts[0]))
		b->cuts[b->n_cuts++] = b->n;
	b->p = realloc(b->p, b->n + k + 1);
	b->n += (size_t)snprintf(b->p + b->n, k + 1, "data: %s\n\n", d);
	free(d);
	cJSON_Delete(event);
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
