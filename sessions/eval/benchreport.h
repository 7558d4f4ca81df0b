/* benchreport: the benchmark's report from the bench database (sessions/store/benchdb.h):
 * report.md (counts, per-stage accuracy with 95% confidence intervals, p50 and p95
 * latency, cost per turn and per call, failures), results.csv (one row per stage and
 * model with an answered test: stage,model,accuracy,p95_ms,cost_usd,n,ci_lo,ci_hi,p50_ms,
 * cost_per_call_usd,errors; model is "STAGE:SPEC", so `formdesk select --results DIR`
 * reads it; errors counts the failed requests left out, sessions/eval/bench.h), errors.csv
 * (each failed request: stage,model,key,error), results-STAGE.csv
 * (the same rows of one stage, for selection one stage at a time as the paper does) and
 * SVG charts (sessions/eval/chart.h): tradeoff-STAGE.svg (accuracy against p95 latency, cost
 * as marker size), sweep-STAGE.svg (the leader as the accuracy weight goes from 0.5 to
 * 0.9, w_l = 0.1: the paper's sweep) and, when the database holds runs of more than one
 * STT x EXTRACT pair, stt-x-extract.svg (form-completion accuracy by STT and EXTRACT).
 *
 * Rows of every run on the same scope are reported, so running the bench once per model
 * into one database and one folder compares them. Accuracy per stage: STT 1 - LLM-WER
 * (the paper chose STT by LLM-WER); EXTRACT and REPLY the unit-test pass rate;
 * integration ("call") form-completion accuracy. Latency: STT per utterance, EXTRACT and
 * REPLY per unit test, integration per caller turn (its stages added). Cost: per
 * utterance or per turn, and per call for integration (backend_usage cost; 0 offline). */
#ifndef FORMDESK_BENCHREPORT_H
#define FORMDESK_BENCHREPORT_H

#include "base/err.h"
#include "bench.h"

struct benchdb;

/* benchreport_write: write the report of scope's results into out_dir (made if missing).
 * cfg names the run just made (its specs are the report's focus); counts are its plan's
 * (bench_run). Output: files; on failure *errmsg (caller frees; may be NULL) names the
 * file. Errors: ERR_IO, ERR_DB, ERR_NOMEM. */
enum err benchreport_write(struct benchdb *db, const char *scope, const struct bench_config *cfg,
			   const struct bench_counts *counts, const char *out_dir, char **errmsg);

/* benchreport_stage_charts: tradeoff-STAGE.svg and sweep-STAGE.svg in out_dir from
 * out_dir/results-STAGE.csv. The candidates, the Pareto frontier (filled markers) and the
 * ranking are sessions/eval/select.c's, the same computation `formdesk select` makes on that
 * file (no limits, the default weights). Output: the two files; on failure *errmsg
 * (caller frees; may be NULL) names the file. Errors: ERR_NOTFOUND (no such CSV or no
 * rows in it: nothing written), ERR_IO, ERR_NOMEM. */
enum err benchreport_stage_charts(const char *out_dir, const char *stage, char **errmsg);

#endif
