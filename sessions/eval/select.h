/* select: choose a model for one stage (STT, EXTRACT or REPLY) from its benchmark results,
 * by the FormBharo paper's method:
 *   1. hard limits: the paper requires EXTRACT p95 < 5 s and form completion > 90%, REPLY
 *      p95 < 4 s and accuracy > 95%; here the limits are inputs (both strict);
 *   2. the Pareto frontier: a candidate is dropped when another is at least as good on
 *      accuracy, p95 latency and cost and strictly better on one (equal candidates all stay);
 *   3. min-max normalization over the frontier, latency and cost reversed so that 1 is best:
 *      a = (acc - min) / (max - min), l = (max - p95) / (max - min), c = (max - cost) /
 *      (max - min); when every frontier candidate has the same value on a dimension
 *      (max = min, including a single candidate) each gets 1 on it;
 *   4. the weighted sum U = w_a a + w_l l + w_c c, highest first; the paper fixes w_l = 0.1
 *      and sweeps w_a from 0.5 to 0.9 with w_c = 1 - w_a - w_l. Ties in U (within 1e-12) go
 *      to higher accuracy, then lower p95, then lower cost, then the earlier row.
 *
 * Input: CSV (RFC 4180 quoting) with a header naming at least the columns model, accuracy,
 * p95_ms, cost_usd in any order (others ignored). Accuracy is read as percent when any of
 * its values ends in "%" or is above 1, otherwise as fractions in [0, 1]; a file whose
 * percents are all at most 1% must write them with "%". */
#ifndef FORMDESK_SELECT_H
#define FORMDESK_SELECT_H

#include <stdbool.h>
#include "base/err.h"

enum select_status {
	SELECT_RANKED,    /* on the frontier, has a rank and U */
	SELECT_LATENCY,   /* p95 not below the latency limit */
	SELECT_ACCURACY,  /* accuracy not above the accuracy limit */
	SELECT_DOMINATED, /* another candidate is as good on all three and better on one */
};

struct select_candidate {
	char *model;
	double accuracy;  /* fraction, 0..1 */
	double p95_ms;
	double cost_usd;
	int line;         /* CSV line it came from */
	/* Set by select_rank: */
	enum select_status status;
	int dominated_by; /* index of a dominating candidate, -1 if none */
	double a, l, c;   /* normalized scores, 0..1 (ranked only) */
	double u;         /* weighted sum (ranked only) */
	int rank;         /* 1 = best; 0 when excluded */
};

struct select {
	char *source;     /* the CSV file read */
	bool percent;     /* accuracy was written in percent */
	struct select_candidate *v;
	int n;
};

/* Hard limits; a limit applies only when its has_ flag is set. */
struct select_limits {
	bool has_max_p95;
	double max_p95_ms;   /* keep p95_ms < max_p95_ms */
	bool has_min_accuracy;
	double min_accuracy; /* fraction; keep accuracy > min_accuracy */
};

struct select_weights {
	double a, l, c;
};

/* The defaults: w_l = 0.1 as in the paper; w_a = 0.7, w_c = 0.2. */
#define SELECT_DEFAULT_WEIGHTS ((struct select_weights){0.7, 0.1, 0.2})

/* select_load: the candidates in the CSV file at path, or in path/results.csv when path is
 * a folder (a bench results folder). Inputs: path (borrowed). Output: *out (caller frees
 * with select_free), written only on success; on failure *error (caller frees; may be NULL)
 * reads "FILE:LINE: column 'p95_ms': ..." or names the file that cannot be read.
 * Errors: ERR_IO, ERR_PARSE (bad CSV or number, missing column), ERR_INVALID (value out of
 * range, empty or duplicate model name, no rows), ERR_NOMEM. */
enum err select_load(const char *path, struct select **out, char **error);

/* select_free: free s and everything it owns. select_free(NULL) does nothing. */
void select_free(struct select *s);

/* select_weights_check: ERR_OK when every weight is in [0, 1] and they sum to 1 (within
 * 1e-6), else ERR_INVALID. */
enum err select_weights_check(struct select_weights w);

/* select_rank: apply lim, find the frontier, normalize and rank by w, writing every
 * candidate's status, scores and rank. Output: *ranked (may be NULL) the number of ranked
 * candidates (0 when none meets the limits). Errors: ERR_INVALID (bad weights). */
enum err select_rank(struct select *s, const struct select_limits *lim,
		     struct select_weights w, int *ranked);

/* select_leader: index of the rank-1 candidate after select_rank, -1 when none. */
int select_leader(const struct select *s);

/* One step of a weight sweep. */
struct select_step {
	struct select_weights w;
	int leader;       /* candidate index, -1 when none is ranked */
	double *u;        /* U of every candidate at these weights (NaN when excluded) */
};

struct select_sweep {
	struct select_step *steps;
	int n_steps;
	int n_candidates;
};

/* select_sweep_run: rank s (select_rank with lim) at w_a = from, from + step, ... up to to
 * (inclusive, within step / 1e6), with w_l fixed and w_c = 1 - w_a - w_l (weights rounded
 * to 1e-9 so 0.1 steps print cleanly). Leaves s ranked at the last step. Output: *out
 * (caller frees with select_sweep_free), written only on success; *error (caller frees; may
 * be NULL) says what is wrong. Errors: ERR_INVALID (step <= 0, from > to, more than 10001
 * steps, or a step whose weights are not valid, such as w_c < 0), ERR_NOMEM. */
enum err select_sweep_run(struct select *s, const struct select_limits *lim, double from,
			  double to, double step, double w_l, struct select_sweep **out,
			  char **error);

/* select_sweep_free: free sw. NULL does nothing. */
void select_sweep_free(struct select_sweep *sw);

/* select_status_name: "ranked", "max_p95_ms", "min_accuracy", "dominated"; static. */
const char *select_status_name(enum select_status st);

#endif
