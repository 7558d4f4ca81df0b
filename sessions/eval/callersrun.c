/* callersrun: simulated calls through the call engine, and their report (callersrun.h). */
#include "callersrun.h"

#include <stdlib.h>
#include <string.h>

#include "sessions/corpus/corpus.h"
#include "sessions/corpus/score.h"
#include "stats.h"
#include "base/vec.h"

struct callersrun {
	struct engine *e;
	engine_listener fwd;
	void *fwd_ud;
	const struct form *f;
	struct decision *last; /* the agent's last decision */
	char *said;            /* the agent's last words */
	bool ended;
	enum call_status status;
	char reason[160];
	int reasks;
	signed char *field_ok;
	enum err fault;        /* ERR_NOMEM while keeping an event */
};

static void on_event(void *ud, const struct engine_event *ev)
{
	struct callersrun *r = ud;
	if (r->fwd)
		r->fwd(r->fwd_ud, ev);
	switch (ev->kind) {
	case ENGINE_DECISION:
		decision_free(r->last);
		if (!(r->last = decision_dup(ev->decision)))
			r->fault = ERR_NOMEM;
		else if (r->last->tool == DECISION_ASK_QUESTION && r->last->ask.retry > 0)
			r->reasks++;
		break;
	case ENGINE_AGENT_SAYS:
		free(r->said);
		if (!(r->said = strdup(ev->text ? ev->text : "")))
			r->fault = ERR_NOMEM;
		break;
	case ENGINE_CALL_END: {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(ev->json, "reason");
		r->ended = true;
		r->status = ev->status;
		snprintf(r->reason, sizeof r->reason, "%s", cJSON_IsString(why) ? why->valuestring : "");
		break;
	}
	default:
		break;
	}
}

enum err callersrun_new(const struct engine_config *cfg, engine_listener listener, void *ud,
			struct callersrun **out)
{
	struct callersrun *r = calloc(1, sizeof *r);
	enum err e;
	if (!r || !(r->field_ok = malloc((size_t)(cfg->form->n_questions + 1)))) {
		free(r);
		return ERR_NOMEM;
	}
	r->fwd = listener;
	r->fwd_ud = ud;
	r->f = cfg->form;
	if ((e = engine_new(cfg, on_event, r, &r->e)) != ERR_OK) {
		free(r->field_ok);
		free(r);
		return e;
	}
	*out = r;
	return ERR_OK;
}

void callersrun_free(struct callersrun *r)
{
	if (!r)
		return;
	engine_free(r->e);
	decision_free(r->last);
	free(r->said);
	free(r->field_ok);
	free(r);
}

struct engine *callersrun_engine(struct callersrun *r)
{
	return r->e;
}

bool callers_source_next(void *ud, const struct decision *d, const char *said,
			 struct callers_turn *t, char *why, size_t n)
{
	(void)said;
	if (callers_answer(ud, d, t))
		return true;
	snprintf(why, n, "abandoned: the caller was asked '%s', which she has no answer for",
		 d && d->ask.field ? d->ask.field : "?");
	return false;
}

/* idle: let the engine finish what is in flight. */
static enum err idle(struct callersrun *r)
{
	enum err e = ERR_OK;
	while (engine_busy(r->e) && e == ERR_OK)
		e = engine_poll(r->e, 50, NULL, 0);
	return e != ERR_OK ? e : r->fault;
}

/* score: the outcome against the call's expected forms. */
static enum err score(struct callersrun *r, const struct corpus_call *call,
		      struct callersrun_outcome *o)
{
	const struct flow *fl = engine_flow(r->e);
	cJSON *misses = cJSON_CreateArray();
	struct score s = {0};
	enum err e = ERR_NOMEM;

	if (!misses)
		return ERR_NOMEM;
	if ((e = score_call(r->f, call->expected_data, call->expected_status, flow_form_data(fl),
			    flow_form_status(fl), &s, misses)) != ERR_OK)
		goto out;
	for (int q = 0; q < r->f->n_questions; q++) {
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(call->expected_status,
								   r->f->questions[q].name);
		bool scored = cJSON_IsString(st) && (strcmp(st->valuestring, "answered") == 0 ||
						     strcmp(st->valuestring, "skipped") == 0);
		r->field_ok[q] = scored ? 1 : -1;
	}
	const cJSON *m;
	cJSON_ArrayForEach(m, misses) {
		const cJSON *fld = cJSON_GetObjectItemCaseSensitive(m, "field");
		int q = cJSON_IsString(fld) ? form_find(r->f, fld->valuestring) : -1;
		if (q >= 0)
			r->field_ok[q] = 0;
	}
	o->fields = s.fields;
	o->correct = s.correct;
	o->status_ok = call->expected_call_status &&
		       strcmp(call->expected_call_status, call_status_name(o->status)) == 0;
	o->passed = o->status_ok && s.correct == s.fields;
	e = ERR_OK;
out:
	cJSON_Delete(misses);
	return e;
}

enum err callersrun_call(struct callersrun *r, const struct corpus_call *call,
			 const struct callersrun_source *src, int turn_limit,
			 struct callersrun_outcome *o)
{
	struct callers_turn t;
	char why[200];
	float *samples = NULL;
	size_t n = 0;
	enum err e;

	memset(o, 0, sizeof *o);
	o->field_ok = r->field_ok;
	decision_free(r->last);
	r->last = NULL;
	free(r->said);
	r->said = NULL;
	r->ended = false;
	r->reasks = 0;
	r->fault = ERR_OK;
	if ((e = engine_start_call(r->e, call)) != ERR_OK || (e = idle(r)) != ERR_OK)
		return e;
	while (!r->ended) {
		if (o->turns >= turn_limit) {
			snprintf(why, sizeof why, "abandoned: turn limit %d", turn_limit);
			if ((e = engine_hang_up(r->e, why)) != ERR_OK)
				return e;
			break;
		}
		if (!src->next(src->ud, r->last, r->said, &t, why, sizeof why)) {
			if ((e = engine_hang_up(r->e, why)) != ERR_OK)
				return e;
			break;
		}
		struct engine_input in = {
			.transcript = t.silence ? NULL : t.text,
			.silence = t.silence,
			.input = "typed",
			.condition = callers_behaviour_name(t.behaviour),
			.barge_in = t.barge_in,
			.barge_in_ms = t.barge_in_ms,
			.barge_in_during = "speaking",
		};
		if (src->speak && !t.silence) {
			if (!src->speak(src->speak_ud, &t, &samples, &n, why, sizeof why)) {
				e = engine_hang_up(r->e, why);
				free(samples);
				return e != ERR_OK ? e : ERR_AUDIO;
			}
			in.samples = samples;
			in.n_samples = n;
			in.input = "mic";
		}
		o->turns++;
		e = engine_start_turn(r->e, &in);
		free(samples);
		samples = NULL;
		if (e != ERR_OK || (e = idle(r)) != ERR_OK)
			return e;
	}
	o->status = r->status;
	snprintf(o->reason, sizeof o->reason, "%s", r->reason);
	o->reasks = r->reasks;
	o->row = engine_call_row(r->e);
	return score(r, call, o);
}

/* ---- the report ---- */

struct tally {
	long calls, complete, fields, correct, reasks, turns;
};

struct failed {
	char *id, *why;
};

struct callersrun_report {
	const struct form *f;
	int k;
	struct tally all, beh[CALLERS_N];
	long *field_n, *field_ok;
	long planned, passed_all; /* planned calls (repeat 0), those passing every repeat */
	bool cur_passing;
	struct failed *failed;
	int n_failed, cap_failed;
};

struct callersrun_report *callersrun_report_new(const struct form *f, int k)
{
	struct callersrun_report *rep = calloc(1, sizeof *rep);
	size_t nq = (size_t)(f->n_questions ? f->n_questions : 1);
	if (!rep || !(rep->field_n = calloc(nq, sizeof *rep->field_n)) ||
	    !(rep->field_ok = calloc(nq, sizeof *rep->field_ok))) {
		callersrun_report_free(rep);
		return NULL;
	}
	rep->f = f;
	rep->k = k < 1 ? 1 : k;
	return rep;
}

void callersrun_report_free(struct callersrun_report *rep)
{
	if (!rep)
		return;
	for (int i = 0; i < rep->n_failed; i++) {
		free(rep->failed[i].id);
		free(rep->failed[i].why);
	}
	free(rep->failed);
	free(rep->field_n);
	free(rep->field_ok);
	free(rep);
}

static void tally_add(struct tally *t, const struct callersrun_outcome *o)
{
	t->calls++;
	t->complete += o->status_ok;
	t->fields += o->fields;
	t->correct += o->correct;
	t->reasks += o->reasks;
	t->turns += o->turns;
}

enum err callersrun_report_add(struct callersrun_report *rep, const bool *used, const char *id,
			       const struct callersrun_outcome *o, int repeat)
{
	tally_add(&rep->all, o);
	for (int b = 0; used && b < CALLERS_N; b++)
		if (used[b])
			tally_add(&rep->beh[b], o);
	for (int q = 0; q < rep->f->n_questions; q++)
		if (o->field_ok[q] >= 0) {
			rep->field_n[q]++;
			rep->field_ok[q] += o->field_ok[q];
		}
	if (repeat == 0) {
		rep->planned++;
		rep->cur_passing = true;
	}
	rep->cur_passing &= o->passed;
	if (repeat == rep->k - 1 && rep->cur_passing)
		rep->passed_all++;
	if (!o->status_ok) {
		struct failed *v = vec_grow(rep->failed, rep->n_failed, &rep->cap_failed, sizeof *v, 16);
		if (!v)
			return ERR_NOMEM;
		rep->failed = v;
		struct failed *fl = &rep->failed[rep->n_failed];
		fl->id = strdup(id ? id : "?");
		if (asprintf(&fl->why, "%s: %s", call_status_name(o->status), o->reason) < 0)
			fl->why = NULL;
		if (!fl->id || !fl->why) {
			free(fl->id);
			free(fl->why);
			return ERR_NOMEM;
		}
		rep->n_failed++;
	}
	return ERR_OK;
}

/* pct: "100.0% [72.2, 100.0]" for ok of n into buf; "-" when n is 0. */
static const char *pct(long ok, long n, char *buf, size_t size)
{
	double lo, hi;
	if (n <= 0 || stats_wilson(ok, n, &lo, &hi) != ERR_OK)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%5.1f%% [%5.1f, %5.1f]", 100.0 * (double)ok / (double)n,
			 100 * lo, 100 * hi);
	return buf;
}

static void tally_line(FILE *f, const char *name, const struct tally *t)
{
	char a[64], b[64];
	fprintf(f, "  %-18s %6ld  %-24s %-24s %6.2f %6.2f\n", name, t->calls,
		pct(t->complete, t->calls, a, sizeof a), pct(t->correct, t->fields, b, sizeof b),
		t->calls ? (double)t->reasks / (double)t->calls : 0,
		t->calls ? (double)t->turns / (double)t->calls : 0);
}

void callersrun_report_print(const struct callersrun_report *rep, FILE *f)
{
	char a[64];
	fprintf(f, "%ld calls, %ld ended as expected, %ld fields scored, %ld right\n", rep->all.calls,
		rep->all.complete, rep->all.fields, rep->all.correct);
	fprintf(f, "\nper behaviour      calls  completion [95%% CI]     accuracy [95%% CI]     "
		   "reasks  turns (per call)\n");
	for (int b = 0; b < CALLERS_N; b++)
		if (rep->beh[b].calls)
			tally_line(f, callers_behaviour_name(b), &rep->beh[b]);
	tally_line(f, "all", &rep->all);
	fprintf(f, "\nper field          scored  right  accuracy [95%% CI]\n");
	for (int q = 0; q < rep->f->n_questions; q++)
		if (rep->field_n[q])
			fprintf(f, "  %-18s %6ld %6ld  %s\n", rep->f->questions[q].name, rep->field_n[q],
				rep->field_ok[q], pct(rep->field_ok[q], rep->field_n[q], a, sizeof a));
	if (rep->k > 1)
		fprintf(f, "\npass^%d: %ld of %ld calls passed all %d runs: %s\n", rep->k,
			rep->passed_all, rep->planned, rep->k,
			pct(rep->passed_all, rep->planned, a, sizeof a));
	fprintf(f, "\nfailed calls (not ended as expected): %d\n", rep->n_failed);
	for (int i = 0; i < rep->n_failed && i < 20; i++)
		fprintf(f, "  %s: %s\n", rep->failed[i].id, rep->failed[i].why);
	if (rep->n_failed > 20)
		fprintf(f, "  ... and %d more\n", rep->n_failed - 20);
}

static cJSON *tally_json(const struct tally *t)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, "calls", (double)t->calls) ||
	    !cJSON_AddNumberToObject(o, "complete", (double)t->complete) ||
	    !cJSON_AddNumberToObject(o, "completion", t->calls ? (double)t->complete / (double)t->calls : 0) ||
	    !cJSON_AddNumberToObject(o, "fields", (double)t->fields) ||
	    !cJSON_AddNumberToObject(o, "correct", (double)t->correct) ||
	    !cJSON_AddNumberToObject(o, "accuracy", t->fields ? (double)t->correct / (double)t->fields : 0) ||
	    !cJSON_AddNumberToObject(o, "reasks", (double)t->reasks) ||
	    !cJSON_AddNumberToObject(o, "turns", (double)t->turns)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *callersrun_report_json(const struct callersrun_report *rep)
{
	cJSON *o = tally_json(&rep->all), *beh = cJSON_CreateObject(), *fields = cJSON_CreateObject();
	if (!o || !beh || !fields)
		goto fail;
	for (int b = 0; b < CALLERS_N; b++)
		if (rep->beh[b].calls && !cJSON_AddItemToObject(beh, callers_behaviour_name(b),
								tally_json(&rep->beh[b])))
			goto fail;
	for (int q = 0; q < rep->f->n_questions; q++) {
		cJSON *x;
		if (!rep->field_n[q])
			continue;
		if (!(x = cJSON_AddObjectToObject(fields, rep->f->questions[q].name)) ||
		    !cJSON_AddNumberToObject(x, "scored", (double)rep->field_n[q]) ||
		    !cJSON_AddNumberToObject(x, "correct", (double)rep->field_ok[q]) ||
		    !cJSON_AddNumberToObject(x, "accuracy", (double)rep->field_ok[q] / (double)rep->field_n[q]))
			goto fail;
	}
	if (!cJSON_AddNumberToObject(o, "failed", rep->n_failed))
		goto fail;
	if (rep->k > 1) {
		cJSON *p = cJSON_AddObjectToObject(o, "pass_k");
		if (!p || !cJSON_AddNumberToObject(p, "k", rep->k) ||
		    !cJSON_AddNumberToObject(p, "passed", (double)rep->passed_all) ||
		    !cJSON_AddNumberToObject(p, "planned", (double)rep->planned) ||
		    !cJSON_AddNumberToObject(p, "rate", rep->planned ? (double)rep->passed_all / (double)rep->planned : 0))
			goto fail;
	}
	if (!cJSON_AddItemToObject(o, "behaviours", beh))
		goto fail;
	beh = NULL;
	if (!cJSON_AddItemToObject(o, "fields", fields))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	cJSON_Delete(beh);
	cJSON_Delete(fields);
	return NULL;
}
