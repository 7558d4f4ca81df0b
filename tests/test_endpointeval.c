/* test_endpointeval: the kinds of answer endpoint-eval groups turns by, and its argument
 * checks. Its runs on a corpus are checked end to end (tests/e2e_endpoint_eval.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sessions/eval/endpointeval.h"
#include "tests/support/testmain.h"

static void test_kinds(void **state)
{
	static const struct {
		enum form_type type;
		enum form_validation validation;
		enum endpointeval_kind want;
	} cases[] = {
		{FORM_NUMBER, VALID_NUMBER_RANGE, ENDPOINTEVAL_DIGITS},
		{FORM_STRING, VALID_PHONE_NUMBER, ENDPOINTEVAL_DIGITS},
		{FORM_STRING, VALID_EXACT_NUM_DIGITS, ENDPOINTEVAL_DIGITS},
		{FORM_DATE, VALID_DATE_TODAY_OR_PAST, ENDPOINTEVAL_DATE},
		{FORM_STRING, VALID_MIN_LENGTH, ENDPOINTEVAL_NAME},
		{FORM_BOOLEAN, VALID_NONE, ENDPOINTEVAL_YESNO},
		{FORM_SINGLE_SELECT, VALID_NONE, ENDPOINTEVAL_OPTION},
		{FORM_MULTI_SELECT, VALID_NONE, ENDPOINTEVAL_OPTION},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct form_question q;
		memset(&q, 0, sizeof(q));
		q.type = cases[i].type;
		q.validation = cases[i].validation;
		assert_int_equal(endpointeval_kind_of(&q), cases[i].want);
	}
	assert_int_equal(endpointeval_kind_of(NULL), ENDPOINTEVAL_OTHER);
	assert_string_equal(endpointeval_kind_name(ENDPOINTEVAL_YESNO), "yes/no");
	assert_string_equal(endpointeval_kind_name(ENDPOINTEVAL_KINDS), "?");
}

static void test_invalid(void **state)
{
	struct corpus c;
	struct endpointeval_setting s = {200, 400}, bad = {200, -1};
	int gaps[] = {500}, neg[] = {-5};
	struct endpointeval_options o = {gaps, 1, false, NULL}, o_neg = {neg, 1, false, NULL},
				    o_none = {gaps, 0, false, NULL};
	struct endpointeval_row *rows = (void *)1;
	int n = -1;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(endpointeval_run(&c, NULL, &s, 0, &o, &rows, &n, NULL), ERR_INVALID);
	assert_int_equal(endpointeval_run(&c, NULL, &bad, 1, &o, &rows, &n, NULL), ERR_INVALID);
	assert_int_equal(endpointeval_run(&c, NULL, &s, 1, &o_neg, &rows, &n, NULL), ERR_INVALID);
	assert_int_equal(endpointeval_run(&c, NULL, &s, 1, &o_none, &rows, &n, NULL), ERR_INVALID);
	/* a corpus with no calls has no utterance to join */
	assert_int_equal(endpointeval_run(&c, NULL, &s, 1, &o, &rows, &n, NULL), ERR_INVALID);
	assert_ptr_equal(rows, (void *)1); /* untouched on failure */
	assert_int_equal(n, -1);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_kinds),
	  cmocka_unit_test(test_invalid))
