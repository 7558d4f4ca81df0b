/* bench: formdesk bench --form FILE --corpus DIR --out DIR [--stt P[:M]] [--extract P[:M]]
 *   [--reply P[:M]] [--judge P[:M]] [--db FILE] [--concurrency N] [--today YYYY-MM-DD]
 *
 * --judge (else the config file's "judge", agent/provider.h) names the language model
 * asked where the offline judges cannot decide (sessions/benchjudge.h): LLM-WER
 * segments, open fields the name judge is unsure of, replies whose words do not settle
 * "asks the decided question". Without one, only the offline judges decide.
 *
 * Runs the benchmark (sessions/bench.h: STT, EXTRACT and REPLY unit tests and
 * integration calls) on a corpus with expected forms, keeping every result in the bench
 * database so a rerun does only what is missing, then writes the report into --out
 * (sessions/benchreport.h). Defaults: backends reference, rules, script (offline); --db
 * ./formdesk.db; --concurrency 8. stderr: a progress bar when it is a terminal, and a
 * summary line. Exit status: 0 done; 2 bad usage, a file that cannot be loaded, a
 * backend that cannot be set up, or a database failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "agent/backend.h"
#include "agent/form.h"
#include "agent/lexicon.h"
#include "agent/provider.h"
#include "sessions/bench.h"
#include "sessions/benchdb.h"
#include "sessions/benchreport.h"
#include "sessions/corpus.h"

static const char USAGE[] =
	"usage: formdesk bench --form FILE --corpus DIR --out DIR [--stt P[:M]] [--extract P[:M]]\n"
	"       [--reply P[:M]] [--judge P[:M]] [--db FILE] [--concurrency N] [--today YYYY-MM-DD]\n"
	"  defaults: --stt reference --extract rules --reply script --db ./formdesk.db "
	"--concurrency 8\n";

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
	const char *form_path = NULL, *corpus_arg = NULL, *out = NULL, *db_path = "formdesk.db";
	const char *today = NULL, *conc = NULL, *why = NULL, *judge_spec = NULL;
	struct provider *judge = NULL;
	char jwhy[256] = "";
	struct bench_config cfg = {.stt_spec = "reference", .extract_spec = "rules",
				   .reply_spec = "script", .concurrency = 8};
	struct form *form = NULL;
	struct form_issues is = {0};
	struct corpus *corpus = NULL;
	struct lexicon *lex = NULL;
	struct benchdb *db = NULL;
	struct bench_counts counts = {0};
	char *dir = NULL, *msg = NULL, *scope = NULL;
	int rc = 2, last = -1;
	enum err e;

	for (int i = 1; i < argc; i++) {
		const char **slot = NULL;
		if (!strcmp(argv[i], "--form"))
			slot = &form_path;
		else if (!strcmp(argv[i], "--corpus"))
			slot = &corpus_arg;
		else if (!strcmp(argv[i], "--out"))
			slot = &out;
		else if (!strcmp(argv[i], "--db"))
			slot = &db_path;
		else if (!strcmp(argv[i], "--stt"))
			slot = &cfg.stt_spec;
		else if (!strcmp(argv[i], "--extract"))
			slot = &cfg.extract_spec;
		else if (!strcmp(argv[i], "--reply"))
			slot = &cfg.reply_spec;
		else if (!strcmp(argv[i], "--concurrency"))
			slot = &conc;
		else if (!strcmp(argv[i], "--judge"))
			slot = &judge_spec;
		else if (!strcmp(argv[i], "--today"))
			slot = &today;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(USAGE, stdout);
			return 0;
		}
		if (!slot || i + 1 >= argc) {
			fprintf(stderr, "formdesk bench: %s '%s'\n%s",
				slot ? "missing value after" : "unexpected argument", argv[i], USAGE);
			return 2;
		}
		*slot = argv[++i];
	}
	if (!form_path || !corpus_arg || !out) {
		fputs(USAGE, stderr);
		return 2;
	}
	if (conc) {
		char *end;
		long n = strtol(conc, &end, 10);
		if (*end || n < 1 || n > 1024) {
			fprintf(stderr, "formdesk bench: --concurrency '%s': expected 1 to 1024\n", conc);
			return 2;
		}
		cfg.concurrency = (int)n;
	}
	if ((e = form_load(form_path, &form, &is)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s: %s\n", form_path, err_str(e));
		for (int i = 0; i < is.n; i++)
			fprintf(stderr, "  %s%s%s\n", is.v[i].field, is.v[i].field[0] ? ": " : "",
				is.v[i].message);
		goto out;
	}
	if (!(dir = corpus_resolve(corpus_arg)))
		goto out;
	if ((e = corpus_load(dir, &corpus, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if (today) {
		if (!ymd_parse_iso(today, &cfg.today)) {
			fprintf(stderr, "formdesk bench: --today '%s': expected YYYY-MM-DD\n", today);
			goto out;
		}
	} else {
		cfg.today = corpus->has_today ? corpus->today : ymd_today();
	}
	if ((e = backend_stt(cfg.stt_spec, &cfg.stt, &why)) != ERR_OK ||
	    (e = backend_extract(cfg.extract_spec, &cfg.extract, &why)) != ERR_OK ||
	    (e = backend_reply(cfg.reply_spec, &cfg.reply, &why)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s\n", why ? why : err_str(e));
		goto out;
	}
	if (!judge_spec)
		judge_spec = provider_config_judge();
	if (judge_spec && (e = provider_resolve(judge_spec, PROVIDER_LLM, &judge, jwhy, sizeof jwhy)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: --judge %s: %s\n", judge_spec, jwhy[0] ? jwhy : err_str(e));
		goto out;
	}
	cfg.judge = judge;
	free(msg);
	msg = NULL;
	if ((e = lexicon_load(lexicon_default_dir(), &lex, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: word lists %s: %s\n", lexicon_default_dir(),
			msg ? msg : err_str(e));
		goto out;
	}
	free(msg);
	msg = NULL;
	if ((e = benchdb_open(db_path, &db, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk bench: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	cfg.form = form;
	cfg.form_path = form_path;
	cfg.lex = lex;
	cfg.corpus = corpus;
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
			judge->info->name, judge->model, counts.judge.items, counts.judge.asked,
			counts.judge.failed, counts.judge.cached, counts.judge.cost_usd);
	rc = 0;
out:
	benchdb_close(db);
	provider_free(judge);
	backend_cleanup();
	lexicon_free(lex);
	corpus_free(corpus);
	form_free(form);
	form_issues_free(&is);
	free(dir);
	free(msg);
	free(scope);
	return rc;
}
