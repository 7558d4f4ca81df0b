/* The sentence calibrate prints when kappa and observed agreement disagree
 * (annotations/calib.c, calib_explain), one case per row of tests/data/calib_explain.tsv:
 * two annotators' table, worked through kappa.c's Cohen, indices and AC1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "annotations/calib.h"
#include "tests/support/table.h"

static void explain_case(void **state)
{
	const struct table_row *r = *state;
	struct calib c = {0};
	const char *cls[KAPPA_MAX_CLASSES];
	char names[256], got[768];
	long t[KAPPA_MAX_CLASSES * KAPPA_MAX_CLASSES];
	int k = atoi(r->col[1]), n = 0;

	snprintf(names, sizeof names, "%s", r->col[2]);
	for (char *save = NULL, *p = strtok_r(names, ",", &save); p && n < KAPPA_MAX_CLASSES;
	     p = strtok_r(NULL, ",", &save))
		cls[n++] = p;
	assert_int_equal(n, k);
	n = 0;
	for (const char *s = r->col[3]; *s && n < k * k;) {
		char *end;
		t[n++] = strtol(s, &end, 10);
		s = *end ? end + 1 : end;
	}
	assert_int_equal(n, k * k);
	c.k = k;
	c.classes = cls;
	assert_int_equal(kappa_cohen(t, k, &c.iaa), ERR_OK);
	c.agreement = "cohen";
	c.has_indices = kappa_indices(t, k, &c.indices) == ERR_OK;
	c.has_ac1 = kappa_gwet_table(t, k, &c.ac1) == ERR_OK;
	calib_explain(&c, got, sizeof got);
	const char *want = strcmp(r->col[4], "-") == 0 ? "" : r->col[4];
	if (strcmp(got, want) != 0) {
		print_error("%s:\n want '%s'\n got  '%s'\n", r->name, want, got);
		fail();
	}
}

int main(void)
{
	struct table_row *r;
	int nr;
	struct CMUnitTest *tests = NULL;
	size_t n = 0;

	table_load("tests/data/calib_explain.tsv", 5, 5, 0, &r, &nr);
	table_tests(&tests, &n, r, nr, explain_case);
	int rc = _cmocka_run_group_tests("calib", tests, n, NULL, NULL);
	free(tests);
	table_free(r, nr);
	return rc;
}
