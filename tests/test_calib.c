/* The sentence calibrate prints when kappa and observed agreement disagree
 * (annotations/calib.c, calib_explain), one case per row of tests/data/calib_explain.tsv:
 * two annotators' table, worked through kappa.c's Cohen, indices and AC1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "annotations/calib.h"
#include "tests/support/table.h"

static void explain_case(void **state)
{
	const struct table_row *r = *state;
	struct calib c = {0};
	const char *cls[KAPPA_MAX_CLASSES];
	char names[256], got[768];
	long t[KAPPA_MAX_CLASSES * KAPPA_MAX_CLASSES];
	int k = atoi(r->col[1]), n = 0;

	snprintf(names, sizeof names, "%s", r->col[2]);
	for (char *save = NULL, *p = strtok_r(names, ",", &save); p && n < KAPPA_MAX_CLASSES;
	     p = strtok_r(NULL, ",", &save))
		cls[n++] = p;
	assert_int_equal(n, k);
	n = 0;
	for (const char *s = r->col[3]; *s && n < k * k;) {
		char *end;
		t[n++] = strtol(s, &end, 10);
		s = *end ? end + 1 : end;
	}
	assert_int_equal(n, k * k);
	c.k = k;
	c.classes = cls;
	assert_int_equal(kappa_cohen(t, k, &c.iaa), ERR_OK);
	c.agreement = "cohen";
	c.has_indices = kappa_indices(t, k, &c.indices) == ERR_OK;
	c.has_ac1 = kappa_gwet_table(t, k, &c.ac1) == ERR_OK;
	calib_explain(&c, got, sizeof got);
	const char *want = strcmp(r->col[4], "-") == 0 ? "" : r->col[4];
	if (strcmp(got, want) != 0) {
		print_error("%s:\n want '%s'\n got  '%s'\n", r->name, want, got);
		fail();
	}
}

/* split: s cut at sep into v (at most max pieces, in place). Returns the count. */
static int split(char *s, const char *sep, char **v, int max)
{
	int n = 0;
	for (char *save = NULL, *p = strtok_r(s, sep, &save); p && n < max;
	     p = strtok_r(NULL, sep, &save))
		v[n++] = p;
	return n;
}

/* Each tag of a label as its own question, one case per row of tests/data/calib_tags.tsv:
 * the labels of three annotators, per pair kappa, observed agreement and PABAK, alpha. */
static void tags_case(void **state)
{
	const struct table_row *r = *state;
	char lbuf[512], fbuf[256], tbuf[256], pbuf[512], *items[16], *fin[16], *tags[16],
		*pairs[8], got[128];
	const char *labels[16 * 3], *finals[16];
	struct calib_tag *g = NULL;
	int n, nf, k, x = -1, np;

	snprintf(lbuf, sizeof lbuf, "%s", r->col[1]);
	snprintf(fbuf, sizeof fbuf, "%s", r->col[2]);
	snprintf(tbuf, sizeof tbuf, "%s", r->col[3]);
	snprintf(pbuf, sizeof pbuf, "%s", r->col[8]);
	n = split(lbuf, ";", items, 16);
	nf = split(fbuf, ";", fin, 16);
	k = split(tbuf, ",", tags, 16);
	np = split(pbuf, ";", pairs, 8);
	assert_int_equal(nf, n);
	for (int i = 0; i < n; i++) {
		char *who[3];
		assert_int_equal(split(items[i], " ", who, 3), 3);
		for (int a = 0; a < 3; a++)
			labels[i * 3 + a] = strcmp(who[a], "-") == 0 ? NULL : who[a];
		finals[i] = strcmp(fin[i], "-") == 0 ? NULL : fin[i];
	}
	for (int t = 0; t < k; t++)
		if (strcmp(tags[t], r->col[4]) == 0)
			x = t;
	assert_true(x >= 0);
	assert_int_equal(calib_tags(labels, finals, n, 3, (const char *const *)tags, k, &g),
			 ERR_OK);
	assert_string_equal(g[x].tag, r->col[4]);
	assert_int_equal(g[x].labels, atol(r->col[5]));
	assert_int_equal(g[x].present, atol(r->col[6]));
	assert_int_equal(g[x].absent, atol(r->col[7]));
	assert_int_equal(g[x].n_pairs, np);
	for (int p = 0; p < np; p++) {
		const struct calib_tag_pair *q = &g[x].pairs[p];
		assert_true(q->has_kappa);
		snprintf(got, sizeof got, "%.6f %.6f %.6f", q->kappa.kappa, q->kappa.po, q->pabak);
		if (strcmp(got, pairs[p]) != 0) {
			print_error("%s pair %d:\n want '%s'\n got  '%s'\n", r->name, p, pairs[p], got);
			fail();
		}
	}
	assert_true(g[x].has_alpha);
	snprintf(got, sizeof got, "%.6f", g[x].alpha.kappa);
	assert_string_equal(got, r->col[9]);
	calib_tags_free(g, k);
}

int main(void)
{
	int rc = table_run("calib", "tests/data/calib_explain.tsv", 5, 5, 0, explain_case, NULL, 0);
	rc |= table_run("calib_tags", "tests/data/calib_tags.tsv", 10, 10, 0, tags_case, NULL, 0);
	return rc;
}
