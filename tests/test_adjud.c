/* Adjudication (annotations/adjud.c): who may decide an item, one case per row of
 * tests/data/adjud_rule.tsv; and on the recorded calls of tests/data/annotate_calls.sql,
 * three annotators, a reviewer's decisions kept with who and when, refusals that write
 * nothing, and calibration taking the final label as the truth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "annotations/adjud.h"
#include "annotations/calib.h"
#include "annotations/labels.h"
#include "annotations/queue.h"
#include "tests/support/dbq.h"
#include "tests/support/table.h"

#define CORPUS "tests/data/corpus_good"
#define MAX_SIDES 8

static void rule_case(void **state)
{
	const struct table_row *r = *state;
	struct adjud_side s[MAX_SIDES];
	char buf[512], why[512] = "";
	int n = 0;

	snprintf(buf, sizeof buf, "%s", r->col[1]);
	for (char *save = NULL, *p = strtok_r(buf, ",", &save); p && n < MAX_SIDES;
	     p = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(p, '=');
		assert_non_null(eq);
		*eq = '\0';
		s[n++] = (struct adjud_side){p, eq + 1, NULL};
	}
	enum err e = adjud_check(s, n, r->col[2], why, sizeof why);
	bool want_ok = strcmp(r->col[3], "ok") == 0;
	if (want_ok != (e == ERR_OK)) {
		print_error("%s: want %s, got %s (%s)\n", r->name, r->col[3],
			    e == ERR_OK ? "ok" : "refused", why);
		fail();
	}
	if (strcmp(r->col[4], "-") != 0 && !strstr(why, r->col[4])) {
		print_error("%s: the reason '%s' does not hold '%s'\n", r->name, why, r->col[4]);
		fail();
	}
}

static char dbpath[64];

/* open_fixture: a fresh database of the fixture's calls with its name-match items drawn. */
static struct labels *open_fixture(void)
{
	struct labels *l = NULL;
	char *msg = NULL, *notes = NULL;

	snprintf(dbpath, sizeof dbpath, "/tmp/formdesk-adjud-%d.db", (int)getpid());
	dbq_remove(dbpath);
	dbq_exec_file(dbpath, "tests/data/annotate_calls.sql");
	if (labels_open(dbpath, &l, &msg) != ERR_OK)
		fail_msg("labels_open: %s", msg);
	assert_int_equal(queue_build(l, LABELS_NAME_MATCH, CORPUS, &notes, NULL), ERR_OK);
	free(notes);
	return l;
}

static long long item_of(struct labels *l, int call)
{
	struct labels_item *v;
	int n;
	long long id = 0;
	char key[32];
	snprintf(key, sizeof key, "call %d field name", call);
	assert_int_equal(labels_items(l, LABELS_NAME_MATCH, &v, &n), ERR_OK);
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].key, key) == 0)
			id = v[i].id;
	labels_items_free(v, n);
	assert_true(id > 0);
	return id;
}

static long rows(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	long n = -1;
	assert_int_equal(sqlite3_open(dbpath, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return n;
}

/* The worked example of docs/annotation.md: asha, ravi and meena on six names. */
static void label_three(struct labels *l)
{
	static const char *const who[3] = {"asha", "ravi", "meena"};
	static const char *const lab[3][6] = {
		{"same", "same", "different", "different", "same", "different"},
		{"same", "same", "same", "different", "same", "different"},
		{"same", "same", "different", "different", "unsure", "same"}};
	for (int a = 0; a < 3; a++)
		for (int c = 1; c <= 6; c++)
			assert_int_equal(labels_put(l, item_of(l, c), who[a], lab[a][c - 1],
						    c == 3 && a == 1 ? "Sumita is a spelling" : NULL),
					 ERR_OK);
}

static void three_annotators(void **state)
{
	(void)state;
	struct labels *l = open_fixture();
	struct adjud_item *v = NULL;
	struct adjud_final *fin = NULL;
	int n = 0, nf = 0;
	char why[512];

	label_three(l);
	/* calls 3, 5 and 6 are in disagreement */
	assert_int_equal(adjud_list(l, LABELS_NAME_MATCH, NULL, false, &v, &n), ERR_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].item.key, "call 3 field name");
	assert_int_equal(v[0].n_sides, 3);
	assert_string_equal(v[0].sides[0].annotator, "asha");
	assert_string_equal(v[0].sides[2].annotator, "ravi");
	assert_string_equal(v[0].sides[2].label, "same");
	assert_string_equal(v[0].sides[2].note, "Sumita is a spelling");
	assert_null(v[0].final.label);
	adjud_list_free(v, n);

	/* ravi alone said same on call 3: ravi may not decide it, nothing is written */
	assert_int_equal(adjud_decide(l, item_of(l, 3), "ravi", "same", NULL, why, sizeof why),
			 ERR_INVALID);
	assert_non_null(strstr(why, "ravi is the only one who said same"));
	assert_int_equal(rows("SELECT count(*) FROM ann_adjudications"), 0);
	/* an item its annotators agree on, a label the task lacks, no such item */
	assert_int_equal(adjud_decide(l, item_of(l, 1), "lead", "same", NULL, why, sizeof why),
			 ERR_INVALID);
	assert_int_equal(adjud_decide(l, item_of(l, 3), "lead", "maybe", NULL, why, sizeof why),
			 ERR_INVALID);
	assert_non_null(strstr(why, "'maybe' is not a name-match label"));
	assert_int_equal(adjud_decide(l, 999, "lead", "same", NULL, why, sizeof why), ERR_NOTFOUND);
	assert_int_equal(rows("SELECT count(*) FROM ann_adjudications"), 0);

	/* the lead decides call 3 twice (the latest stands, both are kept) and call 6 */
	assert_int_equal(adjud_decide(l, item_of(l, 3), "lead", "same", NULL, why, sizeof why),
			 ERR_OK);
	assert_int_equal(adjud_decide(l, item_of(l, 3), "lead", "different", "one letter off",
				      why, sizeof why), ERR_OK);
	assert_int_equal(adjud_decide(l, item_of(l, 6), "asha", "different", NULL, why,
				      sizeof why), ERR_OK);
	assert_int_equal(rows("SELECT count(*) FROM ann_adjudications"), 3);
	assert_int_equal(rows("SELECT count(*) FROM ann_adjudications WHERE reviewer = 'lead'"
			      " AND decided_at LIKE '20%T%Z'"), 2);
	assert_int_equal(adjud_finals(l, LABELS_NAME_MATCH, &fin, &nf), ERR_OK);
	assert_int_equal(nf, 2);
	const struct adjud_final *f = adjud_find(fin, nf, item_of(l, 3));
	assert_non_null(f);
	assert_string_equal(f->label, "different");
	assert_string_equal(f->reviewer, "lead");
	assert_string_equal(f->note, "one letter off");
	assert_null(adjud_find(fin, nf, item_of(l, 5)));
	adjud_finals_free(fin, nf);
	/* undecided only: call 5 is left */
	assert_int_equal(adjud_list(l, LABELS_NAME_MATCH, NULL, true, &v, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].item.key, "call 5 field name");
	adjud_list_free(v, n);
	/* meena's items only: all three disagreements hold a label of hers */
	assert_int_equal(adjud_list(l, LABELS_NAME_MATCH, "meena", false, &v, &n), ERR_OK);
	assert_int_equal(n, 3);
	adjud_list_free(v, n);
	assert_int_equal(adjud_list(l, LABELS_NAME_MATCH, "nobody", false, &v, &n), ERR_OK);
	assert_int_equal(n, 0);
	adjud_list_free(v, n);

	labels_close(l);
	dbq_remove(dbpath);
}

int main(void)
{
	const struct CMUnitTest more[] = {{"three annotators", three_annotators, NULL, NULL, NULL}};
	return table_run("adjud", "tests/data/adjud_rule.tsv", 5, 5, 0, rule_case, more, 1);
}
