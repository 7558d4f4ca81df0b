/* score: form-completion accuracy, as the FormBharo paper measures it (arXiv 2608.06027,
 * integration tests): the fraction of fields correct at the end of the call. Counted over
 * every field whose expected status is "answered" or "skipped" (fields of branches that
 * never opened are left out): a field is correct when its final status matches and, if
 * answered, its value matches. Open (string) fields such as names are judged as names:
 * equal after Unicode NFKC case folding with runs of spaces made one (utf8proc), or
 * "same" by the deterministic name judge (agent/hindi/namematch.h; "unsure" counts as wrong),
 * as the paper judges open fields; every other field exactly (cJSON_Compare). */
#ifndef FORMDESK_SCORE_H
#define FORMDESK_SCORE_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "agent/rules/form.h"

struct score {
	int fields;  /* fields counted */
	int correct; /* of them, correct */
};

/* score_call: add one call to *acc. Inputs (borrowed): form (for field types; NULL
 * compares every value exactly), the expected form_data and form_status, and the final
 * ones. misses: NULL, or an array that gets {"field","want_status","got_status","want",
 * "got"} for each wrong field. Errors: ERR_NOMEM. */
enum err score_call(const struct form *form, const cJSON *want_data, const cJSON *want_status,
		    const cJSON *got_data, const cJSON *got_status, struct score *acc,
		    cJSON *misses);

/* score_same_value: whether got is want for question q (NULL: exact comparison). */
bool score_same_value(const struct form_question *q, const cJSON *want, const cJSON *got);

/* score_accuracy: correct / fields, 0 when no field was counted. */
double score_accuracy(const struct score *s);

#endif
