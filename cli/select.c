/* select: choose a model for one stage from benchmark results, by the FormBharo paper's
 * method (hard limits, Pareto frontier, min-max normalization, weighted sum, weight sweep;
 * see sessions/eval/select.h and docs/evaluation.md).
 * Exit status: 0 a leader was found, 1 no candidate meets the limits, 2 bad usage or an
 * unreadable or malformed results file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "column.h"
#include "commands.h"
#include "opts.h"
#include "sessions/eval/chart.h"
#include "sessions/eval/select.h"
#include "tui/width.h"

static double round9(double x)
{
	double r = round(x * 1e9) / 1e9;
	return r == 0 ? 0 : r;
}

/* A whole-string number; pct allows one trailing "%". */
static bool number(const char *s, double *out, bool pct)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return false;
	if (pct && *end == '%')
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "formdesk select: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	opts_usage(&cmd_select_opts, stderr);
	return 2;
}

/* parse_args: 0 read, 2 bad usage (message printed), -1 --help (usage on stdout). */
static int parse_args(int argc, char **argv, struct select_opts *o)
{
	o->w = SELECT_DEFAULT_WEIGHTS;
	o->lim.max_p95_ms = NAN;
	enum opts_result pr = opts_parse(&cmd_select_opts, argc, argv, o, NULL, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? -1 : 2;
	o->lim.has_max_p95 = !isnan(o->lim.max_p95_ms);
	if (!o->lim.has_max_p95)
		o->lim.max_p95_ms = 0;
	if (o->min_accuracy) {
		double pct;
		if (!number(o->min_accuracy, &pct, true) || pct < 0 || pct > 100)
			return bad("--min-accuracy: '%s' is not a percentage from 0 to 100", o->min_accuracy);
		o->lim.has_min_accuracy = true;
		o->lim.min_accuracy = pct / 100;
	}
	if (o->weights) {
		char tail;
		if (sscanf(o->weights, "%lf,%lf,%lf%c", &o->w.a, &o->w.l, &o->w.c, &tail) != 3 ||
		    select_weights_check(o->w) != ERR_OK)
			return bad("--weights: '%s' is not three weights A,L,C in [0, 1] "
				   "summing to 1", o->weights);
	}
	if (o->sweep_s) {
		char tail;
		if (sscanf(o->sweep_s, "%lf:%lf:%lf%c", &o->from, &o->to, &o->step, &tail) != 3)
			return bad("--sweep: '%s' is not FROM:TO:STEP (e.g. 0.5:0.9:0.1)", o->sweep_s);
		o->sweep = true;
	}
	return 0;
}

/* Why c is excluded, in words. New string (caller frees), NULL on ERR_NOMEM. */
static char *reason(const struct select *s, const struct select_candidate *c,
		    const struct select_limits *lim)
{
	char *r = NULL;
	int n = -1;
	switch (c->status) {
	case SELECT_LATENCY:
		n = asprintf(&r, "p95 %g ms is not below %g ms", c->p95_ms, lim->max_p95_ms);
		break;
	case SELECT_ACCURACY:
		n = asprintf(&r, "accuracy %g%% is not above %g%%", round9(c->accuracy * 100),
			     round9(lim->min_accuracy * 100));
		break;
	case SELECT_DOMINATED:
		n = asprintf(&r, "dominated by %s", s->v[c->dominated_by].model);
		break;
	case SELECT_RANKED:
		n = asprintf(&r, "%s", "");
		break;
	}
	return n < 0 ? NULL : r;
}

/* Candidate indices: ranked by rank, then the excluded in file order. */
static int *display_order(const struct select *s)
{
	int *ord = malloc((size_t)(s->n ? s->n : 1) * sizeof *ord), k = 0;
	if (!ord)
		return NULL;
	for (int r = 1; r <= s->n; r++)
		for (int i = 0; i < s->n; i++)
			if (s->v[i].status == SELECT_RANKED && s->v[i].rank == r)
				ord[k++] = i;
	for (int i = 0; i < s->n; i++)
		if (s->v[i].status != SELECT_RANKED)
			ord[k++] = i;
	return ord;
}

static int print_table(const struct select *s, const struct select_opts *o)
{
	int *ord = display_order(s);
	if (!ord)
		return 2;
	int mw = (int)strlen("model");
	for (int i = 0; i < s->n; i++) {
		int w = width_cols(s->v[i].model);
		mw = w > mw ? w : mw;
	}
	printf("results: %s (accuracy read as %s)\n", s->source,
	       s->percent ? "percent" : "fractions");
	printf("limits: ");
	if (o->lim.has_max_p95)
		printf("p95 < %g ms", o->lim.max_p95_ms);
	if (o->lim.has_max_p95 && o->lim.has_min_accuracy)
		printf(", ");
	if (o->lim.has_min_accuracy)
		printf("accuracy > %g%%", round9(o->lim.min_accuracy * 100));
	if (!o->lim.has_max_p95 && !o->lim.has_min_accuracy)
		printf("none");
	printf("\nweights: w_a %g, w_l %g, w_c %g\n\n", o->w.a, o->w.l, o->w.c);
	printf("rank  ");
	column_pad(stdout, "model", mw);
	printf("  accuracy   p95 ms    cost usd      a      l      c       U  excluded\n");
	for (int k = 0; k < s->n; k++) {
		const struct select_candidate *c = &s->v[ord[k]];
		if (c->status == SELECT_RANKED)
			printf("%4d  ", c->rank);
		else
			printf("%4s  ", "-");
		column_pad(stdout, c->model, mw);
		printf("  %7.2f%%  %7.0f  %10.6f", c->accuracy * 100, c->p95_ms, c->cost_usd);
		if (c->status == SELECT_RANKED) {
			printf("  %5.3f  %5.3f  %5.3f  %6.4f\n", c->a, c->l, c->c, c->u);
		} else {
			char *why = reason(s, c, &o->lim);
			printf("  %5s  %5s  %5s  %6s  %s\n", "", "", "", "", why ? why : "");
			free(why);
		}
	}
	free(ord);
	return 0;
}

static bool add_num(cJSON *o, const char *k, double v)
{
	return cJSON_AddNumberToObject(o, k, round9(v)) != NULL;
}

static int print_json(const struct select *s, const struct select_opts *o)
{
	int *ord = display_order(s);
	if (!ord)
		return 2;
	int rc = 0;
	for (int k = 0; k < s->n && rc == 0; k++) {
		const struct select_candidate *c = &s->v[ord[k]];
		cJSON *j = cJSON_CreateObject();
		char *why = NULL, *line = NULL;
		bool ok = j && cJSON_AddStringToObject(j, "model", c->model) &&
			  add_num(j, "accuracy_pct", c->accuracy * 100) &&
			  add_num(j, "p95_ms", c->p95_ms) && add_num(j, "cost_usd", c->cost_usd);
		if (ok && c->status == SELECT_RANKED) {
			ok = cJSON_AddNumberToObject(j, "rank", c->rank) && add_num(j, "a", c->a) &&
			     add_num(j, "l", c->l) && add_num(j, "c", c->c) && add_num(j, "u", c->u);
		} else if (ok) {
			why = reason(s, c, &o->lim);
			ok = why && cJSON_AddStringToObject(j, "excluded",
							    select_status_name(c->status)) &&
			     cJSON_AddStringToObject(j, "reason", why);
			if (ok && c->status == SELECT_DOMINATED)
				ok = cJSON_AddStringToObject(j, "dominated_by",
							     s->v[c->dominated_by].model) != NULL;
		}
		if (ok && (line = cJSON_PrintUnformatted(j)))
			puts(line);
		else
			rc = 2;
		free(line);
		free(why);
		cJSON_Delete(j);
	}
	free(ord);
	return rc;
}

static int print_sweep(const struct select *s, const struct select_sweep *sw, bool json)
{
	if (json) {
		for (int k = 0; k < sw->n_steps; k++) {
			const struct select_step *st = &sw->steps[k];
			cJSON *j = cJSON_CreateObject();
			char *line = NULL;
			bool ok = j && add_num(j, "w_a", st->w.a) && add_num(j, "w_l", st->w.l) &&
				  add_num(j, "w_c", st->w.c);
			if (ok && st->leader >= 0)
				ok = cJSON_AddStringToObject(j, "leader", s->v[st->leader].model) &&
				     add_num(j, "u", st->u[st->leader]);
			else if (ok)
				ok = cJSON_AddNullToObject(j, "leader") != NULL;
			if (ok && (line = cJSON_PrintUnformatted(j)))
				puts(line);
			free(line);
			cJSON_Delete(j);
			if (!ok)
				return 2;
		}
		return 0;
	}
	int mw = (int)strlen("leader");
	for (int i = 0; i < s->n; i++) {
		int w = width_cols(s->v[i].model);
		mw = w > mw ? w : mw;
	}
	printf("\nsweep: w_a from %g to %g, w_l %g, w_c = 1 - w_a - w_l\n", sw->steps[0].w.a,
	       sw->steps[sw->n_steps - 1].w.a, sw->steps[0].w.l);
	printf("   w_a    w_l    w_c  ");
	column_pad(stdout, "leader", mw);
	printf("       U\n");
	for (int k = 0; k < sw->n_steps; k++) {
		const struct select_step *st = &sw->steps[k];
		printf("%6.3f %6.3f %6.3f  ", st->w.a, st->w.l, st->w.c);
		column_pad(stdout, st->leader >= 0 ? s->v[st->leader].model : "(none)", mw);
		if (st->leader >= 0)
			printf("  %6.4f", st->u[st->leader]);
		putchar('\n');
	}
	int changes = 0;
	for (int k = 1; k < sw->n_steps; k++)
		if (sw->steps[k].leader != sw->steps[k - 1].leader) {
			int a = sw->steps[k - 1].leader, b = sw->steps[k].leader;
			printf("leader changes at w_a = %g: %s -> %s\n", sw->steps[k].w.a,
			       a >= 0 ? s->v[a].model : "(none)", b >= 0 ? s->v[b].model : "(none)");
			changes++;
		}
	if (!changes) {
		int l = sw->steps[0].leader;
		printf("the leader does not change: %s\n", l >= 0 ? s->v[l].model : "(none)");
	}
	return 0;
}

static int write_charts(const struct select *s, const struct select_sweep *sw,
			const struct select_opts *o)
{
	int rc = 2;
	char *path = NULL;
	const char **names = NULL;
	double *wa = NULL, *u = NULL;
	int *leader = NULL;
	struct chart_point *p = calloc((size_t)s->n, sizeof *p);
	if (!p)
		goto out;
	for (int i = 0; i < s->n; i++)
		p[i] = (struct chart_point){s->v[i].model, s->v[i].accuracy, s->v[i].p95_ms,
					    s->v[i].cost_usd, s->v[i].status == SELECT_RANKED};
	if (asprintf(&path, "%s/tradeoff.svg", o->svg_dir) < 0) {
		path = NULL;
		goto out;
	}
	enum err e = chart_tradeoff(path, "Accuracy, p95 latency and cost", p, s->n,
				    o->lim.has_max_p95 ? o->lim.max_p95_ms : 0,
				    o->lim.has_min_accuracy ? o->lim.min_accuracy : 0);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk select: %s: %s\n", path, err_str(e));
		goto out;
	}
	if (sw) {
		free(path);
		names = malloc((size_t)s->n * sizeof *names);
		wa = malloc((size_t)sw->n_steps * sizeof *wa);
		u = malloc((size_t)sw->n_steps * (size_t)s->n * sizeof *u);
		leader = malloc((size_t)sw->n_steps * sizeof *leader);
		if (asprintf(&path, "%s/sweep.svg", o->svg_dir) < 0)
			path = NULL;
		if (!names || !wa || !u || !leader || !path)
			goto out;
		for (int i = 0; i < s->n; i++)
			names[i] = s->v[i].model;
		for (int k = 0; k < sw->n_steps; k++) {
			wa[k] = sw->steps[k].w.a;
			leader[k] = sw->steps[k].leader;
			for (int i = 0; i < s->n; i++)
				u[k * s->n + i] = sw->steps[k].u[i];
		}
		char title[96];
		snprintf(title, sizeof title, "Leader by accuracy weight (w_l = %g)", sw->steps[0].w.l);
		e = chart_sweep(path, title, wa, sw->n_steps, names, s->n, u, leader);
		if (e != ERR_OK) {
			fprintf(stderr, "formdesk select: %s: %s\n", path, err_str(e));
			goto out;
		}
	}
	rc = 0;
out:
	free(p);
	free(path);
	free(names);
	free(wa);
	free(u);
	free(leader);
	return rc;
}

int cmd_select(int argc, char **argv)
{
	struct select_opts o = {0};
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc; /* -1: --help printed the usage */
	struct select *s = NULL;
	struct select_sweep *sw = NULL;
	char *error = NULL;
	rc = 2;
	char *staged = NULL;
	if (o.stage) {
		/* a bench folder's one-stage file (sessions/eval/benchreport.h) */
		static const char *const stages[] = {"stt", "extract", "reply", "call"};
		bool known = false;
		for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
			known |= strcmp(o.stage, stages[i]) == 0;
		if (!known) {
			fprintf(stderr, "formdesk select: --stage '%s': expected stt, extract, reply or call\n",
				o.stage);
			return 2;
		}
		if (asprintf(&staged, "%s/results-%s.csv", o.results, o.stage) < 0)
			return 2;
		o.results = staged;
	}
	enum err e = select_load(o.results, &s, &error);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk select: %s\n", error ? error : err_str(e));
		goto out;
	}
	if (o.sweep) {
		e = select_sweep_run(s, &o.lim, o.from, o.to, o.step, o.w.l, &sw, &error);
		if (e != ERR_OK) {
			fprintf(stderr, "formdesk select: %s\n", error ? error : err_str(e));
			goto out;
		}
	}
	/* The table shows the ranking at the given (or default) weights. */
	int ranked = 0;
	if (select_rank(s, &o.lim, o.w, &ranked) != ERR_OK)
		goto out;
	if (o.json && sw)
		rc = print_sweep(s, sw, true);
	else if (o.json)
		rc = print_json(s, &o);
	else if ((rc = print_table(s, &o)) == 0 && sw)
		rc = print_sweep(s, sw, false);
	if (rc == 0 && o.svg_dir)
		rc = write_charts(s, sw, &o);
	if (rc == 0 && !ranked) {
		if (!o.json)
			printf("\nno candidate meets the limits\n");
		rc = 1;
	}
out:
	free(error);
	free(staged);
	select_sweep_free(sw);
	select_free(s);
	return rc;
}
