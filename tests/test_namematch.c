/* The name judge, one cmocka test per row of tests/data/parse_namepairs.tsv, plus its
 * keys and symmetry; a name in both scripts, one test per row of
 * tests/data/namematch_scripts.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "case_rows.h"
#include "agent/hindi/namematch.h"

static void pair_row(void **state)
{
	const struct table_row *r = *state;
	const char *a = r->col[0], *b = r->ncol > 1 ? r->col[1] : "", *want = r->ncol > 2 ? r->col[2] : "";
	const char *ab = namematch_verdict_name(namematch_judge(a, b));
	const char *ba = namematch_verdict_name(namematch_judge(b, a));
	if (strcmp(ab, want) != 0)
		fail_msg("line %d: %s / %s: want %s, got %s", r->line, a, b, want, ab);
	if (strcmp(ab, ba) != 0)
		fail_msg("line %d: %s / %s is %s but %s / %s is %s", r->line, a, b, ab, b, a, ba);
}

static void scripts_row(void **state)
{
	const struct table_row *r = *state;
	char lat[128], dev[256];
	namematch_latin(r->col[0], lat, sizeof lat);
	namematch_devanagari(r->col[0], dev, sizeof dev);
	if (strcmp(lat, r->col[1]) != 0 || strcmp(dev, r->ncol > 2 ? r->col[2] : "") != 0)
		fail_msg("line %d: %s: got %s / %s, want %s / %s", r->line, r->col[0], lat, dev,
			 r->col[1], r->ncol > 2 ? r->col[2] : "");
}

static void keys(void **state)
{
	(void)state;
	static const char *const k[][2] = {
		{"Lakshmi", "lxmi"}, {"लक्ष्मी", "lxmi"}, {"Sunita", "sunit"}, {"Shweta", "sbet"},
		{"Singh", "sin"}, {"सिंह", "sin"}, {"मयूरभंज", "myurbnj"}, {"", ""}, {"123", ""},
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		char buf[64];
		namematch_key(k[i][0], strlen(k[i][0]), buf, sizeof(buf));
		if (strcmp(buf, k[i][1]) != 0)
			fail_msg("key(%s) = %s, want %s", k[i][0], buf, k[i][1]);
	}
	char small[3];
	assert_int_equal(namematch_key("Lakshmi", 7, small, sizeof(small)), 2);
	assert_int_equal(namematch_judge(NULL, NULL), NAMEMATCH_UNSURE);
	assert_string_equal(namematch_verdict_name(NAMEMATCH_SAME), "same");
}

int main(void)
{
	int nrows;
	struct table_row *rows;
	table_load("tests/data/parse_namepairs.tsv", 1, 0, 0, &rows, &nrows);
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	table_add(&tests, &n, (struct CMUnitTest){.name = "keys", .test_func = keys});
	for (int i = 0; i < nrows; i++)
		snprintf(rows[i].name, sizeof(rows[i].name), "%s / %s", rows[i].col[0],
			 rows[i].ncol > 1 ? rows[i].col[1] : "");
	table_tests(&tests, &n, rows, nrows, pair_row);
	int nsr;
	struct table_row *srows;
	table_load("tests/data/namematch_scripts.tsv", 2, 0, 0, &srows, &nsr);
	for (int i = 0; i < nsr; i++)
		snprintf(srows[i].name, sizeof(srows[i].name), "scripts: %s", srows[i].col[0]);
	table_tests(&tests, &n, srows, nsr, scripts_row);
	char tiny[4];
	/* truncated output stays NUL-terminated */
	if (namematch_devanagari("Sunita", tiny, sizeof tiny) >= sizeof tiny || tiny[3] != 0 ||
	    namematch_latin("Sunita", tiny, sizeof tiny) != 3)
		return 1;
	int failed = _cmocka_run_group_tests("name judge", tests, n, NULL, NULL);
	free(tests);
	table_free(rows, nrows);
	table_free(srows, nsr);
	return failed;
}
