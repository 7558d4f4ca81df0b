/* flow: the rule layer's state machine for one call (FormBharo semantics). Pure and
 * deterministic: no I/O, no clock; "today" is an input. Given the same form, today and
 * extractions it makes the same decisions.
 *
 * Source of the rules: FormBharo documentation (ARTPARK-SAHAI-ORG/formbharo-docs:
 * reference/retries.mdx, reference/branching.mdx, reference/validation.mdx,
 * reference/question-types.mdx, concepts/answers.mdx, concepts/calls.mdx) and the FormBharo
 * paper (arXiv 2608.06027): validate, count retries per field, re-ask with the validation
 * error while retries remain, end the call when a required field runs out, skip an optional
 * one, apply branches, choose the next question.
 *
 * Volunteered answers (the FormBharo paper: EXTRACT returns every field answered in a
 * turn so that nothing answered is asked again):
 * - a value for a field in an open branch (or in none) is validated at once and, when
 *   valid, stored: the field is not asked;
 * - a value for a field whose branch is not decided yet (its controller is still empty)
 *   is held, not validated: the decision's capture says "held" with the branch it waits
 *   for, flow_held_view lists it. When the branch opens the value is validated then and,
 *   when valid, answered without being asked; that turn's decision carries the capture
 *   with the turn the value was said in. When the branch closes it is "dropped" with
 *   that reason; a later answer to the same field replaces it ("dropped" too);
 * - a turn that captured a valid value for another field (answered or held) and nothing
 *   for the asked one (no value, no invalid value, no refused skip) re-asks without using
 *   a retry and without a validation error: a free re-ask. At most FLOW_FREE_REASKS free
 *   re-asks per question; after them such a turn counts as a failed answer, so a caller
 *   who keeps answering other questions cannot hold the call open forever;
 * - EXTRACT naming one field twice with different values is a fault: neither value is
 *   used (the field stays as it was, and the asked field is asked again).
 *
 * Each turn yields one decision (agent/rules/decision.h: a C record, with the one function that
 * turns it into JSON), which is what the panes show, what the store keeps and what REPLY
 * receives as a tool call.
 */
#ifndef FORMDESK_FLOW_H
#define FORMDESK_FLOW_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "decision.h"
#include "base/err.h"
#include "form.h"
#include "base/ymd.h"
#include "extraction.h"

struct lexicon;
struct flow;

/* Free re-asks per question (see above): the bound on turns that answer only other
 * fields before the asked one's retries are counted. */
#define FLOW_FREE_REASKS 2

enum field_status {
	FIELD_EMPTY,
	FIELD_ANSWERED,
	FIELD_SKIPPED,
};

/* flow_new: a call at its start. Inputs: form and lex (borrowed: must outlive the flow;
 * lex may be NULL, then string values get no Hindi-word normalization), today (the date
 * relative dates and past/future rules use). Output: *out on ERR_OK (caller frees with
 * flow_free). Errors: ERR_NOMEM, ERR_INVALID (form has no questions). */
enum err flow_new(const struct form *form, const struct lexicon *lex, struct ymd today,
		  struct flow **out);
void flow_free(struct flow *fl);

/* flow_start: the opening decision (ask the first question that applies). Output: *out a
 * new decision (caller frees with decision_free). Errors: ERR_NOMEM, ERR_INVALID (called
 * twice). */
enum err flow_start(struct flow *fl, struct decision **out);

/* flow_turn: apply one caller turn. ex (borrowed) is EXTRACT's output; NULL or empty
 * means nothing was captured (silence or an unusable answer), which uses a retry. Output:
 * *out the decision (caller frees with decision_free). Errors: ERR_NOMEM, ERR_INVALID
 * (call already ended or not started). */
enum err flow_turn(struct flow *fl, const struct extraction *ex, struct decision **out);

/* flow_check: normalize and validate ex against the form without changing the call's
 * state, as if the question `asked` (index, -1 for none) had just been put. Output: *out a
 * JSON object keyed by field name, each {"status":"answered","value":V} |
 * {"status":"invalid","error":"..."} | {"status":"skipped","reason":"dont_know"} |
 * {"status":"empty"}; the asked field is always present. Caller frees with cJSON_Delete.
 * Errors: ERR_NOMEM. This is the `formdesk extract` output. */
enum err flow_check(const struct form *form, const struct lexicon *lex, struct ymd today,
		    int asked, const struct extraction *ex, cJSON **out);

/* Read-only views of the call's state. The returned cJSON belong to the flow and stay
 * valid until the next flow_turn or flow_free. */
const cJSON *flow_form_data(const struct flow *fl);   /* FormBharo form_data object */
const cJSON *flow_form_status(const struct flow *fl); /* name -> "answered"|"skipped"|"empty" */
/* flow_held_view: name -> {"value": the value as EXTRACT gave it, "branch": the branch id
 * it waits for, "turn": the caller turn it was said in}, for every held value. */
const cJSON *flow_held_view(const struct flow *fl);
/* flow_held: the value held for question (NULL when none; belongs to the flow, valid
 * until the next flow_turn); *turn the caller turn it was said in (turn may be NULL). */
const cJSON *flow_held(const struct flow *fl, int question, int *turn);
enum call_status flow_status(const struct flow *fl);
enum field_status flow_field_status(const struct flow *fl, int question);
int flow_retries_used(const struct flow *fl, int question);
/* flow_retry_limit: max re-asks for the question, -1 when until_answered. */
int flow_retry_limit(const struct flow *fl, int question);
/* flow_current: index of the question being asked, -1 once the call has ended. */
int flow_current(const struct flow *fl);
/* flow_branch_active: whether branch b's condition holds now. */
bool flow_branch_active(const struct flow *fl, int branch);

/* field_status_name: FormBharo's words; a static string (call_status_name: decision.h). */
const char *field_status_name(enum field_status s);

#endif
