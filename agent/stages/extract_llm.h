/* extract_llm: the EXTRACT stage on a language model (FormBharo paper: the model reads
 * the transcript and the history and returns every field answered in the turn,
 * categorical answers as the option's index, a skip flag, a short acknowledgement).
 *
 * The prompt holds the form's fields (type, options with their indices, rules), the last
 * N turns of history and the latest transcript. The answer is structured JSON, by JSON
 * schema (response_format) or, where the provider is set to it (Anthropic), a forced
 * tool call "record_extraction" with the same schema:
 *   {"ack": "...", "fields": [{"field": NAME, "value": V, "skip": BOOL,
 *                              "reason": "dont_know"|"declined"|"none"}]}
 * Nothing the model returns is trusted: every departure from that shape (invalid JSON, a
 * refusal, a field not in the form, an option index out of range, a number sent as a
 * string, a missing skip flag, members that are not part of an extraction such as
 * "form_complete") is written to extraction.fault; values go to the rule layer raw, and
 * it validates them.
 *
 * Streaming (the provider's "stream" setting, on by default for the chat-completions and
 * Messages protocols): the request asks for server-sent events and carries a stream
 * reader (agent/stages/llm_stream.h) that sees the answer while it arrives. The schema puts
 * "ack" first, so the acknowledgement is complete long before the fields: the paper's
 * acknowledgement "generated in parallel and spoken at once to cut perceived latency".
 * extract_llm_ack_ready() hands it over once, while the rest still streams; the
 * extraction is parsed from the whole answer at the end, as without streaming. A stream
 * that ends before its end marker is a fault. */
#ifndef FORMDESK_EXTRACT_LLM_H
#define FORMDESK_EXTRACT_LLM_H

#include <cjson/cJSON.h>
#include "backend.h"
#include "http.h"
#include "provider.h"

/* The prompt's version, recorded with each run (sessions/calls/runs.h): it changes whenever
 * the prompt's fixed text or the answer schema does. */
#define EXTRACT_LLM_PROMPT_VERSION "extract-v1"

struct extract_llm;

/* The backend's ops (backend.h); its ctx is a struct extract_llm. */
extern const struct backend_ops extract_llm_ops;

/* extract_llm_new: an EXTRACT backend on provider p (taken over, also on failure).
 * Output: *out (caller frees with the ops' free, llm_ops_free). Errors: ERR_NOMEM.
 * Its ops' call is blocking (http_perform): *out (caller frees) on ERR_OK, faults in its
 * fault; ERR_BACKEND when the request failed (the usage record says why), ERR_NOMEM. */
enum err extract_llm_new(struct provider *p, struct extract_llm **out);

/* The two halves of one call, for a loop that runs requests itself (http_start):
 * extract_llm_request builds the HTTP request (caller owns *out; streamed when the
 * provider streams), extract_llm_response turns its result into an extraction (caller
 * frees *out) and fills u (may be NULL; u->ack_ms is when the acknowledgement was known).
 * Errors: as extract_llm_extract. */
enum err extract_llm_request(const struct extract_llm *x, const struct extract_request *req,
			     struct http_req **out);
enum err extract_llm_response(const struct extract_llm *x, const struct extract_request *req,
			      const struct http_result *res, struct extraction **out,
			      struct backend_usage *u);

/* extract_llm_ack_ready: the acknowledgement of the EXTRACT request in flight on x (the
 * handle http_start gave for a request built by extract_llm_request), once: true the
 * first time its "ack" string is complete and not empty, with *text a new string (caller
 * frees); false before that, after it was taken, for an empty ack, or when x is not a
 * streamed EXTRACT request. Poll it between http_poll calls while the request runs; when
 * the request ends first, the ack is in the extraction (extraction.ack). */
bool extract_llm_ack_ready(const struct http_xfer *x, char **text);

/* extract_llm_schema: the JSON schema of the answer for form. Output: new cJSON (caller
 * frees), NULL on ERR_NOMEM. */
cJSON *extract_llm_schema(const struct form *form);

/* extract_llm_parse: the model's answer text (JSON) checked against form into ex (items
 * appended, faults written to ex->fault). Errors: ERR_NOMEM only: a bad answer is a
 * fault, not an error. */
enum err extract_llm_parse(const struct form *form, const char *text, struct extraction *ex);

#endif
