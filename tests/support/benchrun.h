/* benchrun: what the speed programs (tests/bench_*.c) measure with: the process's CPU time,
 * a monotonic clock, and a formdesk command run in process with its output away, timed. */
#ifndef FORMDESK_TESTS_BENCHRUN_H
#define FORMDESK_TESTS_BENCHRUN_H

#include <stddef.h>

/* benchrun_cpu_s: the CPU time this process has used (user and system, all its threads),
 * in seconds. */
double benchrun_cpu_s(void);

/* benchrun_wall_s: now on CLOCK_MONOTONIC, in seconds (an arbitrary origin: only
 * differences mean anything). */
double benchrun_wall_s(void);

/* benchrun_sort: sort the n timings at v ascending (for their median and percentiles). */
void benchrun_sort(double *v, size_t n);

/* benchrun_dir: make a private folder /tmp/formdesk-NAME-XXXXXX and write its path to dir
 * (size n, at least 64). A folder that cannot be made stops the program (exit status 1)
 * with a message naming name (the program). */
void benchrun_dir(char *dir, size_t n, const char *name);

/* benchrun_quiet: run cmd (a cli/commands.h entry) on argc/argv with its stdout into the
 * file at file (created or truncated; NULL: /dev/null) and its stderr into /dev/null, both
 * put back after. Returns the command's exit status; *wall_s and *cpu_s (each may be NULL)
 * the seconds of wall time and CPU time it took. */
int benchrun_quiet(int (*cmd)(int, char **), int argc, char **argv, const char *file, double *wall_s,
		   double *cpu_s);

#endif
