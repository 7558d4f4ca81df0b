/* test_opts: cli/opts.c, the one option parser, from a table of argument lists: each kind
 * (flag, string, list, int, uint, double with an open lower end) stored at its offset, the
 * shared struct, positional arguments in order around the options, --name=VALUE, "--",
 * the last of a repeated option, and the refusals (unknown, abbreviated, short, missing
 * value, flag with a value, out of range, missing required, too many positional), each
 * with exit status 2's result and nothing stored past the error; a parse run twice in
 * one process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/opts.h"
#include "tests/support/testmain.h"

struct own {
	bool flag;
	const char *str, *list;
	int n;
	unsigned u;
	double x;
};

struct shared {
	const char *db;
};

static const struct opts_spec spec[] = {
	{"flag", OPTS_FLAG, offsetof(struct own, flag), NULL, "a flag", 0, 0, 0, NULL},
	{"str", OPTS_STRING, offsetof(struct own, str), "S", "a string", 0, 0, 0, NULL},
	{"list", OPTS_LIST, offsetof(struct own, list), "A,B", "a list", 0, 0, 0, NULL},
	{"n", OPTS_INT, offsetof(struct own, n), "N", "an int", 0, -5, 5, NULL},
	{"u", OPTS_UINT, offsetof(struct own, u), "U", "a uint", 0, 0, 4294967295.0, NULL},
	{"x", OPTS_DOUBLE, offsetof(struct own, x), "X", "a double", OPTS_ABOVE_MIN, 0, 2, NULL},
	{"db", OPTS_STRING, offsetof(struct shared, db), "FILE", "shared", OPTS_REQUIRED | OPTS_SHARED,
	 0, 0, NULL},
};

static const struct opts_cmd cmd = {
	.name = "t", .spec = spec, .n = OPTS_N(spec), .args = "A [B]", .min_args = 1, .max_args = 2,
};

/* One case: the arguments (after the command word, split on spaces), the result, and
 * what is stored then: "flag str list n u x db args" with - for unset. */
static const struct {
	const char *args;
	enum opts_result want;
	const char *stored;
} cases[] = {
	{"--db d a", OPTS_OK, "0 - - 0 0 0 d a"},
	{"a --flag --str s --list p,q --n -5 --u 4294967295 --x 2 --db d b", OPTS_OK,
	 "1 s p,q -5 4294967295 2 d a,b"},
	{"--n=3 --db=d a", OPTS_OK, "0 - - 3 0 0 d a"},
	{"--str one --str two --db d a", OPTS_OK, "0 two - 0 0 0 d a"},
	{"--db d -- --flag", OPTS_OK, "0 - - 0 0 0 d --flag"},
	{"--help", OPTS_HELP, "0 - - 0 0 0 - -"},
	{"-h --bogus", OPTS_HELP, "0 - - 0 0 0 - -"},
	{"--bogus --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--fla --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--he", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"-f --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--db d a --str", OPTS_BAD, "0 - - 0 0 0 d -"},
	{"--flag=1 --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--n 6 --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--n 1.5 --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--u -1 --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--u 4294967296 --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--x 0 --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--x inf --db d a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--flag --x 2.5 --db d a", OPTS_BAD, "1 - - 0 0 0 - -"},
	{"a", OPTS_BAD, "0 - - 0 0 0 - -"},
	{"--db d", OPTS_BAD, "0 - - 0 0 0 d -"},
	{"--db d a b c", OPTS_BAD, "0 - - 0 0 0 d -"},
};

static void test_cases(void **state)
{
	(void)state;
	/* stderr and stdout carry the messages and usages: out of the test's log. */
	FILE *devnull = fopen("/dev/null", "w");
	assert_non_null(devnull);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[256], *argv[32], got[512];
		int argc = 0;
		snprintf(buf, sizeof buf, "t %s", cases[i].args);
		for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
			argv[argc++] = t;
		argv[argc] = NULL;
		struct own o = {0};
		struct shared sh = {0};
		const char *args[2] = {NULL, NULL};
		int n_args = -1;
		FILE *err = stderr, *out = stdout;
		stderr = devnull;
		stdout = devnull;
		enum opts_result r = opts_parse(&cmd, argc, argv, &o, &sh, args, &n_args);
		stderr = err;
		stdout = out;
		snprintf(got, sizeof got, "%d %s %s %d %u %g %s %s%s%s", o.flag, o.str ? o.str : "-",
			 o.list ? o.list : "-", o.n, o.u, o.x, sh.db ? sh.db : "-",
			 r == OPTS_OK && n_args > 0 ? args[0] : "-", r == OPTS_OK && n_args > 1 ? "," : "",
			 r == OPTS_OK && n_args > 1 ? args[1] : "");
		if (r != cases[i].want || strcmp(got, cases[i].stored) != 0)
			fail_msg("case \"%s\": result %d, stored \"%s\"; want %d, \"%s\"", cases[i].args,
				 r, got, cases[i].want, cases[i].stored);
	}
	fclose(devnull);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_cases))
