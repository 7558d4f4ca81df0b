/* sse: pieces of the server-sent-event streams language-model providers send, for the
 * tests' local servers. */
#ifndef FORMDESK_TESTS_SSE_H
#define FORMDESK_TESTS_SSE_H

#include <cjson/cJSON.h>

/* sse_openai_chunk: one chat.completion.chunk as OpenAI's chat completions stream it
 * (platform.openai.com/docs/api-reference/chat-streaming): choices[0].delta.content
 * content (NULL: no content) and choices[0].finish_reason finish (NULL: null). Output: a
 * new object (caller frees). */
cJSON *sse_openai_chunk(const char *content, const char *finish);

#endif
