/* benchreport: Markdown, CSV and SVG report of the benchmark (benchreport.h). */
#include "benchreport.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "agent/stages/judge_llm.h"
#include "base/numconv.h"
#include "sessions/store/benchdb.h"
#include "chart.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/csv.h"
#include "sessions/store/latency.h"
#include "select.h"
#include "stats.h"
#include "base/vec.h"

#define MAX_FAILS 20
#define MAX_CONDS 16

static const char *const STAGES[] = {"stt", "extract", "reply", "call"};
#define N_STAGES 4

/* A growing list of figures (ms, cost, WER) whose p50/p95 the report prints. */
struct samples {
	double *v;
	int n, cap;
};

static bool samples_push(struct samples *x, double d)
{
	double *v = vec_grow(x->v, x->n, &x->cap, sizeof *v, 256);
	if (!v)
		return false;
	x->v = v;
	x->v[x->n++] = d;
	return true;
}

/* Field-level completion of one field over the calls of a condition and a path ("*":
 * all): over the calls whose path asks it (n, k) and over every call (n_all, k_all). */
struct fcell {
	char *field, *cond, *path;
	long n, k, n_all, k_all;
};

/* A caller turn's end of speech to first words (sessions/store/latency.h), over the turns that
 * asked one field ("" all): each part's times, then the totals'. */
#define N_LAT (LATENCY_PARTS + 1)
struct lcell {
	char *field;
	struct samples v[N_LAT];
};

/* Where failed calls went wrong: the stages, in the order of a turn. */
static const char *const FAULTS[] = {"endpointing", "STT", "EXTRACT", "rules", "REPLY",
				     "unattributed"};
#define N_FAULTS 6

/* Everything the report says about one stage and spec. */
struct agg {
	char *spec;
	const char *stage;
	long n, pass;
	struct samples ms, cost;
	long words, werr, wgen, chars, cerr;
	struct samples utt_wer;
	long ask, ask_pass, end, end_pass, dims[5];
	long fields, correct, calls_all, status_ok, turns;
	long rep_open, rep_open_ok, rep_turn, rep_turn_ok, rep_end, rep_end_ok;
	struct samples open_ms; /* the opening REPLY's time, apart from the caller turns' */
	long fields_all, correct_all;
	struct fcell *cells;
	int n_cells, cap_cells;
	struct lcell *lat;    /* lat[0] every turn, then one per field asked */
	int n_lat, cap_lat;
	char lat_by[LATENCY_PARTS][72]; /* what governed each part (the last turn's) */
	long faults[N_FAULTS];
	long cond_fields[MAX_CONDS], cond_correct[MAX_CONDS];
	char *cond_name[MAX_CONDS];
	int n_cond;
	cJSON *fails;
	long errors;  /* requests that failed: not results (sessions/eval/bench.h) */
	cJSON *errs;  /* ... each {"key","error"} */
	bool nomem;
	/* summary */
	double acc, ci_lo, ci_hi, p50, p95, cost_mean, cost_call;
};

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A count stored by the benchmark; one outside 0..NUMCONV_COUNT_MAX (a damaged row) is 0. */
static long count(const cJSON *o, const char *k)
{
	long c = 0;
	numconv_long(num(o, k), 0, NUMCONV_COUNT_MAX, &c);
	return c;
}

static bool flag(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* fcell_add: count one field's result into the cell (field, cond, path). */
static bool fcell_add(struct agg *a, const char *field, const char *cond, const char *path,
		      bool asked, bool ok, bool ok_all)
{
	struct fcell *c = NULL;
	for (int i = 0; i < a->n_cells && !c; i++)
		if (!strcmp(a->cells[i].field, field) && !strcmp(a->cells[i].cond, cond) &&
		    !strcmp(a->cells[i].path, path))
			c = &a->cells[i];
	if (!c) {
		struct fcell *v = vec_grow(a->cells, a->n_cells, &a->cap_cells, sizeof *v, 64);
		if (!v)
			return false;
		a->cells = v;
		c = &a->cells[a->n_cells];
		*c = (struct fcell){strdup(field), strdup(cond), strdup(path), 0, 0, 0, 0};
		if (!c->field || !c->cond || !c->path) {
			free(c->field), free(c->cond), free(c->path);
			return false;
		}
		a->n_cells++;
	}
	c->n += asked;
	c->k += asked && ok;
	c->n_all++;
	c->k_all += ok_all;
	return true;
}

/* call_fields: a call row's per-field results into a's cells and fault counts. */
static void call_fields(struct agg *a, const cJSON *o)
{
	const char *cond = str(o, "condition"), *path = str(o, "path");
	const cJSON *fld;
	a->fields_all += count(o, "fields_all");
	a->correct_all += count(o, "correct_all");
	cJSON_ArrayForEach(fld, cJSON_GetObjectItemCaseSensitive(o, "per_field")) {
		bool asked = cJSON_GetNumberValue(cJSON_GetArrayItem(fld, 0)) == 1;
		bool ok = cJSON_GetNumberValue(cJSON_GetArrayItem(fld, 1)) == 1;
		bool ok_all = cJSON_GetNumberValue(cJSON_GetArrayItem(fld, 2)) == 1;
		a->nomem |= !fcell_add(a, fld->string, "*", "*", asked, ok, ok_all) ||
			    !fcell_add(a, fld->string, cond, "*", asked, ok, ok_all) ||
			    (path[0] && !fcell_add(a, fld->string, "*", path, asked, ok, ok_all));
	}
	const cJSON *fault = cJSON_GetObjectItemCaseSensitive(o, "fault");
	for (int i = 0; fault && i < N_FAULTS; i++)
		a->faults[i] += strcmp(str(fault, "stage"), FAULTS[i]) == 0;
}

/* lcell_of: the latency cell of field ("" every turn), made when missing; NULL when out
 * of memory. */
static struct lcell *lcell_of(struct agg *a, const char *field)
{
	for (int i = 0; i < a->n_lat; i++)
		if (!strcmp(a->lat[i].field, field))
			return &a->lat[i];
	struct lcell *v = vec_grow(a->lat, a->n_lat, &a->cap_lat, sizeof *v, 16);
	if (!v)
		return NULL;
	a->lat = v;
	struct lcell *c = &a->lat[a->n_lat];
	if (!(c->field = strdup(field)))
		return NULL;
	a->n_lat++;
	return c;
}

/* call_latency: a call row's per-turn latency into a's cells (all turns, and the field
 * each asked). */
static void call_latency(struct agg *a, const cJSON *o)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(o, "turn_latency")) {
		struct latency l;
		if (latency_from_json(cJSON_GetObjectItemCaseSensitive(t, "latency"), &l) != ERR_OK)
			continue;
		struct lcell *c[2] = {lcell_of(a, ""), lcell_of(a, str(t, "field"))};
		for (int k = 0; k < 2; k++) {
			if (!c[k]) {
				a->nomem = true;
				continue;
			}
			for (int p = 0; p < LATENCY_PARTS; p++)
				a->nomem |= !samples_push(&c[k]->v[p], l.ms[p]);
			a->nomem |= !samples_push(&c[k]->v[LATENCY_PARTS], l.total_ms);
		}
		for (int p = 0; p < LATENCY_PARTS; p++)
			if (l.by[p][0])
				snprintf(a->lat_by[p], sizeof a->lat_by[p], "%s", l.by[p]);
	}
}

static int on_row(void *ud, const char *spec, const char *key, const char *data)
{
	struct agg *a = ud;
	cJSON *o = cJSON_Parse(data);
	if (!o)
		return 0;
	if (flag(o, "errored")) {
		cJSON *x = cJSON_CreateObject();
		a->errors++;
		a->nomem |= !x || !cJSON_AddStringToObject(x, "key", key) ||
			    !cJSON_AddStringToObject(x, "error", str(o, "error")) ||
			    !cJSON_AddItemToArray(a->errs, x);
		cJSON_Delete(o);
		return 0;
	}
	a->n++;
	if (strcmp(a->stage, "stt") == 0) {
		a->words += count(o, "words");
		a->werr += count(o, "word_errors");
		a->wgen += count(o, "word_genuine");
		a->chars += count(o, "chars");
		a->cerr += count(o, "char_errors");
		double w = num(o, "words");
		a->nomem |= !samples_push(&a->utt_wer, w > 0 ? num(o, "word_errors") / w
						       : num(o, "word_errors") > 0);
		a->nomem |= !samples_push(&a->ms, num(o, "ms")) || !samples_push(&a->cost, num(o, "cost"));
		a->pass += num(o, "word_genuine") == 0;
	} else if (strcmp(a->stage, "call") == 0) {
		a->fields += count(o, "fields");
		a->correct += count(o, "correct");
		a->calls_all += num(o, "fields") == num(o, "correct");
		a->status_ok += strcmp(str(o, "status_want"), str(o, "status_got")) == 0;
		a->turns += count(o, "turns");
		a->rep_open += count(o, "replies_opening");
		a->rep_open_ok += count(o, "replies_opening_ok");
		a->rep_turn += count(o, "replies_turn");
		a->rep_turn_ok += count(o, "replies_turn_ok");
		a->rep_end += count(o, "replies_end");
		a->rep_end_ok += count(o, "replies_end_ok");
		a->nomem |= !samples_push(&a->open_ms, num(o, "opening_ms"));
		call_fields(a, o);
		call_latency(a, o);
		a->nomem |= !samples_push(&a->cost, num(o, "cost"));
		const cJSON *t;
		cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(o, "turn_ms"))
			a->nomem |= !samples_push(&a->ms, t->valuedouble);
		const char *cond = str(o, "condition");
		int c = 0;
		while (c < a->n_cond && strcmp(a->cond_name[c], cond) != 0)
			c++;
		if (c == a->n_cond && c < MAX_CONDS && (a->cond_name[c] = strdup(cond)))
			a->n_cond++;
		if (c < a->n_cond) {
			a->cond_fields[c] += count(o, "fields");
			a->cond_correct[c] += count(o, "correct");
		}
		if (cJSON_GetObjectItemCaseSensitive(o, "fault") && cJSON_GetArraySize(a->fails) < MAX_FAILS) {
			cJSON *f = cJSON_Duplicate(o, 1);
			cJSON_AddStringToObject(f, "key", key);
			cJSON_AddItemToArray(a->fails, f);
		}
	} else {
		bool pass = flag(o, "pass");
		a->pass += pass;
		a->nomem |= !samples_push(&a->ms, num(o, "ms")) || !samples_push(&a->cost, num(o, "cost"));
		if (strcmp(a->stage, "reply") == 0) {
			bool end = strcmp(str(o, "kind"), "end") == 0;
			a->end += end;
			a->end_pass += end && pass;
			a->ask += !end;
			a->ask_pass += !end && pass;
			if (!end) {
				a->dims[0] += flag(o, "asks");
				a->dims[1] += flag(o, "hindi");
				a->dims[2] += flag(o, "single_line");
				a->dims[3] += flag(o, "no_ack");
				a->dims[4] += flag(o, "no_echo");
			}
		}
		if (!pass && cJSON_GetArraySize(a->fails) < MAX_FAILS) {
			cJSON *f = cJSON_Duplicate(o, 1);
			cJSON_AddStringToObject(f, "key", key);
			cJSON_AddItemToArray(a->fails, f);
		}
	}
	cJSON_Delete(o);
	return 0;
}

static void summarize(struct agg *a)
{
	struct stats_summary s;
	long n = a->n, k = a->pass;
	if (strcmp(a->stage, "stt") == 0) {
		a->acc = a->words ? 1.0 - (double)a->wgen / a->words : 1.0;
		if (a->acc < 0)
			a->acc = 0;
		n = a->words;
		k = a->words - a->wgen;
		if (k < 0)
			k = 0;
	} else if (strcmp(a->stage, "call") == 0) {
		a->acc = a->fields ? (double)a->correct / a->fields : 0;
		n = a->fields;
		k = a->correct;
	} else {
		a->acc = n ? (double)k / n : 0;
	}
	a->ci_lo = a->ci_hi = a->acc;
	if (n > 0)
		stats_wilson(k, n, &a->ci_lo, &a->ci_hi);
	a->p50 = a->p95 = 0;
	if (a->ms.n && stats_summarize(a->ms.v, a->ms.n, &s) == ERR_OK) {
		a->p50 = s.p50;
		a->p95 = s.p95;
	}
	a->cost_mean = 0;
	if (a->cost.n)
		stats_mean(a->cost.v, a->cost.n, &a->cost_mean, NULL);
	a->cost_call = strcmp(a->stage, "call") == 0 ? a->cost_mean : 0;
}

static void agg_free(struct agg *a)
{
	free(a->spec);
	free(a->ms.v);
	free(a->cost.v);
	free(a->utt_wer.v);
	free(a->open_ms.v);
	for (int i = 0; i < a->n_cells; i++) {
		free(a->cells[i].field);
		free(a->cells[i].cond);
		free(a->cells[i].path);
	}
	free(a->cells);
	for (int i = 0; i < a->n_lat; i++) {
		free(a->lat[i].field);
		for (int p = 0; p < N_LAT; p++)
			free(a->lat[i].v[p].v);
	}
	free(a->lat);
	for (int c = 0; c < a->n_cond; c++)
		free(a->cond_name[c]);
	cJSON_Delete(a->fails);
	cJSON_Delete(a->errs);
}

/* The report's state. */
struct rep {
	struct benchdb *db;
	const char *scope, *out;
	struct agg *aggs;
	int n_aggs;
	const char *stage; /* for the spec callback */
	enum err err;
	char *msg;
};

static void on_spec(void *ud, const char *spec)
{
	struct rep *r = ud;
	struct agg *v = realloc(r->aggs, (size_t)(r->n_aggs + 1) * sizeof *v);
	if (!v) {
		r->err = ERR_NOMEM;
		return;
	}
	r->aggs = v;
	struct agg *a = &r->aggs[r->n_aggs++];
	memset(a, 0, sizeof *a);
	a->stage = r->stage;
	a->spec = strdup(spec);
	a->fails = cJSON_CreateArray();
	a->errs = cJSON_CreateArray();
	if (!a->spec || !a->fails || !a->errs)
		r->err = ERR_NOMEM;
}

static struct agg *find(struct rep *r, const char *stage, const char *spec)
{
	for (int i = 0; i < r->n_aggs; i++)
		if (strcmp(r->aggs[i].stage, stage) == 0 && strcmp(r->aggs[i].spec, spec) == 0)
			return &r->aggs[i];
	return NULL;
}

static void set_msg(struct rep *r, enum err e, const char *path)
{
	if (r->err == ERR_OK || !r->msg) {
		r->err = e;
		free(r->msg);
		if (asprintf(&r->msg, "%s: %s%s%s", path, err_str(e), e == ERR_IO ? ": " : "",
			     e == ERR_IO ? strerror(errno) : "") < 0)
			r->msg = NULL;
	}
}

static FILE *open_out(struct rep *r, const char *name, char *path, size_t n)
{
	FILE *f;
	snprintf(path, n, "%s/%s", r->out, name);
	if (!(f = fopen(path, "w")))
		set_msg(r, ERR_IO, path);
	return f;
}

static void close_out(struct rep *r, FILE *f, const char *path)
{
	if (f && fclose(f) != 0)
		set_msg(r, ERR_IO, path);
}

static void csv_rows(FILE *f, struct rep *r, const char *stage, bool full)
{
	fputs(full ? "stage,model,accuracy,p95_ms,cost_usd,n,ci_lo,ci_hi,p50_ms,cost_per_call_usd,"
		     "errors\n"
		   : "model,accuracy,p95_ms,cost_usd\n",
	      f);
	for (int i = 0; i < r->n_aggs; i++) {
		struct agg *a = &r->aggs[i];
		char model[512];
		/* a backend with no answered test is no model (its errors are in errors.csv) */
		if ((stage && strcmp(a->stage, stage) != 0) || a->n == 0)
			continue;
		snprintf(model, sizeof model, "%s:%s", a->stage, a->spec);
		if (full) {
			csv_write_field(f, a->stage);
			fputc(',', f);
		}
		csv_write_field(f, model);
		fprintf(f, ",%.6f,%.3f,%.8f", a->acc, a->p95, a->cost_mean);
		if (full)
			fprintf(f, ",%ld,%.6f,%.6f,%.3f,%.8f,%ld", a->n, a->ci_lo, a->ci_hi, a->p50,
				a->cost_call, a->errors);
		fputc('\n', f);
	}
}

enum err benchreport_stage_charts(const char *out_dir, const char *stage, char **errmsg)
{
	char path[4096], title[96];
	struct select *sel = NULL;
	struct select_sweep *sw = NULL;
	struct select_limits lim = {0};
	snprintf(path, sizeof path, "%s/results-%s.csv", out_dir, stage);
	if (select_load(path, &sel, NULL) != ERR_OK ||
	    select_rank(sel, &lim, SELECT_DEFAULT_WEIGHTS, NULL) != ERR_OK) {
		select_free(sel);
		return ERR_NOTFOUND;
	}
	struct chart_point p[64];
	int n = 0;
	size_t skip = strlen(stage) + 1; /* models read "stage:spec" */
	for (int i = 0; i < sel->n && n < 64; i++) {
		const struct select_candidate *c = &sel->v[i];
		bool prefixed = strncmp(c->model, stage, skip - 1) == 0 && c->model[skip - 1] == ':';
		const char *label = prefixed ? c->model + skip : c->model;
		p[n++] = (struct chart_point){label, c->accuracy, c->p95_ms, c->cost_usd,
					      c->status == SELECT_RANKED};
	}
	snprintf(title, sizeof title, "%s: accuracy, p95 latency and cost", stage);
	snprintf(path, sizeof path, "%s/tradeoff-%s.svg", out_dir, stage);
	enum err e = chart_tradeoff(path, title, p, n, 0, 0);
	/* The weight sweep, on the same candidates. */
	if (e == ERR_OK && select_sweep_run(sel, &lim, 0.5, 0.9, 0.1, 0.1, &sw, NULL) == ERR_OK) {
		double wa[16], u[16 * 64];
		int leader[16];
		const char *names[64];
		int k_n = sw->n_steps < 16 ? sw->n_steps : 16, c_n = sel->n < 64 ? sel->n : 64;
		for (int i = 0; i < c_n; i++)
			names[i] = sel->v[i].model;
		for (int k = 0; k < k_n; k++) {
			wa[k] = sw->steps[k].w.a;
			leader[k] = sw->steps[k].leader < c_n ? sw->steps[k].leader : -1;
			for (int i = 0; i < c_n; i++)
				u[k * c_n + i] = sw->steps[k].u[i];
		}
		snprintf(path, sizeof path, "%s/sweep-%s.svg", out_dir, stage);
		snprintf(title, sizeof title, "%s: leader by accuracy weight (w_l = 0.1)", stage);
		e = chart_sweep(path, title, wa, k_n, names, c_n, u, leader);
	}
	select_sweep_free(sw);
	select_free(sel);
	if (e != ERR_OK && errmsg)
		*errmsg = strdup(path);
	return e;
}

/* charts: trade-off and sweep per stage, STT x EXTRACT when there are several pairs. */
static void charts(struct rep *r)
{
	char path[4096];
	for (int s = 0; s < N_STAGES && r->err == ERR_OK; s++) {
		char *where = NULL;
		enum err e = benchreport_stage_charts(r->out, STAGES[s], &where);
		if (e != ERR_OK && e != ERR_NOTFOUND) {
			set_msg(r, e, where ? where : r->out);
			free(where);
			return;
		}
		free(where);
	}
	/* STT x EXTRACT from the integration specs "STT+EXTRACT+REPLY". */
	const char *groups[32], *series[32];
	char *gs[32] = {0}, *ss[32] = {0};
	int ng = 0, ns = 0, calls = 0;
	double values[32 * 32];
	for (int i = 0; i < 32 * 32; i++)
		values[i] = NAN;
	for (int i = 0; i < r->n_aggs; i++) {
		struct agg *a = &r->aggs[i];
		char *plus1, *plus2, *copy;
		if (strcmp(a->stage, "call") != 0 || a->n == 0 || !(copy = strdup(a->spec)))
			continue;
		calls++;
		if (!(plus1 = strchr(copy, '+')) || !(plus2 = strchr(plus1 + 1, '+'))) {
			free(copy);
			continue;
		}
		*plus1 = *plus2 = '\0';
		int g = 0, s = 0;
		while (g < ng && strcmp(gs[g], copy) != 0)
			g++;
		if (g == ng && ng < 32 && (gs[ng] = strdup(copy)))
			ng++;
		while (s < ns && strcmp(ss[s], plus1 + 1) != 0)
			s++;
		if (s == ns && ns < 32 && (ss[ns] = strdup(plus1 + 1)))
			ns++;
		if (g < ng && s < ns)
			values[g * 32 + s] = a->acc;
		free(copy);
	}
	if (calls >= 2 && r->err == ERR_OK) {
		double packed[32 * 32];
		for (int g = 0; g < ng; g++) {
			groups[g] = gs[g];
			for (int s = 0; s < ns; s++)
				packed[g * ns + s] = values[g * 32 + s];
		}
		for (int s = 0; s < ns; s++)
			series[s] = ss[s];
		snprintf(path, sizeof path, "%s/stt-x-extract.svg", r->out);
		enum err e = chart_grouped(path, "Form-completion accuracy by STT x EXTRACT", "STT",
					   "form completion (%)", groups, ng, series, ns, packed);
		if (e != ERR_OK)
			set_msg(r, e, path);
	}
	for (int i = 0; i < ng; i++)
		free(gs[i]);
	for (int i = 0; i < ns; i++)
		free(ss[i]);
}

static void pct_ci(FILE *f, const struct agg *a)
{
	fprintf(f, "%.2f%% (95%% CI %.2f–%.2f%%)", 100 * a->acc, 100 * a->ci_lo, 100 * a->ci_hi);
}

static void latency_cost(FILE *f, const struct agg *a, const char *per, const char *cost_per)
{
	double m = 0, lo = 0, hi = 0;
	fprintf(f, "- latency per %s: p50 %.1f ms, p95 %.1f ms", per, a->p50, a->p95);
	if (a->ms.n >= 2 && stats_mean_ci(a->ms.v, a->ms.n, &m, &lo, &hi) == ERR_OK)
		fprintf(f, "; mean %.1f ms (95%% CI %.1f–%.1f)", m, lo, hi);
	fputc('\n', f);
	fprintf(f, "- cost per %s: $%.6f", cost_per, a->cost_mean);
	if (a->cost.n >= 2 && stats_mean_ci(a->cost.v, a->cost.n, &m, &lo, &hi) == ERR_OK)
		fprintf(f, " (95%% CI $%.6f–$%.6f)", lo, hi);
	fputc('\n', f);
}

/* errors_line: the stage's failed requests, apart from its pass/fail figures. */
static void errors_line(FILE *f, const struct agg *a)
{
	if (a->errors)
		fprintf(f, "- failed requests, not scored (errors.csv): %ld\n", a->errors);
}

/* md_text: text in a Markdown table cell: `|` escaped, line breaks as spaces. */
static void md_text(FILE *f, const char *t)
{
	for (; *t; t++)
		if (*t == '|')
			fputs("\\|", f);
		else
			fputc(*t == '\n' || *t == '\r' ? ' ' : *t, f);
}

/* md_cell: a JSON value as Markdown table text (`|` escaped). */
static void md_cell(FILE *f, const cJSON *v)
{
	char *s = v ? cJSON_PrintUnformatted(v) : NULL;
	fputc('`', f);
	md_text(f, s ? s : "null");
	fputc('`', f);
	free(s);
}

/* call_fails_md: the failed calls as a table: call, turn, field, expected, got, stage. */
static void call_fails_md(FILE *f, const struct agg *a)
{
	const cJSON *x, *m;
	fprintf(f, "\nFailed calls (at most %d), where each first went wrong (turn 0: the opening; "
		   "docs/evaluation.md, \"Stage attribution\"):\n\n"
		   "| call | turn | field | expected | got | stage |\n|---|---|---|---|---|---|\n",
		MAX_FAILS);
	cJSON_ArrayForEach(x, a->fails) {
		const cJSON *fault = cJSON_GetObjectItemCaseSensitive(x, "fault");
		char turn[16] = "–";
		if (num(fault, "turn") >= 0)
			snprintf(turn, sizeof turn, "%d", (int)num(fault, "turn"));
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(x, "misses")) {
			fprintf(f, "| `%s` | %s | `%s` | %s ", str(x, "key"), turn, str(m, "field"),
				str(m, "want_status"));
			md_cell(f, cJSON_GetObjectItemCaseSensitive(m, "want"));
			fprintf(f, " | %s ", str(m, "got_status"));
			md_cell(f, cJSON_GetObjectItemCaseSensitive(m, "got"));
			fprintf(f, " | %s |\n", str(fault, "stage"));
		}
		const cJSON *fld;
		cJSON_ArrayForEach(fld, cJSON_GetObjectItemCaseSensitive(x, "per_field"))
			if (cJSON_GetNumberValue(cJSON_GetArrayItem(fld, 0)) == 0 &&
			    cJSON_GetNumberValue(cJSON_GetArrayItem(fld, 2)) == 0)
				fprintf(f, "| `%s` | %s | `%s` | not asked: empty | a value (its branch never "
					   "opened) | %s |\n",
					str(x, "key"), turn, fld->string, str(fault, "stage"));
	}
}

static void fails_md(FILE *f, const struct agg *a)
{
	const cJSON *x;
	if (!cJSON_GetArraySize(a->fails))
		return;
	if (strcmp(a->stage, "call") == 0) {
		call_fails_md(f, a);
		return;
	}
	/* a unit test is named by the first call and turn it stands for (its stored key
	 * is the prefix of utterances, too long to read) */
	if (strcmp(a->stage, "extract") == 0)
		fprintf(f, "\nFirst failures (at most %d), each failed check of a test:\n\n"
			   "| call | turn | field | check | expected | got |\n|---|---|---|---|---|---|\n",
			MAX_FAILS);
	else if (strcmp(a->stage, "reply") == 0)
		fprintf(f, "\nFirst failures (at most %d):\n\n| call | turn | kind | why | reply |\n"
			   "|---|---|---|---|---|\n",
			MAX_FAILS);
	else
		return;
	cJSON_ArrayForEach(x, a->fails) {
		if (strcmp(a->stage, "extract") == 0) {
			const cJSON *c;
			cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(x, "checks")) {
				if (flag(c, "ok"))
					continue;
				fprintf(f, "| `%s` | %d | `%s` | %s | ", str(x, "call"), (int)num(x, "turn"),
					str(x, "field"), str(c, "check"));
				md_cell(f, cJSON_GetObjectItemCaseSensitive(c, "want"));
				fputs(" | ", f);
				md_cell(f, cJSON_GetObjectItemCaseSensitive(c, "got"));
				fputs(" |\n", f);
			}
			if (str(x, "error")[0]) {
				fprintf(f, "| `%s` | %d | `%s` | error | | ", str(x, "call"),
					(int)num(x, "turn"), str(x, "field"));
				md_text(f, str(x, "error"));
				fputs(" |\n", f);
			}
		} else {
			fprintf(f, "| `%s` | %d | %s | ", str(x, "call"), (int)num(x, "turn"),
				str(x, "kind"));
			md_text(f, str(x, "why"));
			if (str(x, "error")[0]) {
				fputs("; error: ", f);
				md_text(f, str(x, "error"));
			}
			fputs(" | ", f);
			md_text(f, str(x, "text"));
			fputs(" |\n", f);
		}
	}
}

/* pct_of: "k of n, p% (95% CI lo–hi%)". */
static void pct_of(FILE *f, long k, long n)
{
	double lo = 0, hi = 0;
	if (n > 0)
		stats_wilson(k, n, &lo, &hi);
	fprintf(f, "%ld of %ld, %.2f%% (95%% CI %.2f–%.2f%%)", k, n, n ? 100.0 * k / n : 0, 100 * lo,
		100 * hi);
}

/* p50_p95: "p50 / p95" ms of x, "-" when empty. */
static void p50_p95(FILE *f, const struct samples *x)
{
	struct stats_summary s;
	if (x->n && stats_summarize(x->v, x->n, &s) == ERR_OK)
		fprintf(f, "%.2f / %.2f ms", s.p50, s.p95);
	else
		fputs("-", f);
}

/* latency_md: where a caller turn's time goes, from the end of her speech to the agent's
 * first words: p50 and p95 of each part (sessions/store/latency.h) over every turn, then per
 * field asked. */
static void latency_md(FILE *f, const struct agg *a)
{
	if (!a->n_lat)
		return;
	fputs("\n### Where a turn's time goes (end of speech to the agent's first words)\n\n"
	      "The parts add up to the total; formdesk's own share is the remainder. The turns are "
	      "typed in, so STT is each utterance's own STT time and there is no endpointing wait, "
	      "TTS or playback.\n\n| part | governed by | p50 / p95 |\n|---|---|---|\n",
	      f);
	const struct lcell *all = &a->lat[0];
	for (int p = 0; p < LATENCY_PARTS; p++) {
		fprintf(f, "| %s | ", latency_part_name(p));
		md_text(f, a->lat_by[p]);
		fputs(" | ", f);
		p50_p95(f, &all->v[p]);
		fputs(" |\n", f);
	}
	fputs("| total | | ", f);
	p50_p95(f, &all->v[LATENCY_PARTS]);
	fputs(" |\n\nPer field asked (p50 / p95 ms):\n\n| field | turns | total", f);
	for (int p = 0; p < LATENCY_PARTS; p++)
		fprintf(f, " | %s", latency_part_name(p));
	fputs(" |\n|---|---|---", f);
	for (int p = 0; p < LATENCY_PARTS; p++)
		fputs("|---", f);
	fputs("|\n", f);
	for (int i = 1; i < a->n_lat; i++) {
		const struct lcell *c = &a->lat[i];
		fputs("| ", f);
		md_text(f, c->field[0] ? c->field : "(none)");
		fprintf(f, " | %d | ", c->v[LATENCY_PARTS].n);
		p50_p95(f, &c->v[LATENCY_PARTS]);
		for (int p = 0; p < LATENCY_PARTS; p++) {
			fputs(" | ", f);
			p50_p95(f, &c->v[p]);
		}
		fputs(" |\n", f);
	}
}

/* fields_md: field-level completion of the run's calls, both denominators, per field
 * and per field and condition; and where the failed calls went wrong, per stage. */
static void fields_md(FILE *f, const struct agg *a)
{
	fprintf(f, "\n### Field-level completion\n\nPer field over the calls whose path asks it "
		   "(expected status answered or skipped), and over every call (a field the path "
		   "never asks is right only left empty; a value captured for a field of a branch "
		   "never opened is wrong); per path in `results-field.csv`, chart "
		   "`field-accuracy.svg` (docs/evaluation.md, \"Field-level completion\").\n\n"
		   "| field | condition | asked by the path: right | over all calls: right |\n"
		   "|---|---|---|---|\n");
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < a->n_cells; i++) {
			const struct fcell *c = &a->cells[i];
			bool all = !strcmp(c->cond, "*");
			if (strcmp(c->path, "*") != 0 || all != (pass == 0))
				continue;
			fprintf(f, "| `%s` | %s | ", c->field, all ? "all" : c->cond);
			pct_of(f, c->k, c->n);
			fputs(" | ", f);
			pct_of(f, c->k_all, c->n_all);
			fputs(" |\n", f);
		}
	fprintf(f, "\n### Stage attribution\n\nFor each call whose final form is wrong (over "
		   "either denominator), the first turn where it went wrong against its expected "
		   "conversation and the stage at fault (docs/evaluation.md, \"Stage "
		   "attribution\"):\n\n| stage | failed calls |\n|---|---|\n");
	for (int i = 0; i < N_FAULTS; i++)
		fprintf(f, "| %s%s | %ld |\n", FAULTS[i],
			i == 0 ? " (not run: the integration's turns are typed in)" : "", a->faults[i]);
}

/* fields_csv: results-field.csv, every call spec's cells. */
static void fields_csv(FILE *f, struct rep *r)
{
	fputs("model,field,condition,path,n,correct,accuracy,ci_lo,ci_hi,n_all,correct_all,"
	      "accuracy_all,ci_all_lo,ci_all_hi\n",
	      f);
	for (int i = 0; i < r->n_aggs; i++) {
		const struct agg *a = &r->aggs[i];
		for (int j = 0; j < a->n_cells; j++) {
			const struct fcell *c = &a->cells[j];
			double lo = 0, hi = 0, alo = 0, ahi = 0;
			if (c->n)
				stats_wilson(c->k, c->n, &lo, &hi);
			if (c->n_all)
				stats_wilson(c->k_all, c->n_all, &alo, &ahi);
			fprintf(f, "call:");
			csv_write_field(f, a->spec);
			fputc(',', f);
			csv_write_field(f, c->field);
			fputc(',', f);
			csv_write_field(f, c->cond);
			fputc(',', f);
			csv_write_field(f, c->path);
			fprintf(f, ",%ld,%ld,%.6f,%.6f,%.6f,%ld,%ld,%.6f,%.6f,%.6f\n", c->n, c->k,
				c->n ? (double)c->k / c->n : 0, lo, hi, c->n_all, c->k_all,
				c->n_all ? (double)c->k_all / c->n_all : 0, alo, ahi);
		}
	}
}

/* fields_chart: field-accuracy.svg: per field (groups) and condition (series), over the
 * calls whose path asks the field. */
static void fields_chart(struct rep *r, const struct agg *a)
{
	const char *groups[64], *series[MAX_CONDS];
	int ng = 0, ns = 0;
	double values[64 * MAX_CONDS];
	char path[4096];
	for (int i = 0; i < a->n_cells; i++) {
		const struct fcell *c = &a->cells[i];
		if (strcmp(c->path, "*") != 0)
			continue;
		if (!strcmp(c->cond, "*")) {
			if (ng < 64)
				groups[ng++] = c->field;
		} else {
			int s = 0;
			while (s < ns && strcmp(series[s], c->cond) != 0)
				s++;
			if (s == ns && ns < MAX_CONDS)
				series[ns++] = c->cond;
		}
	}
	for (int g = 0; g < ng; g++)
		for (int s = 0; s < ns; s++) {
			values[g * ns + s] = NAN;
			for (int i = 0; i < a->n_cells; i++) {
				const struct fcell *c = &a->cells[i];
				if (!strcmp(c->field, groups[g]) && !strcmp(c->cond, series[s]) &&
				    !strcmp(c->path, "*") && c->n)
					values[g * ns + s] = (double)c->k / c->n;
			}
		}
	if (!ng || !ns)
		return;
	snprintf(path, sizeof path, "%s/field-accuracy.svg", r->out);
	enum err e = chart_grouped(path, "Field-level completion by condition (fields the path asks)",
				   "field", "fields right (%)", groups, ng, series, ns, values);
	if (e != ERR_OK)
		set_msg(r, e, path);
}

/* Who decided what, over the rows of the run's specs (sessions/eval/benchjudge.h). */
struct tally {
	const struct form *form;
	long segments, seg_offline, wer_asked, wer_forgiven, wer_failed;
	long name_checks, name_llm, name_same, name_failed;
	long asks_rows, asks_llm, asks_yes, asks_failed;
	char judge_buf[256];
};

/* jstr: a string member, NULL when absent. */
static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void note_judge(struct tally *t, const char *j)
{
	if (j && !t->judge_buf[0])
		snprintf(t->judge_buf, sizeof t->judge_buf, "%s", j);
}

static int tally_stt(void *ud, const char *spec, const char *key, const char *data)
{
	struct tally *t = ud;
	cJSON *o = cJSON_Parse(data);
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "llm_judge");
	t->segments += count(o, "segments");
	t->seg_offline += count(o, "forgiven_offline");
	t->wer_asked += count(j, "asked");
	t->wer_forgiven += count(j, "forgiven");
	t->wer_failed += count(j, "failed");
	note_judge(t, jstr(j, "judge"));
	cJSON_Delete(o);
	return 0;
}

static int tally_extract(void *ud, const char *spec, const char *key, const char *data)
{
	struct tally *t = ud;
	cJSON *o = cJSON_Parse(data);
	const char *field = jstr(o, "field");
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(o, "checks")) {
		const char *name = jstr(c, "check"), *fname = NULL;
		if (name && strcmp(name, "value") == 0)
			fname = field;
		else if (name && strncmp(name, "other:", 6) == 0)
			fname = name + 6;
		int qi = fname ? form_find(t->form, fname) : -1;
		if (qi < 0 || t->form->questions[qi].type != FORM_STRING)
			continue;
		const char *v = jstr(c, "llm_judge");
		t->name_checks++;
		if (v) {
			t->name_llm++;
			t->name_same += strcmp(v, "same") == 0;
			t->name_failed += strcmp(v, "failed") == 0;
		}
	}
	note_judge(t, jstr(o, "judge"));
	cJSON_Delete(o);
	return 0;
}

static int tally_reply(void *ud, const char *spec, const char *key, const char *data)
{
	struct tally *t = ud;
	cJSON *o = cJSON_Parse(data);
	const char *kind = jstr(o, "kind"), *v = jstr(o, "asks_judge");
	if (kind && strcmp(kind, "ask") == 0) {
		t->asks_rows++;
		if (v) {
			t->asks_llm++;
			t->asks_yes += strcmp(v, "yes") == 0;
			t->asks_failed += strcmp(v, "failed") == 0;
		}
	}
	note_judge(t, jstr(o, "judge"));
	cJSON_Delete(o);
	return 0;
}

/* judges_md: how many decisions each judge made, for the run's specs. */
static void judges_md(FILE *f, struct rep *r, const struct bench_config *cfg,
		      const struct bench_counts *c)
{
	struct tally t = {.form = cfg->form};
	enum err e;
	if ((e = benchdb_each(r->db, "stt", r->scope, cfg->stt_spec, tally_stt, &t)) != ERR_OK ||
	    (e = benchdb_each(r->db, "extract", r->scope, cfg->extract_spec, tally_extract, &t)) !=
		    ERR_OK ||
	    (e = benchdb_each(r->db, "reply", r->scope, cfg->reply_spec, tally_reply, &t)) != ERR_OK) {
		set_msg(r, e, "bench database");
		return;
	}
	const char *llm = t.judge_buf[0] ? t.judge_buf : "none configured";
	fprintf(f, "## Judges\n\n"
		   "Where the offline judges cannot decide, a language-model judge does when one is "
		   "configured (`--judge`; sessions/eval/benchjudge.h); each verdict is cached per item "
		   "and prompt version. LLM judge: `%s`.\n\n"
		   "| decision | judge | decisions | accepted | failed |\n|---|---|---|---|---|\n",
		llm);
	fprintf(f, "| STT differing segments (LLM-WER) | offline: name judge, numbers | %ld | %ld "
		   "forgiven | |\n",
		t.segments, t.seg_offline);
	fprintf(f, "| | LLM `%s` | %ld | %ld forgiven | %ld |\n", JUDGE_LLM_WER_VERSION,
		t.wer_asked - t.wer_failed, t.wer_forgiven, t.wer_failed);
	fprintf(f, "| EXTRACT open-field checks | name judge (rules) | %ld | | |\n",
		t.name_checks - t.name_llm + t.name_failed);
	fprintf(f, "| | LLM `%s` (name judge unsure) | %ld | %ld same | %ld |\n",
		JUDGE_LLM_NAME_VERSION, t.name_llm - t.name_failed, t.name_same, t.name_failed);
	fprintf(f, "| REPLY asks the decided question | word overlap | %ld | | |\n",
		t.asks_rows - t.asks_llm + t.asks_failed);
	fprintf(f, "| | LLM `%s` (words inconclusive) | %ld | %ld yes | %ld |\n\n",
		JUDGE_LLM_ASKS_VERSION, t.asks_llm - t.asks_failed, t.asks_yes, t.asks_failed);
	if (cfg->judge)
		fprintf(f, "This run: %ld distinct items for the LLM judge (%ld LLM-WER segments, %ld "
			   "names, %ld replies); %ld asked now, %ld failed (the deterministic verdict "
			   "stands and the row names the failure), %ld from the cache; cost of the "
			   "calls made now $%.6f.\n\n",
			c->judge.items, c->judge.by_kind[JUDGE_LLM_WER], c->judge.by_kind[JUDGE_LLM_NAME],
			c->judge.by_kind[JUDGE_LLM_ASKS], c->judge.asked, c->judge.failed, c->judge.cached,
			c->judge.cost_usd);
}

/* counts_md: the unit-test counts and how they relate to the paper's. */
static void counts_md(FILE *f, const struct bench_counts *c)
{
	long per = c->callers * c->conditions;
	fprintf(f, "## Unit tests\n\n"
		   "| kind | tests |\n|---|---|\n"
		   "| STT (distinct utterances) | %ld |\n| EXTRACT | %ld |\n"
		   "| REPLY, needing a reply | %ld |\n| REPLY, end-call | %ld |\n"
		   "| REPLY, all | %ld |\n| integration calls | %ld |\n\n",
		c->utterances, c->extract, c->reply_ask, c->reply_end, c->reply_ask + c->reply_end,
		c->calls);
	fprintf(f,
		"One EXTRACT and one REPLY unit test per distinct prefix of an expected "
		"conversation (caller, condition, the caller's turns so far): paths that begin "
		"alike share their first tests. %ld callers x %ld conditions; %ld prefixes per "
		"caller and condition, of which %ld end a call.\n\n",
		c->callers, c->conditions, per ? c->extract / per : 0, per ? c->reply_end / per : 0);
	fprintf(f,
		"The FormBharo paper counts the same way for its enrollment form: 48 paths per "
		"caller share 94 prefixes (3 opening questions, 5 for the pregnancy branch, 8 for "
		"the linked number, 30 for WhatsApp, 48 for Aadhaar), 48 of them the last turn of a "
		"path; x 5 callers x 4 conditions gives 1,880 EXTRACT and 1,880 REPLY tests, 960 "
		"of them end-call (one per call: 240 paths x 4 conditions) and 920 needing a "
		"reply. ");
	if (c->extract == 1880 && c->reply_end == 960 && c->reply_ask == 920)
		fprintf(f, "This run has exactly those counts: %ld + %ld = %ld unit tests.\n\n",
			c->extract, c->reply_ask + c->reply_end, c->extract + c->reply_ask + c->reply_end);
	else
		fprintf(f,
			"This run has %ld + %ld = %ld unit tests: %ld EXTRACT for 1,880 (x %.3f, as "
			"its callers, conditions and paths differ) and %ld end-call for 960.\n\n",
			c->extract, c->reply_ask + c->reply_end, c->extract + c->reply_ask + c->reply_end,
			c->extract, c->extract / 1880.0, c->reply_end);
	if (c->plan_mismatches)
		fprintf(f, "**Warning:** %ld calls' expected forms cannot be reached by the rules "
			   "from their turns: their unit tests stop where the expected conversation "
			   "parts from the corpus (see docs/evaluation.md, \"Expected forms the rules "
			   "cannot reach\").\n\n",
			c->plan_mismatches);
}

/* errors_csv: every stored error, one line each: stage,model,key,error. */
static void errors_csv(FILE *f, struct rep *r)
{
	fputs("stage,model,key,error\n", f);
	for (int i = 0; i < r->n_aggs; i++) {
		const cJSON *x;
		cJSON_ArrayForEach(x, r->aggs[i].errs) {
			fprintf(f, "%s,", r->aggs[i].stage);
			csv_write_field(f, r->aggs[i].spec);
			fputc(',', f);
			csv_write_field(f, str(x, "key"));
			fputc(',', f);
			csv_write_field(f, str(x, "error"));
			fputc('\n', f);
		}
	}
}

/* errors_md: the run's failed requests, loudly, before any figure. */
static void errors_md(FILE *f, struct agg *const run[N_STAGES])
{
	static const char *const names[N_STAGES] = {"STT", "EXTRACT", "REPLY", "integration-call"};
	for (int s = 0; s < N_STAGES; s++) {
		if (!run[s] || !run[s]->errors)
			continue;
		const cJSON *first = cJSON_GetArrayItem(run[s]->errs, 0);
		fprintf(f, "**Warning: %ld %s requests failed** (`%s`): no answer came (nothing "
			   "listening, a timeout, an HTTP error after the retries). They are not "
			   "scored, the figures below leave them out, `errors.csv` lists each with its "
			   "cause, and the next run asks them again. First: %s (see docs/evaluation.md, "
			   "\"Failed requests\").\n\n",
			run[s]->errors, names[s], run[s]->spec, str(first, "error"));
	}
}

enum err benchreport_write(struct benchdb *db, const char *scope, const struct bench_config *cfg,
			   const struct bench_counts *counts, const char *out_dir, char **errmsg)
{
	struct rep r = {.db = db, .scope = scope, .out = out_dir};
	char path[4096], call_spec[1024];
	FILE *f = NULL;
	enum err e;

	if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
		set_msg(&r, ERR_IO, out_dir);
		goto out;
	}
	for (int s = 0; s < N_STAGES && r.err == ERR_OK; s++) {
		r.stage = STAGES[s];
		if ((e = benchdb_specs(db, STAGES[s], scope, on_spec, &r)) != ERR_OK)
			set_msg(&r, e, "bench database");
	}
	for (int i = 0; i < r.n_aggs && r.err == ERR_OK; i++) {
		if ((e = benchdb_each(db, r.aggs[i].stage, scope, r.aggs[i].spec, on_row, &r.aggs[i])) !=
		    ERR_OK)
			set_msg(&r, e, "bench database");
		if (r.aggs[i].nomem)
			set_msg(&r, ERR_NOMEM, "report");
		summarize(&r.aggs[i]);
	}
	if (r.err != ERR_OK)
		goto out;
	if (!(f = open_out(&r, "results.csv", path, sizeof path)))
		goto out;
	csv_rows(f, &r, NULL, true);
	close_out(&r, f, path);
	if (!(f = open_out(&r, "errors.csv", path, sizeof path)))
		goto out;
	errors_csv(f, &r);
	close_out(&r, f, path);
	if (!(f = open_out(&r, "results-field.csv", path, sizeof path)))
		goto out;
	fields_csv(f, &r);
	close_out(&r, f, path);
	for (int s = 0; s < N_STAGES && r.err == ERR_OK; s++) {
		char name[64];
		snprintf(name, sizeof name, "results-%s.csv", STAGES[s]);
		if (!(f = open_out(&r, name, path, sizeof path)))
			goto out;
		csv_rows(f, &r, STAGES[s], false);
		close_out(&r, f, path);
	}
	charts(&r);
	if (r.err != ERR_OK)
		goto out;

	/* report.md, about the run just made. */
	snprintf(call_spec, sizeof call_spec, "%s+%s+%s", cfg->stt_spec, cfg->extract_spec,
		 cfg->reply_spec);
	struct agg *stt = find(&r, "stt", cfg->stt_spec), *ext = find(&r, "extract", cfg->extract_spec);
	struct agg *rep = find(&r, "reply", cfg->reply_spec), *call = find(&r, "call", call_spec);
	if (!(f = open_out(&r, "report.md", path, sizeof path)))
		goto out;
	fprintf(f, "# Benchmark report\n\n"
		   "- form: `%s` (%s)\n- corpus: `%s` (%s, %d calls)\n- today: %04d-%02d-%02d\n"
		   "- backends: STT `%s`, EXTRACT `%s`, REPLY `%s`\n\n",
		cfg->form_path ? cfg->form_path : "", cfg->form->title ? cfg->form->title : "",
		cfg->corpus->dir, cfg->corpus->name ? cfg->corpus->name : "", cfg->corpus->n_calls,
		cfg->today.y, cfg->today.m, cfg->today.d, cfg->stt_spec, cfg->extract_spec,
		cfg->reply_spec);
	errors_md(f, (struct agg *const[N_STAGES]){stt, ext, rep, call});
	counts_md(f, counts);
	if (stt) {
		struct stats_summary s = {0};
		fprintf(f, "## STT (`%s`)\n\n", stt->spec);
		fprintf(f, "- utterances: %ld, reference words %ld, characters %ld\n", stt->n,
			stt->words, stt->chars);
		fprintf(f, "- WER %.2f%%, CER %.2f%%, LLM-WER %.2f%% (differences forgiven by the "
			   "judges: %ld of %ld word errors; see Judges)\n",
			stt->words ? 100.0 * stt->werr / stt->words : 0,
			stt->chars ? 100.0 * stt->cerr / stt->chars : 0,
			stt->words ? 100.0 * stt->wgen / stt->words : 0, stt->werr - stt->wgen,
			stt->werr);
		if (stt->utt_wer.n >= 2 && stats_summarize(stt->utt_wer.v, stt->utt_wer.n, &s) == ERR_OK)
			fprintf(f, "- mean WER per utterance %.2f%% (95%% CI %.2f–%.2f%%)\n", 100 * s.mean,
				100 * s.ci_lo, 100 * s.ci_hi);
		fprintf(f, "- accuracy (1 - LLM-WER): ");
		pct_ci(f, stt);
		fputc('\n', f);
		latency_cost(f, stt, "utterance", "utterance");
		errors_line(f, stt);
		fputc('\n', f);
	}
	if (ext) {
		fprintf(f, "## EXTRACT unit tests (`%s`)\n\n- passed %ld of %ld: ", ext->spec, ext->pass,
			ext->n);
		pct_ci(f, ext);
		fputc('\n', f);
		latency_cost(f, ext, "turn", "turn");
		errors_line(f, ext);
		fails_md(f, ext);
		fputc('\n', f);
	}
	if (rep) {
		static const char *const dims[] = {"asks the decided question", "Hindi", "a single line",
						   "no acknowledgement", "no echo"};
		fprintf(f, "## REPLY unit tests (`%s`)\n\n- passed %ld of %ld: ", rep->spec, rep->pass,
			rep->n);
		pct_ci(f, rep);
		fprintf(f, "\n- needing a reply: %ld of %ld passed; end-call: %ld of %ld passed\n",
			rep->ask_pass, rep->ask, rep->end_pass, rep->end);
		for (int d = 0; d < 5; d++)
			fprintf(f, "  - %s: %ld of %ld\n", dims[d], rep->dims[d], rep->ask);
		latency_cost(f, rep, "turn", "turn");
		errors_line(f, rep);
		fails_md(f, rep);
		fputc('\n', f);
	}
	if (call) {
		fprintf(f, "## Integration (`%s`)\n\n- form-completion accuracy over the fields each "
			   "call's path asks (the denominator: fields whose expected status is answered "
			   "or skipped): %ld of %ld fields, ",
			call->spec, call->correct, call->fields);
		pct_ci(f, call);
		fputs("\n- over all the form's fields in every call (a value captured for a field of "
		      "a branch never opened counts as wrong): ",
		      f);
		pct_of(f, call->correct_all, call->fields_all);
		fprintf(f, "\n- calls with every field right: %ld of %ld; call status as expected: %ld "
			   "of %ld\n- replies by kind (%ld calls, %ld caller turns): opening question "
			   "%ld of %ld passing the five checks; question after a caller turn %ld of %ld "
			   "passing them; closing words at the call's end %ld of %ld given\n",
			call->calls_all, call->n, call->status_ok, call->n, call->n, call->turns,
			call->rep_open_ok, call->rep_open, call->rep_turn_ok, call->rep_turn,
			call->rep_end_ok, call->rep_end);
		for (int c = 0; c < call->n_cond; c++)
			fprintf(f, "  - condition `%s`: %.2f%% of %ld fields\n", call->cond_name[c],
				call->cond_fields[c] ? 100.0 * call->cond_correct[c] / call->cond_fields[c]
						     : 0,
				call->cond_fields[c]);
		if (cfg->stt.ops && cfg->stt.ops->reference_only)
			fprintf(f, "- STT is `%s`: every turn is the corpus's reference transcript, so "
				   "acoustic conditions cannot change these results; the figures per "
				   "condition differ only by the calls in each. Give a speech-to-text "
				   "backend (`--stt`) to measure the conditions.\n",
				cfg->stt_spec);
		latency_cost(f, call, "caller turn (from the end of her speech: STT, EXTRACT, the rules, REPLY)",
			     "call");
		struct stats_summary os;
		if (call->open_ms.n && stats_summarize(call->open_ms.v, call->open_ms.n, &os) == ERR_OK)
			fprintf(f, "- the opening (REPLY before the first caller turn), apart: p50 %.1f ms, "
				   "p95 %.1f ms\n",
				os.p50, os.p95);
		latency_md(f, call);
		errors_line(f, call);
		fields_md(f, call);
		fields_chart(&r, call);
		fails_md(f, call);
		fputc('\n', f);
	}
	judges_md(f, &r, cfg, counts);
	fprintf(f, "## All runs in this database (results.csv)\n\n"
		   "| stage | model | accuracy | 95%% CI | p50 ms | p95 ms | cost/turn $ | n | errors |\n"
		   "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < r.n_aggs; i++) {
		struct agg *a = &r.aggs[i];
		if (a->n == 0) {
			fprintf(f, "| %s | `%s` | no answered test | | | | | 0 | %ld |\n", a->stage,
				a->spec, a->errors);
			continue;
		}
		fprintf(f, "| %s | `%s` | %.2f%% | %.2f–%.2f%% | %.1f | %.1f | %.6f | %ld | %ld |\n",
			a->stage, a->spec, 100 * a->acc, 100 * a->ci_lo, 100 * a->ci_hi, a->p50, a->p95,
			a->cost_mean, a->n, a->errors);
	}
	fprintf(f, "\nCharts: `tradeoff-STAGE.svg` (accuracy against p95 latency, cost as marker "
		   "size), `sweep-STAGE.svg` (leader as w_a goes 0.5–0.9, w_l = 0.1)%s. Choose a "
		   "model with `formdesk select --results %s/results-extract.csv --max-p95-ms 5000 "
		   "--min-accuracy 90`.\n",
		find(&r, "call", call_spec) && r.n_aggs > N_STAGES ? ", `stt-x-extract.svg`" : "",
		out_dir);
	close_out(&r, f, path);
	f = NULL;
out:
	for (int i = 0; i < r.n_aggs; i++)
		agg_free(&r.aggs[i]);
	free(r.aggs);
	if (r.err != ERR_OK && errmsg) {
		*errmsg = r.msg;
		r.msg = NULL;
	}
	free(r.msg);
	return r.err;
}
