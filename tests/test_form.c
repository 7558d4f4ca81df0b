/* Form config loading and FormBharo's save refusals, one case per file in
 * tests/data/forms: NAME.json beside NAME.expected, which holds the exact check-form
 * output (empty for a valid config). Plus field-level checks of both shapes and the
 * enrollment form. */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/rules/form.h"
#include "tests/support/reqcheck.h"
#include "tests/support/testmain.h"

/* expected_text: the .expected file at path without its final line ends (NULL: missing). */
static char *expected_text(const char *path)
{
	char *s = reqcheck_file_text(path);
	size_t n = s ? strlen(s) : 0;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

static void test_case_files(void **state)
{
	(void)state;
	glob_t g;
	assert_int_equal(glob("tests/data/forms/*.json", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 20);
	int failures = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		char exp_path[512];
		snprintf(exp_path, sizeof(exp_path), "%.*s.expected", (int)(strlen(path) - 5), path);
		char *expected = expected_text(exp_path);
		if (!expected) {
			print_error("%s: missing %s\n", path, exp_path);
			failures++;
			continue;
		}
		struct form *f = NULL;
		struct form_issues is;
		enum err e = form_load(path, &f, &is);
		char *got = e == ERR_OK ? strdup("") : form_issues_json(&is);
		assert_non_null(got);
		if (strcmp(got, expected) != 0) {
			print_error("%s:\n  expected: %s\n  got:      %s\n", path, expected, got);
			failures++;
		}
		/* A form is returned exactly when there are no issues. */
		if ((e == ERR_OK) != (f != NULL) || (e == ERR_OK) != (is.n == 0) ||
		    (e != ERR_OK && e != ERR_PARSE && e != ERR_INVALID)) {
			print_error("%s: err %d, form %p, %d issues\n", path, e, (void *)f, is.n);
			failures++;
		}
		if (strstr(path, "malformed_") && (e != ERR_PARSE || is.n != 1 || *is.v[0].field ||
						   strncmp(is.v[0].message, "line ", 5) != 0)) {
			print_error("%s: malformed JSON must give one 'line L, column C:' issue\n", path);
			failures++;
		}
		free(got);
		free(expected);
		form_free(f);
		form_issues_free(&is);
	}
	globfree(&g);
	assert_int_equal(failures, 0);
}

static void test_enrollment(void **state)
{
	(void)state;
	struct form *f = NULL;
	assert_int_equal(form_load("forms/armman_enrollment.json", &f, NULL), ERR_OK);
	static const struct {
		const char *name;
		enum form_type type;
		bool required;
		const char *branch;
		int max_retries;
		enum form_validation v;
	} want[] = {
		{"name", FORM_STRING, false, NULL, 1, VALID_MIN_LENGTH},
		{"district", FORM_SINGLE_SELECT, true, NULL, 2, VALID_NONE},
		{"clinic_name", FORM_STRING, false, NULL, 1, VALID_NONE},
		{"pregnant", FORM_BOOLEAN, true, NULL, 2, VALID_NONE},
		{"gestational_age", FORM_NUMBER, true, "pregnant", 2, VALID_NUMBER_RANGE},
		{"child_name", FORM_STRING, true, "pregnant", 1, VALID_NONE},
		{"child_dob", FORM_DATE, true, "pregnant", 2, VALID_DATE_TODAY_OR_PAST},
		{"phone_linked", FORM_BOOLEAN, false, NULL, 2, VALID_NONE},
		{"linked_number", FORM_NUMBER, false, "phone_linked", 2, VALID_PHONE_NUMBER},
		{"whatsapp_same", FORM_BOOLEAN, false, NULL, 2, VALID_NONE},
		{"whatsapp_number", FORM_NUMBER, false, "whatsapp_same", 2, VALID_PHONE_NUMBER},
		{"aadhaar_last4", FORM_STRING, false, NULL, 2, VALID_EXACT_NUM_DIGITS},
	};
	assert_int_equal(f->n_questions, 12);
	for (int i = 0; i < 12; i++) {
		const struct form_question *q = &f->questions[i];
		assert_string_equal(q->name, want[i].name);
		assert_int_equal(q->type, want[i].type);
		assert_int_equal(q->required, want[i].required);
		assert_int_equal(q->max_retries, want[i].max_retries);
		assert_int_equal(q->validation, want[i].v);
		assert_false(q->exhausted_end_call);
		assert_non_null(q->script);
		assert_true(q->n_retry_messages >= 1);
		if (!q->required)
			assert_non_null(q->skip_message);
		if (want[i].branch)
			assert_string_equal(f->branches[q->branch].field, want[i].branch);
		else
			assert_int_equal(q->branch, -1);
	}
	assert_int_equal(f->questions[1].n_options, 5);
	assert_string_equal(f->questions[1].options[4], "Dakshina Kannada");
	assert_true(f->questions[4].integer);
	assert_true(f->questions[4].has_min && f->questions[4].min == 1);
	assert_true(f->questions[4].has_max && f->questions[4].max == 10);
	assert_int_equal(f->questions[8].digits, 10);
	assert_int_equal(f->questions[11].digits, 4);
	assert_int_equal(f->questions[0].min_length, 2);
	assert_true(f->branches[f->questions[4].branch].equals);
	assert_false(f->branches[f->questions[5].branch].equals);
	assert_false(f->branches[f->questions[8].branch].equals);
	assert_non_null(f->intro);
	assert_non_null(f->outro);
	assert_non_null(f->outro_incomplete);
	assert_string_equal(f->language, "hindi");
	form_free(f);
}

static void test_write_shape(void **state)
{
	(void)state;
	struct form *f = NULL;
	assert_int_equal(form_load("tests/data/forms/valid_write_shape.json", &f, NULL), ERR_OK);
	assert_string_equal(f->context, "ctx");
	assert_string_equal(f->instructions, "ins");
	assert_int_equal(f->n_questions, 3);
	assert_string_equal(f->questions[0].name, "what_is_your_full_name");
	assert_string_equal(f->questions[0].label, "What is your Full Name?");
	assert_string_equal(f->questions[1].name, "do_you_smoke");
	assert_int_equal(f->questions[1].type, FORM_BOOLEAN);
	assert_int_equal(f->questions[2].branch, 0);
	assert_int_equal(f->branches[0].question, 1);
	assert_int_equal(form_find(f, "cigarettes_a_day"), 2);
	assert_int_equal(form_find(f, "nope"), -1);
	form_free(f);
}

static void test_defaults_and_stored(void **state)
{
	(void)state;
	struct form *f = NULL;
	assert_int_equal(form_load("tests/data/forms/valid_stored.json", &f, NULL), ERR_OK);
	const struct form_question *q = &f->questions[0];
	assert_true(q->required);
	assert_true(q->allow_retries);
	assert_false(q->until_answered);
	assert_int_equal(q->max_retries, 2);
	assert_string_equal(q->label_true, "Yes");
	assert_int_equal(q->n_end_call_values, 1);
	q = &f->questions[1];
	assert_int_equal(q->max_retries, 3);
	assert_true(q->exhausted_end_call);
	assert_string_equal(q->retry_messages[0], "Again: {error}");
	assert_int_equal(f->questions[4].validation, VALID_DATE); /* date_format */
	assert_string_equal(f->questions[5].message, "Two letters then four digits.");
	assert_true(f->branches[1].has_present && f->branches[1].present);
	assert_true(f->agent_speaks_first);
	form_free(f);
	/* The placeholder-free API contract: NULL is fine. */
	form_free(NULL);
	form_issues_free(NULL);
}

static void test_unreadable(void **state)
{
	(void)state;
	struct form *f = (struct form *)0x1;
	struct form_issues is;
	assert_int_equal(form_load("tests/data/forms/no_such_file.json", &f, &is), ERR_IO);
	assert_ptr_equal(f, (struct form *)0x1); /* untouched on failure */
	assert_int_equal(is.n, 1);
	assert_non_null(strstr(is.v[0].message, "no_such_file.json"));
	form_issues_free(&is);
}

/* The rules defined once in form.c: which fields are digit fields, the retry limit, the
 * branch condition, the validation names. */
static void test_rules(void **state)
{
	(void)state;
	struct form *f = NULL;
	assert_int_equal(form_load("forms/armman_enrollment.json", &f, NULL), ERR_OK);
	int phone = form_find(f, "linked_number"), aadhaar = form_find(f, "aadhaar_last4");
	int name = form_find(f, "name"), age = form_find(f, "gestational_age");
	assert_int_equal(form_digits(&f->questions[phone]), FORM_DIGITS_PHONE);
	assert_int_equal(form_digits(&f->questions[aadhaar]), FORM_DIGITS_EXACT);
	assert_int_equal(form_digits(&f->questions[name]), FORM_DIGITS_NO);
	assert_true(form_counts_digits(&f->questions[phone]));
	assert_false(form_counts_digits(&f->questions[age]));
	struct form_question re = {.validation = VALID_REGEX, .pattern = "^\\d{6}$"};
	assert_int_equal(form_digits(&re), FORM_DIGITS_PATTERN);
	assert_false(form_counts_digits(&re));
	re.pattern = "^[A-Z]{5}$";
	assert_int_equal(form_digits(&re), FORM_DIGITS_NO);

	assert_int_equal(form_retry_limit(&f->questions[name]), 1);
	struct form_question q = {.allow_retries = false, .max_retries = 2};
	assert_int_equal(form_retry_limit(&q), 0);
	q.until_answered = true;
	assert_int_equal(form_retry_limit(&q), -1);

	struct form_branch eq = {.has_equals = true, .equals = false};
	struct form_branch absent = {.has_present = true, .present = false};
	assert_int_equal(form_branch_open(&eq, FORM_ANSWER_EMPTY), -1);
	assert_int_equal(form_branch_open(&eq, FORM_ANSWER_FALSE), 1);
	assert_int_equal(form_branch_open(&eq, FORM_ANSWER_TRUE), 0);
	assert_int_equal(form_branch_open(&eq, FORM_ANSWER_SKIPPED), 0);
	assert_int_equal(form_branch_open(&eq, FORM_ANSWER_OTHER), 0);
	assert_int_equal(form_branch_open(&absent, FORM_ANSWER_SKIPPED), 1);
	assert_int_equal(form_branch_open(&absent, FORM_ANSWER_OTHER), 0);
	absent.has_equals = absent.equals = true; /* present wins */
	assert_int_equal(form_branch_open(&absent, FORM_ANSWER_TRUE), 0);

	assert_string_equal(form_validation_name(VALID_PHONE_NUMBER), "phone_number");
	assert_string_equal(form_validation_name(VALID_DATE), "date");
	assert_string_equal(form_validation_name(VALID_NONE), "none");
	form_free(f);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_case_files),
	  cmocka_unit_test(test_enrollment),
	  cmocka_unit_test(test_write_shape),
	  cmocka_unit_test(test_defaults_and_stored),
	  cmocka_unit_test(test_unreadable),
	  cmocka_unit_test(test_rules))
