/* calib: calibration of judges against people, as the FormBharo paper calibrates its LLM
 * judges (50 human-labelled tests to tune on, 50 held out to report on).
 *
 * - The human label of an item is the majority of its annotators' labels: the class
 *   with strictly more votes than any other; a tie has no majority. Judges are compared
 *   on items whose majority is "same" or "different" (an "unsure" majority, a tie and an
 *   unlabelled item are left out and counted).
 * - For each judge and prompt version found in the judges' table (judges.h): the
 *   confusion matrix (rows the human majority: same, different; columns the judge: same,
 *   different, unsure), accuracy (the judge's "unsure" counts as a miss), the
 *   true-positive rate (positive = same), the true-negative rate, and Cohen's kappa of
 *   judge and majority over the three classes (kappa.h).
 * - Inter-annotator agreement over the task's classes: Cohen's kappa on the items both
 *   labelled when there are two annotators, Fleiss' kappa on the items with two or more
 *   labels when there are more.
 * - The split: each item is dev or test by a hash of the seed and the item's key (FNV-1a,
 *   64 bits, low bit), so an item keeps its half whatever else is labelled, and the same
 *   seed gives the same halves on every machine. Every judge figure is given for all
 *   items, the dev half and the test half.
 * - Disagreements: every item where a judge's decision is not the human majority. */
#ifndef FORMDESK_CALIB_H
#define FORMDESK_CALIB_H

#include <stdbool.h>
#include "agent/err.h"
#include "annotations/kappa.h"
#include "annotations/labels.h"

/* The default seed of the split. */
#define CALIB_SEED 2608u

enum calib_split { CALIB_ALL, CALIB_DEV, CALIB_TEST, CALIB_NSPLITS };

/* Classes of the judge tables, in order. */
enum { CALIB_SAME, CALIB_DIFFERENT, CALIB_UNSURE, CALIB_NCLASSES };

struct calib_judge_figures {
	long table[CALIB_NCLASSES * CALIB_NCLASSES]; /* rows majority, columns judge */
	long n;              /* items compared */
	double accuracy;     /* NaN when n is 0 */
	double tpr, tnr;     /* NaN when no item of that class */
	bool has_kappa;      /* false when n is 0 */
	struct kappa_result kappa;
};

struct calib_judge {
	char *judge, *version;
	struct calib_judge_figures split[CALIB_NSPLITS];
	long undecided;      /* compared items this judge has no decision on */
};

struct calib_disagreement {
	long long item;
	enum calib_split split;  /* CALIB_DEV or CALIB_TEST */
	char *key, *judge, *version, *decision, *majority;
	char *expected, *captured, *transcript;
	char *humans;            /* "asha=same, ravi=different" */
};

struct calib {
	enum labels_task task;
	unsigned seed;
	int n_items;             /* items of the task */
	int n_labelled;          /* with at least one label */
	int n_compared;          /* with a same/different majority */
	int n_dev, n_test;       /* of the compared items */
	int n_tie, n_unsure;     /* labelled items left out: tie, "unsure" majority */
	char **annotators;       /* by name */
	int n_annotators;
	const char *agreement;   /* "cohen", "fleiss" or NULL when fewer than two annotators
				    or no item labelled twice */
	struct kappa_result iaa; /* over the task's classes */
	struct calib_judge *judges;
	int n_judges;
	struct calib_disagreement *dis;
	int n_dis;
};

/* calib_split_of: the half of item key under seed: CALIB_DEV or CALIB_TEST. */
enum calib_split calib_split_of(const char *key, unsigned seed);

/* calib_split_name: "all", "dev" or "test" (static). */
const char *calib_split_name(enum calib_split s);

/* calib_run: compute the report for task t from the labels and judges' decisions in l.
 * judge: only this judge (name, all its prompt versions), or NULL for every judge.
 * Output: *out (caller frees with calib_free). Errors: ERR_INVALID (t is no task), ERR_DB,
 * ERR_NOMEM. */
enum err calib_run(struct labels *l, enum labels_task t, const char *judge, unsigned seed,
		   struct calib **out);
void calib_free(struct calib *c);

#endif
