/* test_lineedit: the typed caller's line (tui/lineedit.c): typing code point by code
 * point and erasing a grapheme cluster at a time, table-driven from
 * tests/data/lineedit.tsv (Devanagari vowel signs, virama conjuncts, nukta,
 * chandrabindu, ZWJ, Latin combining marks); refused characters and a full line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <utf8proc.h>

#include "tui/lineedit.h"
#include "tests/support/table.h"

#define DATA "tests/data/lineedit.tsv"

static void test_row(void **state)
{
	const struct table_row *r = *state;
	struct lineedit *ed = lineedit_new();
	const char *t = r->col[0];
	size_t len = strlen(t), i = 0;

	assert_non_null(ed);
	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)t + i,
						      (utf8proc_ssize_t)(len - i), &cp);
		assert_true(k > 0);
		assert_int_equal(lineedit_insert(ed, cp), ERR_OK);
		i += (size_t)k;
	}
	assert_string_equal(lineedit_text(ed), t);
	for (int k = atoi(r->col[1]); k > 0; k--)
		lineedit_erase(ed);
	if (strcmp(lineedit_text(ed), r->col[2]) != 0)
		fail_msg("%s: typed \"%s\", %s erases: \"%s\", want \"%s\"", r->name, t, r->col[1],
			 lineedit_text(ed), r->col[2]);
	lineedit_free(ed);
}

static void test_refused_and_full(void **state)
{
	struct lineedit *ed = lineedit_new();
	(void)state;

	assert_int_equal(lineedit_insert(ed, '\r'), ERR_INVALID);
	assert_int_equal(lineedit_insert(ed, 27), ERR_INVALID);
	assert_int_equal(lineedit_insert(ed, 0x7f), ERR_INVALID);
	assert_int_equal(lineedit_insert(ed, 0xD800), ERR_INVALID);
	assert_int_equal(lineedit_insert(ed, 0x110000), ERR_INVALID);
	assert_string_equal(lineedit_text(ed), "");
	/* न is 3 bytes: the line takes whole characters until the next would not fit. */
	int n = 0;
	while (lineedit_insert(ed, 0x928) == ERR_OK)
		n++;
	assert_int_equal(n, LINEEDIT_MAX / 3);
	assert_int_equal(strlen(lineedit_text(ed)), (size_t)n * 3);
	lineedit_clear(ed);
	assert_string_equal(lineedit_text(ed), "");
	lineedit_free(ed);
	lineedit_free(NULL);
}

int main(void)
{
	struct table_row *rows = NULL;
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	int nrows = 0;

	table_load(DATA, 3, 3, TABLE_UNESCAPE, &rows, &nrows);
	table_tests(&tests, &n, rows, nrows, test_row);
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(test_refused_and_full));
	return table_run_group("lineedit", tests, n, rows, nrows);
}
