/* The fuzz targets' saved inputs (tests/fuzz/regress/TARGET/, each a finding, kept once
 * fixed, or an input from an outside report) fed to the targets' entry functions
 * (tests/fuzz/fuzz.h) without libFuzzer: under the sanitizers of `make check`, each must
 * pass without a report. Every target must have at least one saved input. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/fuzz/fuzz.h"

static void run_target(void **state)
{
	const struct fuzz_target *t = *state;
	char dir[256];
	snprintf(dir, sizeof(dir), "tests/fuzz/regress/%s", t->name);
	DIR *d = opendir(dir);
	if (!d)
		fail_msg("%s: no saved inputs", dir);
	int fed = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		unsigned char *buf = NULL;
		size_t n = 0, cap = 0, got;
		do {
			if (n + 4096 > cap) {
				cap = cap ? cap * 2 : 8192;
				buf = realloc(buf, cap);
				assert_non_null(buf);
			}
			got = fread(buf + n, 1, cap - n, f);
			n += got;
		} while (got > 0);
		fclose(f);
		print_message("%s\n", path);
		assert_int_equal(t->fn(buf, n), 0);
		free(buf);
		fed++;
	}
	closedir(d);
	assert_true(fed > 0);
}

int main(void)
{
	int n;
	const struct fuzz_target *t = fuzz_targets(&n);
	struct CMUnitTest tests[16];
	assert_true(n <= 16);
	for (int i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){t[i].name, run_target, NULL, NULL, (void *)&t[i]};
	return _cmocka_run_group_tests("fuzz", tests, (size_t)n, NULL, NULL);
}
