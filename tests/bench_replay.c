/* Speed of replay and diff, in process: the 144-call demo corpus run headless once (run
 * 1), then replayed offline twice from its recorded words (runs 2 and 3), then the two
 * replays diffed. Prints the CPU time (user + system, getrusage) of the replay and of the
 * diff, in seconds (targets: each under 1 s), and exits 1 when either is over or when
 * the two replays are not identical. Needs the demo corpus built (`make corpora`). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/commands.h"
#include "tests/support/dbq.h"

#define TARGET_S 1.0

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* quiet: run a command with its stdout into file (NULL: /dev/null) and its stderr away;
 * returns its exit status and, in *s, the CPU seconds it took. */
static int quiet(int (*cmd)(int, char **), int argc, char **argv, const char *file, double *s)
{
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int fd = open(file ? file : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int nul = open("/dev/null", O_WRONLY);
	double t0;
	int rc;

	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	dup2(nul, STDERR_FILENO);
	t0 = cpu_s();
	rc = cmd(argc, argv);
	*s = cpu_s() - t0;
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(fd);
	close(nul);
	close(out);
	close(err);
	return rc;
}

int main(void)
{
	char dir[] = "/tmp/formdesk-bench-replay-XXXXXX", db[128], diff_out[128];
	double run_s, replay_s, replay2_s, diff_s;
	int rc = 1;

	if (!mkdtemp(dir)) {
		perror("bench_replay: mkdtemp");
		return 1;
	}
	snprintf(db, sizeof db, "%s/demo.db", dir);
	snprintf(diff_out, sizeof diff_out, "%s/diff.json", dir);
	char *run[] = {"run", "--headless", "--corpus", "demo", "--db", db, NULL};
	char *replay[] = {"replay", "--db", db, "--run", "1", NULL};
	char *diff[] = {"diff", "--db", db, "2", "3", "--format", "json", "--gate", NULL};

	if (quiet(cmd_run, 6, run, NULL, &run_s) != 0) {
		fprintf(stderr, "bench_replay: the demo run failed (is the corpus built? make corpora)\n");
		goto out;
	}
	if (quiet(cmd_replay, 5, replay, NULL, &replay_s) != 0 ||
	    quiet(cmd_replay, 5, replay, NULL, &replay2_s) != 0) {
		fprintf(stderr, "bench_replay: the replay failed\n");
		goto out;
	}
	if (quiet(cmd_diff, 8, diff, diff_out, &diff_s) != 0) {
		fprintf(stderr, "bench_replay: the diff failed or its gate did\n");
		goto out;
	}
	{
		FILE *f = fopen(diff_out, "r");
		char line[1 << 16], last[1 << 16] = "";
		while (f && fgets(line, sizeof line, f))
			strcpy(last, line);
		if (f)
			fclose(f);
		if (!strstr(last, "\"calls\":144,\"fixed\":0,\"broken\":0,\"changed\":0,\"same\":144")) {
			fprintf(stderr, "bench_replay: two replays of the demo run differ: %s", last);
			goto out;
		}
	}
	printf("demo run (144 calls, from audio): %.2f s CPU\n", run_s);
	printf("replay of the 144-call demo run, offline: %.3f s CPU (target < %.0f s); again %.3f s\n",
	       replay_s, TARGET_S, replay2_s);
	printf("diff of the two replays (144 calls, --gate): %.3f s CPU (target < %.0f s)\n", diff_s,
	       TARGET_S);
	rc = replay_s < TARGET_S && replay2_s < TARGET_S && diff_s < TARGET_S ? 0 : 1;
out:
	dbq_remove(db);
	unlink(diff_out);
	rmdir(dir);
	return rc;
}
