/* Speed of simulated callers (`formdesk callers`), in process: 1,000 text calls on the
 * enrollment form with the offline agent (reference, rules, script), the demo profiles
 * and every behaviour in turn, each recorded in a fresh database. Prints the calls per
 * second of wall time and the CPU time, and exits 1 when the 1,000 calls take more than
 * TARGET_S seconds or a call does not end as expected (issue 17: "1,000 simulated text
 * calls run in seconds"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "tests/support/benchrun.h"
#include "tests/support/dbq.h"

#define CALLS 1000
#define TARGET_S 20.0

int main(void)
{
	char dir[64], db[128], out[128], line[1 << 16];
	char calls[16];
	int rc = 1;

	benchrun_dir(dir, sizeof dir, "bench_callers");
	snprintf(db, sizeof db, "%s/calls.db", dir);
	snprintf(out, sizeof out, "%s/summary.json", dir);
	snprintf(calls, sizeof calls, "%d", CALLS);
	char *argv[] = {"callers", "--form", "forms/armman_enrollment.json", "--profiles",
			"corpus/demo/profiles.json", "--behaviours", "all", "--calls", calls,
			"--json", "--db", db, NULL};
	double w, c;
	int status = benchrun_quiet(cmd_callers, 12, argv, out, &w, &c);

	FILE *f = fopen(out, "r");
	line[0] = 0;
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = 0;
		fclose(f);
	}
	char want[64];
	snprintf(want, sizeof want, "{\"calls\":%d,\"complete\":%d,", CALLS, CALLS);
	printf("callers: %d text calls, every behaviour, offline agent: %.2f s wall (%.0f calls/s), "
	       "%.2f s CPU (target: under %.0f s)\n",
	       CALLS, w, CALLS / w, c, TARGET_S);
	if (status != 0 || strncmp(line, want, strlen(want)) != 0)
		fprintf(stderr, "bench_callers: exit %d, summary %.200s\n", status, line);
	else if (w > TARGET_S)
		fprintf(stderr, "bench_callers: %.2f s is over the %.0f s target\n", w, TARGET_S);
	else
		rc = 0;
	dbq_remove(db);
	unlink(out);
	rmdir(dir);
	return rc;
}
