/* Speed of simulated callers (`formdesk callers`), in process: 1,000 text calls on the
 * enrollment form with the offline agent (reference, rules, script), the demo profiles
 * and every behaviour in turn, each recorded in a fresh database. Prints the calls per
 * second of wall time and the CPU time, and exits 1 when the 1,000 calls take more than
 * TARGET_S seconds or a call does not end as expected (issue 17: "1,000 simulated text
 * calls run in seconds"). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "tests/support/dbq.h"

#define CALLS 1000
#define TARGET_S 20.0

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

int main(void)
{
	char dir[] = "/tmp/formdesk-bench-callers-XXXXXX", db[128], out[128], line[1 << 16];
	char calls[16];
	int rc = 1;

	if (!mkdtemp(dir)) {
		perror("bench_callers: mkdtemp");
		return 1;
	}
	snprintf(db, sizeof db, "%s/calls.db", dir);
	snprintf(out, sizeof out, "%s/summary.json", dir);
	snprintf(calls, sizeof calls, "%d", CALLS);
	char *argv[] = {"callers", "--form", "forms/armman_enrollment.json", "--profiles",
			"corpus/demo/profiles.json", "--behaviours", "all", "--calls", calls,
			"--json", "--db", db, NULL};
	int so = dup(STDOUT_FILENO), se = dup(STDERR_FILENO);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600), nul = open("/dev/null", O_WRONLY);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	dup2(nul, STDERR_FILENO);
	double w0 = wall_s(), c0 = cpu_s();
	int status = cmd_callers(12, argv);
	double w = wall_s() - w0, c = cpu_s() - c0;
	fflush(stdout);
	dup2(so, STDOUT_FILENO);
	dup2(se, STDERR_FILENO);
	close(fd);
	close(nul);

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
