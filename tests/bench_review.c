/* Speed of review's first screen on a large database: builds a database of 100,000
 * recorded calls (one run, each call with one turn and its decision, a third of them
 * failed with a field skipped) through the store's writers, then starts `formdesk review
 * --db FILE` (FORMDESK_BIN, default ./formdesk) on a pseudo-terminal of 160x45 and
 * measures the wall time from the start of the process to the list's status bar being
 * drawn: its first screen. Prints it in ms (target: under 200 ms) and exits 1 when it is
 * over or the screen never comes. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sessions/store/store.h"
#include "tests/support/benchrun.h"
#include "tests/support/dbq.h"

#define CALLS 100000
#define TARGET_MS 200.0

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static const char decision[] =
	"{\"turn\":1,\"asked\":\"name\",\"captured\":[{\"field\":\"name\",\"raw\":\"Sunita\","
	"\"value\":\"Sunita\",\"status\":\"answered\"}],\"verdicts\":[{\"field\":\"name\","
	"\"rule\":\"min_length\",\"ok\":true,\"message\":\"\"}],\"call_status\":\"in_progress\"}";

/* build: CALLS calls in a new database at path. Returns 0, or 1 with a message. */
static int build(const char *path)
{
	struct store *st = NULL;
	struct store_run_info run = {.source = "run", .corpus = "bench"};
	long long run_id = 0;
	char *msg = NULL;
	int rc = 1;

	if (store_open(path, &st, &msg) != ERR_OK) {
		fprintf(stderr, "bench_review: %s\n", msg ? msg : path);
		goto out;
	}
	/* building the fixture, not measured: the file need not survive a power cut */
	sqlite3_exec(store_sqlite(st), "PRAGMA synchronous=OFF", NULL, NULL, NULL);
	if (store_run_begin(st, &run, &run_id) != ERR_OK)
		goto fail;
	for (int i = 0; i < CALLS; i++) {
		char cid[32];
		long long id;
		struct store_call_info info = {.corpus = "bench", .corpus_call_id = cid,
					       .run_id = run_id, .opening = "नमस्ते"};
		struct store_turn t = {.index = 1, .transcript = "mera naam Sunita hai",
				       .decision = decision, .reply = "आप किस ज़िले में रहती हैं?",
				       .seg_start_ms = -1, .seg_end_ms = -1, .input = "corpus"};
		bool failed = i % 3 == 1;
		snprintf(cid, sizeof cid, "call-%06d", i);
		if (store_call_begin(st, &info, &id) != ERR_OK || store_turn_add(st, id, &t) != ERR_OK ||
		    store_call_end(st, id, failed ? "failed" : "complete",
				   failed ? "district ran out of retries" : NULL,
				   "{\"name\":\"Sunita\"}",
				   failed ? "{\"name\":\"answered\",\"district\":\"skipped\"}"
					  : "{\"name\":\"answered\",\"district\":\"answered\"}",
				   1) != ERR_OK)
			goto fail;
	}
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "bench_review: %s\n", store_error(st));
out:
	store_close(st);
	free(msg);
	return rc;
}

/* first_screen: start review on path in a pseudo-terminal and wait for its list's status
 * bar. Output: *ms from fork to the bar drawn. Returns 0, or 1 with a message. */
static int first_screen(const char *bin, const char *path, double *ms)
{
	struct winsize ws = {.ws_row = 45, .ws_col = 160};
	char buf[1 << 16];
	size_t have = 0;
	int fd, status, rc = 1;
	double t0 = now_ms();
	pid_t pid = forkpty(&fd, NULL, NULL, &ws);

	if (pid < 0) {
		perror("bench_review: forkpty");
		return 1;
	}
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		execl(bin, bin, "review", "--db", path, (char *)NULL);
		_exit(127);
	}
	while (now_ms() - t0 < 30000) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;
		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((n = read(fd, buf + have, sizeof buf - 1 - have)) <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		if (strstr(buf, "q quit")) {
			*ms = now_ms() - t0;
			rc = 0;
			break;
		}
		if (have > sizeof buf / 2) { /* keep the tail, where the bar comes */
			memmove(buf, buf + have - 64, 64);
			have = 64;
		}
	}
	if (rc)
		fprintf(stderr, "bench_review: %s review: no first screen in 30 s\n", bin);
	if (write(fd, "q", 1) != 1 || waitpid(pid, &status, WNOHANG) == 0) {
		usleep(200000);
		if (waitpid(pid, &status, WNOHANG) == 0) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
		}
	}
	close(fd);
	return rc;
}

int main(void)
{
	char dir[64], db[128];
	const char *bin = getenv("FORMDESK_BIN") ? getenv("FORMDESK_BIN") : "./formdesk";
	double t0, build_ms, ms = 0;
	int rc = 1;

	benchrun_dir(dir, sizeof dir, "bench_review");
	snprintf(db, sizeof db, "%s/review.db", dir);
	t0 = now_ms();
	if (build(db) != 0)
		goto out;
	build_ms = now_ms() - t0;
	printf("built a database of %d calls in %.1f s\n", CALLS, build_ms / 1000.0);
	if (first_screen(bin, db, &ms) != 0)
		goto out;
	printf("review's first screen on %d calls: %.0f ms wall (target < %.0f ms)\n", CALLS, ms,
	       TARGET_MS);
	rc = ms < TARGET_MS ? 0 : 1;
out:
	dbq_remove(db);
	rmdir(dir);
	return rc;
}
