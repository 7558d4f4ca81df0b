/* kappa: agreement statistics (kappa.h). */
#include "kappa.h"

#include <math.h>

static bool table_ok(const long *t, long cells)
{
	for (long i = 0; i < cells; i++)
		if (t[i] < 0)
			return false;
	return true;
}

/* finish: kappa from po and pe, with the degenerate rule of kappa.h. The tolerance only
 * absorbs rounding: pe is 1 exactly when one class holds every rating. */
static void finish(struct kappa_result *r)
{
	if (r->pe > 1.0 - 1e-12) {
		r->kappa = 1.0;
		r->degenerate = true;
	} else {
		r->kappa = (r->po - r->pe) / (1.0 - r->pe);
		r->degenerate = false;
	}
}

enum err kappa_cohen(const long *table, int k, struct kappa_result *out)
{
	long row[KAPPA_MAX_CLASSES] = {0}, col[KAPPA_MAX_CLASSES] = {0}, n = 0, agree = 0;
	struct kappa_result r = {0};

	if (k < 1 || k > KAPPA_MAX_CLASSES || !table_ok(table, (long)k * k))
		return ERR_INVALID;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			long c = table[i * k + j];
			row[i] += c;
			col[j] += c;
			n += c;
			if (i == j)
				agree += c;
		}
	if (n == 0)
		return ERR_INVALID;
	r.n = n;
	r.po = (double)agree / (double)n;
	for (int i = 0; i < k; i++)
		r.pe += ((double)row[i] / (double)n) * ((double)col[i] / (double)n);
	finish(&r);
	*out = r;
	return ERR_OK;
}

enum err kappa_fleiss(const long *counts, int n_items, int k, struct kappa_result *out)
{
	long total[KAPPA_MAX_CLASSES] = {0}, ratings = 0, items = 0;
	double sum_p = 0;
	struct kappa_result r = {0};

	if (k < 1 || k > KAPPA_MAX_CLASSES || n_items < 0 ||
	    !table_ok(counts, (long)n_items * k))
		return ERR_INVALID;
	for (int i = 0; i < n_items; i++) {
		const long *c = counts + (long)i * k;
		long m = 0;
		double sq = 0;
		for (int j = 0; j < k; j++) {
			m += c[j];
			sq += (double)c[j] * (double)c[j];
		}
		if (m < 2)
			continue;
		sum_p += (sq - (double)m) / ((double)m * (double)(m - 1));
		for (int j = 0; j < k; j++)
			total[j] += c[j];
		ratings += m;
		items++;
	}
	if (items == 0)
		return ERR_INVALID;
	r.n = items;
	r.po = sum_p / (double)items;
	for (int j = 0; j < k; j++) {
		double p = (double)total[j] / (double)ratings;
		r.pe += p * p;
	}
	finish(&r);
	*out = r;
	return ERR_OK;
}

double kappa_accuracy(const long *table, int k)
{
	long n = 0, agree = 0;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			n += table[i * k + j];
			if (i == j)
				agree += table[i * k + j];
		}
	return n ? (double)agree / (double)n : NAN;
}

double kappa_recall(const long *table, int k, int c)
{
	long n = 0;
	if (c < 0 || c >= k)
		return NAN;
	for (int j = 0; j < k; j++)
		n += table[c * k + j];
	return n ? (double)table[c * k + c] / (double)n : NAN;
}
