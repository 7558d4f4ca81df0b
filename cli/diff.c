/* diff: two runs compared call by call and field by field, and the regression gate
 * (sessions/eval/rundiff.h).
 *
 * formdesk diff --db FILE RUN_A RUN_B [--db-b FILE] [--format table|markdown|csv|json]
 *               [--gate]
 *
 * RUN_B is read from --db-b when given (a replay recorded with --out-db), else from --db.
 * stdout: the diff: a table of the calls that changed and a summary (table, markdown), one
 * CSV row per matched call, or one JSON line per matched call {"call","change":"fixed"|
 * "broken"|"changed"|"same","a","b","fields":[...],"diverge","unanswered"} then one
 * summary line {"summary":true,...}.
 * stderr, with --gate: whether it passed; when it fails, why and the calls that broke.
 * Exit status: 0 done (with --gate: passed); 1 the gate failed; 2 bad usage, an unknown
 * run, a database that cannot be opened, or a failure. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "sessions/eval/rundiff.h"
#include "sessions/store/store.h"

static bool run_id(const char *s, long long *v)
{
	char *end;
	*v = strtoll(s, &end, 10);
	return end != s && !*end && *v > 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {.format = "table"};
	const char *pos[2] = {NULL, NULL};
	int rc = 2;
	struct store *sa = NULL, *sb = NULL;
	enum rundiff_format f;
	struct rundiff_result res;
	long long a, b;
	char *msg = NULL;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_diff_opts, argc, argv, &o, NULL, pos, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *db_b = o.db_b, *format = o.format;
	bool gate = o.gate;
	if (!run_id(pos[0], &a) || !run_id(pos[1], &b)) {
		fprintf(stderr, "formdesk diff: '%s': expected a run id (formdesk runs --db %s lists "
				"them)\n", run_id(pos[0], &a) ? pos[1] : pos[0], db);
		goto out;
	}
	if (!rundiff_format_parse(format, &f)) {
		fprintf(stderr, "formdesk diff: --format '%s': expected table, markdown, csv or json\n",
			format);
		goto out;
	}
	if (compose_open_db("diff", db, STORE_EXISTING, &sa) != ERR_OK ||
	    (db_b && compose_open_db("diff", db_b, STORE_EXISTING, &sb) != ERR_OK))
		goto out;
	if ((e = rundiff_run(sa, a, sb ? sb : sa, b, f, gate, stdout, stderr, &res, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk diff: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	rc = gate && res.gate_failed ? 1 : 0;
out:
	store_close(sa);
	store_close(sb);
	free(msg);
	return rc;
}
