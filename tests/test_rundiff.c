/* McNemar's exact test as the diff's gate uses it (sessions/eval/rundiff.h), on hand-worked
 * tables: p = min(1, 2 * P(X <= min(b, c))), X ~ Binomial(b + c, 1/2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <cmocka.h>

#include "sessions/eval/rundiff.h"
#include "tests/support/testmain.h"

static void test_mcnemar(void **state)
{
	static const struct {
		int broken, fixed;
		double p; /* worked by hand */
	} cases[] = {
		{0, 0, 1},                      /* nothing discordant */
		{1, 0, 1},                      /* 2 * 1/2 */
		{5, 0, 2.0 / 32},               /* 0.0625: not below 0.05 */
		{6, 0, 2.0 / 64},               /* 0.03125: the fewest one-way changes that fail */
		{0, 6, 2.0 / 64},               /* two-sided */
		{3, 3, 1},                      /* 2 * 42/64 > 1 */
		{10, 2, 2.0 * 79 / 4096},       /* (1 + 12 + 66) / 2^12 */
		{20, 5, 2.0 * 68406 / 33554432}, /* (1 + 25 + 300 + 2300 + 12650 + 53130) / 2^25 */
		{2, 1, 1},                      /* 2 * (1 + 3) / 8 */
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double p = rundiff_mcnemar_p(cases[i].broken, cases[i].fixed);
		if (fabs(p - cases[i].p) > 1e-12)
			fail_msg("broken %d fixed %d: p %.15g, worked by hand %.15g", cases[i].broken,
				 cases[i].fixed, p, cases[i].p);
	}
	/* large tables do not underflow */
	assert_true(rundiff_mcnemar_p(2000, 1900) > 0.1);
	assert_true(rundiff_mcnemar_p(2000, 0) < 1e-300 || rundiff_mcnemar_p(2000, 0) == 0);
}

static void test_formats(void **state)
{
	static const char *const ok[] = {"table", "markdown", "csv", "json"};
	enum rundiff_format f;
	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_true(rundiff_format_parse(ok[i], &f));
		assert_int_equal(f, i);
	}
	assert_false(rundiff_format_parse("html", &f));
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_mcnemar),
	  cmocka_unit_test(test_formats))
