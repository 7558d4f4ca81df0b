/* runs: the runs recorded in a database (sessions/calls/runs.h).
 *
 * formdesk runs --db FILE [--json]
 *
 * stdout: a table, one run a line (id, started, source, form and the start of its
 * SHA-256, backends, calls, completion, form-completion accuracy where the run's corpus
 * has expected forms); with --json one JSON object a line (sessions/calls/runs.h runs_list).
 * Exit status: 0 done; 2 bad usage, no such database, or a failure. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "sessions/calls/runs.h"
#include "sessions/store/store.h"

int cmd_runs(int argc, char **argv)
{
	struct runs_opts o = {0};
	struct store *st = NULL;
	int rc = 2;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_runs_opts, argc, argv, &o, NULL, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	const char *db = o.db;
	bool json = o.json;
	if (compose_open_db("runs", db, STORE_EXISTING, &st) != ERR_OK)
		goto out;
	if ((e = runs_list(st, json, stdout)) != ERR_OK) {
		fprintf(stderr, "formdesk runs: %s\n", store_error(st)[0] ? store_error(st) : err_str(e));
		goto out;
	}
	rc = 0;
out:
	store_close(st);
	return rc;
}
