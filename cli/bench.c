/* bench: formdesk bench --form FILE --corpus DIR --out DIR [--stt P[:M]] [--extract P[:M]]
 *   [--reply P[:M]] [--judge P[:M]] [--db FILE] [--concurrency N] [--today YYYY-MM-DD]
 *   [--baseline RUN]
 *
 * --judge (else the config file's "judge", agent/stages/provider.h) names the language model
 * asked where the offline judges cannot decide (sessions/eval/benchjudge.h): LLM-WER
 * segments, open fields the name judge is unsure of, replies whose words do not settle
 * "asks the decided question". Without one, only the offline judges decide.
 *
 * Runs the benchmark (sessions/eval/bench.h: STT, EXTRACT and REPLY unit tests and
 * integration calls) on a corpus with expected forms, keeping every result in the bench
 * database so a rerun does only what is missing, then writes the report into --out
 * (sessions/eval/benchreport.h). Defaults: backends reference, rules, script (offline); --db
 * ./formdesk.db; --concurrency 8. The integration's calls are recorded as a run (source
 * bench) in OUT/calls.db; --baseline RUN (a run there) diffs it with this one (stdout,
 * sessions/eval/rundiff.h) and gates on it. stderr: a progress bar when it is a terminal, and
 * a summary line. Exit status: 0 done (with --baseline: the gate passed); 1 this run is
 * worse than the baseline; 2 bad usage, a file that cannot be loaded, a backend that
 * cannot be set up, an unknown baseline run, or a database failure; 3 the report is
 * written but requests failed (no answer from a provider): stored as errors, asked again
 * next run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/stages/provider.h"
#include "sessions/eval/bench.h"
#include "sessions/store/benchdb.h"
#include "sessions/eval/benchreport.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/eval/rundiff.h"
#include "sessions/calls/runs.h"
#include "sessions/store/store.h"
#include "base/str.h"

/* The progress bar: one line on stderr, redrawn in place. */
static void on_progress(void *ud, const char *stage, long done, long total)
{
	int *last = ud;
	int width = 30, filled = total > 0 ? (int)(done * width / total) : width;
	int pct = total > 0 ? (int)(done * 100 / total) : 100;
	if (pct == *last && done != total && done != 0)
		return;
	*last = pct;
	fprintf(stderr, "\r%-8s [%.*s%*s] %3d%% %ld/%ld", stage, filled,
		"##############################", width - filled, "", pct, done, total);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = {.concurrency = 8};
	struct compose_opts co = {.db = "formdesk.db", .stt = "reference", .extract = "rules",
				  .reply = "script"};
	struct compose *c = NULL;
	const char *judge_spec = NULL;
	struct backend judge_b, *judge = NULL;
	const char *jwhy = NULL;
	struct bench_config cfg = {0};
	struct benchdb *db = NULL;
	struct bench_counts counts = {0};
	struct engine_config ecfg = {0};
	char *msg = NULL, *scope = NULL, *calls_db = NULL;
	int rc = 2, last = -1;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_bench_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (compose_new("bench", &co, COMPOSE_FORM | COMPOSE_CORPUS | COMPOSE_TODAY |
					       COMPOSE_BACKENDS | COMPOSE_LEXICON, &c) != ERR_OK)
		goto out;
	cfg = (struct bench_config){
		.form = c->form, .form_path = c->form_path, .lex = c->lex, .corpus = c->corpus,
		.today = c->today, .stt_spec = co.stt, .extract_spec = co.extract,
		.reply_spec = co.reply, .stt = c->stt, .extract = c->extract, .reply = c->reply,
		.concurrency = o.concurrency,
	};
	const char *out = o.out, *db_path = co.db;
	judge_spec = o.judge ? o.judge : provider_config_judge();
	if (judge_spec && (e = backend_judge(judge_spec, &judge_b, &jwhy)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: --judge %s: %s\n", judge_spec,
			jwhy && jwhy[0] ? jwhy : err_str(e));
		goto out;
	}
	if (judge_spec)
		cfg.judge = judge = &judge_b;
	if ((e = benchdb_open(db_path, &db, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	/* the integration's calls are a run of their own, in OUT/calls.db (the bench
	 * database keeps a write transaction open while results come in) */
	if ((mkdir(out, 0777) != 0 && errno != EEXIST) || !(calls_db = str_printf("%s/calls.db", out))) {
		fprintf(stderr, "formdesk bench: --out %s: cannot make it\n", out);
		goto out;
	}
	if (compose_store(c, calls_db) != ERR_OK)
		goto out;
	if (o.baseline) {
		struct store_run_row *b = NULL;
		int nb = 0;
		if (store_runs(c->store, o.baseline, &b, &nb) != ERR_OK || nb == 0) {
			fprintf(stderr, "formdesk bench: --baseline %d: no such run in %s (formdesk "
					"runs --db %s lists them)\n", o.baseline, calls_db, calls_db);
			store_runs_free(b, nb);
			goto out;
		}
		store_runs_free(b, nb);
	}
	compose_engine(c, &ecfg);
	if (compose_run(c, &co, "bench", &ecfg) != ERR_OK)
		goto out;
	cfg.store = c->store;
	cfg.run_id = ecfg.run_id;
	if (isatty(STDERR_FILENO)) {
		cfg.progress = on_progress;
		cfg.ud = &last;
	}
	if ((e = bench_run(&cfg, db, &counts, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if (!(scope = bench_scope(&cfg)))
		goto out;
	if ((e = benchreport_write(db, scope, &cfg, &counts, out, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	fprintf(stderr,
		"formdesk bench: %ld utterances, %ld EXTRACT and %ld REPLY unit tests (%ld end-call), "
		"%ld calls; run now: %ld, %ld, %ld, %ld; report in %s\n",
		counts.utterances, counts.extract, counts.reply_ask + counts.reply_end, counts.reply_end,
		counts.calls, counts.new_stt, counts.new_extract, counts.new_reply, counts.new_calls,
		out);
	if (judge)
		fprintf(stderr,
			"formdesk bench: judge %s:%s: %ld items, %ld asked now (%ld failed), %ld from the "
			"cache, cost $%.4f\n",
			judge->name, backend_model(judge), counts.judge.items, counts.judge.asked,
			counts.judge.failed, counts.judge.cached, counts.judge.cost_usd);
	long failed = counts.errors_stt + counts.errors_extract + counts.errors_reply +
		      counts.errors_calls;
	rc = 0;
	if (failed) {
		/* not results: said loudly, and the run is not a success (docs/evaluation.md) */
		fprintf(stderr,
			"formdesk bench: ERROR: %ld requests failed (STT %ld, EXTRACT %ld, REPLY %ld, "
			"calls %ld): not scored, listed in %s/errors.csv, asked again on the next run; "
			"first: %s\n",
			failed, counts.errors_stt, counts.errors_extract, counts.errors_reply,
			counts.errors_calls, out, counts.first_error);
		rc = 3;
	}
	if (o.baseline) {
		struct rundiff_result res;
		free(msg);
		msg = NULL;
		/* the run is ended first: the diff reads it whole */
		if (runs_end(c->store, ecfg.run_id) != ERR_OK ||
		    (e = rundiff_run(c->store, o.baseline, c->store, ecfg.run_id, RUNDIFF_TABLE, true,
				     stdout, stderr, &res, &msg)) != ERR_OK) {
			fprintf(stderr, "formdesk bench: --baseline: %s\n",
				msg ? msg : store_error(c->store));
			rc = 2;
		} else if (res.gate_failed) {
			rc = 1;
		}
	}
out:
	compose_run_end(c, ecfg.run_id);
	free(calls_db);
	benchdb_close(db);
	compose_free(c);
	free(msg);
	free(scope);
	return rc;
}
