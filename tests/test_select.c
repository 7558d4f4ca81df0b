/* Model selection (sessions/eval/select.c): hard limits, Pareto frontier, min-max normalization,
 * weighted sum and weight sweeps, one case per row of tests/data/select_cases.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sessions/eval/benchreport.h"
#include "sessions/eval/select.h"
#include "tests/support/table.h"
#include "tests/support/tmpdir.h"

#define DATA "tests/data/select_cases.tsv"

static struct select_limits limits(const char *max_p95, const char *min_acc)
{
	struct select_limits lim = {0};
	if (strcmp(max_p95, "-")) {
		lim.has_max_p95 = true;
		lim.max_p95_ms = atof(max_p95);
	}
	if (strcmp(min_acc, "-")) {
		lim.has_min_accuracy = true;
		lim.min_accuracy = atof(min_acc) / 100;
	}
	return lim;
}

static struct select *load(const struct table_row *r, const char *csv)
{
	char path[256], *error = NULL;
	snprintf(path, sizeof path, "tests/data/%s", csv);
	struct select *s = NULL;
	enum err e = select_load(path, &s, &error);
	if (e != ERR_OK)
		fail_msg("%s: %s: %s", r->name, err_str(e), error ? error : "");
	return s;
}

/* The expectation for one candidate, "MODEL=..." from the |-separated list. */
static char *expected_for(const char *list, const char *model)
{
	size_t ml = strlen(model);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, "|");
		if (len > ml && p[ml] == '=' && !memcmp(p, model, ml))
			return strndup(p + ml + 1, len - ml - 1);
		p += len;
		if (*p == '|')
			p++;
	}
	return NULL;
}

static void rank_row(void **state)
{
	const struct table_row *r = *state;
	struct select *s = load(r, r->col[1]);
	struct select_limits lim = limits(r->col[2], r->col[3]);
	struct select_weights w;
	assert_int_equal(sscanf(r->col[4], "%lf,%lf,%lf", &w.a, &w.l, &w.c), 3);
	assert_int_equal(select_rank(s, &lim, w, NULL), ERR_OK);
	int listed = 1;
	for (const char *p = r->col[5]; *p; p++)
		listed += *p == '|';
	if (listed != s->n)
		fail_msg("%s: %d candidates read, %d expected", r->name, s->n, listed);
	for (int i = 0; i < s->n; i++) {
		const struct select_candidate *c = &s->v[i];
		char *want = expected_for(r->col[5], c->model);
		if (!want)
			fail_msg("%s: no expectation for %s", r->name, c->model);
		char got[128];
		if (c->status == SELECT_RANKED)
			snprintf(got, sizeof got, "%d:%.7f", c->rank, c->u);
		else if (c->status == SELECT_DOMINATED)
			snprintf(got, sizeof got, "dominated:%s", s->v[c->dominated_by].model);
		else
			snprintf(got, sizeof got, "%s", select_status_name(c->status));
		bool ok;
		if (c->status == SELECT_RANKED) {
			int rank;
			double u;
			ok = sscanf(want, "%d:%lf", &rank, &u) == 2 && rank == c->rank &&
			     fabs(u - c->u) < 1e-6;
			/* Normalized scores lie in [0, 1]. */
			assert_true(c->a >= 0 && c->a <= 1 && c->l >= 0 && c->l <= 1 &&
				    c->c >= 0 && c->c <= 1);
		} else {
			ok = !strcmp(want, got);
			assert_int_equal(c->rank, 0);
		}
		if (!ok)
			fail_msg("%s: %s: got %s, want %s", r->name, c->model, got, want);
		free(want);
	}
	select_free(s);
}

static void sweep_row(void **state)
{
	const struct table_row *r = *state;
	struct select *s = load(r, r->col[1]);
	struct select_limits lim = limits(r->col[2], r->col[3]);
	double from, to, step;
	assert_int_equal(sscanf(r->col[4], "%lf:%lf:%lf", &from, &to, &step), 3);
	struct select_sweep *sw = NULL;
	char *error = NULL;
	assert_int_equal(select_sweep_run(s, &lim, from, to, step, atof(r->col[5]), &sw, &error),
			 ERR_OK);
	char got[512] = "";
	for (int k = 0; k < sw->n_steps; k++) {
		int l = sw->steps[k].leader;
		if (k)
			strcat(got, ",");
		strcat(got, l >= 0 ? s->v[l].model : "-");
		/* w_c takes the rest. */
		assert_true(fabs(sw->steps[k].w.a + sw->steps[k].w.l + sw->steps[k].w.c - 1) < 1e-9);
	}
	if (strcmp(got, r->col[6]))
		fail_msg("%s: leaders %s, want %s", r->name, got, r->col[6]);
	select_sweep_free(sw);
	select_free(s);
}

static void error_row(void **state)
{
	const struct table_row *r = *state;
	char path[256], *error = NULL;
	snprintf(path, sizeof path, "tests/data/%s", r->col[1]);
	struct select *s = NULL;
	enum err e = select_load(path, &s, &error);
	enum err want = !strcmp(r->col[2], "ERR_PARSE") ? ERR_PARSE
			: !strcmp(r->col[2], "ERR_INVALID") ? ERR_INVALID : ERR_IO;
	assert_null(s);
	if (e != want || !error || !strstr(error, r->col[3]))
		fail_msg("%s: got %s \"%s\", want %s containing \"%s\"", r->name, err_str(e),
			 error ? error : "(no message)", r->col[2], r->col[3]);
	free(error);
}

/* A results folder is read through its results.csv. */
static void folder(void **state)
{
	(void)state;
	char dir[] = "/tmp/select_dirXXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[300];
	snprintf(path, sizeof path, "%s/results.csv", dir);
	tmpdir_write(path, "model,accuracy,p95_ms,cost_usd\n\"लक्ष्मी <&> \"\"x\"\"\",0.9,100,0.5\n");
	struct select *s = NULL;
	char *error = NULL;
	assert_int_equal(select_load(dir, &s, &error), ERR_OK);
	assert_int_equal(s->n, 1);
	assert_string_equal(s->v[0].model, "लक्ष्मी <&> \"x\"");
	assert_false(s->percent);
	select_free(s);
	remove(path);
	/* An empty folder names the file it looked for. */
	assert_int_equal(select_load(dir, &s, &error), ERR_IO);
	assert_non_null(strstr(error, "results.csv"));
	free(error);
	rmdir(dir);
}

/* Weights must be in [0, 1] and sum to 1; a sweep step where w_c < 0 is refused. */
static void weights(void **state)
{
	(void)state;
	assert_int_equal(select_weights_check((struct select_weights){0.7, 0.1, 0.2}), ERR_OK);
	assert_int_equal(select_weights_check((struct select_weights){0.7, 0.1, 0.3}), ERR_INVALID);
	assert_int_equal(select_weights_check((struct select_weights){1.2, -0.2, 0}), ERR_INVALID);
	struct select *s = NULL;
	char *error = NULL;
	assert_int_equal(select_load("tests/data/select_basic.csv", &s, &error), ERR_OK);
	assert_int_equal(select_rank(s, NULL, (struct select_weights){0.5, 0.5, 0.5}, NULL),
			 ERR_INVALID);
	struct select_sweep *sw = NULL;
	assert_int_equal(select_sweep_run(s, NULL, 0.5, 1.0, 0.1, 0.1, &sw, &error), ERR_INVALID);
	assert_null(sw);
	assert_non_null(strstr(error, "w_c"));
	free(error);
	error = NULL;
	assert_int_equal(select_sweep_run(s, NULL, 0.9, 0.5, 0.1, 0.1, &sw, &error), ERR_INVALID);
	free(error);
	error = NULL;
	assert_int_equal(select_sweep_run(s, NULL, 0.5, 0.9, 0, 0.1, &sw, &error), ERR_INVALID);
	free(error);
	select_free(s);
	select_free(NULL);
	select_sweep_free(NULL);
}

/* chart row: CSV STAGE FRONTIER. The bench report's trade-off chart of the CSV (as
 * results-STAGE.csv) draws exactly FRONTIER's models (comma separated) as the frontier
 * (black labels, filled markers) and every other candidate greyed, and that set is the
 * one select_rank finds with no limits: one frontier computation for both. */
static void chart_row(void **state)
{
	const struct table_row *r = *state;
	char dir[] = "/tmp/formdesk-chart-XXXXXX", src[600], dst[700], svg[700];
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof src, "tests/data/%s", r->col[1]);
	snprintf(dst, sizeof dst, "%s/results-%s.csv", dir, r->col[2]);
	snprintf(svg, sizeof svg, "%s/tradeoff-%s.svg", dir, r->col[2]);
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	assert_true(in && out);
	char buf[4096];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, k, out), k);
	fclose(in);
	fclose(out);
	char *why = NULL;
	assert_int_equal(benchreport_stage_charts(dir, r->col[2], &why), ERR_OK);
	struct select *s = NULL;
	assert_int_equal(select_load(dst, &s, NULL), ERR_OK);
	struct select_limits lim = {0};
	assert_int_equal(select_rank(s, &lim, SELECT_DEFAULT_WEIGHTS, NULL), ERR_OK);
	FILE *f = fopen(svg, "rb");
	assert_non_null(f);
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof text - 1, f);
	text[len] = 0;
	fclose(f);
	char want[300];
	snprintf(want, sizeof want, ",%s,", r->col[3]);
	for (int i = 0; i < s->n; i++) {
		char black[200], grey[200], item[120];
		snprintf(black, sizeof black, "fill=\"black\">%s</text>", s->v[i].model);
		snprintf(grey, sizeof grey, "fill=\"#777777\">%s</text>", s->v[i].model);
		snprintf(item, sizeof item, ",%s,", s->v[i].model);
		bool expected = strstr(want, item) != NULL;
		bool drawn = strstr(text, black) != NULL;
		if (!drawn && !strstr(text, grey))
			fail_msg("%s: %s is not on the chart", r->name, s->v[i].model);
		if (drawn != expected || (s->v[i].status == SELECT_RANKED) != expected)
			fail_msg("%s: %s drawn %s, select says %s, expected %s", r->name,
				 s->v[i].model, drawn ? "frontier" : "excluded",
				 select_status_name(s->v[i].status), expected ? "frontier" : "excluded");
	}
	select_free(s);
	remove(svg);
	snprintf(svg, sizeof svg, "%s/sweep-%s.svg", dir, r->col[2]);
	remove(svg);
	remove(dst);
	rmdir(dir);
}

/* A row of the table: its kind (column 1) names its columns and its check. */
static void kind_row(void **state)
{
	static const struct {
		const char *kind;
		int ncol;
		CMUnitTestFunction fn;
	} kinds[] = {
		{"rank", 6, rank_row},
		{"sweep", 7, sweep_row},
		{"chart", 4, chart_row},
		{"error", 4, error_row},
	};
	const struct table_row *r = *state;
	size_t k = 0;
	while (k < sizeof kinds / sizeof kinds[0] - 1 && strcmp(r->col[0], kinds[k].kind))
		k++; /* the last kind, error, is any other */
	if (r->ncol != kinds[k].ncol)
		fail_msg("%s: %d columns, want %d", r->name, r->ncol, kinds[k].ncol);
	kinds[k].fn(state);
}

int main(void)
{
	const struct CMUnitTest more[] = {cmocka_unit_test(folder), cmocka_unit_test(weights)};
	return table_run("select", DATA, 1, 0, 0, kind_row, more, 2);
}
