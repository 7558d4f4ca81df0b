/* judge_llm: the language-model judges of the FormBharo paper's FormVoiceAgentBench, as
 * prompts, answer schemas and the two halves of one request (build, then read the
 * answer), so that a loop running requests itself (http_start) or a blocking caller
 * (http_perform) can ask them. Each judge answers one structured verdict
 * ({"verdict": ...}, JSON schema or forced tool), at temperature 0 for non-reasoning
 * models (the paper's setting; agent/stages/llm_openai.c), reasoning effort low otherwise.
 *
 * - JUDGE_LLM_NAME ("name-v1"): is the captured value the same name as the expected one,
 *   allowing for script and spelling: "same", "different", "unsure". The prompt the
 *   annotation judge has always used (annotations/judges.h).
 * - JUDGE_LLM_WER ("wer-v1"): LLM-WER (the paper: differences an LLM judges equivalent
 *   or phonetically similar are forgiven): one differing segment of an STT transcript,
 *   in the context of both sentences: "equivalent", "similar" (phonetically similar
 *   spellings of what was said), "different".
 * - JUDGE_LLM_ASKS ("asks-v1"): REPLY's first dimension (the paper: asks the right
 *   question), for replies whose words do not settle it: "yes", "no".
 * A prompt's version changes whenever its text does; decisions are cached per item and
 * version (sessions/eval/benchjudge.h, annotations/judges.h). */
#ifndef FORMDESK_JUDGE_LLM_H
#define FORMDESK_JUDGE_LLM_H

#include <stdbool.h>
#include "base/err.h"
#include "backend.h"
#include "http.h"
#include "provider.h"

enum judge_llm_kind { JUDGE_LLM_NAME, JUDGE_LLM_WER, JUDGE_LLM_ASKS };

#define JUDGE_LLM_NAME_VERSION "name-v1"
#define JUDGE_LLM_WER_VERSION "wer-v1"
#define JUDGE_LLM_ASKS_VERSION "asks-v1"

/* One question to a judge (strings borrowed, NULL is ""). */
struct judge_llm_item {
	enum judge_llm_kind kind;
	const char *a;     /* NAME: the expected value; WER: the reference segment; ASKS: the
	                      decided question in the form's words */
	const char *b;     /* NAME: the captured value; WER: the transcript's segment; ASKS:
	                      the reply */
	const char *ctx_a; /* WER: the whole reference; ASKS: the question's label */
	const char *ctx_b; /* WER: the whole transcript */
};

/* judge_llm_version / judge_llm_kind_name: the prompt version ("name-v1", ...) and the
 * judge's short name ("name", "wer", "asks"); static strings. */
const char *judge_llm_version(enum judge_llm_kind k);
const char *judge_llm_kind_name(enum judge_llm_kind k);

/* judge_llm_key: the item as cache key: a JSON array of the kind and its texts. Output:
 * new string (caller frees), NULL on allocation failure. */
char *judge_llm_key(const struct judge_llm_item *it);

/* judge_llm_request: the HTTP request asking p about it (p's timeout and retries).
 * Output: *out (caller frees with http_req_free or hands it to http_start). Errors:
 * ERR_NOMEM, ERR_UNSUPPORTED (p is not a language-model provider). */
enum err judge_llm_request(const struct provider *p, const struct judge_llm_item *it,
			   struct http_req **out);

/* judge_llm_response: the verdict in res, the finished request. Output: *verdict a static
 * string, one of the kind's verdicts; *raw (may be NULL) the model's answer text (caller
 * frees); u (may be NULL) the timings, tokens, cost (p's prices) and error text, never a
 * key. Errors: ERR_BACKEND (transport, HTTP status, provider error), ERR_PARSE (the
 * answer is not one of the kind's verdicts: u->error quotes it), ERR_NOMEM. */
enum err judge_llm_response(const struct provider *p, enum judge_llm_kind k,
			    const struct http_result *res, const char **verdict, char **raw,
			    struct backend_usage *u);

/* The judge as a backend (agent/stages/backend.h, stage JUDGE; backend_judge looks it up): ctx
 * a struct judge_llm_client on one provider; req a const struct judge_llm_item *, out a
 * struct judge_answer *; blocking call, both halves, usage, model, free. */
struct judge_llm_client;
extern const struct backend_ops judge_llm_ops;

/* judge_llm_client_new: the ctx of judge_llm_ops on p (taken over, also on failure).
 * Output: *out (freed by the ops' free). Errors: ERR_NOMEM. */
enum err judge_llm_client_new(struct provider *p, struct judge_llm_client **out);

/* judge_llm_forgives: whether verdict v of kind k accepts the item: NAME "same", WER
 * "equivalent" or "similar" (the paper's LLM-WER), ASKS "yes". */
bool judge_llm_forgives(enum judge_llm_kind k, const char *v);

#endif
