/* calib: calibration of judges against people, as the FormBharo paper calibrates its LLM
 * judges (50 human-labelled tests to tune on, 50 held out to report on).
 *
 * - The human label (the truth) of an item is the final label a reviewer decided
 *   (adjud.h) when there is one; otherwise the majority of its annotators' labels: the
 *   class with strictly more votes than any other; a tie has no majority. Judges are
 *   compared on items whose truth is "same" or "different" (an "unsure" truth, a tie and
 *   an unlabelled item are left out and counted).
 * - For each judge and prompt version found in the judges' table (judges.h): the
 *   confusion matrix (rows the human majority: same, different; columns the judge: same,
 *   different, unsure), accuracy (the judge's "unsure" counts as a miss), the
 *   true-positive rate (positive = same), the true-negative rate, and Cohen's kappa of
 *   judge and majority over the three classes (kappa.h).
 * - Inter-annotator agreement over the task's classes: Cohen's kappa on the items both
 *   labelled when there are two annotators, Fleiss' kappa on the items with two or more
 *   labels when there are more; beside it Gwet's AC1 (same items), PABAK and the
 *   prevalence and bias indices of the table of every pair of annotators' labels on the
 *   items both labelled, added up (kappa.h), Krippendorff's alpha over every label
 *   (annotators may have labelled different subsets), and when the kappa is far below
 *   the observed agreement a sentence that says why (calib_explain).
 * - Counts per class (tag): labels given with it, per annotator and in all (a label with
 *   several tags counts for each), and items whose truth it is; each pair of annotators'
 *   confusion table and Cohen's kappa. In the agreement figures, the majority and the
 *   judges' tables a label with several tags stands for its first in the taxonomy's order.
 * - Per tag, for a task labelled with tags (turn-errors): each tag as its own yes/no
 *   question, every tag of a label counted (calib_tags).
 * - Items in disagreement compare whole labels: "stt_error" and "stt_error,none" differ.
 * - Items in disagreement: where the annotators' labels differ, with each label and the
 *   final label when a reviewer decided.
 * - Each judge's agreement with the truth per prompt version and per UTC day its
 *   decisions were stored (over time).
 * - The split: each item is dev or test by a hash of the seed and the item's key (FNV-1a,
 *   64 bits, low bit), so an item keeps its half whatever else is labelled, and the same
 *   seed gives the same halves on every machine. Every judge figure is given for all
 *   items, the dev half and the test half.
 * - Disagreements: every item where a judge's decision is not the human majority. */
#ifndef FORMDESK_CALIB_H
#define FORMDESK_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "kappa.h"
#include "labels.h"

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

/* Two annotators' labels on the items both labelled: rows a, columns b (the task's
 * classes, k x k). */
struct calib_pair {
	int a, b;                 /* indices into calib.annotators */
	long table[KAPPA_MAX_CLASSES * KAPPA_MAX_CLASSES];
	bool has_kappa;
	struct kappa_result kappa;
};

/* An item the annotators disagree on. */
struct calib_item_dis {
	long long item;
	char *key, *humans;       /* "asha=same, ravi=different" */
	char *final, *final_by;   /* NULL when no reviewer decided */
};

/* A judge's agreement with the truth on the decisions it stored one UTC day. */
struct calib_trend {
	char *judge, *version;
	char day[11];
	long n, agree;            /* compared items, of which it matched the truth */
};

/* One tag as its own yes/no question (present or not in a label): two annotators' table on
 * the items both labelled. */
struct calib_tag_pair {
	int a, b;                  /* indices into the annotators */
	long table[4];             /* rows a: absent, present; columns b: absent, present */
	bool has_kappa;            /* false when they labelled no item in common */
	struct kappa_result kappa; /* Cohen's kappa; po the observed agreement */
	double pabak;              /* 2 po - 1 (Byrt, Bishop & Carlin 1993) */
};

/* One tag's figures (calib_tags). */
struct calib_tag {
	const char *tag;           /* the caller's string */
	long labels;               /* labels holding it */
	long present, absent;      /* items whose truth has it, has it not (a tie: neither) */
	struct calib_tag_pair *pairs; /* every pair a < b, in order */
	int n_pairs;
	bool has_alpha;            /* Krippendorff's alpha over every annotator */
	struct kappa_result alpha;
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
	/* beside the kappa (valid when agreement is set) */
	int k;                     /* the task's classes */
	const char *const *classes;
	bool has_ac1, has_indices, has_alpha;
	struct kappa_result ac1, alpha;
	struct kappa_indices indices;
	bool subsets_differ;       /* some annotator did not label an item another did */
	int n_adjudicated;         /* items whose truth is a reviewer's final label */
	long *class_labels;        /* k: labels given with each class */
	long *class_items;         /* k: items whose truth is each class */
	long *annot_class;         /* n_annotators x k: each annotator's labels per class */
	struct calib_pair *pairs;
	int n_pairs;
	struct calib_item_dis *idis;
	int n_idis;
	struct calib_trend *trend;
	int n_trend;
	struct calib_tag *tags;    /* a task labelled with tags: each of its k tags, else NULL */
	int n_tags;
	/* calib_run_annotator: one annotator's labels (their first tag) against the truth */
	int annotator;             /* index into annotators, -1 for every annotator */
	long vs_truth[KAPPA_MAX_CLASSES * KAPPA_MAX_CLASSES]; /* rows truth, columns theirs */
	long vs_n, vs_agree;       /* items they labelled that have a truth; of which agree */
	bool has_vs_kappa;
	struct kappa_result vs_kappa;
};

/* calib_explain: a sentence saying why the inter-annotator kappa is far below the
 * observed agreement (kappa at least 0.2 below it, with observed agreement of 60% or
 * more): the share of the class used most, chance agreement, the prevalence and bias
 * indices, PABAK and AC1, after Byrt, Bishop & Carlin (1993) and Gwet (2008). Output: buf
 * (size n), "" when kappa and observed agreement do not disagree. Returns buf. */
const char *calib_explain(const struct calib *c, char *buf, size_t n);

/* calib_tags: each of the k tags as its own binary question over n_items items labelled
 * by na annotators. labels: n_items x na (item-major), each a label (one tag or several
 * joined by LABELS_TAG_SEP) or NULL when that annotator did not label the item; finals:
 * n_items, an item's final (adjudicated) label or NULL (finals may be NULL). Per tag: the
 * labels holding it; the truth of each item, "present" when its final label has the tag,
 * else when strictly more of its labels have it than not ("absent" the other way round,
 * a tie neither); for every pair of annotators the 2x2 table on the items both labelled,
 * Cohen's kappa, observed agreement and PABAK; over all annotators Krippendorff's alpha
 * (nominal, items with fewer than two labels left out; kappa.h). Output: *out, k entries
 * (caller frees with calib_tags_free). Errors: ERR_INVALID (k or na out of range),
 * ERR_NOMEM. */
enum err calib_tags(const char *const *labels, const char *const *finals, int n_items, int na,
		    const char *const *tags, int k, struct calib_tag **out);
void calib_tags_free(struct calib_tag *v, int k);

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
/* calib_run_annotator: calib_run, and with annotator (may be NULL: calib_run) that
 * annotator's labels only: their table against the truth of each item (which stays the
 * final label or the majority of every annotator, theirs included; vs_truth, vs_n,
 * vs_agree, vs_kappa), and the judges compared with their labels instead of the truth
 * (n_compared, n_dev, n_test, the judges' tables and disagreements). Errors: ERR_NOTFOUND
 * (annotator labelled no item of t; adjud_known says who did), else as calib_run. */
enum err calib_run_annotator(struct labels *l, enum labels_task t, const char *only,
			     const char *annotator, unsigned seed, struct calib **out);
void calib_free(struct calib *c);

#endif
