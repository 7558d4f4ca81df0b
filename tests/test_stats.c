/* Percentiles, means and confidence intervals (sessions/eval/stats.c), one case per row of
 * tests/data/stats_cases.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sessions/eval/stats.h"
#include "tests/support/table.h"

#define DATA "tests/data/stats_cases.tsv"
#define MAX_VALUES 64

/* "1,2,3" into v; "-" is no values. Returns the count. */
static size_t values(const char *s, double *v)
{
	size_t n = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (const char *p = s; *p && n < MAX_VALUES;) {
		char *end;
		v[n++] = strtod(p, &end);
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* wants_result: whether the row's result column want is a value (then e must be ERR_OK)
 * rather than the error ERR_INVALID (then e must be that). */
static bool wants_result(enum err e, const char *want)
{
	if (!strcmp(want, "ERR_INVALID")) {
		assert_int_equal(e, ERR_INVALID);
		return false;
	}
	assert_int_equal(e, ERR_OK);
	return true;
}

static void near(const struct table_row *r, const char *what, double got, const char *want,
		 const char *tol)
{
	double w = atof(want), t = atof(tol);
	if (!(fabs(got - w) <= t))
		fail_msg("%s: %s = %.12g, want %s (tolerance %s)", r->name, what, got, want, tol);
}

static void run_row(void **state)
{
	const struct table_row *r = *state;
	const char *kind = r->col[0];
	double v[MAX_VALUES];
	enum err e;
	if (!strcmp(kind, "pct") && r->ncol == 6) {
		size_t n = values(r->col[3], v);
		enum stats_method m = !strcmp(r->col[1], "nearest") ? STATS_NEAREST_RANK : STATS_LINEAR;
		double out = -12345;
		e = stats_percentile(v, n, atof(r->col[2]), m, &out);
		if (wants_result(e, r->col[4]))
			near(r, "percentile", out, r->col[4], r->col[5]);
		else
			assert_true(out == -12345); /* not written on failure */
	} else if (!strcmp(kind, "mean") && r->ncol == 5) {
		size_t n = values(r->col[1], v);
		double mean, sd;
		e = stats_mean(v, n, &mean, &sd);
		if (wants_result(e, r->col[2])) {
			near(r, "mean", mean, r->col[2], r->col[4]);
			near(r, "sd", sd, r->col[3], r->col[4]);
		}
	} else if (!strcmp(kind, "wilson") && r->ncol == 6) {
		double lo, hi;
		e = stats_wilson(atol(r->col[1]), atol(r->col[2]), &lo, &hi);
		if (wants_result(e, r->col[3])) {
			near(r, "lo", lo, r->col[3], r->col[5]);
			near(r, "hi", hi, r->col[4], r->col[5]);
			assert_true(lo >= 0 && hi <= 1);
		}
	} else if (!strcmp(kind, "tcrit") && r->ncol == 5) {
		double t;
		e = stats_t_critical(atol(r->col[1]), atof(r->col[2]), &t);
		if (wants_result(e, r->col[3]))
			near(r, "t", t, r->col[3], r->col[4]);
	} else if (!strcmp(kind, "meanci") && r->ncol == 5) {
		size_t n = values(r->col[1], v);
		double mean, lo, hi;
		e = stats_mean_ci(v, n, &mean, &lo, &hi);
		if (wants_result(e, r->col[2])) {
			near(r, "lo", lo, r->col[2], r->col[4]);
			near(r, "hi", hi, r->col[3], r->col[4]);
		}
	} else {
		fail_msg("%s: unknown kind '%s' or wrong column count %d", r->name, kind, r->ncol);
	}
}

/* The summary agrees with the single functions; one value gives a zero-width interval. */
static void summarize(void **state)
{
	(void)state;
	double x[] = {100, 200, 300, 400};
	struct stats_summary s;
	assert_int_equal(stats_summarize(x, 4, &s), ERR_OK);
	assert_int_equal(s.n, 4);
	assert_true(s.mean == 250 && s.min == 100 && s.max == 400);
	assert_true(s.p50 == 250);
	assert_true(fabs(s.p95 - 385) < 1e-9); /* h = 2.85 */
	assert_true(s.ci_lo < s.mean && s.ci_hi > s.mean);
	double one = 7;
	assert_int_equal(stats_summarize(&one, 1, &s), ERR_OK);
	assert_true(s.ci_lo == 7 && s.ci_hi == 7 && s.sd == 0);
	double bad[] = {1, NAN};
	assert_int_equal(stats_summarize(bad, 2, &s), ERR_INVALID);
}

int main(void)
{
	const struct CMUnitTest more[] = {cmocka_unit_test(summarize)};
	return table_run("stats", DATA, 1, 0, 0, run_row, more, 1);
}
