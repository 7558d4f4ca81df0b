/* kappa: agreement statistics for the annotation desk: Cohen's kappa for two raters,
 * Fleiss' kappa for several, and the rates a judge is reported with (accuracy, the rate
 * at which it finds one class). Pure arithmetic on count tables; no I/O.
 *
 * Degenerate tables. When chance agreement pe is 1 (every rating in the table falls in
 * one and the same class: "all one class", or a single item both raters put in the same
 * class), kappa = (po - pe) / (1 - pe) is 0/0. It is defined here as 1: the raters agree
 * on everything they rated, and there is nothing left for chance to explain. A report
 * must still say that the figure rests on one class (kappa_cohen and kappa_fleiss say so
 * through *degenerate). A table with no ratings at all has no kappa (ERR_INVALID). */
#ifndef FORMDESK_KAPPA_H
#define FORMDESK_KAPPA_H

#include <stdbool.h>
#include "agent/err.h"

/* Most classes a table may have. */
#define KAPPA_MAX_CLASSES 16

struct kappa_result {
	double kappa;    /* agreement beyond chance, -1..1 (Cohen) */
	double po;       /* observed agreement, 0..1 */
	double pe;       /* agreement expected by chance, 0..1 */
	long n;          /* items counted */
	bool degenerate; /* pe was 1: kappa set to 1 by the rule above */
};

/* kappa_cohen: Cohen's kappa (Cohen 1960) for two raters. Input: table, k x k counts in
 * row-major order, table[i*k+j] = items rater A put in class i and rater B in class j;
 * k in 1..KAPPA_MAX_CLASSES. po = trace / n; pe = sum over i of (row i / n)(column i / n).
 * Output: *out. Errors: ERR_INVALID (k out of range, a negative count, no items). */
enum err kappa_cohen(const long *table, int k, struct kappa_result *out);

/* kappa_fleiss: Fleiss' kappa (Fleiss 1971) for any number of raters. Input: counts,
 * n_items x k in row-major order, counts[i*k+j] = raters who put item i in class j.
 * Items with fewer than two ratings are left out. Fleiss assumes every item has the same
 * number of raters m; when the numbers differ, each item's agreement uses its own m_i
 * (P_i = (sum_j n_ij^2 - m_i) / (m_i (m_i - 1))) and p_j is class j's share of all
 * ratings, which is Fleiss' formula when every m_i is equal. po is the mean P_i, pe the
 * sum of p_j^2. Output: *out (n = items counted). Errors: ERR_INVALID (k out of range, a
 * negative count, no item with two ratings). */
enum err kappa_fleiss(const long *counts, int n_items, int k, struct kappa_result *out);

/* kappa_accuracy: trace / total of a k x k table (rows truth, columns prediction); NaN
 * when the table is empty. */
double kappa_accuracy(const long *table, int k);

/* kappa_recall: of the items whose truth is class c, the fraction predicted c: the
 * true-positive rate when c is the positive class, the true-negative rate when c is the
 * negative one. NaN when no item has truth c. */
double kappa_recall(const long *table, int k, int c);

#endif
