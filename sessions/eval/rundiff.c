/* rundiff: two runs compared, and the gate (see rundiff.h). */
#include "rundiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/rules/decision.h"
#include "agent/rules/form.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/csv.h"
#include "sessions/calls/runs.h"
#include "sessions/calls/replay.h"
#include "sessions/corpus/score.h"
#include "sessions/store/store.h"
#include "base/str.h"

static const char *const format_names[] = {
	[RUNDIFF_TABLE] = "table", [RUNDIFF_MARKDOWN] = "markdown", [RUNDIFF_CSV] = "csv",
	[RUNDIFF_JSON] = "json"};

bool rundiff_format_parse(const char *s, enum rundiff_format *f)
{
	for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
		if (strcmp(s, format_names[i]) == 0) {
			*f = (enum rundiff_format)i;
			return true;
		}
	return false;
}

double rundiff_mcnemar_p(int b, int c)
{
	int n = b + c, k = b < c ? b : c;
	double p = 0;

	if (n == 0)
		return 1;
	/* P(X <= k), X ~ Binomial(n, 1/2), each term in logs so large n does not underflow */
	for (int i = 0; i <= k; i++)
		p += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) - n * log(2.0));
	p *= 2;
	return p > 1 ? 1 : p;
}

/* One run: its row, calls, corpus (for the expected forms) and form. */
struct run_side {
	struct store *st;
	long long id;
	struct store_run_row *row;
	int n_row;
	struct store_call_row *calls;
	int n;
	struct corpus *corpus;
	struct form *form;
};

static void run_side_free(struct run_side *r)
{
	store_runs_free(r->row, r->n_row);
	store_calls_free(r->calls, r->n);
	corpus_free(r->corpus);
	form_free(r->form);
}

static enum err run_side_load(struct store *st, long long id, struct run_side *r, char **errmsg)
{
	struct store_call_filter f = {.run = id, .finished = true};
	char *msg = NULL;
	enum err e;

	memset(r, 0, sizeof *r);
	r->st = st;
	r->id = id;
	if ((e = store_runs(st, id, &r->row, &r->n_row)) != ERR_OK) {
		*errmsg = strdup(store_error(st));
		return e;
	}
	if (r->n_row == 0) {
		*errmsg = str_printf("run %lld: no such run in %s (formdesk runs --db %s lists them)", id,
			      store_path(st), store_path(st));
		return ERR_NOTFOUND;
	}
	if ((e = store_calls(st, &f, &r->calls, &r->n)) != ERR_OK) {
		*errmsg = strdup(store_error(st));
		return e;
	}
	/* the expected forms: from the run's corpus when it can still be read */
	if (r->row->info.corpus_dir && corpus_load(r->row->info.corpus_dir, &r->corpus, &msg) != ERR_OK)
		r->corpus = NULL;
	free(msg);
	if (r->row->info.form_json)
		form_parse(r->row->info.form_json, &r->form, NULL);
	else if (r->row->info.form_path)
		form_load(r->row->info.form_path, &r->form, NULL);
	return ERR_OK;
}

static const struct corpus_call *expected_call(const struct run_side *r, const char *id)
{
	if (!r->corpus || !id)
		return NULL;
	for (int i = 0; i < r->corpus->n_calls; i++)
		if (strcmp(r->corpus->calls[i].id, id) == 0)
			return r->corpus->calls[i].expected_status ? &r->corpus->calls[i] : NULL;
	return NULL;
}

/* One call of one run, as the diff sees it. */
struct side {
	const struct store_call_row *call;
	struct store_turn_row *turns;
	int n;
	cJSON *fields;      /* field -> {"value","status","retries","verdict","branch"} */
	cJSON *unanswered;  /* [{"turn","field"}] */
	bool has_expect, correct;
	cJSON *field_ok;    /* field -> bool, the fields the expectation counts */
	struct score score;
};

static void side_free(struct side *s)
{
	store_turns_free(s->turns, s->n);
	cJSON_Delete(s->fields);
	cJSON_Delete(s->unanswered);
	cJSON_Delete(s->field_ok);
	memset(s, 0, sizeof *s);
}

static cJSON *parse_or(const char *text, const char *def)
{
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	return j ? j : cJSON_Parse(def);
}

/* set_str: o[key] = s (replacing), s NULL: null. */
static bool set_str(cJSON *o, const char *key, const char *s)
{
	cJSON *v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
	if (!v)
		return false;
	if (cJSON_GetObjectItemCaseSensitive(o, key))
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
	else
		cJSON_AddItemToObject(o, key, v);
	return true;
}

/* side_load: what the diff needs of call c of run r. Errors: ERR_DB, ERR_NOMEM. */
static enum err side_load(const struct run_side *r, const struct store_call_row *c,
			  struct side *s)
{
	cJSON *data = NULL, *status = NULL, *retries = NULL, *branches = NULL, *misses = NULL,
	      *verdicts = NULL;
	const cJSON *it;
	const struct corpus_call *want;
	enum err e;

	memset(s, 0, sizeof *s);
	s->call = c;
	if ((e = store_turns(r->st, c->id, &s->turns, &s->n)) != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	data = parse_or(c->form_data, "{}");
	status = parse_or(c->form_status, "{}");
	if (!data || !status || !(s->fields = cJSON_CreateObject()) ||
	    !(s->unanswered = cJSON_CreateArray()) || !(retries = cJSON_CreateObject()) ||
	    !(branches = cJSON_CreateObject()) || !(s->field_ok = cJSON_CreateObject()) ||
	    !(verdicts = cJSON_CreateObject()))
		goto out;
	/* retries used and the branches taken, as the decisions last said them */
	for (int i = 0; i < s->n; i++) {
		/* the decision as the rule layer's struct (agent/rules/decision.h) */
		struct decision *d = runs_decision(s->turns[i].t.decision);
		const char *cond = s->turns[i].t.condition;
		bool ok = true;
		if (d && d->has_retries && d->retries.field) {
			cJSON_DeleteItemFromObjectCaseSensitive(retries, d->retries.field);
			ok = cJSON_AddNumberToObject(retries, d->retries.field, d->retries.used) != NULL;
		}
		for (int k = 0; ok && d && k < d->n_verdicts; k++) {
			const struct decision_verdict *v = &d->verdicts[k];
			char *t;
			if (!v->field)
				continue;
			t = str_printf("%s %s%s%s", v->rule ? v->rule : "?", v->ok ? "ok" : "failed",
					v->message && v->message[0] ? ": " : "",
					v->message && v->message[0] ? v->message : "");
			ok = t && set_str(verdicts, v->field, t);
			free(t);
		}
		if (ok && d && d->n_branches > 0) {
			/* each decision lists every branch: the last one says how they ended */
			cJSON_Delete(branches);
			ok = (branches = cJSON_CreateObject()) != NULL;
			for (int k = 0; ok && k < d->n_branches; k++) {
				const struct decision_branch *b = &d->branches[k];
				const char *old;
				char *t;
				if (!b->id || !b->field)
					continue;
				old = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(branches, b->field));
				t = str_printf("%s%s%s=%s", old ? old : "", old ? "," : "", b->id,
						b->active ? "on" : "off");
				ok = t && set_str(branches, b->field, t);
				free(t);
			}
		}
		if (ok && cond && strcmp(cond, REPLAY_UNANSWERED) == 0) {
			cJSON *u = cJSON_CreateObject();
			ok = u && cJSON_AddNumberToObject(u, "turn", s->turns[i].t.index) &&
			     set_str(u, "field", d ? d->asked : NULL);
			if (ok)
				cJSON_AddItemToArray(s->unanswered, u);
			else
				cJSON_Delete(u);
		}
		decision_free(d);
		if (!ok)
			goto out;
	}
	cJSON_ArrayForEach(it, status) {
		cJSON *fv = cJSON_AddObjectToObject(s->fields, it->string);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(data, it->string);
		const cJSON *rt = cJSON_GetObjectItemCaseSensitive(retries, it->string);
		const char *vt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(verdicts, it->string));
		if (!fv || !cJSON_AddItemToObject(fv, "value", v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull()) ||
		    !set_str(fv, "status", cJSON_GetStringValue(it)) ||
		    !cJSON_AddNumberToObject(fv, "retries", rt ? cJSON_GetNumberValue(rt) : 0) ||
		    !set_str(fv, "verdict", vt) ||
		    !set_str(fv, "branch", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(branches, it->string))))
			goto out;
	}
	/* the expected form, where the corpus has one */
	if ((want = expected_call(r, c->info.corpus ? c->info.corpus_call_id : NULL))) {
		if (!(misses = cJSON_CreateArray()) ||
		    score_call(r->form, want->expected_data, want->expected_status, data, status,
			       &s->score, misses) != ERR_OK)
			goto out;
		s->has_expect = true;
		s->correct = cJSON_GetArraySize(misses) == 0;
		cJSON_ArrayForEach(it, want->expected_status) {
			const char *ws = cJSON_GetStringValue(it);
			bool ok = true;
			const cJSON *m;
			if (!ws || (strcmp(ws, "answered") != 0 && strcmp(ws, "skipped") != 0))
				continue;
			cJSON_ArrayForEach(m, misses) {
				const char *mf = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "field"));
				if (mf && strcmp(mf, it->string) == 0)
					ok = false;
			}
			cJSON_AddBoolToObject(s->field_ok, it->string, ok);
		}
	}
	e = ERR_OK;
out:
	cJSON_Delete(verdicts);
	cJSON_Delete(data);
	cJSON_Delete(status);
	cJSON_Delete(retries);
	cJSON_Delete(branches);
	cJSON_Delete(misses);
	return e;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* diverge: the first turn (0: the opening) and stage at which a and b differ; false when
 * they do not. */
static bool diverge(const struct side *a, const struct side *b, int *turn, const char **stage)
{
	*turn = 0;
	if (!str_eq(a->call->info.opening_decision, b->call->info.opening_decision)) {
		*stage = "decision";
		return true;
	}
	if (!str_eq(a->call->info.opening, b->call->info.opening)) {
		*stage = "reply";
		return true;
	}
	for (int i = 0; i < a->n || i < b->n; i++) {
		*turn = i + 1;
		if (i >= a->n || i >= b->n) {
			*stage = "turns";
			return true;
		}
		const struct store_turn *x = &a->turns[i].t, *y = &b->turns[i].t;
		*stage = !str_eq(x->transcript, y->transcript) ? "transcript"
			 : !str_eq(x->extraction, y->extraction) ? "extraction"
			 : !str_eq(x->decision, y->decision)     ? "decision"
			 : !str_eq(x->reply, y->reply)           ? "reply"
								 : NULL;
		if (*stage)
			return true;
	}
	return false;
}

/* call_key: how a call is named in the diff and matched: its corpus call id, else
 * "call N" with N the call it replays (else its own id). */
static char *call_key(const struct store_call_row *c)
{
	if (c->info.corpus && c->info.corpus_call_id)
		return strdup(c->info.corpus_call_id);
	return str_printf("call %lld", c->info.replay_of ? c->info.replay_of : c->id);
}

/* b_keys: B's calls by key into keys (rb->n of them, each NULL before; caller frees
 * them); a replayed call takes the key of the call of A it replays (same: one store).
 * Returns false when out of memory. */
static bool b_keys(const struct run_side *ra, const struct run_side *rb, bool same, char **keys)
{
	for (int j = 0; j < rb->n; j++) {
		const struct store_call_row *c = &rb->calls[j];
		if (c->info.replay_of && same)
			for (int i = 0; i < ra->n && !keys[j]; i++)
				if (ra->calls[i].id == c->info.replay_of && !(keys[j] = call_key(&ra->calls[i])))
					return false;
		if (!keys[j] && !(keys[j] = call_key(c)))
			return false;
	}
	return true;
}

static void keys_free(char **keys, int n)
{
	for (int j = 0; keys && j < n; j++)
		free(keys[j]);
	free(keys);
}

enum err rundiff_match(struct store *st, long long a, long long call, long long b,
		       long long *match, int *turn, const char **stage, char **errmsg)
{
	struct run_side ra, rb;
	char **keys = NULL, *key = NULL;
	int i, rank = 0;
	enum err e;

	*match = 0;
	*turn = -1;
	*stage = NULL;
	*errmsg = NULL;
	memset(&rb, 0, sizeof rb);
	if ((e = run_side_load(st, a, &ra, errmsg)) != ERR_OK ||
	    (e = run_side_load(st, b, &rb, errmsg)) != ERR_OK)
		goto out;
	for (i = 0; i < ra.n && ra.calls[i].id != call; i++)
		;
	e = ERR_OK;
	if (i == ra.n) /* not a finished call of run a: nothing to match */
		goto out;
	e = ERR_NOMEM;
	if (!(key = call_key(&ra.calls[i])) ||
	    (rb.n && (!(keys = calloc((size_t)rb.n, sizeof *keys)) || !b_keys(&ra, &rb, true, keys))))
		goto out;
	/* the diff pairs equal keys in order: the k-th call of a with a key meets the k-th of
	 * b with it */
	for (int k = 0; k < i; k++) {
		char *other = call_key(&ra.calls[k]);
		if (!other)
			goto out;
		rank += strcmp(other, key) == 0;
		free(other);
	}
	e = ERR_OK;
	for (int j = 0; j < rb.n; j++)
		if (strcmp(keys[j], key) == 0 && rank-- == 0) {
			struct side x = {0}, y = {0};
			*match = rb.calls[j].id;
			if ((e = side_load(&ra, &ra.calls[i], &x)) == ERR_OK &&
			    (e = side_load(&rb, &rb.calls[j], &y)) == ERR_OK &&
			    !diverge(&x, &y, turn, stage))
				*turn = -1;
			side_free(&x);
			side_free(&y);
			break;
		}
out:
	if (e != ERR_OK && !*errmsg)
		*errmsg = strdup(e == ERR_DB ? store_error(st) : err_str(e));
	keys_free(keys, rb.n);
	free(key);
	run_side_free(&ra);
	run_side_free(&rb);
	return e;
}

static cJSON *side_json(const struct side *s)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, "id", (double)s->call->id) ||
	    !set_str(o, "status", s->call->status) || !set_str(o, "reason", s->call->reason) ||
	    !cJSON_AddItemToObject(o, "correct", s->has_expect ? cJSON_CreateBool(s->correct)
							       : cJSON_CreateNull())) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Per-field accuracy over the matched calls with an expected form. */
struct field_acc {
	cJSON *counts; /* field -> [n_a, ok_a, n_b, ok_b] */
};

static void count_field(cJSON *counts, const cJSON *ok, int at)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, ok) {
		cJSON *c = cJSON_GetObjectItemCaseSensitive(counts, it->string);
		if (!c) {
			const double z[4] = {0, 0, 0, 0};
			cJSON_AddItemToObject(counts, it->string, c = cJSON_CreateDoubleArray(z, 4));
			if (!c)
				return;
		}
		cJSON_SetNumberValue(cJSON_GetArrayItem(c, at), cJSON_GetArrayItem(c, at)->valuedouble + 1);
		if (cJSON_IsTrue(it))
			cJSON_SetNumberValue(cJSON_GetArrayItem(c, at + 1),
					     cJSON_GetArrayItem(c, at + 1)->valuedouble + 1);
	}
}

/* compare: the JSON object of one matched call. Output: *change. */
static cJSON *compare(const char *key, const struct side *a, const struct side *b,
		      const char **change)
{
	cJSON *o = cJSON_CreateObject(), *fields, *un, *it;
	bool differ = !str_eq(a->call->status, b->call->status) ||
		      !str_eq(a->call->reason, b->call->reason);
	int turn;
	const char *stage;

	if (!o || !set_str(o, "call", key) || !cJSON_AddStringToObject(o, "change", "same") ||
	    !cJSON_AddItemToObject(o, "a", side_json(a)) ||
	    !cJSON_AddItemToObject(o, "b", side_json(b)) ||
	    !(fields = cJSON_AddArrayToObject(o, "fields")))
		goto fail;
	/* every field either side names, A's first */
	for (int pass = 0; pass < 2; pass++) {
		const struct side *s = pass ? b : a, *other = pass ? a : b;
		cJSON_ArrayForEach(it, s->fields) {
			const cJSON *fa, *fb;
			cJSON *f;
			if (pass && cJSON_GetObjectItemCaseSensitive(other->fields, it->string))
				continue;
			fa = cJSON_GetObjectItemCaseSensitive(a->fields, it->string);
			fb = cJSON_GetObjectItemCaseSensitive(b->fields, it->string);
			bool same = fa && fb && cJSON_Compare(fa, fb, true);
			differ = differ || !same;
			if (!(f = cJSON_CreateObject()))
				goto fail;
			cJSON_AddItemToArray(fields, f);
			if (!set_str(f, "field", it->string) || !cJSON_AddBoolToObject(f, "same", same) ||
			    !cJSON_AddItemToObject(f, "a", fa ? cJSON_Duplicate(fa, 1) : cJSON_CreateNull()) ||
			    !cJSON_AddItemToObject(f, "b", fb ? cJSON_Duplicate(fb, 1) : cJSON_CreateNull()))
				goto fail;
		}
	}
	if (diverge(a, b, &turn, &stage)) {
		cJSON *d = cJSON_AddObjectToObject(o, "diverge");
		differ = true;
		if (!d || !cJSON_AddNumberToObject(d, "turn", turn) ||
		    !cJSON_AddStringToObject(d, "stage", stage))
			goto fail;
	} else if (!cJSON_AddNullToObject(o, "diverge")) {
		goto fail;
	}
	if (!(un = cJSON_AddArrayToObject(o, "unanswered")))
		goto fail;
	for (int pass = 0; pass < 2; pass++)
		cJSON_ArrayForEach(it, (pass ? b : a)->unanswered) {
			cJSON *u = cJSON_Duplicate(it, 1);
			if (!u || !cJSON_AddStringToObject(u, "run", pass ? "b" : "a")) {
				cJSON_Delete(u);
				goto fail;
			}
			cJSON_AddItemToArray(un, u);
		}
	*change = a->has_expect && b->has_expect && a->correct != b->correct
			  ? (b->correct ? "fixed" : "broken")
		  : differ ? "changed" : "same";
	set_str(o, "change", *change);
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* field_text: "value/status rRETRIES [branches]" of one side of a field ("-" when the side has none). */
static char *field_text(const cJSON *fv)
{
	char *v, *t;
	if (!fv || cJSON_IsNull(fv))
		return strdup("-");
	const char *br = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fv, "branch"));
	v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(fv, "value"));
	t = str_printf("%s/%s r%d%s%s%s", v ? v : "?",
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fv, "status")),
		(int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(fv, "retries")),
		br ? " [" : "", br ? br : "", br ? "]" : "");
	free(v);
	return t;
}

/* changed_fields: "field: A -> B; ..." of the fields that differ (caller frees). */
static char *changed_fields(const cJSON *call)
{
	const cJSON *it;
	char *all = strdup("");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(call, "fields")) {
		char *fa, *fb, *n;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "same")) || !all)
			continue;
		fa = field_text(cJSON_GetObjectItemCaseSensitive(it, "a"));
		fb = field_text(cJSON_GetObjectItemCaseSensitive(it, "b"));
		n = str_printf("%s%s%s: %s -> %s", all, all[0] ? "; " : "",
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "field")), fa, fb);
		free(fa);
		free(fb);
		free(all);
		all = n;
	}
	return all;
}

static char *diverge_text(const cJSON *call)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(call, "diverge");
	if (!cJSON_IsObject(d))
		return strdup("-");
	return str_printf("turn %d %s", (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(d, "turn")),
		   cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "stage")));
}

static char *unanswered_text(const cJSON *call)
{
	const cJSON *it;
	char *all = strdup("");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(call, "unanswered")) {
		const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "field"));
		char *n;
		if (!all)
			break;
		n = str_printf("%s%s%s turn %d %s", all, all[0] ? ", " : "",
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "run")),
			(int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(it, "turn")),
			f ? f : "?");
		free(all);
		all = n;
	}
	if (all && !all[0]) {
		free(all);
		all = strdup("-");
	}
	return all;
}

static const char *side_str(const cJSON *call, const char *side, const char *key)
{
	const char *s = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(call, side), key));
	return s ? s : "";
}

/* print_call: one matched call in fmt (table and markdown leave out unchanged calls). */
static void print_call(FILE *out, enum rundiff_format fmt_, const cJSON *call)
{
	const char *change = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(call, "change"));
	char *fields, *div, *un;

	if (fmt_ == RUNDIFF_JSON) {
		char *s = cJSON_PrintUnformatted(call);
		if (s)
			fprintf(out, "%s\n", s);
		free(s);
		return;
	}
	if (fmt_ != RUNDIFF_CSV && strcmp(change, "same") == 0)
		return;
	fields = changed_fields(call);
	div = diverge_text(call);
	un = unanswered_text(call);
	if (fmt_ == RUNDIFF_CSV) {
		const char *cols[] = {cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(call, "call")),
				      change, side_str(call, "a", "status"), side_str(call, "b", "status"),
				      side_str(call, "a", "reason"), side_str(call, "b", "reason"), div,
				      fields, un};
		for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
			if (i)
				fputc(',', out);
			csv_write_field(out, cols[i] ? cols[i] : "");
		}
		fputc('\n', out);
	} else {
		const char *sep = fmt_ == RUNDIFF_MARKDOWN ? " | " : "  ";
		fprintf(out, "%s%-20s%s%-8s%s%-10s -> %-10s%s%-18s%s%s%s%s%s\n",
			fmt_ == RUNDIFF_MARKDOWN ? "| " : "",
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(call, "call")), sep,
			change, sep, side_str(call, "a", "status"), side_str(call, "b", "status"), sep,
			div, sep, fields && fields[0] ? fields : "-", sep, un ? un : "-",
			fmt_ == RUNDIFF_MARKDOWN ? " |" : "");
	}
	free(fields);
	free(div);
	free(un);
}

static void print_head(FILE *out, enum rundiff_format f, long long a, long long b)
{
	if (f == RUNDIFF_CSV)
		fprintf(out, "call,change,status_a,status_b,reason_a,reason_b,diverge,fields,unanswered\n");
	else if (f == RUNDIFF_MARKDOWN)
		fprintf(out, "## Run %lld against run %lld\n\n| call | change | status A -> B | first "
			     "divergence | fields (value/status retries, A -> B) | unanswered |\n"
			     "|---|---|---|---|---|---|\n", a, b);
	else if (f == RUNDIFF_TABLE)
		fprintf(out, "run %lld -> run %lld\n%-20s  %-8s  %-24s  %-18s  %s  %s\n", a, b, "call",
			"change", "status A -> B", "first divergence", "fields (A -> B)", "unanswered");
}

static bool required(const struct run_side *ra, const struct run_side *rb, const char *field)
{
	const struct form *f = rb->form ? rb->form : ra->form;
	int q = f ? form_find(f, field) : -1;
	return q >= 0 && f->questions[q].required;
}

static cJSON *acc_or_null(double n, double ok)
{
	return n > 0 ? cJSON_CreateNumber(ok / n) : cJSON_CreateNull();
}

enum err rundiff_run(struct store *sa, long long a, struct store *sb, long long b,
		     enum rundiff_format fmt_, bool gate, FILE *out, FILE *err,
		     struct rundiff_result *res, char **errmsg)
{
	struct run_side ra, rb;
	struct score sca = {0}, scb = {0};
	cJSON *counts = cJSON_CreateObject(), *broke = cJSON_CreateArray(),
	      *reasons = cJSON_CreateArray(), *sum = NULL;
	char **keys_b = NULL;
	bool *matched_b = NULL;
	enum err e;

	memset(res, 0, sizeof *res);
	*errmsg = NULL;
	memset(&rb, 0, sizeof rb);
	if ((e = run_side_load(sa, a, &ra, errmsg)) != ERR_OK ||
	    (e = run_side_load(sb, b, &rb, errmsg)) != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	if (!counts || !broke || !reasons ||
	    (rb.n && (!(keys_b = calloc((size_t)rb.n, sizeof *keys_b)) ||
		      !(matched_b = calloc((size_t)rb.n, sizeof *matched_b)))))
		goto out;
	if (!b_keys(&ra, &rb, sa == sb, keys_b))
		goto out;
	print_head(out, fmt_, a, b);
	for (int i = 0; i < ra.n; i++) {
		char *key = call_key(&ra.calls[i]);
		struct side x, y;
		const char *change = NULL;
		cJSON *call;
		int j;

		if (!key)
			goto out;
		for (j = 0; j < rb.n; j++)
			if (!matched_b[j] && strcmp(keys_b[j], key) == 0)
				break;
		if (j == rb.n) {
			res->only_a++;
			free(key);
			continue;
		}
		matched_b[j] = true;
		if ((e = side_load(&ra, &ra.calls[i], &x)) != ERR_OK ||
		    (e = side_load(&rb, &rb.calls[j], &y)) != ERR_OK) {
			side_free(&x);
			free(key);
			*errmsg = strdup(e == ERR_DB ? store_error(sa) : err_str(e));
			goto out;
		}
		e = ERR_NOMEM;
		call = compare(key, &x, &y, &change);
		if (call) {
			res->calls++;
			if (strcmp(change, "fixed") == 0)
				res->fixed++;
			else if (strcmp(change, "broken") == 0)
				res->broken++;
			else if (strcmp(change, "changed") == 0)
				res->changed++;
			else
				res->same++;
			if (x.has_expect && y.has_expect) {
				const cJSON *it;
				sca.fields += x.score.fields;
				sca.correct += x.score.correct;
				scb.fields += y.score.fields;
				scb.correct += y.score.correct;
				count_field(counts, x.field_ok, 0);
				count_field(counts, y.field_ok, 2);
				/* a call broke: it was right and is not, or a required field was
				 * right and is not */
				bool br = strcmp(change, "broken") == 0;
				cJSON_ArrayForEach(it, x.field_ok)
					if (cJSON_IsTrue(it) && required(&ra, &rb, it->string) &&
					    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(y.field_ok, it->string)))
						br = true;
				if (br)
					cJSON_AddItemToArray(broke, cJSON_CreateString(key));
			}
			print_call(out, fmt_, call);
			cJSON_Delete(call);
		}
		side_free(&x);
		side_free(&y);
		free(key);
		if (!call)
			goto out;
	}
	for (int j = 0; j < rb.n; j++)
		res->only_b += !matched_b[j];
	res->p = rundiff_mcnemar_p(res->broken, res->fixed);

	/* the gate */
	if (res->broken > res->fixed && res->p < RUNDIFF_ALPHA) {
		char *r = str_printf("B is worse than A beyond chance on the same calls: McNemar's exact "
			      "test, %d broken against %d fixed, p = %.4g < %.2g",
			      res->broken, res->fixed, res->p, RUNDIFF_ALPHA);
		if (!r)
			goto out;
		cJSON_AddItemToArray(reasons, cJSON_CreateString(r));
		free(r);
	}
	{
		const cJSON *it;
		cJSON_ArrayForEach(it, counts) {
			double na = cJSON_GetArrayItem(it, 0)->valuedouble,
			       oa = cJSON_GetArrayItem(it, 1)->valuedouble,
			       nb = cJSON_GetArrayItem(it, 2)->valuedouble,
			       ob = cJSON_GetArrayItem(it, 3)->valuedouble;
			if (na > 0 && nb > 0 && ob / nb < oa / na && required(&ra, &rb, it->string)) {
				char *r = str_printf("required field '%s': accuracy fell from %.1f%% to %.1f%%",
					      it->string, 100 * oa / na, 100 * ob / nb);
				if (!r)
					goto out;
				cJSON_AddItemToArray(reasons, cJSON_CreateString(r));
				free(r);
			}
		}
	}
	res->gate_failed = cJSON_GetArraySize(reasons) > 0;

	/* the summary */
	{
		cJSON *acc, *fa, *mc, *g;
		const cJSON *it;
		if (!(sum = cJSON_CreateObject()) || !cJSON_AddBoolToObject(sum, "summary", true) ||
		    !cJSON_AddNumberToObject(sum, "run_a", (double)a) ||
		    !cJSON_AddNumberToObject(sum, "run_b", (double)b) ||
		    !cJSON_AddNumberToObject(sum, "calls", res->calls) ||
		    !cJSON_AddNumberToObject(sum, "fixed", res->fixed) ||
		    !cJSON_AddNumberToObject(sum, "broken", res->broken) ||
		    !cJSON_AddNumberToObject(sum, "changed", res->changed) ||
		    !cJSON_AddNumberToObject(sum, "same", res->same) ||
		    !cJSON_AddNumberToObject(sum, "only_a", res->only_a) ||
		    !cJSON_AddNumberToObject(sum, "only_b", res->only_b) ||
		    !(acc = cJSON_AddObjectToObject(sum, "accuracy")) ||
		    !cJSON_AddItemToObject(acc, "a", acc_or_null(sca.fields, sca.correct)) ||
		    !cJSON_AddItemToObject(acc, "b", acc_or_null(scb.fields, scb.correct)) ||
		    !(fa = cJSON_AddObjectToObject(sum, "fields")))
			goto out;
		cJSON_ArrayForEach(it, counts) {
			cJSON *o = cJSON_AddObjectToObject(fa, it->string);
			if (!o ||
			    !cJSON_AddItemToObject(o, "a", acc_or_null(cJSON_GetArrayItem(it, 0)->valuedouble,
								       cJSON_GetArrayItem(it, 1)->valuedouble)) ||
			    !cJSON_AddItemToObject(o, "b", acc_or_null(cJSON_GetArrayItem(it, 2)->valuedouble,
								       cJSON_GetArrayItem(it, 3)->valuedouble)) ||
			    !cJSON_AddBoolToObject(o, "required", required(&ra, &rb, it->string)))
				goto out;
		}
		if (!(mc = cJSON_AddObjectToObject(sum, "mcnemar")) ||
		    !cJSON_AddNumberToObject(mc, "broken", res->broken) ||
		    !cJSON_AddNumberToObject(mc, "fixed", res->fixed) ||
		    !cJSON_AddNumberToObject(mc, "p", res->p) ||
		    !cJSON_AddNumberToObject(mc, "alpha", RUNDIFF_ALPHA) ||
		    !(g = cJSON_AddObjectToObject(sum, "gate")) ||
		    !cJSON_AddBoolToObject(g, "failed", res->gate_failed) ||
		    !cJSON_AddItemToObject(g, "reasons", cJSON_Duplicate(reasons, 1)) ||
		    !cJSON_AddItemToObject(g, "broke", cJSON_Duplicate(broke, 1)))
			goto out;
		if (fmt_ == RUNDIFF_JSON) {
			char *s = cJSON_PrintUnformatted(sum);
			if (!s)
				goto out;
			fprintf(out, "%s\n", s);
			free(s);
		} else if (fmt_ != RUNDIFF_CSV) {
			const char *li = fmt_ == RUNDIFF_MARKDOWN ? "- " : "";
			fprintf(out, "\n%s%d calls matched: %d fixed, %d broken, %d changed, %d unchanged"
				     " (%d only in run %lld, %d only in run %lld)\n",
				li, res->calls, res->fixed, res->broken, res->changed, res->same,
				res->only_a, a, res->only_b, b);
			if (sca.fields && scb.fields)
				fprintf(out, "%sform-completion accuracy: run %lld %.1f%%, run %lld %.1f%%\n",
					li, a, 100 * score_accuracy(&sca), b, 100 * score_accuracy(&scb));
			cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(sum, "fields")) {
				const cJSON *x = cJSON_GetObjectItemCaseSensitive(it, "a"),
					    *y = cJSON_GetObjectItemCaseSensitive(it, "b");
				if (cJSON_IsNumber(x) && cJSON_IsNumber(y))
					fprintf(out, "%s  %-20s %6.1f%% -> %6.1f%%%s\n", li, it->string,
						100 * x->valuedouble, 100 * y->valuedouble,
						cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "required"))
							? "  (required)" : "");
			}
			fprintf(out, "%sMcNemar's exact test (broken %d, fixed %d): p = %.4g\n", li,
				res->broken, res->fixed, res->p);
		}
	}
	if (gate) {
		const cJSON *it;
		if (!res->gate_failed) {
			fprintf(err, "formdesk diff: gate passed: run %lld is not worse than run %lld "
				     "(McNemar's exact test at %.2g, p = %.4g; no required field's "
				     "accuracy fell)\n", b, a, RUNDIFF_ALPHA, res->p);
			if (sca.fields == 0)
				fprintf(err, "formdesk diff: note: no matched call has an expected form, "
					     "so correctness was not judged\n");
		} else {
			fprintf(err, "formdesk diff: gate failed: run %lld is worse than run %lld\n", b, a);
			cJSON_ArrayForEach(it, reasons)
				fprintf(err, "  %s\n", it->valuestring);
			fprintf(err, "  calls that broke:");
			cJSON_ArrayForEach(it, broke)
				fprintf(err, " %s", it->valuestring);
			fprintf(err, "%s\n", cJSON_GetArraySize(broke) ? "" : " (none)");
		}
	}
	e = ERR_OK;
out:
	if (e != ERR_OK && !*errmsg)
		*errmsg = strdup(err_str(e));
	keys_free(keys_b, rb.n);
	free(matched_b);
	cJSON_Delete(counts);
	cJSON_Delete(broke);
	cJSON_Delete(reasons);
	cJSON_Delete(sum);
	run_side_free(&ra);
	run_side_free(&rb);
	return e;
}
