/* stats: the summary statistics evaluation reports use: percentiles (p50, p95 latency),
 * mean and standard deviation, and 95% confidence intervals.
 *
 * Definitions (docs/evaluation.md says the same):
 * - Percentile, STATS_LINEAR (the default of reports): linear interpolation between closest
 *   ranks, Hyndman and Fan (1996) definition 7 (also numpy's and R's default): on the sorted
 *   x[0..n-1], h = (n - 1) * p / 100, result x[floor h] + (h - floor h) *
 *   (x[floor h + 1] - x[floor h]).
 * - Percentile, STATS_NEAREST_RANK: the smallest value with at least p% of the values at or
 *   below it: x[ceil(p * n / 100) - 1] on the sorted values, x[0] for p = 0. Always an
 *   observed value.
 * - Standard deviation: the sample one (divides by n - 1).
 * - Proportions (accuracy, pass rates): the Wilson score interval (Wilson 1927), z =
 *   1.959963984540054, the 0.975 quantile of the standard normal. Unlike the normal
 *   approximation it stays inside [0, 1] and is sensible at 0 or n successes.
 * - Means (latency, cost): the Student t interval, mean +- t(0.975, n - 1) * s / sqrt(n);
 *   t's quantile comes from its exact distribution function for integer degrees of freedom
 *   (Abramowitz and Stegun 26.7.3 and 26.7.4), solved by bisection. No random resampling,
 *   so results are reproducible. */
#ifndef FORMDESK_STATS_H
#define FORMDESK_STATS_H

#include <stddef.h>
#include "base/err.h"

enum stats_method {
	STATS_LINEAR,
	STATS_NEAREST_RANK,
};

/* stats_percentile: the p-th percentile (0 <= p <= 100) of x[0..n-1] (any order, borrowed,
 * not changed) by method. Output: *out, written only on success. Errors: ERR_INVALID (n is
 * 0, p is outside [0, 100], or a value is not finite), ERR_NOMEM. */
enum err stats_percentile(const double *x, size_t n, double p, enum stats_method method,
			  double *out);

/* stats_mean: arithmetic mean of x[0..n-1] into *mean; sample standard deviation into *sd
 * (may be NULL; 0 when n is 1). Errors: ERR_INVALID (n is 0 or a value is not finite). */
enum err stats_mean(const double *x, size_t n, double *mean, double *sd);

/* stats_wilson: the 95% Wilson score interval of the proportion successes / n, both
 * fractions in [0, 1] into *lo, *hi. Errors: ERR_INVALID (n is 0 or successes > n). */
enum err stats_wilson(long successes, long n, double *lo, double *hi);

/* stats_t_critical: t such that P(|T| < t) = confidence for Student's t with df degrees of
 * freedom (confidence 0.95 gives the 0.975 quantile: 12.706 for df 1, 1.984 for df 100).
 * Errors: ERR_INVALID (df < 1, or confidence outside (0, 1)). */
enum err stats_t_critical(long df, double confidence, double *t);

/* stats_mean_ci: the 95% Student t interval of the mean of x[0..n-1]: *mean, *lo, *hi in
 * the unit of x. Errors: ERR_INVALID (n < 2: one value says nothing about spread; or a
 * value is not finite). */
enum err stats_mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi);

/* A stage's latency or cost in one record, as reports print it. */
struct stats_summary {
	size_t n;
	double mean, sd;
	double p50, p95;      /* STATS_LINEAR */
	double min, max;
	double ci_lo, ci_hi;  /* 95% t interval of the mean; both = mean when n is 1 */
};

/* stats_summarize: every field of *s for x[0..n-1]. Errors: as stats_percentile. */
enum err stats_summarize(const double *x, size_t n, struct stats_summary *s);

#endif
