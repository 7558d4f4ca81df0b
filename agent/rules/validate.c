/* validate: the type check and the validation rules of formbharo-docs
 * reference/validation.mdx, with its messages where the docs give them. */
#include "validate.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static enum err verdict(cJSON *verdicts, const char *field, const char *rule, bool ok,
			const char *message)
{
	if (!verdicts)
		return ERR_OK;
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(verdicts, o)) {
		cJSON_Delete(o);
		return ERR_NOMEM;
	}
	if (!cJSON_AddStringToObject(o, "field", field ? field : "") ||
	    !cJSON_AddStringToObject(o, "rule", rule) || !cJSON_AddBoolToObject(o, "ok", ok) ||
	    !cJSON_AddStringToObject(o, "message", message ? message : ""))
		return ERR_NOMEM;
	return ERR_OK;
}

/* Number of Unicode code points in s (min_length counts characters, not bytes). */
static long char_count(const char *s)
{
	long n = 0;
	const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
	utf8proc_ssize_t len = (utf8proc_ssize_t)strlen(s);
	while (len > 0) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate(p, len, &cp);
		if (k <= 0)
			k = 1; /* a stray byte still counts once */
		p += k;
		len -= k;
		n++;
	}
	return n;
}

/* The value as text for the text rules (min_length, regex). New string or NULL. */
static char *as_text(const cJSON *v)
{
	if (cJSON_IsString(v))
		return strdup(v->valuestring);
	if (cJSON_IsNumber(v)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.15g", v->valuedouble);
		return strdup(buf);
	}
	if (cJSON_IsBool(v))
		return strdup(cJSON_IsTrue(v) ? "true" : "false");
	return strdup("");
}

static void fmt_num(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.15g", v);
}

/* ---- the rules, one function per row of FORM_VALIDATIONS --------------------------
 * rule_<name>(q, today, value, msg, n): with value set (as the type's parse made it),
 * writes the rule's message for it into msg ("" when it passes) and returns msg; with
 * value NULL, returns the rule in a few words for a model's prompt (in msg or a string
 * of q; NULL when there is nothing to say). */

/* phone_number and exact_num_digits count the digits heard (check_digits, below): the
 * typed value is only checked here when the question's type reads no digits. */
static const char *rule_phone_number(const struct form_question *q, struct ymd today,
				     const cJSON *value, char *msg, size_t n)
{
	*msg = 0;
	if (!value)
		snprintf(msg, n, "a phone number of %d digits", q->digits > 0 ? q->digits : 10);
	return msg;
}

static const char *rule_exact_num_digits(const struct form_question *q, struct ymd today,
					 const cJSON *value, char *msg, size_t n)
{
	*msg = 0;
	if (!value)
		snprintf(msg, n, "exactly %d digits", q->digits > 0 ? q->digits : 1);
	return msg;
}

static const char *rule_number_range(const struct form_question *q, struct ymd today,
				     const cJSON *value, char *msg, size_t n)
{
	double v;
	char lo[40], hi[40];
	*msg = 0;
	if (!value) {
		if (q->has_min && q->has_max)
			snprintf(msg, n, "a number from %g to %g", q->min, q->max);
		else if (q->has_min)
			snprintf(msg, n, "a number of at least %g", q->min);
		else
			snprintf(msg, n, "a number of at most %g", q->max);
		return msg;
	}
	if (cJSON_IsNumber(value)) {
		v = value->valuedouble;
	} else {
		char *end;
		const char *s = cJSON_IsString(value) ? value->valuestring : "";
		v = strtod(s, &end);
		if (end == s || *end) {
			snprintf(msg, n, "Value must be a number.");
			return msg;
		}
	}
	fmt_num(lo, sizeof(lo), q->min);
	fmt_num(hi, sizeof(hi), q->max);
	if ((q->has_min && v < q->min) || (q->has_max && v > q->max)) {
		if (q->has_min && q->has_max)
			snprintf(msg, n, "Value must be between %s and %s.", lo, hi);
		else if (q->has_min)
			snprintf(msg, n, "Value must be at least %s.", lo);
		else
			snprintf(msg, n, "Value must be at most %s.", hi);
	}
	return msg;
}

static const char *rule_min_length(const struct form_question *q, struct ymd today,
				   const cJSON *value, char *msg, size_t n)
{
	*msg = 0;
	if (!value) {
		snprintf(msg, n, "at least %d characters", q->min_length > 0 ? q->min_length : 1);
		return msg;
	}
	char *t = as_text(value);
	long c = t ? char_count(t) : 0;
	if (c < q->min_length)
		snprintf(msg, n, "Value must be at least %d characters long (got %ld).", q->min_length,
			 c);
	free(t);
	return msg;
}

static const char *rule_regex(const struct form_question *q, struct ymd today,
			      const cJSON *value, char *msg, size_t n)
{
	/* compiled once when the form was loaded (a form that loaded has one) */
	const regex_t *re = q->pattern_re;
	*msg = 0;
	if (!value)
		return q->message ? q->message : q->pattern;
	char *t = as_text(value);
	if (!re) {
		snprintf(msg, n, "The question's pattern is not a valid regular expression.");
	} else if (!t || regexec(re, t, 0, NULL, 0) != 0) {
		snprintf(msg, n, "%s",
			 q->message && *q->message ? q->message
						   : "Value does not match the required pattern.");
	}
	free(t);
	return msg;
}

/* free_text is guidance for the model, never enforced. */
static const char *rule_free_text(const struct form_question *q, struct ymd today,
				  const cJSON *value, char *msg, size_t n)
{
	*msg = 0;
	return value ? msg : q->description;
}

/* The date rules: a stored DD-MM-YYYY date; when < 0 today or before, > 0 after today. */
static const char *date_rule(struct ymd today, const cJSON *value, int when, char *msg,
			     size_t n)
{
	struct ymd d;
	*msg = 0;
	if (!cJSON_IsString(value) || !ymd_parse_stored(value->valuestring, &d))
		snprintf(msg, n, "Date must be a valid date in DD-MM-YYYY format.");
	else if (when < 0 && ymd_cmp(d, today) > 0)
		snprintf(msg, n, "Date must be today or in the past.");
	else if (when > 0 && ymd_cmp(d, today) <= 0)
		snprintf(msg, n, "Date must be in the future.");
	return msg;
}

static const char *rule_date(const struct form_question *q, struct ymd today,
			     const cJSON *value, char *msg, size_t n)
{
	return value ? date_rule(today, value, 0, msg, n) : "a calendar date";
}

static const char *rule_date_today_or_past(const struct form_question *q, struct ymd today,
					   const cJSON *value, char *msg, size_t n)
{
	return value ? date_rule(today, value, -1, msg, n) : "a date today or in the past";
}

static const char *rule_date_future(const struct form_question *q, struct ymd today,
				    const cJSON *value, char *msg, size_t n)
{
	return value ? date_rule(today, value, 1, msg, n) : "a date in the future";
}

static const char *(*const rules[VALID_N])(const struct form_question *, struct ymd,
					    const cJSON *, char *, size_t) = {
#define X(id, name, alias) [VALID_##id] = rule_##name,
	FORM_VALIDATIONS(X)
#undef X
};

/* The rule's message into msg ("" when the value passes, or q has no rule). */
static void check_rule(const struct form_question *q, struct ymd today, const cJSON *value,
		       char *msg, size_t n)
{
	*msg = 0;
	if ((unsigned)q->validation < VALID_N && rules[q->validation])
		rules[q->validation](q, today, value, msg, n);
}

const char *validate_rule_text(const struct form_question *q, char *buf, size_t n)
{
	if ((unsigned)q->validation >= VALID_N || !rules[q->validation])
		return NULL;
	*buf = 0;
	return rules[q->validation](q, (struct ymd){0}, NULL, buf, n); /* NULL: describe */
}

/* phone_number / exact_num_digits: digits of raw -> *value, or the rule's message. */
static enum err check_digits(const struct form_question *q, const struct lexicon *lex,
			     const cJSON *raw, bool *empty, cJSON **value, char *msg, size_t n)
{
	char *d = NULL;
	*empty = false;
	*msg = 0;
	enum err e = normalize_digits(lex, raw, &d);
	if (e == ERR_NOMEM)
		return e;
	if (e != ERR_OK) {
		snprintf(msg, n, "Value must be a number.");
		return ERR_OK;
	}
	if (!*d && cJSON_IsString(raw) && strspn(raw->valuestring, " \t\r\n") == strlen(raw->valuestring)) {
		*empty = true;
		free(d);
		return ERR_OK;
	}
	size_t len = strlen(d);
	const char *p = d;
	if (form_digits(q) == FORM_DIGITS_PHONE) {
		/* A leading +91, 91 or 0 is dropped when 10 digits are wanted. */
		if (q->digits == 10 && len == 12 && strncmp(p, "91", 2) == 0)
			p += 2;
		else if (q->digits == 10 && len == 11 && p[0] == '0')
			p += 1;
		len = strlen(p);
		bool same = len > 0 && strspn(p, (char[]){p[0], 0}) == len;
		if ((int)len != q->digits)
			snprintf(msg, n, "Phone number must be exactly %d digits (got %zu). Parsed digits: %s",
				 q->digits, len, p);
		else if (same)
			snprintf(msg, n, "Phone number must not have every digit the same. Parsed digits: %s",
				 p);
	} else if ((int)len != q->digits) {
		snprintf(msg, n, "Value must be exactly %d digits (got %zu).", q->digits, len);
	}
	if (!*msg) {
		/* A number question keeps a number when it fits a double exactly. */
		if (q->type == FORM_NUMBER && len <= 15 && p[0] != '0')
			*value = cJSON_CreateNumber(strtod(p, NULL));
		else
			*value = cJSON_CreateString(p);
		if (!*value)
			e = ERR_NOMEM;
	}
	free(d);
	return e;
}

enum err validate_answer(const struct form_question *q, const struct lexicon *lex,
			 struct ymd today, const cJSON *raw, cJSON *verdicts,
			 enum normalize_result *res, cJSON **value, char **error)
{
	char msg[512];
	cJSON *v = NULL;
	char *err = NULL;
	enum err e;
	*res = NORMALIZE_EMPTY;
	if (!raw || cJSON_IsNull(raw))
		return ERR_OK;

	bool digit_rule = form_counts_digits(q) && (q->type == FORM_STRING || q->type == FORM_NUMBER);
	if (digit_rule) {
		bool empty;
		e = check_digits(q, lex, raw, &empty, &v, msg, sizeof(msg));
		if (e != ERR_OK)
			goto fail;
		if (empty)
			return ERR_OK;
		const char *rule = form_validation_name(q->validation);
		if ((e = verdict(verdicts, q->name, rule, !*msg, msg)) != ERR_OK)
			goto fail;
		if (*msg) {
			*res = NORMALIZE_INVALID;
			if (!(*error = strdup(msg))) {
				e = ERR_NOMEM;
				goto fail;
			}
			return ERR_OK;
		}
		*res = NORMALIZE_OK;
		*value = v;
		return ERR_OK;
	}

	enum normalize_result r;
	e = normalize_value(q, lex, today, raw, &r, &v, &err);
	if (e != ERR_OK)
		goto fail;
	if (r == NORMALIZE_EMPTY)
		return ERR_OK;
	if ((e = verdict(verdicts, q->name, "type", r == NORMALIZE_OK, err)) != ERR_OK)
		goto fail;
	if (r == NORMALIZE_INVALID) {
		*res = r;
		*error = err;
		return ERR_OK;
	}
	if (q->validation != VALID_NONE) {
		check_rule(q, today, v, msg, sizeof(msg));
		e = verdict(verdicts, q->name, form_validation_name(q->validation), !*msg,
			    q->validation == VALID_FREE_TEXT ? "guidance only, not enforced" : msg);
		if (e != ERR_OK)
			goto fail;
		if (*msg) {
			cJSON_Delete(v);
			*res = NORMALIZE_INVALID;
			*error = strdup(msg);
			return *error ? ERR_OK : ERR_NOMEM;
		}
	}
	*res = NORMALIZE_OK;
	*value = v;
	return ERR_OK;
fail:
	cJSON_Delete(v);
	free(err);
	return e;
}

bool validate_end_call_value(const struct form_question *q, const struct lexicon *lex,
			     const cJSON *value)
{
	if (!value)
		return false;
	for (int i = 0; i < q->n_end_call_values; i++) {
		const char *ecv = q->end_call_values[i];
		if (q->type == FORM_BOOLEAN) {
			int b = -1;
			if (cJSON_IsBool(value))
				b = cJSON_IsTrue(value);
			else if (cJSON_IsString(value))
				b = q->label_true && normalize_text_eq(value->valuestring, q->label_true) ? 1
				    : q->label_false && normalize_text_eq(value->valuestring, q->label_false) ? 0
				    : -1;
			int w = q->label_true && normalize_text_eq(ecv, q->label_true) ? 1
				: q->label_false && normalize_text_eq(ecv, q->label_false) ? 0
				: normalize_yesno(lex, ecv);
			if (b >= 0 && w == b)
				return true;
		} else if (cJSON_IsNumber(value)) {
			char *end;
			double d = strtod(ecv, &end);
			if (end != ecv && !*end && d == value->valuedouble)
				return true;
		} else if (cJSON_IsString(value)) {
			if (normalize_text_eq(value->valuestring, ecv))
				return true;
		}
	}
	return false;
}
