/* The shared case files, one cmocka test per row, read at run time:
 * $FORMDESK_CASES (default ../shared/cases, relative to the repository root, where the
 * tests run) extract.tsv with case_form.json and today 2025-03-15, and name_pairs.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "case_rows.h"
#include "agent/hindi/namematch.h"

static struct form *form;
static struct lexicon *lex;
static const struct ymd today = {2025, 3, 15};

static void extract_row(void **state)
{
	const struct table_row *r = *state;
	char why[4096];
	if (!row_check(form, lex, today, r->col[1], r->col[2], r->col[3], NULL, why, sizeof(why)))
		fail_msg("%s (line %d) %s: \"%s\": %s", r->col[0], r->line, r->col[1], r->col[2], why);
}

static void name_row(void **state)
{
	const struct table_row *r = *state;
	const char *got = namematch_verdict_name(namematch_judge(r->col[0], r->col[1]));
	if (strcmp(got, r->col[2]) != 0)
		fail_msg("line %d: %s / %s: want %s, got %s", r->line, r->col[0], r->col[1], r->col[2], got);
}

int main(void)
{
	const char *dir = getenv("FORMDESK_CASES");
	char path[1024];
	if (!dir || !*dir)
		dir = "../shared/cases";
	snprintf(path, sizeof(path), "%s/case_form.json", dir);
	struct form_issues is = {0};
	if (form_load(path, &form, &is) != ERR_OK) {
		fprintf(stderr, "cannot load %s: %s\n", path, is.n ? is.v[0].message : "error");
		return 1;
	}
	form_issues_free(&is);
	char *msg = NULL;
	if (lexicon_load(lexicon_default_dir(), &lex, &msg) != ERR_OK) {
		fprintf(stderr, "word lists %s: %s\n", lexicon_default_dir(), msg ? msg : "error");
		free(msg);
		return 1;
	}

	int ne, nn;
	struct table_row *ext, *names;
	snprintf(path, sizeof(path), "%s/extract.tsv", dir);
	table_load(path, 4, 0, 0, &ext, &ne);
	snprintf(path, sizeof(path), "%s/name_pairs.tsv", dir);
	table_load(path, 3, 0, 0, &names, &nn);
	for (int i = 0; i < ne; i++)
		snprintf(ext[i].name, sizeof(ext[i].name), "%s %s: %.120s", ext[i].col[0], ext[i].col[1],
			 ext[i].col[2]);
	for (int i = 0; i < nn; i++)
		snprintf(names[i].name, sizeof(names[i].name), "name %s / %s", names[i].col[0],
			 names[i].col[1]);
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	table_tests(&tests, &n, ext, ne, extract_row);
	table_tests(&tests, &n, names, nn, name_row);
	int failed = _cmocka_run_group_tests("case files", tests, n, NULL, NULL);
	free(tests);
	table_free(ext, ne);
	table_free(names, nn);
	lexicon_free(lex);
	form_free(form);
	return failed;
}
