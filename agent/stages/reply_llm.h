/* reply_llm: the REPLY stage on a language model (FormBharo paper: the rule layer's
 * decision is injected into REPLY's history as a tool call; the model phrases the
 * question in Hindi, or ends the call with an end_call tool call).
 *
 * The messages are the call's history, then an assistant tool call carrying the
 * decision (its tool and the arguments decision_reply_arguments writes, which fit the
 * tools declared from decision_reply_schema; id "dec" and the turn in 6 digits, valid on
 * every provider), then that call's result (the verdicts and the rule layer's reason).
 * The model answers with one line of Hindi, or calls end_call {"message"} when the
 * decision ends the call; an answer stopped at the token limit is refused.
 * The model cannot change the decision: an end_call when the rules asked a question is
 * refused (an error), and the engine follows the rules either way.
 *
 * Where the provider streams ("stream", provider.h: the chat-completions and Messages
 * protocols) the answer is asked for as server-sent events and its text is handed out
 * sentence by sentence while it arrives (reply_llm_sentence_ready, backend_sentence), so
 * the first sentence is spoken before the rest is made; the whole line is still checked
 * at the end as above (refusal, token limit, an end_call the rules did not decide, and
 * a stream cut short before its end are refused), and it is what is stored. */
#ifndef FORMDESK_REPLY_LLM_H
#define FORMDESK_REPLY_LLM_H

#include <cjson/cJSON.h>
#include "backend.h"
#include "http.h"
#include "provider.h"

/* The prompt's version, recorded with each run (sessions/calls/runs.h): it changes whenever
 * the prompt's fixed text or the answer schema does. */
#define REPLY_LLM_PROMPT_VERSION "reply-v1"

struct reply_llm;

/* The backend's ops (backend.h); its ctx is a struct reply_llm. */
extern const struct backend_ops reply_llm_ops;

/* reply_llm_new: a REPLY backend on provider p (taken over, also on failure). Output:
 * *out (caller frees with the ops' free, llm_ops_free). Errors: ERR_NOMEM. Its ops' call
 * is blocking: *text, one line (caller frees); ERR_INVALID (decision has no tool_call),
 * ERR_BACKEND (request failed, refusal, no text, or an end_call the rules did not
 * decide: the usage record says which), ERR_NOMEM. */
enum err reply_llm_new(struct provider *p, struct reply_llm **out);

/* The two halves of one call (see extract_llm.h). */
enum err reply_llm_request(const struct reply_llm *x, const struct reply_request *req,
			   struct http_req **out);
enum err reply_llm_response(const struct reply_llm *x, const struct reply_request *req,
			    const struct http_result *res, char **text, struct backend_usage *u);

/* reply_llm_sentence_ready: the sentence hook (backend.h backend_sentence) for a request
 * reply_llm_request built, x its handle: true with *text the next complete sentence of the
 * streamed line (caller frees; keys scrubbed), false while none is complete, when the
 * answer is not streamed, calls a tool, refuses, or is not valid UTF-8. */
bool reply_llm_sentence_ready(const struct http_xfer *x, char **text);

#endif
