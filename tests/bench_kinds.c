/* Per-kind pass counts of the offline extractor and the name judge on the rows of
 * tests/data/kinds_extract.tsv and tests/data/kinds_names.tsv (tests/kind_rows.h), printed
 * as a table beside the case-file tests: kind, rows, passed, failed, and the ids that fail.
 * Always exits 0 when the files load: it measures, tests/test_kinds.c gates. */
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
	return 0;
}
