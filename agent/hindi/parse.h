/* parse: turning the words of a value (Hindi, Hinglish, English; Devanagari or Latin)
 * into typed values. Part of the rule layer: pure, no clock (today is an input). Used by
 * the rule layer's normalizer on any string a backend returns, and by the offline
 * extractor. */
#ifndef FORMDESK_PARSE_H
#define FORMDESK_PARSE_H

#include <stdbool.h>
#include "base/err.h"
#include "base/ymd.h"

struct lexicon;

/* parse_digits: the digit string said in text ("nau aath ...", "98765 43210",
 * "double seven", Devanagari digits, ...), corrections applied. Output: *out a new
 * NUL-terminated ASCII digit string (caller frees), or NULL when text holds no digits.
 * Errors: ERR_NOMEM. */
enum err parse_digits(const struct lexicon *lex, const char *text, char **out);

/* parse_number: a cardinal or decimal number said in text ("saadhe paanch" 5.5,
 * "pachees" 25, "2 lakh"). Output: *found false when none; else *value. Errors: ERR_NOMEM. */
enum err parse_number(const struct lexicon *lex, const char *text, bool *found, double *value);

/* parse_date: a calendar date said in text, resolved against today. past_only: a date
 * given without a year takes the most recent past one unless said in the future tense.
 * Output: *found false when no date is said; *valid false when a date is said but is
 * impossible (31 February); else *out. Errors: ERR_NOMEM. */
enum err parse_date(const struct lexicon *lex, const char *text, struct ymd today, bool past_only,
		    bool *found, bool *valid, struct ymd *out);

/* parse_yesno: 1 for yes, 0 for no, -1 when text answers neither ("ji, boliye", "hmm"). */
int parse_yesno(const struct lexicon *lex, const char *text);

/* Token-level forms, used by the offline extractor on parts of an utterance. Each reads
 * tokens [from, to) of t, which lexicon_tag_text has tagged with lex. */
struct text;

/* parse_digits_span: as parse_digits. expect: the digit count the answer should have
 * (0 unknown); when the words hold two or more complete numbers of that length, the
 * last wins. Output: *out new digit string (caller frees) or NULL. Errors: ERR_NOMEM. */
enum err parse_digits_span(const struct lexicon *lex, const struct text *t, int from, int to,
			   int expect, char **out);

/* One number said: its value and the tokens [from, to) it took. after_neg: a correction
 * word ("nahi", "galat") stands between it and the number before. */
struct parse_num {
	double value;
	int from, to;
	bool after_neg;
	bool ordinal;  /* said as an ordinal (paanchva) */
};

/* parse_numbers_span: the numbers said, in order ("saadhe paanch" 5.5, "do hazaar
 * chaubees" 2024; "ninety eight" 98; numbers before a count noun such as "chaar digit"
 * and fillers such as "ek minute" are left out). Output: up to max of them in out.
 * Returns how many. */
int parse_numbers_span(const struct lexicon *lex, const struct text *t, int from, int to,
		       struct parse_num *out, int max);

/* parse_date_span: as parse_date, with when: -1 the date cannot be in the future (as
 * past_only), +1 it cannot be in the past (a yearless date or "kal" then looks ahead
 * even without the future tense), 0 either. */
void parse_date_span(const struct lexicon *lex, const struct text *t, int from, int to,
		     struct ymd today, int when, bool *found, bool *valid, struct ymd *out);

/* parse_yesno_span: as parse_yesno. copula_yes: a plain statement ("main pregnant hoon")
 * counts as yes when nothing negates it. */
int parse_yesno_span(const struct lexicon *lex, const struct text *t, int from, int to,
		     bool copula_yes);

#endif
