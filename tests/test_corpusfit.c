/* corpusfit: the warnings for playing a corpus with a form, one case per row of
 * tests/data/corpusfit.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sessions/corpus/corpusfit.h"
#include "tests/support/table.h"

static void row(void **state)
{
	const struct table_row *r = *state;
	struct corpus *c = NULL;
	struct form *f = NULL;
	struct form_issues is = {0}, w = {0};
	char *msg = NULL;
	if (corpus_load(r->col[0], &c, &msg) != ERR_OK)
		fail_msg("%s: %s", r->name, msg ? msg : "corpus does not load");
	assert_int_equal(form_load(r->col[1], &f, &is), ERR_OK);
	assert_int_equal(corpusfit_check(c, f, r->col[1], &w), ERR_OK);
	char *got = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&got, &len);
	for (int i = 0; i < w.n; i++)
		fprintf(m, "%s%s => %s", i ? " | " : "", w.v[i].field, w.v[i].message);
	if (!w.n)
		fputs("-", m);
	fclose(m);
	assert_string_equal(got, r->col[2]);
	free(got);
	form_issues_free(&w);
	form_issues_free(&is);
	form_free(f);
	corpus_free(c);
}

int main(void)
{
	struct table_row *rows;
	int n_rows;
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	table_load("tests/data/corpusfit.tsv", 3, 3, 0, &rows, &n_rows);
	table_tests(&tests, &n, rows, n_rows, row);
	int rc = _cmocka_run_group_tests("corpusfit", tests, n, NULL, NULL);
	free(tests);
	table_free(rows, n_rows);
	return rc;
}
