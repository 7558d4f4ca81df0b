/* Agreement statistics (annotations/kappa.c), one case per row of
 * tests/data/kappa_cohen.tsv, kappa_fleiss.tsv, kappa_rates.tsv and kappa_more.tsv, values
 * worked by hand (the working, and the published example each row checks, are in the
 * files' comments). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "annotations/kappa.h"
#include "tests/support/table.h"

#define MAX_CELLS 256
#define TOL 1e-9

/* cells: the numbers of s split at ',' and ';'. Returns how many. */
static int cells(const char *s, long *v)
{
	int n = 0;
	while (*s && n < MAX_CELLS) {
		char *end;
		v[n++] = strtol(s, &end, 10);
		s = *end ? end + 1 : end;
	}
	return n;
}

static void near(const struct table_row *r, const char *what, double want, double got)
{
	if (isnan(want) && isnan(got))
		return;
	if (isnan(want) || isnan(got) || fabs(want - got) > TOL) {
		print_error("%s (%s): %s want %.10f got %.10f\n", r->name, r->col[0], what, want,
			    got);
		fail();
	}
}

static double num(const char *s)
{
	return strcmp(s, "nan") == 0 ? NAN : strtod(s, NULL);
}

/* expect_result: check e and res against the row from column col on: "error" (e must be
 * ERR_INVALID), else kappa, po, pe (within TOL; "nan" for NaN) and degenerate. */
static void expect_result(const struct table_row *r, enum err e, const struct kappa_result *res,
			  int col)
{
	if (strcmp(r->col[col], "error") == 0) {
		if (e != ERR_INVALID) {
			print_error("%s (%s): want ERR_INVALID, got %d\n", r->name, r->col[0], e);
			fail();
		}
		return;
	}
	assert_int_equal(e, ERR_OK);
	near(r, "kappa", num(r->col[col]), res->kappa);
	near(r, "po", num(r->col[col + 1]), res->po);
	near(r, "pe", num(r->col[col + 2]), res->pe);
	assert_int_equal(res->degenerate, atoi(r->col[col + 3]));
}

static void cohen_case(void **state)
{
	const struct table_row *r = *state;
	long t[MAX_CELLS];
	int k = atoi(r->col[1]);
	struct kappa_result res;

	assert_int_equal(cells(r->col[2], t), k * k);
	expect_result(r, kappa_cohen(t, k, &res), &res, 3);
}

static void fleiss_case(void **state)
{
	const struct table_row *r = *state;
	long t[MAX_CELLS];
	int items = atoi(r->col[1]), k = atoi(r->col[2]);
	struct kappa_result res;

	assert_int_equal(cells(r->col[3], t), items * k);
	expect_result(r, kappa_fleiss(t, items, k, &res), &res, 4);
}

static void rates_case(void **state)
{
	const struct table_row *r = *state;
	long t[MAX_CELLS];
	int k = atoi(r->col[1]);

	assert_int_equal(cells(r->col[2], t), k * k);
	near(r, "accuracy", num(r->col[3]), kappa_accuracy(t, k));
	near(r, "recall 0", num(r->col[4]), kappa_recall(t, k, 0));
	near(r, "recall 1", num(r->col[5]), kappa_recall(t, k, 1));
}

/* more_case: a row of kappa_more.tsv (its header says what each kind checks). */
static void more_case(void **state)
{
	const struct table_row *r = *state;
	long t[MAX_CELLS];
	const char *kind = r->col[1];
	int rows = atoi(r->col[2]), k = atoi(r->col[3]);
	bool table = strcmp(kind, "gwet2") == 0 || strcmp(kind, "indices") == 0;
	struct kappa_result res = {0};
	struct kappa_indices x = {0};
	enum err e = ERR_INVALID;

	assert_int_equal(cells(r->col[4], t), table ? k * k : rows * k);
	if (strcmp(kind, "gwet") == 0)
		e = kappa_gwet(t, rows, k, &res);
	else if (strcmp(kind, "gwet2") == 0)
		e = kappa_gwet_table(t, k, &res);
	else if (strcmp(kind, "alpha") == 0)
		e = kappa_alpha(t, rows, k, &res);
	else if (strcmp(kind, "fleiss") == 0)
		e = kappa_fleiss(t, rows, k, &res);
	else if (strcmp(kind, "indices") == 0)
		e = kappa_indices(t, k, &x);
	else
		fail_msg("%s: unknown kind '%s'", r->name, kind);
	if (strcmp(r->col[5], "error") == 0) {
		if (e != ERR_INVALID) {
			print_error("%s: want ERR_INVALID, got %d\n", r->name, e);
			fail();
		}
		return;
	}
	assert_int_equal(e, ERR_OK);
	if (strcmp(kind, "indices") == 0) {
		near(r, "PABAK", num(r->col[5]), x.pabak);
		near(r, "prevalence index", num(r->col[6]), x.pi);
		near(r, "bias index", num(r->col[7]), x.bi);
		return;
	}
	near(r, "coefficient", num(r->col[5]), res.kappa);
	near(r, "po", num(r->col[6]), res.po);
	near(r, "pe", num(r->col[7]), res.pe);
}

/* Cohen's kappa does not depend on which rater is A: the transposed table gives the
 * same figure. */
static void cohen_symmetric(void **state)
{
	(void)state;
	long t[] = {10, 2, 0, 3, 8, 1, 0, 1, 5}, u[9];
	struct kappa_result a, b;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			u[j * 3 + i] = t[i * 3 + j];
	assert_int_equal(kappa_cohen(t, 3, &a), ERR_OK);
	assert_int_equal(kappa_cohen(u, 3, &b), ERR_OK);
	assert_true(fabs(a.kappa - b.kappa) < TOL);
}

static void bad_class_count(void **state)
{
	(void)state;
	long t[1] = {1};
	struct kappa_result r;
	assert_int_equal(kappa_cohen(t, 0, &r), ERR_INVALID);
	assert_int_equal(kappa_cohen(t, KAPPA_MAX_CLASSES + 1, &r), ERR_INVALID);
	assert_int_equal(kappa_fleiss(t, 1, 0, &r), ERR_INVALID);
}

int main(void)
{
	static const char *const files[4] = {"tests/data/kappa_cohen.tsv",
					     "tests/data/kappa_fleiss.tsv",
					     "tests/data/kappa_rates.tsv",
					     "tests/data/kappa_more.tsv"};
	static const int cols[4] = {7, 8, 6, 8};
	void (*fn[4])(void **) = {cohen_case, fleiss_case, rates_case, more_case};
	struct table_row *rows[4];
	int n_rows[4];
	struct CMUnitTest *tests = NULL;
	size_t n = 0;

	for (int k = 0; k < 4; k++) {
		table_load(files[k], cols[k], cols[k], 0, &rows[k], &n_rows[k]);
		table_tests(&tests, &n, rows[k], n_rows[k], fn[k]);
	}
	table_add(&tests, &n, (struct CMUnitTest){"cohen symmetric", cohen_symmetric, NULL, NULL, NULL});
	table_add(&tests, &n, (struct CMUnitTest){"bad class count", bad_class_count, NULL, NULL, NULL});
	int rc = _cmocka_run_group_tests("kappa", tests, n, NULL, NULL);
	free(tests);
	for (int k = 0; k < 4; k++)
		table_free(rows[k], n_rows[k]);
	return rc;
}
