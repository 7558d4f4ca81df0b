/* review: the browser of recorded calls (tui/review.h).
 *
 * formdesk review --db FILE [--run R] [--against B] [--status S] [--field NAME] [--said TEXT]
 *                 [--corpus NAME] [--fault STAGE] [--output-device NAME|INDEX]
 *                 [--annotator NAME]
 *
 * Exit status: 0 done; 2 bad usage, no such database or run, no terminal. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "sessions/store/store.h"
#include "tui/review.h"
#include "tui/term.h"

int cmd_review(int argc, char **argv)
{
	struct review_opts o = {0};
	struct review_filter f = {0};
	struct store *st = NULL;
	struct store_run_row *runs = NULL;
	int n_runs = 0, rc = 2;
	char *end;

	enum opts_result pr = opts_parse(&cmd_review_opts, argc, argv, &o, NULL, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *run = o.run, *status = o.status, *field = o.field, *said = o.said;
	if (run && ((f.run = strtoll(run, &end, 10)) <= 0 || *end)) {
		fprintf(stderr, "formdesk review: --run '%s': expected a run id\n", run);
		return 2;
	}
	if (o.against && ((f.against = strtoll(o.against, &end, 10)) <= 0 || *end)) {
		fprintf(stderr, "formdesk review: --against '%s': expected a run id\n", o.against);
		return 2;
	}
	if (o.fault) {
		static const char *const stages[] = {"stt", "extract", "reply", "validation", "any"};
		size_t k = 0;
		while (k < sizeof stages / sizeof stages[0] && strcmp(stages[k], o.fault) != 0)
			k++;
		if (k == sizeof stages / sizeof stages[0]) {
			fprintf(stderr, "formdesk review: --fault '%s': expected stt, extract, reply, "
					"validation or any\n", o.fault);
			return 2;
		}
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "formdesk review: needs a terminal (standard %s is not one)\n",
			isatty(STDIN_FILENO) ? "output" : "input");
		return 2;
	}
	term_locale();
	if (compose_open_db("review", db, STORE_EXISTING, &st) != ERR_OK)
		goto out;
	for (int k = 0; k < 2; k++) {
		long long id = k ? f.against : f.run;
		if (id && (store_runs(st, id, &runs, &n_runs) != ERR_OK || n_runs == 0)) {
			fprintf(stderr, "formdesk review: run %lld: no such run in %s\n", id, db);
			goto out;
		}
		store_runs_free(runs, n_runs);
		runs = NULL;
		n_runs = 0;
	}
	f.status = status;
	f.field = field;
	f.text = said;
	f.corpus = o.corpus;
	f.fault = o.fault;
	f.output_device = o.output_device;
	f.annotator = o.annotator;
	rc = review_run(st, &f);
out:
	store_runs_free(runs, n_runs);
	store_close(st);
	return rc;
}
