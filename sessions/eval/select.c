/* select: hard limits, Pareto frontier, min-max normalization and weighted-sum ranking of
 * a stage's candidate models (method in select.h). */
#include "select.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sessions/corpus/csv.h"
#include "base/str.h"

#define TIE 1e-12

static void set_error(char **error, const char *fmt, ...)
{
	if (!error)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = str_vprintf(fmt, ap);
	va_end(ap);
	free(*error);
	*error = s;
}

const char *select_status_name(enum select_status st)
{
	switch (st) {
	case SELECT_RANKED: return "ranked";
	case SELECT_LATENCY: return "max_p95_ms";
	case SELECT_ACCURACY: return "min_accuracy";
	case SELECT_DOMINATED: return "dominated";
	}
	return "?";
}

void select_free(struct select *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		free(s->v[i].model);
	free(s->v);
	free(s->source);
	free(s);
}

/* A number with nothing after it but spaces (and, when pct is not NULL, one "%", which sets
 * *pct). */
static bool parse_number(const char *text, double *out, bool *pct)
{
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return false;
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(v))
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (pct) {
		*pct = *end == '%';
		if (*pct)
			end++;
		while (isspace((unsigned char)*end))
			end++;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

static char *trim_copy(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

enum col { COL_MODEL, COL_ACCURACY, COL_P95, COL_COST, N_COLS };
static const char *const col_names[N_COLS] = {"model", "accuracy", "p95_ms", "cost_usd"};

/* Read the rows of an open CSV into s; *error set on failure. */
static enum err read_rows(struct csv *csv, const char *file, struct select *s, char **error)
{
	enum err e;
	char **f = NULL;
	int n = 0, line = 0, col[N_COLS];
	bool *pct = NULL;
	int cap = 0;
	int stage_col = -1, stage_line = 0; /* the stage column and the first row's stage */
	char *stage = NULL;

	if ((e = csv_next(csv, &f, &n, &line, error)) != ERR_OK)
		goto out;
	if (n == 0) {
		set_error(error, "%s: empty file; want a header with model,accuracy,p95_ms,cost_usd", file);
		e = ERR_PARSE;
		goto out;
	}
	for (int k = 0; k < N_COLS; k++) {
		col[k] = -1;
		for (int i = 0; i < n; i++) {
			char *h = trim_copy(f[i]);
			if (!h) {
				e = ERR_NOMEM;
				goto out;
			}
			if (!strcasecmp(h, col_names[k]) && col[k] < 0)
				col[k] = i;
			free(h);
		}
		if (col[k] < 0) {
			set_error(error, "%s:%d: the header has no column '%s' (want model,accuracy,"
				  "p95_ms,cost_usd)", file, line, col_names[k]);
			e = ERR_PARSE;
			goto out;
		}
	}
	/* An optional stage column (a bench folder's results.csv): models of different stages
	 * are not alternatives, so every row must name the same stage. */
	for (int i = 0; i < n && stage_col < 0; i++) {
		char *h = trim_copy(f[i]);
		if (!h) {
			e = ERR_NOMEM;
			goto out;
		}
		if (!strcasecmp(h, "stage"))
			stage_col = i;
		free(h);
	}
	int width = n;
	csv_fields_free(f, n);
	f = NULL;

	for (;;) {
		if ((e = csv_next(csv, &f, &n, &line, error)) != ERR_OK)
			goto out;
		if (n == 0)
			break;
		if (n != width) {
			set_error(error, "%s:%d: %d fields, the header has %d", file, line, n, width);
			e = ERR_PARSE;
			goto out;
		}
		if (s->n == cap) {
			int nc = cap ? cap * 2 : 8;
			struct select_candidate *v = realloc(s->v, (size_t)nc * sizeof *v);
			bool *np = realloc(pct, (size_t)nc * sizeof *np);
			if (v)
				s->v = v;
			if (np)
				pct = np;
			if (!v || !np) {
				e = ERR_NOMEM;
				goto out;
			}
			cap = nc;
		}
		if (stage_col >= 0) {
			if (!stage) {
				if (!(stage = trim_copy(f[stage_col]))) {
					e = ERR_NOMEM;
					goto out;
				}
				stage_line = line;
			} else {
				char *st = trim_copy(f[stage_col]);
				bool same = st && !strcmp(st, stage);
				if (!st) {
					e = ERR_NOMEM;
					goto out;
				}
				if (!same) {
					set_error(error, "%s:%d: column 'stage': '%s', but line %d is '%s': "
						  "models of different stages are not alternatives; give "
						  "one stage's file (a bench folder has results-STAGE.csv, "
						  "e.g. results-%s.csv)", file, line, st, stage_line,
						  stage, st);
					free(st);
					e = ERR_INVALID;
					goto out;
				}
				free(st);
			}
		}
		struct select_candidate *c = &s->v[s->n];
		memset(c, 0, sizeof *c);
		c->line = line;
		c->dominated_by = -1;
		c->model = trim_copy(f[col[COL_MODEL]]);
		if (!c->model) {
			e = ERR_NOMEM;
			goto out;
		}
		s->n++;
		if (!*c->model) {
			set_error(error, "%s:%d: column 'model': empty model name", file, line);
			e = ERR_INVALID;
			goto out;
		}
		for (int i = 0; i < s->n - 1; i++)
			if (!strcmp(s->v[i].model, c->model)) {
				set_error(error, "%s:%d: column 'model': '%s' already named on line %d",
					  file, line, c->model, s->v[i].line);
				e = ERR_INVALID;
				goto out;
			}
		const char *what = NULL;
		if (!parse_number(f[col[COL_ACCURACY]], &c->accuracy, &pct[s->n - 1]))
			what = "accuracy";
		else if (!parse_number(f[col[COL_P95]], &c->p95_ms, NULL))
			what = "p95_ms";
		else if (!parse_number(f[col[COL_COST]], &c->cost_usd, NULL))
			what = "cost_usd";
		if (what) {
			int k = !strcmp(what, "accuracy") ? COL_ACCURACY
				: !strcmp(what, "p95_ms") ? COL_P95 : COL_COST;
			set_error(error, "%s:%d: column '%s': '%s' is not a number", file, line, what,
				  f[col[k]]);
			e = ERR_PARSE;
			goto out;
		}
		if (c->accuracy < 0 || c->accuracy > 100 || c->p95_ms < 0 || c->cost_usd < 0) {
			what = c->accuracy < 0 || c->accuracy > 100 ? "accuracy"
			       : c->p95_ms < 0 ? "p95_ms" : "cost_usd";
			set_error(error, "%s:%d: column '%s': out of range (accuracy is 0..1 or "
				  "0..100%%, latency and cost are not negative)", file, line, what);
			e = ERR_INVALID;
			goto out;
		}
		csv_fields_free(f, n);
		f = NULL;
	}
	if (s->n == 0) {
		set_error(error, "%s: no candidates after the header", file);
		e = ERR_INVALID;
		goto out;
	}
	/* Percent when any value says so, by "%" or by being above 1. */
	s->percent = false;
	for (int i = 0; i < s->n; i++)
		if (pct[i] || s->v[i].accuracy > 1)
			s->percent = true;
	for (int i = 0; i < s->n; i++) {
		if (s->percent)
			s->v[i].accuracy /= 100;
	}
	e = ERR_OK;
out:
	csv_fields_free(f, n);
	free(pct);
	free(stage);
	return e;
}

enum err select_load(const char *path, struct select **out, char **error)
{
	enum err e = ERR_NOMEM;
	struct csv *csv = NULL;
	struct select *s = calloc(1, sizeof *s);
	if (error)
		*error = NULL;
	if (!s)
		goto out;
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);
		if (asprintf(&s->source, "%s%sresults.csv", path,
			     n && path[n - 1] == '/' ? "" : "/") < 0) {
			s->source = NULL;
			goto out;
		}
	} else if (!(s->source = strdup(path))) {
		goto out;
	}
	if ((e = csv_open(s->source, &csv, error)) != ERR_OK)
		goto out;
	if ((e = read_rows(csv, s->source, s, error)) != ERR_OK)
		goto out;
	*out = s;
	s = NULL;
out:
	if (e == ERR_NOMEM && error && !*error)
		set_error(error, "%s", "out of memory");
	csv_free(csv);
	select_free(s);
	return e;
}

enum err select_weights_check(struct select_weights w)
{
	double v[3] = {w.a, w.l, w.c};
	for (int i = 0; i < 3; i++)
		if (!(v[i] >= 0 && v[i] <= 1))
			return ERR_INVALID;
	return fabs(w.a + w.l + w.c - 1) <= 1e-6 ? ERR_OK : ERR_INVALID;
}

/* Whether p is at least as good as q on all three and better on one. */
static bool dominates(const struct select_candidate *p, const struct select_candidate *q)
{
	if (p->accuracy < q->accuracy || p->p95_ms > q->p95_ms || p->cost_usd > q->cost_usd)
		return false;
	return p->accuracy > q->accuracy || p->p95_ms < q->p95_ms || p->cost_usd < q->cost_usd;
}

/* Whether candidate i ranks before j (both ranked). */
static bool before(const struct select *s, int i, int j)
{
	const struct select_candidate *p = &s->v[i], *q = &s->v[j];
	if (fabs(p->u - q->u) > TIE)
		return p->u > q->u;
	if (p->accuracy != q->accuracy)
		return p->accuracy > q->accuracy;
	if (p->p95_ms != q->p95_ms)
		return p->p95_ms < q->p95_ms;
	if (p->cost_usd != q->cost_usd)
		return p->cost_usd < q->cost_usd;
	return i < j;
}

/* Normalized x in [min, max], reversed when lower is better; 1 when all are equal. */
static double norm(double x, double min, double max, bool reversed)
{
	if (max - min <= 0)
		return 1;
	return reversed ? (max - x) / (max - min) : (x - min) / (max - min);
}

enum err select_rank(struct select *s, const struct select_limits *lim,
		     struct select_weights w, int *ranked)
{
	if (select_weights_check(w) != ERR_OK)
		return ERR_INVALID;
	for (int i = 0; i < s->n; i++) {
		struct select_candidate *c = &s->v[i];
		c->status = SELECT_RANKED;
		c->dominated_by = -1;
		c->a = c->l = c->c = c->u = NAN;
		c->rank = 0;
		if (lim && lim->has_max_p95 && !(c->p95_ms < lim->max_p95_ms))
			c->status = SELECT_LATENCY;
		else if (lim && lim->has_min_accuracy && !(c->accuracy > lim->min_accuracy))
			c->status = SELECT_ACCURACY;
	}
	/* Dominance among the candidates that pass the limits. */
	for (int i = 0; i < s->n; i++) {
		if (s->v[i].status != SELECT_RANKED)
			continue;
		for (int j = 0; j < s->n; j++)
			if (j != i && s->v[j].status != SELECT_LATENCY &&
			    s->v[j].status != SELECT_ACCURACY && dominates(&s->v[j], &s->v[i])) {
				s->v[i].dominated_by = j;
				break;
			}
	}
	for (int i = 0; i < s->n; i++)
		if (s->v[i].dominated_by >= 0)
			s->v[i].status = SELECT_DOMINATED;

	double amin = INFINITY, amax = -INFINITY, lmin = INFINITY, lmax = -INFINITY;
	double cmin = INFINITY, cmax = -INFINITY;
	int n = 0;
	for (int i = 0; i < s->n; i++) {
		const struct select_candidate *c = &s->v[i];
		if (c->status != SELECT_RANKED)
			continue;
		n++;
		amin = fmin(amin, c->accuracy), amax = fmax(amax, c->accuracy);
		lmin = fmin(lmin, c->p95_ms), lmax = fmax(lmax, c->p95_ms);
		cmin = fmin(cmin, c->cost_usd), cmax = fmax(cmax, c->cost_usd);
	}
	for (int i = 0; i < s->n; i++) {
		struct select_candidate *c = &s->v[i];
		if (c->status != SELECT_RANKED)
			continue;
		c->a = norm(c->accuracy, amin, amax, false);
		c->l = norm(c->p95_ms, lmin, lmax, true);
		c->c = norm(c->cost_usd, cmin, cmax, true);
		c->u = w.a * c->a + w.l * c->l + w.c * c->c;
	}
	for (int i = 0; i < s->n; i++) {
		if (s->v[i].status != SELECT_RANKED)
			continue;
		int r = 1;
		for (int j = 0; j < s->n; j++)
			if (j != i && s->v[j].status == SELECT_RANKED && before(s, j, i))
				r++;
		s->v[i].rank = r;
	}
	if (ranked)
		*ranked = n;
	return ERR_OK;
}

int select_leader(const struct select *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i].status == SELECT_RANKED && s->v[i].rank == 1)
			return i;
	return -1;
}

void select_sweep_free(struct select_sweep *sw)
{
	if (!sw)
		return;
	for (int i = 0; i < sw->n_steps; i++)
		free(sw->steps[i].u);
	free(sw->steps);
	free(sw);
}

static double round9(double x)
{
	double r = round(x * 1e9) / 1e9;
	return r == 0 ? 0 : r; /* no "-0" */
}

enum err select_sweep_run(struct select *s, const struct select_limits *lim, double from,
			  double to, double step, double w_l, struct select_sweep **out,
			  char **error)
{
	if (error)
		*error = NULL;
	if (!(step > 0) || !(from <= to) || !isfinite(from) || !isfinite(to)) {
		set_error(error, "--sweep FROM:TO:STEP wants FROM <= TO and STEP > 0");
		return ERR_INVALID;
	}
	double count = floor((to - from) / step + 1e-6) + 1;
	if (count > 10001) {
		set_error(error, "--sweep: %.0f steps, at most 10001", count);
		return ERR_INVALID;
	}
	struct select_sweep *sw = calloc(1, sizeof *sw);
	enum err e = ERR_NOMEM;
	if (!sw)
		goto out;
	sw->n_candidates = s->n;
	sw->steps = calloc((size_t)count, sizeof *sw->steps);
	if (!sw->steps)
		goto out;
	for (int k = 0; k < (int)count; k++) {
		struct select_step *st = &sw->steps[k];
		st->w.a = round9(from + k * step);
		st->w.l = round9(w_l);
		st->w.c = round9(1 - st->w.a - st->w.l);
		sw->n_steps++;
		if (select_weights_check(st->w) != ERR_OK) {
			set_error(error, "--sweep: at w_a = %g with w_l = %g, w_c = 1 - w_a - w_l "
				  "= %g is not a weight in [0, 1]", st->w.a, st->w.l, st->w.c);
			e = ERR_INVALID;
			goto out;
		}
		st->u = malloc((size_t)(s->n ? s->n : 1) * sizeof *st->u);
		if (!st->u)
			goto out;
		select_rank(s, lim, st->w, NULL);
		for (int i = 0; i < s->n; i++)
			st->u[i] = s->v[i].u;
		st->leader = select_leader(s);
	}
	*out = sw;
	sw = NULL;
	e = ERR_OK;
out:
	if (e == ERR_NOMEM)
		set_error(error, "out of memory");
	select_sweep_free(sw);
	return e;
}
