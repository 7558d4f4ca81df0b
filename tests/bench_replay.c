/* Speed of replay and diff, in process: the 144-call demo corpus run headless once (run
 * 1), then replayed offline twice from its recorded words (runs 2 and 3), then the two
 * replays diffed. Prints the CPU time (user + system) of the replay and of the
 * diff, in seconds (targets: each under 1 s), and exits 1 when either is over or when
 * the two replays are not identical. Needs the demo corpus built (`make corpora`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "tests/support/benchrun.h"
#include "tests/support/dbq.h"

#define TARGET_S 1.0

int main(void)
{
	char dir[64], db[128], diff_out[128];
	double run_s, replay_s, replay2_s, diff_s;
	int rc = 1;

	benchrun_dir(dir, sizeof dir, "bench_replay");
	snprintf(db, sizeof db, "%s/demo.db", dir);
	snprintf(diff_out, sizeof diff_out, "%s/diff.json", dir);
	char *run[] = {"run", "--headless", "--corpus", "demo", "--db", db, NULL};
	char *replay[] = {"replay", "--db", db, "--run", "1", NULL};
	char *diff[] = {"diff", "--db", db, "2", "3", "--format", "json", "--gate", NULL};

	if (benchrun_quiet(cmd_run, 6, run, NULL, NULL, &run_s) != 0) {
		fprintf(stderr, "bench_replay: the demo run failed (is the corpus built? make corpora)\n");
		goto out;
	}
	if (benchrun_quiet(cmd_replay, 5, replay, NULL, NULL, &replay_s) != 0 ||
	    benchrun_quiet(cmd_replay, 5, replay, NULL, NULL, &replay2_s) != 0) {
		fprintf(stderr, "bench_replay: the replay failed\n");
		goto out;
	}
	if (benchrun_quiet(cmd_diff, 8, diff, diff_out, NULL, &diff_s) != 0) {
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
