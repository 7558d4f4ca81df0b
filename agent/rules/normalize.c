/* normalize: a backend's raw value -> the question type's stored form. Rules:
 * formbharo-docs reference/question-types.mdx; FormBharo paper (numbers returned as
 * strings are normalized). */
#include "normalize.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "agent/hindi/parse.h"

static char *trimmed(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return strndup(s, n);
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

char *normalize_text_key(const char *s)
{
	char *t = trimmed(s);
	if (!t)
		return NULL;
	utf8proc_uint8_t *f = utf8proc_NFKC_Casefold((const utf8proc_uint8_t *)t);
	if (f) {
		free(t);
		return (char *)f;
	}
	for (char *p = t; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return t;
}

bool normalize_text_eq(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	char *ka = normalize_text_key(a), *kb = normalize_text_key(b);
	bool eq = ka && kb && strcmp(ka, kb) == 0;
	free(ka);
	free(kb);
	return eq;
}

/* Copy of s with Devanagari digits (U+0966..U+096F, bytes E0 A5 A6..AF) made ASCII and
 * spaces trimmed. */
static char *ascii_digits(const char *s)
{
	char *t = trimmed(s);
	if (!t)
		return NULL;
	char *d = t;
	for (const char *p = t; *p;) {
		const unsigned char *u = (const unsigned char *)p;
		if (u[0] == 0xE0 && u[1] == 0xA5 && u[2] >= 0xA6 && u[2] <= 0xAF) {
			*d++ = (char)('0' + (u[2] - 0xA6));
			p += 3;
		} else {
			*d++ = *p++;
		}
	}
	*d = 0;
	return t;
}

int normalize_yesno(const struct lexicon *lex, const char *text)
{
	static const char *yes[] = {"true", "yes", "y", "haan", "han", "ha", "ji haan", "हाँ", "हां", "जी हाँ", "जी हां"};
	static const char *no[] = {"false", "no", "n", "nahi", "nahin", "na", "नहीं", "ना", "जी नहीं"};
	for (size_t i = 0; i < 2; i++) {
		if (normalize_text_eq(text, yes[i]))
			return 1;
		if (normalize_text_eq(text, no[i]))
			return 0;
	}
	if (lex) {
		int r = parse_yesno(lex, text);
		if (r == 0 || r == 1)
			return r;
	}
	for (size_t i = 2; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (normalize_text_eq(text, yes[i]))
			return 1;
	for (size_t i = 2; i < sizeof(no) / sizeof(no[0]); i++)
		if (normalize_text_eq(text, no[i]))
			return 0;
	return -1;
}

enum err normalize_digits(const struct lexicon *lex, const cJSON *raw, char **out)
{
	if (cJSON_IsNumber(raw)) {
		char buf[64];
		double v = fabs(raw->valuedouble);
		if (v >= 1e18)
			return ERR_INVALID;
		snprintf(buf, sizeof(buf), "%.0f", floor(v));
		return (*out = strdup(buf)) ? ERR_OK : ERR_NOMEM;
	}
	if (!cJSON_IsString(raw))
		return ERR_INVALID;
	char *t = ascii_digits(raw->valuestring);
	if (!t)
		return ERR_NOMEM;
	/* Digits and separators only: keep the digits (validation.mdx: "only the digits are
	 * saved, so punctuation and spaces are dropped"). */
	bool only = true;
	char *d = t;
	for (const char *p = t; *p; p++) {
		if (isdigit((unsigned char)*p))
			*d++ = *p;
		else if (!strchr(" +-.()/,_\t", *p))
			only = false;
	}
	*d = 0;
	if (only) {
		*out = t;
		return ERR_OK;
	}
	free(t);
	char *words = NULL;
	if (lex && parse_digits(lex, raw->valuestring, &words) == ERR_NOMEM)
		return ERR_NOMEM;
	*out = words ? words : strdup("");
	return *out ? ERR_OK : ERR_NOMEM;
}

static enum err set_error(char **error, enum normalize_result *res, const char *msg)
{
	*res = NORMALIZE_INVALID;
	*error = strdup(msg);
	return *error ? ERR_OK : ERR_NOMEM;
}

static enum err norm_string(const cJSON *raw, enum normalize_result *res, cJSON **value,
			    char **error)
{
	if (cJSON_IsNumber(raw)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.15g", raw->valuedouble);
		*value = cJSON_CreateString(buf);
	} else if (cJSON_IsString(raw)) {
		char *t = trimmed(raw->valuestring);
		if (!t)
			return ERR_NOMEM;
		if (!*t) {
			free(t);
			*res = NORMALIZE_EMPTY;
			return ERR_OK;
		}
		*value = cJSON_CreateString(t);
		free(t);
	} else {
		return set_error(error, res, "Value must be text.");
	}
	if (!*value)
		return ERR_NOMEM;
	*res = NORMALIZE_OK;
	return ERR_OK;
}

static enum err norm_number(const struct form_question *q, const struct lexicon *lex,
			    const cJSON *raw, enum normalize_result *res, cJSON **value,
			    char **error)
{
	double v = 0;
	bool found = false;
	if (cJSON_IsNumber(raw)) {
		v = raw->valuedouble;
		found = true;
	} else if (cJSON_IsString(raw)) {
		char *t = ascii_digits(raw->valuestring);
		if (!t)
			return ERR_NOMEM;
		if (!*t) {
			free(t);
			*res = NORMALIZE_EMPTY;
			return ERR_OK;
		}
		char *end;
		errno = 0;
		v = strtod(t, &end);
		found = end != t && *end == 0 && isfinite(v);
		free(t);
		if (!found && lex) {
			enum err e = parse_number(lex, raw->valuestring, &found, &v);
			if (e == ERR_NOMEM)
				return e;
			if (e != ERR_OK)
				found = false;
		}
	} else {
		return set_error(error, res, "Value must be a number.");
	}
	if (!found || !isfinite(v))
		return set_error(error, res, "Value must be a number.");
	if (q->integer && v != floor(v))
		return set_error(error, res, "Value must be a whole number.");
	*value = cJSON_CreateNumber(v);
	if (!*value)
		return ERR_NOMEM;
	*res = NORMALIZE_OK;
	return ERR_OK;
}

/* D-M-YYYY with '-', '/' or '.' between, or YYYY-MM-DD. false when the text is not one of
 * these shapes; *valid false when it is but names no real day. */
static bool literal_date(const char *s, bool *valid, struct ymd *out)
{
	int a, b, c, n = 0;
	char s1, s2;
	struct ymd d;
	if (sscanf(s, "%d%c%d%c%d%n", &a, &s1, &b, &s2, &c, &n) != 5 || s[n] || s1 != s2 ||
	    !strchr("-/.", s1))
		return false;
	if (a >= 1000)
		d = (struct ymd){a, b, c};
	else if (c >= 1000)
		d = (struct ymd){c, b, a};
	else
		return false;
	*valid = ymd_valid(d);
	if (*valid)
		*out = d;
	return true;
}

static enum err norm_date(const struct form_question *q, const struct lexicon *lex,
			  struct ymd today, const cJSON *raw, enum normalize_result *res,
			  cJSON **value, char **error)
{
	static const char bad[] = "Date must be a valid date in DD-MM-YYYY format.";
	if (!cJSON_IsString(raw))
		return set_error(error, res, bad);
	char *t = ascii_digits(raw->valuestring);
	if (!t)
		return ERR_NOMEM;
	struct ymd d;
	bool valid = false, found = false;
	if (!*t) {
		free(t);
		*res = NORMALIZE_EMPTY;
		return ERR_OK;
	}
	if (ymd_parse_stored(t, &d)) {
		found = valid = true;
	} else if (literal_date(t, &valid, &d)) {
		found = true;
	} else if (lex) {
		bool past = q->validation == VALID_DATE_TODAY_OR_PAST;
		enum err e = parse_date(lex, raw->valuestring, today, past, &found, &valid, &d);
		if (e == ERR_NOMEM) {
			free(t);
			return e;
		}
		if (e != ERR_OK)
			found = false;
	}
	free(t);
	if (!found)
		return set_error(error, res, bad);
	if (!valid)
		return set_error(error, res, "Date is not a real calendar date.");
	char buf[16];
	*value = cJSON_CreateString(ymd_format(d, buf));
	if (!*value)
		return ERR_NOMEM;
	*res = NORMALIZE_OK;
	return ERR_OK;
}

static enum err norm_boolean(const struct form_question *q, const struct lexicon *lex,
			     const cJSON *raw, enum normalize_result *res, cJSON **value,
			     char **error)
{
	int b = -1;
	if (cJSON_IsBool(raw)) {
		b = cJSON_IsTrue(raw);
	} else if (cJSON_IsString(raw)) {
		if (blank(raw->valuestring)) {
			*res = NORMALIZE_EMPTY;
			return ERR_OK;
		}
		if (q->label_true && normalize_text_eq(raw->valuestring, q->label_true))
			b = 1;
		else if (q->label_false && normalize_text_eq(raw->valuestring, q->label_false))
			b = 0;
		else
			b = normalize_yesno(lex, raw->valuestring);
	}
	if (b < 0)
		return set_error(error, res, "Value must be true or false.");
	const char *label = b ? q->label_true : q->label_false;
	*value = label ? cJSON_CreateString(label) : cJSON_CreateBool(b);
	if (!*value)
		return ERR_NOMEM;
	*res = NORMALIZE_OK;
	return ERR_OK;
}

/* Index of the option that text names (its text, or its 0-based position as digits), or
 * -1. */
static int option_of_text(const struct form_question *q, const char *text)
{
	char *t = ascii_digits(text);
	if (!t)
		return -1;
	int idx = -1;
	char *end;
	long n = strtol(t, &end, 10);
	if (*t && *end == 0 && isdigit((unsigned char)t[0]))
		idx = n >= 0 && n < q->n_options ? (int)n : -1;
	else
		for (int i = 0; i < q->n_options; i++)
			if (normalize_text_eq(t, q->options[i])) {
				idx = i;
				break;
			}
	free(t);
	return idx;
}

static int option_of_number(const struct form_question *q, const cJSON *raw)
{
	double v = raw->valuedouble;
	if (v != floor(v) || v < 0 || v >= q->n_options)
		return -1;
	return (int)v;
}

static enum err not_an_option(const struct form_question *q, enum normalize_result *res,
			      char **error)
{
	size_t n = 64;
	for (int i = 0; i < q->n_options; i++)
		n += strlen(q->options[i]) + 2;
	char *m = malloc(n);
	if (!m)
		return ERR_NOMEM;
	strcpy(m, "Value must be one of: ");
	for (int i = 0; i < q->n_options; i++) {
		if (i)
			strcat(m, ", ");
		strcat(m, q->options[i]);
	}
	strcat(m, ".");
	*res = NORMALIZE_INVALID;
	*error = m;
	return ERR_OK;
}

static enum err norm_single(const struct form_question *q, const cJSON *raw,
			    enum normalize_result *res, cJSON **value, char **error)
{
	int idx = -1;
	if (cJSON_IsNumber(raw)) {
		idx = option_of_number(q, raw);
	} else if (cJSON_IsString(raw)) {
		if (blank(raw->valuestring)) {
			*res = NORMALIZE_EMPTY;
			return ERR_OK;
		}
		idx = option_of_text(q, raw->valuestring);
	}
	if (q->n_options == 0 && cJSON_IsString(raw))
		return norm_string(raw, res, value, error); /* no options: any answer */
	if (idx < 0)
		return not_an_option(q, res, error);
	*value = cJSON_CreateString(q->options[idx]);
	if (!*value)
		return ERR_NOMEM;
	*res = NORMALIZE_OK;
	return ERR_OK;
}

static enum err norm_multi(const struct form_question *q, const cJSON *raw,
			   enum normalize_result *res, cJSON **value, char **error)
{
	enum err e = ERR_OK;
	bool *chosen = calloc((size_t)q->n_options + 1, sizeof(bool));
	char *copy = NULL;
	int count = 0;
	bool bad = false;
	if (!chosen)
		return ERR_NOMEM;
	if (cJSON_IsArray(raw)) {
		/* A list of positions; a list of option texts is refused (question-types.mdx). */
		const cJSON *el;
		cJSON_ArrayForEach(el, raw) {
			int idx = cJSON_IsNumber(el) ? option_of_number(q, el) : -1;
			if (idx < 0)
				bad = true;
			else if (!chosen[idx] && ++count)
				chosen[idx] = true;
		}
	} else if (cJSON_IsString(raw)) {
		copy = strdup(raw->valuestring);
		if (!copy) {
			e = ERR_NOMEM;
			goto out;
		}
		char *save = NULL;
		for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
			if (blank(part))
				continue;
			int idx = option_of_text(q, part);
			if (idx < 0)
				bad = true;
			else if (!chosen[idx] && ++count)
				chosen[idx] = true;
		}
	} else {
		bad = true;
	}
	if (bad) {
		e = not_an_option(q, res, error);
		goto out;
	}
	if (count == 0) {
		*res = NORMALIZE_EMPTY;
		goto out;
	}
	size_t n = 1;
	for (int i = 0; i < q->n_options; i++)
		if (chosen[i])
			n += strlen(q->options[i]) + 2;
	char *s = malloc(n);
	if (!s) {
		e = ERR_NOMEM;
		goto out;
	}
	*s = 0;
	for (int i = 0; i < q->n_options; i++)
		if (chosen[i]) {
			if (*s)
				strcat(s, ", ");
			strcat(s, q->options[i]);
		}
	*value = cJSON_CreateString(s);
	free(s);
	if (!*value) {
		e = ERR_NOMEM;
		goto out;
	}
	*res = NORMALIZE_OK;
out:
	free(chosen);
	free(copy);
	return e;
}

enum err normalize_value(const struct form_question *q, const struct lexicon *lex,
			 struct ymd today, const cJSON *raw, enum normalize_result *res,
			 cJSON **value, char **error)
{
	*res = NORMALIZE_EMPTY;
	if (!raw || cJSON_IsNull(raw))
		return ERR_OK;
	switch (q->type) {
	case FORM_STRING:
		return norm_string(raw, res, value, error);
	case FORM_NUMBER:
		return norm_number(q, lex, raw, res, value, error);
	case FORM_DATE:
		return norm_date(q, lex, today, raw, res, value, error);
	case FORM_BOOLEAN:
		return norm_boolean(q, lex, raw, res, value, error);
	case FORM_SINGLE_SELECT:
		return norm_single(q, raw, res, value, error);
	case FORM_MULTI_SELECT:
		return norm_multi(q, raw, res, value, error);
	}
	return ERR_OK;
}
