/* sse: the server-sent-event streams language-model providers send, built for the tests'
 * local servers (tests/support/mockserver.h). */
#ifndef FORMDESK_TESTS_SSE_H
#define FORMDESK_TESTS_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

struct mockserver;

/* A stream's body and where its events begin (each event one piece when sent). */
struct sse_body {
	char *p;            /* NUL-terminated; free with sse_body_free */
	size_t n;
	size_t cuts[64];
	int n_cuts;
};

/* sse_openai_chunk: one chat.completion.chunk as OpenAI's chat completions stream it
 * (platform.openai.com/docs/api-reference/chat-streaming): choices[0].delta.content
 * content (NULL: no content) and choices[0].finish_reason finish (NULL: null). Output: a
 * new object (caller frees). */
cJSON *sse_openai_chunk(const char *content, const char *finish);

/* sse_add: "data: " and event as JSON (taken over; NULL: [DONE]), then a blank line, as
 * the body's next piece. */
void sse_add(struct sse_body *b, cJSON *event);

/* sse_add_named: as sse_add, the data line after "event: TYPE" (Anthropic's Messages
 * stream names each event so: docs.anthropic.com/en/docs/build-with-claude/streaming). */
void sse_add_named(struct sse_body *b, const char *type, cJSON *event);

/* sse_anthropic_answer: a whole streamed Messages answer into b: message_start, a text
 * content block whose text_delta events carry the deltas (NULL-ended), content_block_stop,
 * message_delta with stop_reason stop, message_stop. */
void sse_anthropic_answer(struct sse_body *b, const char *const *deltas, const char *stop);

/* sse_openai_answer: a whole streamed chat completion into b: the first chunk with the
 * role, one chunk per delta (NULL-ended) as content, then finish_reason finish (NULL: no
 * such chunk) and [DONE] (unless done is false: a stream that just stops). */
void sse_openai_answer(struct sse_body *b, const char *const *deltas, const char *finish,
		       bool done);

/* sse_push: queue b on ms count times, as "text/event-stream" sent event by event with
 * piece_ms before each event after the first (mockserver_push_paced); cut_off: the
 * connection is dropped after the last. */
void sse_push(struct mockserver *ms, const struct sse_body *b, int piece_ms, bool cut_off,
	      int count);

/* sse_push_openai: sse_openai_answer's stream of deltas, finish and done queued on ms
 * count times, as sse_push sends it. */
void sse_push_openai(struct mockserver *ms, const char *const *deltas, const char *finish,
		     bool done, bool cut_off, int piece_ms, int count);

/* sse_body_free: free b's text; b is empty again. */
void sse_body_free(struct sse_body *b);

/* sse_openai_server: a local server (caller stops it with mockserver_stop) that the
 * "openai" provider is pointed at (OPENAI_BASE_URL, a test key); NULL when it would not
 * start. */
struct mockserver *sse_openai_server(void);

#endif
