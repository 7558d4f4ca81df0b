/* Per-kind pass counts of the offline extractor and the name judge on the rows of
 * tests/data/kinds_extract.tsv and tests/data/kinds_names.tsv (tests/kind_rows.h), printed
 * as a table: kind, rows, passed, failed, and the ids that fail; then, beside them, the
 * passes on the shared case files ($FORMDESK_CASES, default ../shared/cases: extract.tsv
 * on case_form.json, name_pairs.tsv), as tests/test_cases.c runs them. Always exits 0 when
 * the files load: it measures, the tests gate. */
#include <unistd.h>

#include "kind_rows.h"

#define MAXKINDS 64

struct kind {
	char name[64];
	int rows, passed;
	char failed_ids[256];
};

static struct kind *kind_of(struct kind *k, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(k[i].name, name) == 0)
			return &k[i];
	if (*n == MAXKINDS)
		return NULL;
	struct kind *nk = &k[(*n)++];
	memset(nk, 0, sizeof(*nk));
	snprintf(nk->name, sizeof(nk->name), "%s", name);
	return nk;
}

static void count(struct kind *k, bool ok, const char *id)
{
	k->rows++;
	if (ok) {
		k->passed++;
		return;
	}
	size_t l = strlen(k->failed_ids);
	snprintf(k->failed_ids + l, sizeof(k->failed_ids) - l, "%s%s", l ? " " : "", id);
}

/* The shared case files' pass counts, one line; a folder without them says so. */
static void case_files(void)
{
	const char *dir = getenv("FORMDESK_CASES");
	char path[1024], why[4096];
	if (!dir || !*dir)
		dir = "../shared/cases";
	struct form *f = NULL;
	struct form_issues is = {0};
	struct lexicon *lex = NULL;
	static const char *const need[] = {"extract.tsv", "name_pairs.tsv", "case_form.json"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, need[i]);
		if (access(path, R_OK) != 0) {
			printf("case files (%s): no %s\n", dir, need[i]);
			return;
		}
	}
	if (form_load(path, &f, &is) != ERR_OK ||
	    lexicon_load(lexicon_default_dir(), &lex, NULL) != ERR_OK) {
		printf("case files (%s): cannot load the form or the word lists\n", dir);
		form_issues_free(&is);
		form_free(f);
		return;
	}
	form_issues_free(&is);
	int ne = 0, nn = 0, pe = 0, pn = 0;
	struct table_row *ext = NULL, *names = NULL;
	const struct ymd today = {2025, 3, 15};
	snprintf(path, sizeof(path), "%s/extract.tsv", dir);
	table_load(path, 4, 0, 0, &ext, &ne);
	snprintf(path, sizeof(path), "%s/name_pairs.tsv", dir);
	table_load(path, 3, 0, 0, &names, &nn);
	for (int i = 0; i < ne; i++)
		pe += row_check(f, lex, today, ext[i].col[1], ext[i].col[2], ext[i].col[3], NULL, why,
				sizeof(why));
	for (int i = 0; i < nn; i++)
		pn += strcmp(namematch_verdict_name(namematch_judge(names[i].col[0], names[i].col[1])),
			     names[i].col[2]) == 0;
	printf("case files (%s): extract.tsv %d/%d passed, name_pairs.tsv %d/%d passed\n", dir, pe,
	       ne, pn, nn);
	table_free(ext, ne);
	table_free(names, nn);
	lexicon_free(lex);
	form_free(f);
}

int main(void)
{
	struct kind_rows kr;
	if (!kind_rows_load(&kr, "bench_kinds"))
		return 1;
	static struct kind kinds[MAXKINDS];
	int nk = 0;
	char why[4096];
	for (int i = 0; i < kr.ne + kr.nn; i++) {
		const struct table_row *r = i < kr.ne ? &kr.ext[i] : &kr.names[i - kr.ne];
		struct kind *k = kind_of(kinds, &nk, r->col[1]);
		bool ok = i < kr.ne ? kind_extract_ok(kr.form, kr.lex, r, why, sizeof(why))
				    : kind_names_ok(r, why, sizeof(why));
		if (k)
			count(k, ok, r->col[0]);
	}
	int rows = 0, passed = 0;
	printf("%-20s %5s %7s %7s  %s\n", "kind", "rows", "passed", "failed", "failing rows");
	for (int i = 0; i < nk; i++) {
		printf("%-20s %5d %7d %7d  %s\n", kinds[i].name, kinds[i].rows, kinds[i].passed,
		       kinds[i].rows - kinds[i].passed, kinds[i].failed_ids);
		rows += kinds[i].rows;
		passed += kinds[i].passed;
	}
	printf("%-20s %5d %7d %7d\n", "all kinds", rows, passed, rows - passed);
	kind_rows_free(&kr);
	case_files();
	return 0;
}
