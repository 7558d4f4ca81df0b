/* normalize: turn a value an EXTRACT backend returned into the form FormBharo stores for
 * the question's type (reference/question-types.mdx), or say why it cannot be. Part of
 * the rule layer: pure, no clock ("today" is an input).
 *
 * Stored forms: string as trimmed text; number as a JSON number (a decimal without a
 * fraction prints whole); date as "DD-MM-YYYY"; boolean as true/false or its
 * boolean_labels label; single-select as the option text; multi-select as one string of
 * option texts joined by ", ". A number said as a string ("5", "५", "paanch") and dates
 * or yes/no said in words go through agent/hindi/parse.h (the paper: "normalizes types, a
 * number returned as a string"). */
#ifndef FORMDESK_NORMALIZE_H
#define FORMDESK_NORMALIZE_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "form.h"
#include "base/ymd.h"

struct lexicon;

enum normalize_result {
	NORMALIZE_EMPTY,   /* no value: absent, JSON null, blank text */
	NORMALIZE_OK,      /* *value holds the stored form */
	NORMALIZE_INVALID, /* *error says why (English sentence) */
};

/* normalize_value: raw (borrowed; may be NULL) as the stored value of question q.
 * lex may be NULL (then no Hindi or English words are understood, only digits and
 * literal forms). Outputs: *res; on NORMALIZE_OK *value new cJSON (caller frees with
 * cJSON_Delete); on NORMALIZE_INVALID *error new string (caller frees). Errors:
 * ERR_NOMEM. */
enum err normalize_value(const struct form_question *q, const struct lexicon *lex,
			 struct ymd today, const cJSON *raw, enum normalize_result *res,
			 cJSON **value, char **error);

/* normalize_digits: the digits a phone number or digit-count answer holds. A JSON number
 * gives its whole part; text made of digits (ASCII or Devanagari) and separators keeps
 * only the digits; other text goes through parse_digits. Output: *out new ASCII digit
 * string (caller frees), "" when none. Errors: ERR_NOMEM, ERR_INVALID (raw is neither a
 * number nor text). */
enum err normalize_digits(const struct lexicon *lex, const cJSON *raw, char **out);

/* normalize_text_eq: whether a and b are the same text ignoring case and Unicode
 * compatibility forms (utf8proc NFKC case fold) and surrounding spaces. */
bool normalize_text_eq(const char *a, const char *b);

/* normalize_text_key: the form of s that normalize_text_eq compares (trimmed, NFKC case
 * folded; ASCII lower case when s is not UTF-8): two texts are equal when their keys are.
 * Output: a new string (caller frees), NULL on ERR_NOMEM. For comparing many texts at
 * once (sort the keys) instead of each pair. */
char *normalize_text_key(const char *s);

/* normalize_yesno: 1 yes, 0 no, -1 neither, for text a backend or a config gives:
 * "true"/"false", then parse_yesno (lex may be NULL), then the plain English and
 * romanized Hindi words yes/no/haan/nahi. */
int normalize_yesno(const struct lexicon *lex, const char *text);

#endif
