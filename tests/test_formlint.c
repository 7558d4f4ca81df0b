/* formlint: the warnings for forms that load but misbehave, from tests/data/formlint.tsv
 * (form file, field, exact message; field "-" for a form that must give none). Each form
 * named there must give exactly its rows, in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/rules/form.h"
#include "agent/rules/formlint.h"
#include "tests/support/table.h"

static struct table_row *rows;
static int nrows;

/* One test per form file: its first row is the state; the rows after it with the same
 * file are its other warnings. */
static void test_form(void **state)
{
	const struct table_row *r0 = *state;
	struct form *f = NULL;
	struct form_issues is = {0}, w = {0};
	if (form_load(r0->col[0], &f, &is) != ERR_OK)
		fail_msg("%s: does not load: %s", r0->col[0], is.n ? is.v[0].message : "?");
	form_issues_free(&is);
	assert_int_equal(formlint_check(f, &w), ERR_OK);
	int k = 0;
	for (const struct table_row *r = r0; r < rows + nrows; r++) {
		if (strcmp(r->col[0], r0->col[0]) != 0 || strcmp(r->col[1], "-") == 0)
			continue;
		if (k >= w.n)
			fail_msg("%s: missing warning %s: %s", r->name, r->col[1], r->col[2]);
		assert_string_equal(w.v[k].field, r->col[1]);
		assert_string_equal(w.v[k].message, r->col[2]);
		k++;
	}
	if (k < w.n)
		fail_msg("%s: unexpected warning %s: %s", r0->name, w.v[k].field, w.v[k].message);
	form_issues_free(&w);
	form_free(f);
}

/* FormBharo's own valid fixtures stay loadable; the lint never refuses, only warns. */
static void test_null(void **state)
{
	(void)state;
	struct form_issues w = {0};
	assert_int_equal(formlint_check(NULL, &w), ERR_INVALID);
}

int main(void)
{
	table_load("tests/data/formlint.tsv", 3, 3, 0, &rows, &nrows);
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	for (int i = 0; i < nrows; i++) {
		bool first = true;
		for (int j = 0; j < i && first; j++)
			first = strcmp(rows[j].col[0], rows[i].col[0]) != 0;
		if (first)
			table_add(&tests, &n, (struct CMUnitTest){rows[i].name, test_form, NULL, NULL, &rows[i]});
	}
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(test_null));
	return table_run_group("formlint", tests, n, rows, nrows);
}
