/* test_width: tui/width.c against the table in tests/data/width.tsv (columns of
 * Devanagari with vowel signs, virama conjuncts, nukta, chandrabindu, ZWJ/ZWNJ, CJK and
 * ASCII; cuts that must not split a cluster; wrapping). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tui/width.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

#define DATA "tests/data/width.tsv"

static void check_wrap(int lineno, const char *text, int cols, const char *want)
{
	char got[1024] = "";
	size_t off = 0, len = strlen(text);
	int lines = 0;
	while (off < len && lines < 100) {
		size_t next;
		size_t n = width_wrap(text + off, cols, &next);
		if (lines)
			strcat(got, "|");
		strncat(got, text + off, n);
		int w = width_ncols(text + off, n);
		if (w > cols)
			fail_msg("line %d: wrapped line \"%.*s\" is %d columns, more than %d", lineno,
				 (int)n, text + off, w, cols);
		assert_true(next > 0);
		off += next;
		lines++;
	}
	if (strcmp(got, want) != 0)
		fail_msg("line %d: wrap(\"%s\", %d) gave \"%s\", want \"%s\"", lineno, text, cols, got, want);
}

static void test_table(void **state)
{
	(void)state;
	struct table_row *v;
	int nv, cases = 0;
	table_load(DATA, 0, 0, TABLE_UNESCAPE, &v, &nv);
	for (int i = 0; i < nv; i++) {
		int lineno = v[i].line, n = v[i].ncol;
		char **fld = v[i].col;
		if (n >= 3 && strcmp(fld[0], "cols") == 0) {
			int want = atoi(fld[2]);
			int got = width_cols(fld[1]);
			if (got != want)
				fail_msg("line %d: width_cols(\"%s\") = %d, want %d", lineno, fld[1], got, want);
		} else if (n >= 5 && strcmp(fld[0], "cut") == 0) {
			int used = -1;
			size_t b = width_cut(fld[1], atoi(fld[2]), &used);
			if (b != strlen(fld[3]) || strncmp(fld[1], fld[3], b) != 0 || used != atoi(fld[4]))
				fail_msg("line %d: width_cut(\"%s\", %s) = \"%.*s\" (%d columns), want \"%s\" (%s)",
					 lineno, fld[1], fld[2], (int)b, fld[1], used, fld[3], fld[4]);
		} else if (n >= 4 && strcmp(fld[0], "wrap") == 0) {
			check_wrap(lineno, fld[1], atoi(fld[2]), fld[3]);
		} else {
			fail_msg("line %d: malformed case", lineno);
		}
		cases++;
	}
	table_free(v, nv);
	assert_true(cases >= 30);
}

static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(width_cols(NULL), 0);
	int used = 7;
	assert_int_equal(width_cut(NULL, 5, &used), 0);
	assert_int_equal(used, 0);
	/* Invalid UTF-8 counts one column a byte and is never read past its end. */
	assert_int_equal(width_cols("a\xff" "b"), 3);
	assert_int_equal(width_cols("\xe0\xa4"), 2);
	size_t next = 99;
	assert_int_equal(width_wrap("", 10, &next), 0);
	assert_int_equal(next, 0);
	/* A cluster wider than the line still makes progress. */
	assert_int_equal(width_wrap("中", 1, &next), 3);
	assert_int_equal(next, 3);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_table),
	  cmocka_unit_test(test_edges))
