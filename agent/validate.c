/* validate: the type check and the validation rules of formbharo-docs
 * reference/validation.mdx, with its messages where the docs give them. */
#include "validate.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

const char *validate_rule_name(enum form_validation v)
{
	switch (v) {
	case VALID_NONE: return "none";
	case VALID_PHONE_NUMBER: return "phone_number";
	case VALID_EXACT_NUM_DIGITS: return "exact_num_digits";
	case VALID_NUMBER_RANGE: return "number_range";
	case VALID_MIN_LENGTH: return "min_length";
	case VALID_REGEX: return "regex";
	case VALID_FREE_TEXT: return "free_text";
	case VALID_DATE: return "date";
	case VALID_DATE_TODAY_OR_PAST: return "date_today_or_past";
	case VALID_DATE_FUTURE: return "date_future";
	}
	return "none";
}

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

/* The rule's message into msg ("" when the value passes). */
static void check_rule(const struct form_question *q, struct ymd today, const cJSON *value,
		       char *msg, size_t n)
{
	*msg = 0;
	switch (q->validation) {
	case VALID_NUMBER_RANGE: {
		double v;
		char lo[40], hi[40];
		if (cJSON_IsNumber(value)) {
			v = value->valuedouble;
		} else {
			char *end;
			const char *s = cJSON_IsString(value) ? value->valuestring : "";
			v = strtod(s, &end);
			if (end == s || *end) {
				snprintf(msg, n, "Value must be a number.");
				return;
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
		return;
	}
	case VALID_MIN_LENGTH: {
		char *t = as_text(value);
		long c = t ? char_count(t) : 0;
		if (c < q->min_length)
			snprintf(msg, n, "Value must be at least %d characters long (got %ld).",
				 q->min_length, c);
		free(t);
		return;
	}
	case VALID_REGEX: {
		regex_t re;
		char *t = as_text(value);
		if (regcomp(&re, q->pattern ? q->pattern : "", REG_EXTENDED | REG_NOSUB) != 0) {
			snprintf(msg, n, "The question's pattern is not a valid regular expression.");
		} else {
			if (!t || regexec(&re, t, 0, NULL, 0) != 0)
				snprintf(msg, n, "%s",
					 q->message && *q->message ? q->message
								   : "Value does not match the required pattern.");
			regfree(&re);
		}
		free(t);
		return;
	}
	case VALID_DATE:
	case VALID_DATE_TODAY_OR_PAST:
	case VALID_DATE_FUTURE: {
		struct ymd d;
		if (!cJSON_IsString(value) || !ymd_parse_stored(value->valuestring, &d)) {
			snprintf(msg, n, "Date must be a valid date in DD-MM-YYYY format.");
			return;
		}
		if (q->validation == VALID_DATE_TODAY_OR_PAST && ymd_cmp(d, today) > 0)
			snprintf(msg, n, "Date must be today or in the past.");
		else if (q->validation == VALID_DATE_FUTURE && ymd_cmp(d, today) <= 0)
			snprintf(msg, n, "Date must be in the future.");
		return;
	}
	default:
		return;
	}
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
	if (q->validation == VALID_PHONE_NUMBER) {
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

	bool digit_rule = (q->validation == VALID_PHONE_NUMBER ||
			   q->validation == VALID_EXACT_NUM_DIGITS) &&
			  (q->type == FORM_STRING || q->type == FORM_NUMBER);
	if (digit_rule) {
		bool empty;
		e = check_digits(q, lex, raw, &empty, &v, msg, sizeof(msg));
		if (e != ERR_OK)
			goto fail;
		if (empty)
			return ERR_OK;
		const char *rule = validate_rule_name(q->validation);
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
		e = verdict(verdicts, q->name, validate_rule_name(q->validation), !*msg,
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
