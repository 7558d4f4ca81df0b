/* stats: percentiles, means and 95% confidence intervals (definitions in stats.h). */
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The 0.975 quantile of the standard normal distribution. */
#define Z975 1.959963984540054

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

enum err stats_percentile(const double *x, size_t n, double p, enum stats_method method,
			  double *out)
{
	if (n == 0 || !(p >= 0 && p <= 100) || !all_finite(x, n))
		return ERR_INVALID;
	double *s = malloc(n * sizeof *s);
	if (!s)
		return ERR_NOMEM;
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	double v;
	if (method == STATS_NEAREST_RANK) {
		/* p * n before the division keeps whole ranks exact (40 * 5 / 100 = 2). */
		double rank = ceil(p * (double)n / 100.0);
		size_t r = rank < 1 ? 1 : (size_t)rank;
		v = s[(r > n ? n : r) - 1];
	} else {
		double h = (double)(n - 1) * p / 100.0;
		size_t lo = (size_t)floor(h);
		v = lo + 1 < n ? s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]) : s[n - 1];
	}
	free(s);
	*out = v;
	return ERR_OK;
}

enum err stats_mean(const double *x, size_t n, double *mean, double *sd)
{
	if (n == 0 || !all_finite(x, n))
		return ERR_INVALID;
	double m = 0;
	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	if (sd) {
		double ss = 0;
		for (size_t i = 0; i < n; i++)
			ss += (x[i] - m) * (x[i] - m);
		*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
	}
	*mean = m;
	return ERR_OK;
}

enum err stats_wilson(long successes, long n, double *lo, double *hi)
{
	if (n <= 0 || successes < 0 || successes > n)
		return ERR_INVALID;
	double nn = (double)n, ph = (double)successes / nn, z2 = Z975 * Z975;
	double denom = 1 + z2 / nn;
	double center = (ph + z2 / (2 * nn)) / denom;
	double half = Z975 / denom * sqrt(ph * (1 - ph) / nn + z2 / (4 * nn * nn));
	double l = center - half, h = center + half;
	/* Exact at the ends: rounding must not put the bound past 0 or 1. */
	*lo = successes == 0 || l < 0 ? 0.0 : l;
	*hi = successes == n || h > 1 ? 1.0 : h;
	return ERR_OK;
}

/* P(|T| < t) for Student's t with df degrees of freedom, t >= 0 (A&S 26.7.3, 26.7.4). */
static double t_central(double t, long df)
{
	double th = atan(t / sqrt((double)df));
	double c2 = cos(th) * cos(th);
	if (df % 2) {
		if (df == 1)
			return 2 * th / M_PI;
		double term = cos(th), sum = term;
		for (long k = 3; k <= df - 2; k += 2) {
			term *= c2 * (double)(k - 1) / (double)k;
			sum += term;
			if (term < 1e-18 * sum)
				break;
		}
		return 2 / M_PI * (th + sin(th) * sum);
	}
	double term = 1, sum = 1;
	for (long k = 2; k <= df - 2; k += 2) {
		term *= c2 * (double)(k - 1) / (double)k;
		sum += term;
		if (term < 1e-18 * sum)
			break;
	}
	return sin(th) * sum;
}

enum err stats_t_critical(long df, double confidence, double *t)
{
	if (df < 1 || !(confidence > 0 && confidence < 1))
		return ERR_INVALID;
	double lo = 0, hi = 1;
	while (t_central(hi, df) < confidence && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (t_central(mid, df) < confidence)
			lo = mid;
		else
			hi = mid;
	}
	*t = (lo + hi) / 2;
	return ERR_OK;
}

enum err stats_mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi)
{
	if (n < 2)
		return ERR_INVALID;
	double m, sd, t;
	enum err e = stats_mean(x, n, &m, &sd);
	if (e == ERR_OK)
		e = stats_t_critical((long)n - 1, 0.95, &t);
	if (e != ERR_OK)
		return e;
	double half = t * sd / sqrt((double)n);
	*mean = m;
	*lo = m - half;
	*hi = m + half;
	return ERR_OK;
}

enum err stats_summarize(const double *x, size_t n, struct stats_summary *s)
{
	struct stats_summary r = {.n = n};
	enum err e;
	if ((e = stats_percentile(x, n, 50, STATS_LINEAR, &r.p50)) != ERR_OK ||
	    (e = stats_percentile(x, n, 95, STATS_LINEAR, &r.p95)) != ERR_OK ||
	    (e = stats_percentile(x, n, 0, STATS_LINEAR, &r.min)) != ERR_OK ||
	    (e = stats_percentile(x, n, 100, STATS_LINEAR, &r.max)) != ERR_OK ||
	    (e = stats_mean(x, n, &r.mean, &r.sd)) != ERR_OK)
		return e;
	if (n >= 2) {
		double m;
		if ((e = stats_mean_ci(x, n, &m, &r.ci_lo, &r.ci_hi)) != ERR_OK)
			return e;
	} else {
		r.ci_lo = r.ci_hi = r.mean;
	}
	*s = r;
	return ERR_OK;
}
