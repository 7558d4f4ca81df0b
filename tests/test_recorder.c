/* test_recorder: a call's audio files. Turns written and finished come back whole with
 * the offsets recorder_turn_end reported; the agent's file is aligned to the caller's;
 * a child process that writes two finished turns and half of a third and then dies
 * (_exit, and SIGKILL) leaves WAV files holding all it wrote, the unfinished turn too; a
 * child killed at seeded moments while it writes leaves files every libsndfile reader
 * opens, as long as what it wrote to within one write block; FLAC at a clean close; the
 * folder next to the database; errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sndfile.h>

#include "audio/recorder.h"
#include "tests/support/loopwait.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

#define RATE 16000

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir, sizeof(tmpdir), "recorder");
}

/* Sample i of the caller's (side 0) or agent's (side 1) test audio: distinct ramps,
 * exact in 16-bit. */
static float value(int side, size_t i)
{
	int v = (int)(i % 4000) * (side ? -4 : 4) + (side ? -100 : 100);
	return v / 32768.0f;
}

static void write_n(struct recorder *r, enum recorder_side side, size_t from, size_t n)
{
	float buf[1000];

	for (size_t done = 0; done < n;) {
		size_t k = n - done < 1000 ? n - done : 1000;
		for (size_t i = 0; i < k; i++)
			buf[i] = value(side, from + done + i);
		assert_int_equal(recorder_write(r, side, buf, k), ERR_OK);
		done += k;
	}
}

/* Reads path fully. Output: samples (caller frees), *n. */
static float *read_all(const char *path, size_t *n, int *format)
{
	SF_INFO info = {0};
	SNDFILE *f = sf_open(path, SFM_READ, &info);
	float *v;

	if (!f)
		fail_msg("cannot read %s: %s", path, sf_strerror(NULL));
	assert_int_equal(info.samplerate, RATE);
	assert_int_equal(info.channels, 1);
	v = malloc(((size_t)info.frames + 1) * sizeof(float));
	assert_non_null(v);
	*n = (size_t)sf_read_float(f, v, info.frames);
	if (format)
		*format = info.format & SF_FORMAT_TYPEMASK;
	sf_close(f);
	return v;
}

static void check_side(const char *path, int side, size_t want, size_t zeros_from, size_t zeros_to)
{
	size_t n = 0;
	float *v = read_all(path, &n, NULL);

	if (n != want)
		fail_msg("%s: %zu samples, expected %zu", path, n, want);
	for (size_t i = 0, j = 0; i < n; i++) {
		float w = i >= zeros_from && i < zeros_to ? 0.0f : value(side, j++);
		if (fabsf(v[i] - w) > 0.5f / 32768)
			fail_msg("%s: sample %zu is %g, expected %g", path, i, v[i], w);
	}
	free(v);
}

static void test_turns_and_offsets(void **state)
{
	char dir[128], *msg = NULL;
	struct recorder *r = NULL;
	struct recorder_turn t;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/a/b/call-1", tmpdir);
	if (recorder_open(dir, RATE, &r, &msg) != ERR_OK)
		fail_msg("recorder_open: %s", msg);
	/* The agent speaks first (1 s), then the caller answers (1.5 s). */
	write_n(r, RECORDER_CALLER, 0, RATE);     /* the caller's microphone while the agent spoke */
	write_n(r, RECORDER_AGENT, 0, RATE);
	write_n(r, RECORDER_CALLER, RATE, RATE * 3 / 2);
	assert_int_equal(recorder_turn_end(r, &t), ERR_OK);
	assert_int_equal(t.index, 1);
	assert_int_equal(t.caller_start_ms, 0);
	assert_int_equal(t.caller_end_ms, 2500);
	assert_int_equal(t.agent_start_ms, 0);
	assert_int_equal(t.agent_end_ms, 1000);
	/* Turn 2: the agent's file is padded to the caller's before it speaks. */
	assert_int_equal(recorder_align(r), ERR_OK);
	write_n(r, RECORDER_AGENT, RATE, RATE / 2);
	write_n(r, RECORDER_CALLER, RATE * 5 / 2, RATE);
	assert_int_equal(recorder_turn_end(r, &t), ERR_OK);
	assert_int_equal(t.index, 2);
	assert_int_equal(t.caller_start_ms, 2500);
	assert_int_equal(t.caller_end_ms, 3500);
	assert_int_equal(t.agent_start_ms, 1000);
	assert_int_equal(t.agent_end_ms, 3000); /* 1.5 s of padding, then 0.5 s of speech */
	assert_string_equal(strrchr(recorder_path(r, RECORDER_AGENT), '/'), "/agent.wav");
	{
		char caller[256], agent[256];
		snprintf(caller, sizeof(caller), "%s", recorder_path(r, RECORDER_CALLER));
		snprintf(agent, sizeof(agent), "%s", recorder_path(r, RECORDER_AGENT));
		assert_int_equal(recorder_close(r, false, NULL), ERR_OK);
		check_side(caller, 0, RATE * 7 / 2, 0, 0);
		check_side(agent, 1, RATE * 3, RATE, RATE * 5 / 2);
	}
}

/* In a child: two finished turns, then half a turn, then death by how. */
static void crash_child(const char *dir, int how)
{
	struct recorder *r = NULL;

	if (recorder_open(dir, RATE, &r, NULL) != ERR_OK)
		_exit(3);
	for (int turn = 0; turn < 2; turn++) {
		write_n(r, RECORDER_CALLER, (size_t)turn * RATE, RATE);
		write_n(r, RECORDER_AGENT, (size_t)turn * RATE / 2, RATE / 2);
		if (recorder_turn_end(r, NULL) != ERR_OK)
			_exit(4);
	}
	write_n(r, RECORDER_CALLER, 2 * RATE, RATE / 3); /* unfinished */
	write_n(r, RECORDER_AGENT, RATE, RATE / 4);
	if (how == 0)
		_exit(0); /* no close, no stdio flush */
	raise(SIGKILL);
	_exit(5);
}

static void run_crash(int how)
{
	char dir[128], path[192];
	pid_t pid;
	int status = 0;

	snprintf(dir, sizeof(dir), "%s/crash-%d", tmpdir, how);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		crash_child(dir, how);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (how == 0)
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	else
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* The finished turns and the unfinished one: all that was written, whole. */
	snprintf(path, sizeof(path), "%s/caller.wav", dir);
	check_side(path, 0, 2 * RATE + RATE / 3, 0, 0);
	snprintf(path, sizeof(path), "%s/agent.wav", dir);
	check_side(path, 1, RATE + RATE / 4, 0, 0);
}

static void test_crash_exit(void **state)
{
	(void)state;
	run_crash(0);
}

static void test_crash_kill(void **state)
{
	(void)state;
	run_crash(1);
}

#define BLOCK 320       /* one write: 20 ms, as the live loop writes */
#define MAX_BLOCKS 4000 /* the writer stops there and waits to be killed */

/* kill -9 of a writer at seeded moments, no turn ever finished: after each, both files
 * open with libsndfile and hold what the writer had reported written (n blocks), or that
 * and the block it was writing, each sample as written. */
static void test_kill_while_writing(void **state)
{
	static const unsigned seeds[] = {1, 7, 18, 42, 99};
	(void)state;
	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		char dir[128], path[192], c;
		int fds[2], status = 0;
		size_t done = 0, n = 0;
		float *v;
		pid_t pid;
		unsigned seed = seeds[k];

		snprintf(dir, sizeof(dir), "%s/killed-%u", tmpdir, seed);
		assert_int_equal(pipe(fds), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct recorder *r = NULL;
			close(fds[0]);
			if (recorder_open(dir, RATE, &r, NULL) != ERR_OK)
				_exit(3);
			for (size_t b = 0; b < MAX_BLOCKS; b++) {
				write_n(r, RECORDER_CALLER, b * BLOCK, BLOCK);
				write_n(r, RECORDER_AGENT, b * BLOCK, BLOCK);
				if (write(fds[1], "b", 1) != 1)
					_exit(4);
			}
			pause();
			_exit(5);
		}
		close(fds[1]);
		/* the moment: after 1..40 blocks reported, then 0..9 ms more */
		srand(seed);
		size_t after = 1 + (size_t)(rand() % 40);
		while (done < after && read(fds[0], &c, 1) == 1)
			done++;
		usleep((useconds_t)(rand() % 10) * 1000);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		while (read(fds[0], &c, 1) == 1)
			done++;
		close(fds[0]);
		for (int side = 0; side < 2; side++) {
			snprintf(path, sizeof(path), "%s/%s", dir, side ? "agent.wav" : "caller.wav");
			v = read_all(path, &n, NULL);
			if (n < done * BLOCK || n > (done + 1) * BLOCK)
				fail_msg("seed %u: %s holds %zu samples, %zu blocks of %d were written", seed,
				         path, n, done, BLOCK);
			for (size_t i = 0; i < n; i++)
				if (fabsf(v[i] - value(side, i)) > 0.5f / 32768)
					fail_msg("seed %u: %s: sample %zu is %g, expected %g", seed, path, i,
					         v[i], value(side, i));
			free(v);
		}
	}
}

/* Killed before the first turn ended: each side is a valid WAV of no samples, 44 bytes
 * whose RIFF size is 36 (a reader refuses the RIFF size 8 libsndfile first writes). */
static void test_kill_before_first_turn(void **state)
{
	char dir[128], path[192];
	(void)state;
	snprintf(dir, sizeof(dir), "%s/early", tmpdir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct recorder *r = NULL;
		if (recorder_open(dir, RATE, &r, NULL) != ERR_OK)
			_exit(3);
		raise(SIGKILL);
		_exit(5);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	for (int side = 0; side < 2; side++) {
		snprintf(path, sizeof(path), "%s/%s", dir, side ? "agent.wav" : "caller.wav");
		unsigned char h[64];
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		size_t n = fread(h, 1, sizeof(h), f);
		fclose(f);
		assert_int_equal(n, 44);
		assert_int_equal(h[4] | h[5] << 8 | h[6] << 16 | (unsigned)h[7] << 24, 36);
		assert_int_equal(memcmp(h + 36, "data\0\0\0\0", 8), 0);
		check_side(path, side, 0, 0, 0);
	}
}

/* A disk that takes 300 ms to make a turn durable. */
static void slow_disk(void)
{
	struct timespec ts = {0, 300 * 1000000L};
	nanosleep(&ts, NULL);
}

/* In the background the loop never waits for the disk: with a commit that takes 300 ms,
 * ending a turn returns at once (synchronously it took the 300 ms), the turn is durable
 * once recorder_sync returns (the file read back holds it, with the offsets reported),
 * and the files are the same as a synchronous recorder's. */
static void test_background(void **state)
{
	char dir[128], path[192];
	struct recorder *r = NULL;
	struct recorder_turn t;
	double t0, took;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/background", tmpdir);
	assert_int_equal(recorder_open(dir, RATE, &r, NULL), ERR_OK);
	assert_int_equal(recorder_background(r, slow_disk), ERR_OK);
	t0 = loopwait_ms();
	write_n(r, RECORDER_CALLER, 0, RATE);
	write_n(r, RECORDER_AGENT, 0, RATE / 2);
	assert_int_equal(recorder_turn_end(r, &t), ERR_OK);
	took = loopwait_ms() - t0;
	if (took > 100)
		fail_msg("a turn's end waited %.0f ms for the disk", took);
	assert_int_equal(t.caller_end_ms, 1000);
	assert_int_equal(t.agent_end_ms, 500);
	assert_int_equal(recorder_align(r), ERR_OK);
	write_n(r, RECORDER_AGENT, RATE / 2, RATE / 4);
	write_n(r, RECORDER_CALLER, RATE, RATE / 2);
	assert_int_equal(recorder_turn_end(r, &t), ERR_OK);
	assert_int_equal(t.agent_start_ms, 500);
	assert_int_equal(t.agent_end_ms, 1250);
	t0 = loopwait_ms();
	assert_int_equal(recorder_sync(r), ERR_OK);
	assert_true(loopwait_ms() - t0 >= 250); /* the slow commits happened, on the thread */
	snprintf(path, sizeof(path), "%s/caller.wav", dir);
	check_side(path, 0, RATE * 3 / 2, 0, 0);
	assert_int_equal(recorder_close(r, false, NULL), ERR_OK);
	snprintf(path, sizeof(path), "%s/agent.wav", dir);
	check_side(path, 1, RATE * 5 / 4, RATE / 2, RATE);
}

static void test_flac(void **state)
{
	char dir[128], path[192];
	struct recorder *r = NULL;
	size_t n = 0;
	int format = 0;
	float *v;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/flac", tmpdir);
	assert_int_equal(recorder_open(dir, RATE, &r, NULL), ERR_OK);
	write_n(r, RECORDER_CALLER, 0, RATE);
	write_n(r, RECORDER_AGENT, 0, RATE / 2);
	assert_int_equal(recorder_turn_end(r, NULL), ERR_OK);
	assert_int_equal(recorder_close(r, true, NULL), ERR_OK);
	snprintf(path, sizeof(path), "%s/caller.flac", dir);
	v = read_all(path, &n, &format);
	assert_int_equal(format, SF_FORMAT_FLAC);
	assert_int_equal(n, RATE);
	free(v);
	snprintf(path, sizeof(path), "%s/caller.wav", dir);
	assert_int_not_equal(access(path, F_OK), 0); /* the WAV is gone */
	check_side(strcat(strcpy(path, dir), "/agent.flac"), 1, RATE / 2, 0, 0);
}

static void test_dir_and_errors(void **state)
{
	char buf[256], *msg = NULL;
	struct recorder *r = (struct recorder *)0x1;

	(void)state;
	assert_int_equal(recorder_dir("data/formdesk.db", 7, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "data/formdesk.audio/call-7");
	assert_int_equal(recorder_dir("calls.sqlite", 12, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "calls.sqlite.audio/call-12");
	assert_int_equal(recorder_dir("formdesk.db", 1, buf, 8), -1);
	assert_int_equal(recorder_open("/proc/formdesk-no/x", RATE, &r, &msg), ERR_IO);
	assert_non_null(strstr(msg, "/proc/formdesk-no"));
	free(msg);
	assert_int_equal(recorder_open(tmpdir, 100, &r, NULL), ERR_INVALID);
	assert_ptr_equal(r, (struct recorder *)0x1);
	assert_int_equal(recorder_close(NULL, true, NULL), ERR_OK);
}

TESTMAIN(setup, tmpdir_teardown,
	  cmocka_unit_test(test_turns_and_offsets),
	  cmocka_unit_test(test_crash_exit),
	  cmocka_unit_test(test_kill_while_writing),
	  cmocka_unit_test(test_crash_kill),
	  cmocka_unit_test(test_kill_before_first_turn),
	  cmocka_unit_test(test_background),
	  cmocka_unit_test(test_flac),
	  cmocka_unit_test(test_dir_and_errors))
