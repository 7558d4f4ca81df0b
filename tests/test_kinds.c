/* The harder Hindi, Hinglish and English kinds, one cmocka test per row of
 * tests/data/kinds_extract.tsv and tests/data/kinds_names.tsv (tests/kind_rows.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kind_rows.h"

static struct kind_rows rows;

static void extract_row(void **state)
{
	const struct table_row *r = *state;
	char why[4096];
	if (!kind_extract_ok(rows.form, rows.lex, r, why, sizeof(why)))
		fail_msg("%s %s (line %d) %s: \"%s\": %s", r->col[0], r->col[1], r->line, r->col[2],
			 r->col[3], why);
}

static void name_row(void **state)
{
	const struct table_row *r = *state;
	char why[256];
	if (!kind_names_ok(r, why, sizeof(why)))
		fail_msg("%s %s (line %d) %s / %s: %s", r->col[0], r->col[1], r->line, r->col[2],
			 r->col[3], why);
}

int main(void)
{
	if (!kind_rows_load(&rows, "test_kinds"))
		return 1;
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	table_tests(&tests, &n, rows.ext, rows.ne, extract_row);
	table_tests(&tests, &n, rows.names, rows.nn, name_row);
	int failed = _cmocka_run_group_tests("harder kinds", tests, n, NULL, NULL);
	free(tests);
	kind_rows_free(&rows);
	return failed;
}
