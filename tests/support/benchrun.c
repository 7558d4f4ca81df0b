/* benchrun: the speed programs' clocks and quiet command runs (see benchrun.h). */
#include "benchrun.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double benchrun_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double benchrun_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void benchrun_sort(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

void benchrun_dir(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "/tmp/formdesk-%s-XXXXXX", name);
	if (!mkdtemp(dir)) {
		perror(name);
		exit(1);
	}
}

int benchrun_quiet(int (*cmd)(int, char **), int argc, char **argv, const char *file, double *wall_s,
		   double *cpu_s)
{
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int fd = open(file ? file : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int nul = open("/dev/null", O_WRONLY);

	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	dup2(nul, STDERR_FILENO);
	double w0 = benchrun_wall_s(), c0 = benchrun_cpu_s();
	int rc = cmd(argc, argv);
	if (cpu_s)
		*cpu_s = benchrun_cpu_s() - c0;
	if (wall_s)
		*wall_s = benchrun_wall_s() - w0;
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(fd);
	close(nul);
	close(out);
	close(err);
	return rc;
}
