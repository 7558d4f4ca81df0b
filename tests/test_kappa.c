/* Agreement statistics (annotations/kappa.c), one case per row of
 * tests/data/kappa_cohen.tsv, kappa_fleiss.tsv and kappa_rates.tsv, values worked by
 * hand (the working is in the files' comments). */
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

#define MAX_ROWS 64
#define MAX_COLS 10
#define MAX_CELLS 128
#define TOL 1e-9

struct row {
	char where[128];
	char *col[MAX_COLS];
	int n;
};

static struct row rows[MAX_ROWS];
static int n_rows;

static void load(const char *file, int want_cols)
{
	FILE *fp = fopen(file, "r");
	char buf[4096];
	int line = 0;

	if (!fp) {
		fprintf(stderr, "cannot open %s (run from the source tree)\n", file);
		exit(1);
	}
	while (fgets(buf, sizeof buf, fp)) {
		line++;
		buf[strcspn(buf, "\n")] = '\0';
		if (!buf[0] || buf[0] == '#')
			continue;
		if (n_rows == MAX_ROWS) {
			fprintf(stderr, "%s:%d: too many rows\n", file, line);
			exit(1);
		}
		struct row *r = &rows[n_rows++];
		char *p = buf;
		snprintf(r->where, sizeof r->where, "%s:%d", file, line);
		r->n = 0;
		for (;;) {
			char *t = strchr(p, '\t');
			if (t)
				*t = '\0';
			if (r->n == MAX_COLS)
				break;
			r->col[r->n++] = strdup(p);
			if (!t)
				break;
			p = t + 1;
		}
		if (r->n != want_cols) {
			fprintf(stderr, "%s: %d columns, want %d\n", r->where, r->n, want_cols);
			exit(1);
		}
	}
	fclose(fp);
}

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

static void near(const struct row *r, const char *what, double want, double got)
{
	if (isnan(want) && isnan(got))
		return;
	if (isnan(want) || isnan(got) || fabs(want - got) > TOL) {
		print_error("%s (%s): %s want %.10f got %.10f\n", r->where, r->col[0], what, want,
			    got);
		fail();
	}
}

static double num(const char *s)
{
	return strcmp(s, "nan") == 0 ? NAN : strtod(s, NULL);
}

static void cohen_case(void **state)
{
	const struct row *r = *state;
	long t[MAX_CELLS];
	int k = atoi(r->col[1]);
	struct kappa_result res;

	assert_int_equal(cells(r->col[2], t), k * k);
	enum err e = kappa_cohen(t, k, &res);
	if (strcmp(r->col[3], "error") == 0) {
		if (e != ERR_INVALID) {
			print_error("%s (%s): want ERR_INVALID, got %d\n", r->where, r->col[0], e);
			fail();
		}
		return;
	}
	assert_int_equal(e, ERR_OK);
	near(r, "kappa", num(r->col[3]), res.kappa);
	near(r, "po", num(r->col[4]), res.po);
	near(r, "pe", num(r->col[5]), res.pe);
	assert_int_equal(res.degenerate, atoi(r->col[6]));
}

static void fleiss_case(void **state)
{
	const struct row *r = *state;
	long t[MAX_CELLS];
	int items = atoi(r->col[1]), k = atoi(r->col[2]);
	struct kappa_result res;

	assert_int_equal(cells(r->col[3], t), items * k);
	enum err e = kappa_fleiss(t, items, k, &res);
	if (strcmp(r->col[4], "error") == 0) {
		if (e != ERR_INVALID) {
			print_error("%s (%s): want ERR_INVALID, got %d\n", r->where, r->col[0], e);
			fail();
		}
		return;
	}
	assert_int_equal(e, ERR_OK);
	near(r, "kappa", num(r->col[4]), res.kappa);
	near(r, "po", num(r->col[5]), res.po);
	near(r, "pe", num(r->col[6]), res.pe);
	assert_int_equal(res.degenerate, atoi(r->col[7]));
}

static void rates_case(void **state)
{
	const struct row *r = *state;
	long t[MAX_CELLS];
	int k = atoi(r->col[1]);

	assert_int_equal(cells(r->col[2], t), k * k);
	near(r, "accuracy", num(r->col[3]), kappa_accuracy(t, k));
	near(r, "recall 0", num(r->col[4]), kappa_recall(t, k, 0));
	near(r, "recall 1", num(r->col[5]), kappa_recall(t, k, 1));
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
	struct CMUnitTest tests[MAX_ROWS + 2];
	int n = 0, first;

	first = n_rows;
	load("tests/data/kappa_cohen.tsv", 7);
	for (int i = first; i < n_rows; i++)
		tests[n++] = (struct CMUnitTest){rows[i].where, cohen_case, NULL, NULL, &rows[i]};
	first = n_rows;
	load("tests/data/kappa_fleiss.tsv", 8);
	for (int i = first; i < n_rows; i++)
		tests[n++] = (struct CMUnitTest){rows[i].where, fleiss_case, NULL, NULL, &rows[i]};
	first = n_rows;
	load("tests/data/kappa_rates.tsv", 6);
	for (int i = first; i < n_rows; i++)
		tests[n++] = (struct CMUnitTest){rows[i].where, rates_case, NULL, NULL, &rows[i]};
	tests[n++] = (struct CMUnitTest){"cohen symmetric", cohen_symmetric, NULL, NULL, NULL};
	tests[n++] = (struct CMUnitTest){"bad class count", bad_class_count, NULL, NULL, NULL};
	int rc = _cmocka_run_group_tests("kappa", tests, (size_t)n, NULL, NULL);
	for (int i = 0; i < n_rows; i++)
		for (int j = 0; j < rows[i].n; j++)
			free(rows[i].col[j]);
	return rc;
}
