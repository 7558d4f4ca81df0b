/* llm_stream: a language model's answer read while it streams, so that the EXTRACT
 * stage's acknowledgement can be spoken before the rest arrives (the FormBharo paper: the
 * acknowledgement is generated in parallel and spoken at once to cut perceived latency).
 *
 * Two server-sent-event protocols (html.spec.whatwg.org/multipage/server-sent-events.html:
 * lines end in LF, CRLF or CR; "data:" lines, one optional space after the colon, joined
 * by LF; an empty line ends an event; lines opening with ":" are comments):
 * - OpenAI chat completions with "stream": true
 *   (platform.openai.com/docs/api-reference/chat-streaming): each event's data is a
 *   chat.completion.chunk whose choices[0].delta carries content, refusal or
 *   tool_calls[0].function.{name,arguments} pieces and choices[0].finish_reason at the
 *   end; with stream_options.include_usage a last chunk carries usage (choices empty),
 *   and Groq's last chunk carries it as x_groq.usage (groq-python, chat_completion_chunk.py);
 *   the stream ends with "data: [DONE]"; an error arrives as {"error":{...}}.
 * - Anthropic Messages with "stream": true
 *   (docs.anthropic.com/en/docs/build-with-claude/streaming): message_start (usage
 *   input_tokens), content_block_start (a tool_use block names its tool),
 *   content_block_delta (text_delta.text, or input_json_delta.partial_json for a tool
 *   call's input), content_block_stop, message_delta (stop_reason, usage output_tokens),
 *   message_stop at the end; ping events; an error event {"type":"error","error":{...}}.
 *
 * The structured answer (the content text, or the first tool call's arguments) grows as
 * pieces arrive; an incremental scanner over it notices when the top-level member "ack"
 * has a complete string value (its closing quote seen, however the bytes were split:
 * inside the string, inside an escape sequence, inside a UTF-8 character) and decodes it
 * at once. The extraction itself is parsed from the whole text at the end, as without
 * streaming.
 *
 * A spoken answer (REPLY's line, plain content text) is handed out sentence by sentence
 * as it grows (llm_stream_take_sentence), so the first sentence can be spoken while the
 * rest is still being made. */
#ifndef FORMDESK_LLM_STREAM_H
#define FORMDESK_LLM_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "llm.h"
#include "provider.h"

struct llm_stream;

/* llm_stream_new: an empty stream reader for protocol proto (PROTO_OPENAI_CHAT or
 * PROTO_ANTHROPIC). Output: *out (caller frees with llm_stream_free). Errors: ERR_NOMEM,
 * ERR_UNSUPPORTED (another protocol). */
enum err llm_stream_new(enum provider_protocol proto, struct llm_stream **out);
/* llm_stream_free: free s; NULL does nothing. (void * so it can be an observer's free.) */
void llm_stream_free(void *s);

/* llm_stream_reset: forget everything read (a retried request starts a new body); an
 * acknowledgement already taken stays taken. */
void llm_stream_reset(struct llm_stream *s);

/* llm_stream_feed: the next len bytes of the response body, arriving at_ms milliseconds
 * after the request started. Errors: ERR_NOMEM (s is then unusable). */
enum err llm_stream_feed(struct llm_stream *s, const char *data, size_t len, double at_ms);

/* llm_stream_observe: an http_data_fn (agent/stages/http.h) feeding ud, a struct llm_stream;
 * a new attempt resets it. Out of memory leaves the stream marked failed. */
void llm_stream_observe(void *ud, const char *data, size_t len, int attempt, double at_ms);

/* llm_stream_ack: the acknowledgement once its string is complete (owned by s, valid
 * until s is reset or freed; may be ""), else NULL. *at_ms (may be NULL) gets when it
 * became complete, milliseconds after the request started. */
const char *llm_stream_ack(const struct llm_stream *s, double *at_ms);

/* llm_stream_take_ack: the acknowledgement, once: true the first time it is complete and
 * not empty, with *text a new string (caller frees); false before, after, or when it is
 * empty. Errors: none (false on allocation failure). */
bool llm_stream_take_ack(struct llm_stream *s, char **text);

/* llm_stream_take_sentence: the next complete sentence of the answer's text, once: true
 * with *text a new string (caller frees), its whitespace runs one space, ends trimmed;
 * false while none is complete, once the answer calls a tool or refuses (nothing more is
 * handed out), or on allocation failure. A sentence ends after a Hindi danda "।" or "॥",
 * "?", "!" or "." (with any run of them and closing quotes or brackets after) followed by
 * white space, or at a newline; a "." does not end one after an abbreviation: a single
 * Latin letter (an initial), Dr, Mr, Mrs, Ms, Smt, Shri, Sh, St, Rs, No, Nos, vs, etc,
 * e.g, i.e, Govt, Hon, Pvt, Ltd, डॉ, श्री, कु, सु, रु, नं (so "Dr. Sharma", "Rs. 500",
 * "डॉ. शर्मा" stay whole); inside a number ("3.5") nothing follows the "." but a digit,
 * so it never ends one. A terminator at the end of what has arrived waits for the next
 * byte. The text after the last complete sentence is not handed out: whoever reads the
 * whole answer says it. */
bool llm_stream_take_sentence(struct llm_stream *s, char **text);

/* llm_stream_piece: a piece of the answer the stream observing transfer x holds, taken by
 * take_fn (llm_stream_take_ack, llm_stream_take_sentence): true with *text a new string
 * (caller frees), scrubbed of keys (read before http.c saw the whole body); false when x
 * has no stream, take_fn has nothing, or the piece is not UTF-8 (the whole answer will be
 * refused too). For a backend's ack and sentence hooks (backend.h). */
bool llm_stream_piece(const struct http_xfer *x, bool (*take_fn)(struct llm_stream *, char **),
		      char **text);

/* llm_stream_result: what was read so far as one result, as llm_parse gives for a whole
 * answer (text, refusal, first tool call, finish reason, tokens); r->cut_short when the
 * stream's end ([DONE], message_stop) never came. Output: *out (caller frees with
 * llm_result_free). Errors: ERR_BACKEND (the provider sent an error event; why, size n,
 * says it), ERR_PARSE (nothing of the protocol's shape was read), ERR_NOMEM. */
enum err llm_stream_result(struct llm_stream *s, struct llm_result **out, char *why, size_t n);

/* llm_stream_is_sse: whether a response body (len bytes) is a server-sent-event stream
 * rather than one JSON document (its first non-space byte is not "{"; it has a "data:"
 * or "event:" line). */
bool llm_stream_is_sse(const char *body, size_t len);

/* llm_stream_parse: a whole streamed body (len bytes) of protocol proto read at once.
 * Output and errors: as llm_stream_result. */
enum err llm_stream_parse(enum provider_protocol proto, const char *body, size_t len,
			  struct llm_result **out, char *why, size_t n);

#endif
