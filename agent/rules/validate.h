/* validate: FormBharo's deterministic checks on one answer (reference/validation.mdx,
 * reference/question-types.mdx "The type is checked too"), run on every value a backend
 * returns, both by the call's flow and by `formdesk extract` (flow_check), so the two
 * always agree. Pure: "today" is an input. */
#ifndef FORMDESK_VALIDATE_H
#define FORMDESK_VALIDATE_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "form.h"
#include "normalize.h"
#include "base/ymd.h"

struct lexicon;

/* validate_answer: normalize raw (borrowed, may be NULL) for question q and apply its
 * validation rule. The type check always runs (rule "type"); then the question's rule
 * (rule named as in the config, e.g. "phone_number"). phone_number and exact_num_digits
 * read the digits of the answer (normalize_digits) instead of the type's parse.
 * Inputs: lex may be NULL; today is the date for past/future rules; verdicts (may be
 * NULL) is a JSON array to which each check that ran is appended as
 * {"field":q->name,"rule","ok","message"} ("message" is "" when ok).
 * Outputs: *res; on NORMALIZE_OK *value new cJSON (caller frees); on NORMALIZE_INVALID
 * *error new string (caller frees), the first failing check's message.
 * Errors: ERR_NOMEM. */
enum err validate_answer(const struct form_question *q, const struct lexicon *lex,
			 struct ymd today, const cJSON *raw, cJSON *verdicts,
			 enum normalize_result *res, cJSON **value, char **error);

/* validate_end_call_value: whether the stored value (as validate_answer made it) is one
 * of q's end_call_values (question-types.mdx: written as strings, "false" for a boolean,
 * option text for a select). Compared ignoring case; a boolean also matches its label and
 * yes/no words, a number matches the same number written as text. */
bool validate_end_call_value(const struct form_question *q, const struct lexicon *lex,
			     const cJSON *value);

/* validate_rule_text: q's validation rule in a few English words for a model's prompt
 * ("a phone number of 10 digits", the regex's message, ...), from the rule's own function.
 * Inputs: q (borrowed), buf of n bytes it may write. Output: buf, or a string of q, or a
 * static string (none to free); NULL when q has no rule or nothing to say. */
const char *validate_rule_text(const struct form_question *q, char *buf, size_t n);

#endif
