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
	return table_run("corpusfit", "tests/data/corpusfit.tsv", 3, 3, 0, row, NULL, 0);
}
