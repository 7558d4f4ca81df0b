/* kappa: agreement statistics (kappa.h). */
#include "kappa.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool table_ok(const long *t, long cells)
{
	for (long i = 0; i < cells; i++)
		if (t[i] < 0)
			return false;
	return true;
}

/* sums: the row and column sums, total and diagonal of a valid k x k table. */
struct sums {
	long row[KAPPA_MAX_CLASSES], col[KAPPA_MAX_CLASSES], n, agree;
};

static bool table_sums(const long *table, int k, struct sums *s)
{
	memset(s, 0, sizeof *s);
	if (k < 1 || k > KAPPA_MAX_CLASSES || !table_ok(table, (long)k * k))
		return false;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			long c = table[i * k + j];
			s->row[i] += c;
			s->col[j] += c;
			s->n += c;
			if (i == j)
				s->agree += c;
		}
	return s->n > 0;
}

static bool counts_ok(const long *counts, int n_items, int k)
{
	return k >= 1 && k <= KAPPA_MAX_CLASSES && n_items >= 0 &&
	       table_ok(counts, (long)n_items * k);
}

/* item_ratings: the ratings m of one item's k counts c; *pairs: the agreeing ordered
 * pairs among them, sum_j c_j (c_j - 1). */
static long item_ratings(const long *c, int k, double *pairs)
{
	long m = 0;
	*pairs = 0;
	for (int j = 0; j < k; j++) {
		m += c[j];
		*pairs += (double)c[j] * (double)(c[j] - 1);
	}
	return m;
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
	struct sums t;
	struct kappa_result r = {0};

	if (!table_sums(table, k, &t))
		return ERR_INVALID;
	r.n = t.n;
	r.po = (double)t.agree / (double)t.n;
	for (int i = 0; i < k; i++)
		r.pe += ((double)t.row[i] / (double)t.n) * ((double)t.col[i] / (double)t.n);
	finish(&r);
	*out = r;
	return ERR_OK;
}

enum err kappa_fleiss(const long *counts, int n_items, int k, struct kappa_result *out)
{
	long total[KAPPA_MAX_CLASSES] = {0}, ratings = 0, items = 0;
	double sum_p = 0;
	struct kappa_result r = {0};

	if (!counts_ok(counts, n_items, k))
		return ERR_INVALID;
	for (int i = 0; i < n_items; i++) {
		const long *c = counts + (long)i * k;
		double pairs;
		long m = item_ratings(c, k, &pairs);
		if (m < 2)
			continue;
		sum_p += pairs / ((double)m * (double)(m - 1));
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

enum err kappa_gwet(const long *counts, int n_items, int k, struct kappa_result *out)
{
	double share[KAPPA_MAX_CLASSES] = {0}, sum_p = 0;
	long items = 0, rated = 0;
	struct kappa_result r = {0};

	if (k < 2 || !counts_ok(counts, n_items, k))
		return ERR_INVALID;
	for (int i = 0; i < n_items; i++) {
		const long *c = counts + (long)i * k;
		double pairs;
		long m = item_ratings(c, k, &pairs);
		if (m == 0)
			continue;
		rated++;
		for (int j = 0; j < k; j++)
			share[j] += (double)c[j] / (double)m;
		if (m < 2)
			continue;
		sum_p += pairs / ((double)m * (double)(m - 1));
		items++;
	}
	if (items == 0)
		return ERR_INVALID;
	r.n = items;
	r.po = sum_p / (double)items;
	for (int j = 0; j < k; j++) {
		double p = share[j] / (double)rated;
		r.pe += p * (1.0 - p);
	}
	r.pe /= (double)(k - 1);
	finish(&r);
	*out = r;
	return ERR_OK;
}

enum err kappa_gwet_table(const long *table, int k, struct kappa_result *out)
{
	struct sums t;
	struct kappa_result r = {0};

	if (k < 2 || !table_sums(table, k, &t))
		return ERR_INVALID;
	r.n = t.n;
	r.po = (double)t.agree / (double)t.n;
	for (int j = 0; j < k; j++) {
		double p = (double)(t.row[j] + t.col[j]) / (2.0 * (double)t.n);
		r.pe += p * (1.0 - p);
	}
	r.pe /= (double)(k - 1);
	finish(&r);
	*out = r;
	return ERR_OK;
}

enum err kappa_alpha(const long *counts, int n_items, int k, struct kappa_result *out)
{
	double o[KAPPA_MAX_CLASSES][KAPPA_MAX_CLASSES] = {{0}}, nc[KAPPA_MAX_CLASSES] = {0};
	double n = 0, off = 0, exp_off = 0;
	long items = 0;
	struct kappa_result r = {0};

	if (!counts_ok(counts, n_items, k))
		return ERR_INVALID;
	for (int i = 0; i < n_items; i++) {
		const long *c = counts + (long)i * k;
		double pairs;
		long m = item_ratings(c, k, &pairs);
		if (m < 2)
			continue;
		items++;
		for (int j = 0; j < k; j++)
			for (int l = 0; l < k; l++)
				o[j][l] += (double)c[j] * (double)(c[l] - (j == l)) / (double)(m - 1);
	}
	if (items == 0)
		return ERR_INVALID;
	for (int j = 0; j < k; j++)
		for (int l = 0; l < k; l++) {
			nc[j] += o[j][l];
			if (j != l)
				off += o[j][l];
		}
	for (int j = 0; j < k; j++)
		n += nc[j];
	for (int j = 0; j < k; j++)
		for (int l = 0; l < k; l++)
			if (j != l)
				exp_off += nc[j] * nc[l];
	r.n = items;
	r.po = 1.0 - off / n;
	r.pe = 1.0 - exp_off / (n * (n - 1.0));
	finish(&r);
	*out = r;
	return ERR_OK;
}

enum err kappa_indices(const long *table, int k, struct kappa_indices *out)
{
	struct sums t;
	struct kappa_indices x = {0};
	int top = 0;

	if (k < 2 || !table_sums(table, k, &t))
		return ERR_INVALID;
	for (int j = 1; j < k; j++)
		if (t.row[j] + t.col[j] > t.row[top] + t.col[top])
			top = j;
	x.top_share = (double)(t.row[top] + t.col[top]) / (2.0 * (double)t.n);
	x.pabak = ((double)k * (double)t.agree / (double)t.n - 1.0) / (double)(k - 1);
	/* the 2 x 2 table: class c against the rest (for k = 2 the table itself, whichever
	 * class is c: |a - d| and |b - c| do not change when the two are swapped) */
	int c = top;
	long a = table[c * k + c], b = 0, cc = 0, d = 0;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			if (i == c && j == c)
				continue;
			if (i == c)
				b += table[i * k + j];
			else if (j == c)
				cc += table[i * k + j];
			else
				d += table[i * k + j];
		}
	x.pi = (double)labs(a - d) / (double)t.n;
	x.bi = (double)labs(b - cc) / (double)t.n;
	x.cls = top;
	*out = x;
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
