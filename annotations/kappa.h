/* kappa: agreement statistics for the annotation desk: Cohen's kappa for two raters,
 * Fleiss' kappa for several, Gwet's AC1, Krippendorff's alpha (nominal, missing labels
 * allowed), PABAK with the prevalence and bias indices, and the rates a judge is reported
 * with (accuracy, the rate at which it finds one class). Pure arithmetic on count tables;
 * no I/O. Every coefficient comes as a struct kappa_result: the coefficient, the observed
 * agreement po and the agreement expected by chance pe, coefficient = (po - pe)/(1 - pe).
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
#include "base/err.h"

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

/* kappa_gwet: Gwet's AC1 (Gwet 2008, "Computing inter-rater reliability and its variance
 * in the presence of high agreement"; Handbook of Inter-Rater Reliability, 4th ed. 2014)
 * for any number of raters. Input: counts as for kappa_fleiss; k classes, the number of
 * classes the raters could choose from (q in Gwet). po: the mean over items with two or
 * more ratings of sum_j n_ij (n_ij - 1) / (m_i (m_i - 1)) (as Fleiss); pi_j: the mean over
 * items with a rating of n_ij / m_i; pe = sum_j pi_j (1 - pi_j) / (k - 1). Output: *out
 * (kappa holds AC1; degenerate when pe is 1, which needs k = 1). Errors: ERR_INVALID (k
 * out of range or 1, a negative count, no item with two ratings). */
enum err kappa_gwet(const long *counts, int n_items, int k, struct kappa_result *out);

/* kappa_gwet_table: Gwet's AC1 for two raters from their k x k table (as kappa_cohen):
 * po = trace / n; pi_j = (row j + column j) / 2n; pe as kappa_gwet. Errors: ERR_INVALID (k
 * out of range or 1, a negative count, no items). */
enum err kappa_gwet_table(const long *table, int k, struct kappa_result *out);

/* kappa_alpha: Krippendorff's alpha for nominal data (Krippendorff 2011, "Computing
 * Krippendorff's Alpha-Reliability"), for any number of raters who may each have rated a
 * different subset of the items. Input: counts as for kappa_fleiss (n_ij = raters who put
 * item i in class j; a rater who did not rate item i adds nothing). Items with fewer than
 * two ratings cannot be paired and are left out. From the coincidences
 * o_jl = sum_i n_ij (n_il - [j = l]) / (m_i - 1), n_j = sum_l o_jl, n = sum_j n_j:
 * po = 1 - Do, Do = sum_{j != l} o_jl / n; pe = 1 - De, De = sum_{j != l} n_j n_l / (n (n - 1));
 * alpha = 1 - Do / De. Output: *out (kappa holds alpha; n = items paired; degenerate when
 * every paired value is in one class: De = 0, alpha set to 1 by the rule above). Errors:
 * ERR_INVALID (k out of range, a negative count, no item with two ratings). */
enum err kappa_alpha(const long *counts, int n_items, int k, struct kappa_result *out);

/* The prevalence and bias of a two-rater table (Byrt, Bishop & Carlin 1993, "Bias,
 * prevalence and kappa"). For k = 2, with a, d the agreeing cells and b, c the others:
 * prevalence index |a - d| / n, bias index |b - c| / n. For k > 2 the table is first folded
 * into "the class used most (rows and columns together) against all others", so the
 * figures say how much that one class dominates; cls names that class (for k = 2 either
 * class gives the same figures). pabak:
 * the prevalence-adjusted bias-adjusted kappa, (k po - 1) / (k - 1) (2 po - 1 for k = 2);
 * Cohen's kappa = (pabak - pi^2 + bi^2) / (1 - pi^2 + bi^2) when k = 2. top_share: the
 * most used class's share of all 2n ratings. */
struct kappa_indices {
	double pabak, pi, bi, top_share;
	int cls;
};
/* kappa_indices: the figures above for the k x k table (as kappa_cohen). Output: *out.
 * Errors: ERR_INVALID (k out of range or 1, a negative count, no items). */
enum err kappa_indices(const long *table, int k, struct kappa_indices *out);

/* kappa_accuracy: trace / total of a k x k table (rows truth, columns prediction); NaN
 * when the table is empty. */
double kappa_accuracy(const long *table, int k);

/* kappa_recall: of the items whose truth is class c, the fraction predicted c: the
 * true-positive rate when c is the positive class, the true-negative rate when c is the
 * negative one. NaN when no item has truth c. */
double kappa_recall(const long *table, int k, int c);

#endif
