/* Every validator and type normalization, one row of tests/data/validate.tsv per case:
 * the question, the backend's raw value, today, and the stored value or the error. Rows
 * marked "words" need the word lists and agent/hindi/parse.h; they run once those understand
 * number words. The same rows also go through flow_check, which must agree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "agent/hindi/parse.h"
#include "agent/rules/validate.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

static struct lexicon *words_lexicon(void)
{
	struct lexicon *lex = NULL;
	if (lexicon_load(lexicon_default_dir(), &lex, NULL) != ERR_OK)
		return NULL;
	bool found = false;
	double v = 0;
	if (parse_number(lex, "paanch", &found, &v) != ERR_OK || !found || v != 5) {
		lexicon_free(lex);
		return NULL;
	}
	return lex;
}

/* One row; returns the number of failures (0 or 1), printing what differs. */
static int run_row(int line, char **col, struct lexicon *lex)
{
	char text[2048];
	snprintf(text, sizeof(text), "{\"title\":\"t\",\"questions\":[%s]}", col[0]);
	/* The name and label every row's question gets. */
	char *brace = strchr(text, '[');
	memmove(brace + 31, brace + 1, strlen(brace + 1) + 1);
	memcpy(brace + 1, "{\"name\":\"f\",\"label\":\"F\",      ", 30);
	brace[31] = ' ';
	struct form *f = NULL;
	struct form_issues is;
	if (form_parse(text, &f, &is) != ERR_OK) {
		char *js = form_issues_json(&is);
		print_error("validate.tsv:%d: bad question: %s\n", line, js);
		free(js);
		form_issues_free(&is);
		return 1;
	}
	cJSON *raw = cJSON_Parse(col[1]);
	struct ymd today;
	int fail = 0;
	if (!raw || !ymd_parse_iso(col[2], &today)) {
		print_error("validate.tsv:%d: bad raw value or today\n", line);
		fail = 1;
		goto out;
	}
	const char *expect = col[3];
	cJSON *verdicts = cJSON_CreateArray();
	enum normalize_result res;
	cJSON *value = NULL;
	char *error = NULL;
	assert_int_equal(validate_answer(&f->questions[0], lex, today, raw, verdicts, &res, &value,
					 &error), ERR_OK);
	char *got;
	if (res == NORMALIZE_OK) {
		char *v = cJSON_PrintUnformatted(value);
		got = malloc(strlen(v) + 4);
		sprintf(got, "ok %s", v);
		free(v);
	} else if (res == NORMALIZE_INVALID) {
		got = malloc(strlen(error) + 9);
		sprintf(got, "invalid %s", error);
	} else {
		got = strdup("empty");
	}
	if (strcmp(got, expect) != 0) {
		print_error("validate.tsv:%d (%s):\n  expected: %s\n  got:      %s\n", line, col[4],
			    expect, got);
		fail = 1;
	}
	/* Every value that is not empty leaves verdicts, and the last failing one is the error. */
	int nv = cJSON_GetArraySize(verdicts);
	if (res != NORMALIZE_EMPTY && nv == 0) {
		print_error("validate.tsv:%d: no verdicts recorded\n", line);
		fail = 1;
	}
	if (res == NORMALIZE_INVALID && nv > 0) {
		cJSON *last = cJSON_GetArrayItem(verdicts, nv - 1);
		if (!cJSON_IsFalse(cJSON_GetObjectItem(last, "ok")) ||
		    strcmp(cJSON_GetObjectItem(last, "message")->valuestring, error) != 0) {
			print_error("validate.tsv:%d: last verdict does not carry the error\n", line);
			fail = 1;
		}
	}
	/* flow_check uses the same code: the same outcome. */
	struct extraction *ex = extraction_new();
	assert_int_equal(extraction_add(ex, "f", cJSON_Duplicate(raw, true), false, NULL, NULL), ERR_OK);
	cJSON *chk = NULL;
	assert_int_equal(flow_check(f, lex, today, 0, ex, &chk), ERR_OK);
	cJSON *e = cJSON_GetObjectItem(chk, "f");
	const char *st = cJSON_GetObjectItem(e, "status")->valuestring;
	const char *want = res == NORMALIZE_OK ? "answered" : res == NORMALIZE_INVALID ? "invalid" : "empty";
	if (strcmp(st, want) != 0 ||
	    (res == NORMALIZE_OK && !cJSON_Compare(cJSON_GetObjectItem(e, "value"), value, true))) {
		print_error("validate.tsv:%d: flow_check disagrees (%s)\n", line, st);
		fail = 1;
	}
	cJSON_Delete(chk);
	extraction_free(ex);
	cJSON_Delete(verdicts);
	cJSON_Delete(value);
	free(error);
	free(got);
out:
	cJSON_Delete(raw);
	form_free(f);
	return fail;
}

static void test_table(void **state)
{
	(void)state;
	struct table_row *v;
	int nv;
	table_load("tests/data/validate.tsv", 0, 0, 0, &v, &nv);
	struct lexicon *lex = words_lexicon();
	int rows = 0, failures = 0, skipped = 0;
	for (int i = 0; i < nv; i++) {
		int line = v[i].line;
		if (v[i].ncol < 5) {
			print_error("validate.tsv:%d: expected 5 tab-separated columns, got %d\n", line,
				    v[i].ncol);
			failures++;
			continue;
		}
		char *col[5];
		memcpy(col, v[i].col, sizeof(col));
		if (strncmp(col[3], "words ", 6) == 0) {
			col[3] += 6;
			if (!lex) {
				skipped++;
				continue;
			}
		}
		rows++;
		failures += run_row(line, col, lex);
	}
	table_free(v, nv);
	lexicon_free(lex);
	if (skipped)
		print_message("validate.tsv: %d rows need number words, not available yet: skipped\n", skipped);
	assert_true(rows >= 60);
	assert_int_equal(failures, 0);
}

static void test_end_call_values(void **state)
{
	(void)state;
	const char *text = "{\"title\":\"t\",\"questions\":["
		"{\"name\":\"b\",\"label\":\"B\",\"type\":\"boolean\",\"end_call_values\":[\"false\"]},"
		"{\"name\":\"l\",\"label\":\"L\",\"type\":\"boolean\",\"boolean_labels\":{\"true\":\"Haan\",\"false\":\"Nahi\"},\"end_call_values\":[\"no\"]},"
		"{\"name\":\"s\",\"label\":\"S\",\"type\":\"single-select\",\"options\":[\"A\",\"None\"],\"end_call_values\":[\"none\"]},"
		"{\"name\":\"d\",\"label\":\"D\",\"type\":\"date\",\"end_call_values\":[\"01-01-2000\"]},"
		"{\"name\":\"n\",\"label\":\"N\",\"type\":\"number\",\"end_call_values\":[\"0\"]}]}";
	struct form *f = NULL;
	assert_int_equal(form_parse(text, &f, NULL), ERR_OK);
	/* a question's value (JSON) and whether it ends the call */
	static const struct {
		int q;
		const char *value;
		bool ends;
	} rows[] = {
		{0, "false", true},
		{0, "true", false},
		{1, "\"Nahi\"", true},
		{1, "\"Haan\"", false},
		{2, "\"None\"", true},
		{2, "\"A\"", false},
		{3, "\"01-01-2000\"", true},
		{4, "0", true},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		cJSON *v = cJSON_Parse(rows[i].value);
		assert_non_null(v);
		if (validate_end_call_value(&f->questions[rows[i].q], NULL, v) != rows[i].ends)
			fail_msg("%s = %s %s the call", f->questions[rows[i].q].name, rows[i].value,
				 rows[i].ends ? "should end" : "should not end");
		cJSON_Delete(v);
	}
	form_free(f);
}

/* Each validation type's words for a model's prompt come from its own rule function. */
static void test_rule_text(void **state)
{
	(void)state;
	char buf[160];
	struct form_question q = {.validation = VALID_PHONE_NUMBER, .digits = 10};
	assert_string_equal(validate_rule_text(&q, buf, sizeof buf), "a phone number of 10 digits");
	q = (struct form_question){.validation = VALID_EXACT_NUM_DIGITS, .digits = 4};
	assert_string_equal(validate_rule_text(&q, buf, sizeof buf), "exactly 4 digits");
	q = (struct form_question){.validation = VALID_NUMBER_RANGE, .has_min = true, .has_max = true,
				   .min = 1, .max = 10};
	assert_string_equal(validate_rule_text(&q, buf, sizeof buf), "a number from 1 to 10");
	q = (struct form_question){.validation = VALID_REGEX, .pattern = "^[0-9]{6}$",
				   .message = "six digits"};
	assert_string_equal(validate_rule_text(&q, buf, sizeof buf), "six digits");
	q = (struct form_question){.validation = VALID_DATE_TODAY_OR_PAST};
	assert_string_equal(validate_rule_text(&q, buf, sizeof buf), "a date today or in the past");
	q = (struct form_question){.validation = VALID_NONE};
	assert_null(validate_rule_text(&q, buf, sizeof buf));
	q = (struct form_question){.validation = VALID_FREE_TEXT};
	assert_null(validate_rule_text(&q, buf, sizeof buf));
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_table),
	  cmocka_unit_test(test_end_call_values),
	  cmocka_unit_test(test_rule_text))
