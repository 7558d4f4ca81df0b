/* bench: unit tests and integration calls of the benchmark (bench.h). */
#include "bench.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/rules/flow.h"
#include "agent/stages/http.h"
#include "agent/hindi/namematch.h"
#include "agent/hindi/parse.h"
#include "agent/stages/reply_script.h"
#include "audio/audiofile.h"
#include "sessions/store/benchdb.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "replycheck.h"
#include "sessions/corpus/score.h"
#include "wer.h"
#include "base/vec.h"

#define STT_RATE 16000

/* ---- a set of strings (open addressing), for keys done and keys planned ---- */

struct set {
	char **slot;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

/* set_find: the slot of s, or of the empty place it would go. */
static size_t set_find(const struct set *st, const char *s)
{
	size_t i = hash(s) & (st->cap - 1);
	while (st->slot[i] && strcmp(st->slot[i], s) != 0)
		i = (i + 1) & (st->cap - 1);
	return i;
}

static bool set_has(const struct set *st, const char *s)
{
	return st->cap && st->slot[set_find(st, s)];
}

/* set_add: add a copy of s; false on allocation failure. */
static bool set_add(struct set *st, const char *s)
{
	if ((st->n + 1) * 2 > st->cap) {
		struct set big = {calloc(st->cap ? st->cap * 2 : 256, sizeof(char *)),
				  st->cap ? st->cap * 2 : 256, st->n};
		if (!big.slot)
			return false;
		for (size_t i = 0; i < st->cap; i++)
			if (st->slot[i])
				big.slot[set_find(&big, st->slot[i])] = st->slot[i];
		free(st->slot);
		*st = big;
	}
	size_t i = set_find(st, s);
	if (!st->slot[i]) {
		if (!(st->slot[i] = strdup(s)))
			return false;
		st->n++;
	}
	return true;
}

static void set_free(struct set *st)
{
	for (size_t i = 0; i < st->cap; i++)
		free(st->slot[i]);
	free(st->slot);
	*st = (struct set){0};
}

/* ---- the plan ---- */

/* One prefix of an expected conversation: an EXTRACT and a REPLY unit test. */
struct unit {
	char *key;
	const struct corpus_call *call;
	int turn;                /* 1-based caller turn */
	int asked;               /* question index */
	const char *transcript;  /* the reference transcript of the turn */
	cJSON *history_before;   /* what EXTRACT sees */
	cJSON *want_value;       /* expected value (NULL unless the words give one) */
	bool want_skip;          /* the caller said she does not know or declines */
	bool want_nothing;       /* the words answer nothing (the rules then retry) */
	cJSON *decision;         /* the rule layer's decision from the expected answer */
	cJSON *history_after;    /* what REPLY sees */
	bool end;                /* the decision ends the call */
	char *reference;         /* the script replier's words for the decision */
	char *answer;            /* the expected answer as text, NULL when none */
};

struct utt {
	const struct corpus_turn *turn;
	const char *caller;
};

struct bench {
	const struct bench_config *cfg;
	struct benchdb *db;
	char *scope, *call_spec;
	struct unit *units;
	int n_units, cap_units;
	struct utt *utts;
	int n_utts, cap_utts;
	const struct corpus_call **calls;
	long n_calls;
	struct expect *expect;   /* per call (as calls): its expected conversation */
	struct bench_counts counts;
	/* network */
	struct http_client *http;
	int inflight;
	bool extract_async, reply_async;
	/* the STT results: utterance id -> transcript (NULL on failure) and cost */
	struct set stt_keys;
	char **stt_hyp;
	double *stt_cost, *stt_ms;
	bool *stt_failed;       /* its request failed: calls on it are errors too */
	bool *stt_wrong;        /* its transcript has genuine errors (LLM-WER) */
	/* progress */
	const char *stage;
	long done, total;
	enum err err;
	char *msg;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void fail(struct bench *b, enum err e, const char *what)
{
	if (b->err != ERR_OK)
		return;
	b->err = e;
	if (asprintf(&b->msg, "%s: %s%s%s", what, err_str(e), e == ERR_DB ? ": " : "",
		     e == ERR_DB ? benchdb_error(b->db) : "") < 0)
		b->msg = NULL;
}

static void progress(struct bench *b)
{
	b->done++;
	if (b->cfg->progress)
		b->cfg->progress(b->cfg->ud, b->stage, b->done, b->total);
}

static cJSON *history_push(cJSON *h, const char *role, const char *content)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "role", role) ||
	    !cJSON_AddStringToObject(o, "content", content ? content : "") ||
	    !cJSON_AddItemToArray(h, o)) {
		cJSON_Delete(o);
		return NULL;
	}
	return h;
}

/* value_text: a stored value as the words a reply could echo; NULL for booleans and
 * null. New string. */
static char *value_text(const cJSON *v)
{
	char *s = NULL;
	if (cJSON_IsString(v))
		return strdup(v->valuestring);
	if (cJSON_IsNumber(v)) {
		if (fabs(v->valuedouble - round(v->valuedouble)) < 1e-9 && fabs(v->valuedouble) < 1e15)
			return asprintf(&s, "%.0f", v->valuedouble) < 0 ? NULL : s;
		return asprintf(&s, "%g", v->valuedouble) < 0 ? NULL : s;
	}
	return NULL;
}

/* flow_start / flow_turn with the decision as JSON (decision.h's shape), which is what
 * the bench grades and hands to REPLY. Output: *out (caller frees). Errors: as those. */
static enum err as_json(enum err e, struct decision *d, cJSON **out)
{
	if (e == ERR_OK && !(*out = decision_to_json(d)))
		e = ERR_NOMEM;
	decision_free(d);
	return e;
}

static enum err start_json(struct flow *fl, cJSON **out)
{
	struct decision *d = NULL;
	enum err e = flow_start(fl, &d);
	return as_json(e, d, out);
}

static enum err turn_json(struct flow *fl, const struct extraction *ex, cJSON **out)
{
	struct decision *d = NULL;
	enum err e = flow_turn(fl, ex, &d);
	return as_json(e, d, out);
}

static const char *tool_name(const cJSON *decision)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(decision, "tool_call"), "name");
	return cJSON_IsString(n) ? n->valuestring : "";
}

static const char *tool_arg(const cJSON *decision, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(decision, "tool_call"),
						 "arguments"),
		key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* script_words: what the script replier says for decision (dec: the same as the struct,
 * NULL when only the JSON is at hand). Returns a new string (caller frees), NULL when it
 * says nothing or memory is short. */
static char *script_words(const struct form *f, const cJSON *decision, const cJSON *history,
			  const struct decision *dec)
{
	struct reply_request rq = {f, decision, history, dec};
	char *t = NULL;
	if (reply_script_reply(NULL, &rq, &t) != ERR_OK)
		return NULL;
	return t;
}

static struct unit *unit_add(struct bench *b)
{
	struct unit *v = vec_grow(b->units, b->n_units, &b->cap_units, sizeof *v, 256);
	if (!v)
		return NULL;
	b->units = v;
	struct unit *u = &b->units[b->n_units++];
	return u;
}

static void unit_free(struct unit *u)
{
	free(u->key);
	cJSON_Delete(u->history_before);
	cJSON_Delete(u->want_value);
	cJSON_Delete(u->decision);
	cJSON_Delete(u->history_after);
	free(u->reference);
	free(u->answer);
}

/* What a caller turn's words give EXTRACT for the field asked, in the expected
 * conversation: its expected value, the skip flag (she does not know or declines), or
 * nothing (words that answer nothing: the rules retry, and a field whose retries run out
 * ends "skipped", a call whose required field's run out "failed" -- the rule layer's
 * status, never EXTRACT's). */
enum said { SAID_VALUE, SAID_SKIP, SAID_NOTHING };

#define MAX_WALKS 4096

/* A turn of a call's expected conversation: the field asked, what the words give, and
 * the form after it (flow_form_status / flow_form_data), for finding where an
 * integration call went wrong. */
struct expect_turn {
	int asked;
	enum said said;
	cJSON *status, *data;
};

struct expect {
	struct expect_turn *t;
	int n;
};

static void expect_free(struct expect *x)
{
	for (int i = 0; x && i < x->n; i++) {
		cJSON_Delete(x->t[i].status);
		cJSON_Delete(x->t[i].data);
	}
	if (x)
		free(x->t);
}

/* said_options: what the words may give for a field whose expected status is st, most
 * likely first. Output: count (0: the expected form cannot have asked it). */
static int said_options(const cJSON *st, enum said out[2])
{
	const char *v = cJSON_IsString(st) ? st->valuestring : "";
	if (strcmp(v, "answered") == 0) {
		out[0] = SAID_VALUE, out[1] = SAID_NOTHING;
		return 2;
	}
	if (strcmp(v, "skipped") == 0) {
		/* nothing first: a field skipped because its retries ran out is the rules'
		 * doing; the skip flag where the turns leave no room for retries */
		out[0] = SAID_NOTHING, out[1] = SAID_SKIP;
		return 2;
	}
	out[0] = SAID_NOTHING;
	return strcmp(v, "empty") == 0 || !v[0] ? 1 : 0;
}

/* said_extraction: EXTRACT's expected output for field q. New object, NULL on
 * allocation failure. */
static struct extraction *said_extraction(const struct form_question *q, const cJSON *val,
					  enum said s)
{
	struct extraction *ex = extraction_new();
	if (!ex || s == SAID_NOTHING)
		return ex;
	if (extraction_add(ex, q->name, s == SAID_SKIP ? NULL : cJSON_Duplicate(val, 1),
			   s == SAID_SKIP, s == SAID_SKIP ? "dont_know" : NULL, NULL) != ERR_OK) {
		extraction_free(ex);
		return NULL;
	}
	return ex;
}

/* walk: drive the rules from empty with choice idx[t] of each turn's options. Output:
 * nopt[t] the options of the turns reached, *stop the turn the walk could not go past
 * (n_turns when it used every turn). True when the rules end exactly after the last turn
 * with the expected call status and field statuses. Errors: *e (allocation, the rules). */
static bool walk(struct bench *b, const struct corpus_call *call, const int *idx, int *nopt,
		 int *stop, enum err *e)
{
	const struct form *f = b->cfg->form;
	struct flow *fl = NULL;
	struct decision *d = NULL;
	bool ok = false;
	*stop = 0;
	if ((*e = flow_new(f, b->cfg->lex, b->cfg->today, &fl)) != ERR_OK ||
	    (*e = flow_start(fl, &d)) != ERR_OK)
		goto out;
	for (int t = 0; t < call->n_turns; t++, *stop = t) {
		int asked = flow_current(fl);
		enum said opt[2];
		if (flow_status(fl) != CALL_IN_PROGRESS || asked < 0)
			goto out;
		const struct form_question *q = &f->questions[asked];
		if (!(nopt[t] = said_options(cJSON_GetObjectItemCaseSensitive(call->expected_status,
									      q->name),
					     opt)))
			goto out;
		struct extraction *ex = said_extraction(
			q, cJSON_GetObjectItemCaseSensitive(call->expected_data, q->name), opt[idx[t]]);
		decision_free(d);
		d = NULL;
		*e = ex ? flow_turn(fl, ex, &d) : ERR_NOMEM;
		extraction_free(ex);
		if (*e != ERR_OK)
			goto out;
	}
	ok = flow_status(fl) != CALL_IN_PROGRESS &&
	     (!call->expected_call_status ||
	      strcmp(call_status_name(flow_status(fl)), call->expected_call_status) == 0);
	/* and every field with its expected status */
	const cJSON *st;
	cJSON_ArrayForEach(st, flow_form_status(fl)) {
		const cJSON *want = cJSON_GetObjectItemCaseSensitive(call->expected_status, st->string);
		ok &= !cJSON_IsString(want) || !cJSON_IsString(st) ||
		      strcmp(want->valuestring, st->valuestring) == 0;
	}
out:
	decision_free(d);
	flow_free(fl);
	return ok;
}

/* choose: what each turn's words give, as the index into said_options of the field
 * then asked (choice[t], n_turns entries): the first choices, most likely first, with
 * which the rules reach the expected end in exactly the call's turns (at most MAX_WALKS
 * tries; none found: *found false, the most likely ones, and the plan stops where they
 * part). Errors: allocation, the rules. */
static enum err choose(struct bench *b, const struct corpus_call *call, int *choice, bool *found)
{
	int n = call->n_turns, *nopt = calloc((size_t)n + 1, sizeof *nopt), stop = 0;
	enum err e = ERR_NOMEM;
	memset(choice, 0, (size_t)n * sizeof *choice);
	*found = false;
	if (!nopt)
		return e;
	for (int tries = 0; tries < MAX_WALKS; tries++) {
		if ((*found = walk(b, call, choice, nopt, &stop, &e)))
			goto out;
		if (e != ERR_OK)
			goto out;
		/* the next choice at or before the turn the walk stopped at */
		int p = stop < n ? stop : n - 1;
		while (p >= 0 && choice[p] + 1 >= nopt[p])
			p--;
		if (p < 0)
			break;
		choice[p]++;
		for (int t = p + 1; t < n; t++)
			choice[t] = 0;
	}
	memset(choice, 0, (size_t)n * sizeof *choice);
	e = ERR_OK;
out:
	free(nopt);
	return e;
}

/* plan_call: walk call's expected conversation, adding the prefixes not seen yet. */
static enum err plan_call(struct bench *b, const struct corpus_call *call, struct set *seen)
{
	const struct form *f = b->cfg->form;
	struct flow *fl = NULL;
	cJSON *d = NULL, *h = cJSON_CreateArray();
	char *key = NULL, *words = NULL;
	size_t key_len = 0;
	FILE *kf = open_memstream(&key, &key_len);
	struct extraction *ex = NULL;
	int *choice = calloc((size_t)call->n_turns + 1, sizeof *choice);
	enum err e = ERR_NOMEM;

	struct expect *xp = &b->expect[b->n_calls - 1];
	if (!h || !kf || !choice || !(xp->t = calloc((size_t)call->n_turns + 1, sizeof *xp->t)))
		goto out;
	bool reached = false;
	if ((e = choose(b, call, choice, &reached)) != ERR_OK)
		goto out;
	fprintf(kf, "%s|%s", call->caller ? call->caller : "",
		call->n_turns && call->turns[0].condition ? call->turns[0].condition : "");
	if ((e = flow_new(f, b->cfg->lex, b->cfg->today, &fl)) != ERR_OK ||
	    (e = start_json(fl, &d)) != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	if (!(words = script_words(f, d, h, NULL)) || !history_push(h, "agent", words))
		goto out;
	for (int t = 0; t < call->n_turns; t++) {
		const struct corpus_turn *turn = &call->turns[t];
		int asked = flow_current(fl);
		if (flow_status(fl) != CALL_IN_PROGRESS || asked < 0) {
			reached = false; /* the rules ended before the turns ran out */
			break;
		}
		const struct form_question *q = &f->questions[asked];
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(call->expected_status, q->name);
		const cJSON *val = cJSON_GetObjectItemCaseSensitive(call->expected_data, q->name);
		enum said opt[2];
		int nopt = said_options(st, opt);
		if (!nopt) {
			reached = false; /* the rules ask what the expected form has not */
			break;
		}
		enum said said = opt[choice[t] < nopt ? choice[t] : 0];
		fprintf(kf, "|%s", turn->utterance_id);
		fflush(kf);
		if (!(ex = said_extraction(q, val, said)))
			goto out;
		bool fresh = !set_has(seen, key);
		struct unit *u = NULL;
		if (fresh) {
			if (!set_add(seen, key) || !(u = unit_add(b)) || !(u->key = strdup(key)) ||
			    !(u->history_before = cJSON_Duplicate(h, 1)))
				goto out;
			u->call = call;
			u->turn = t + 1;
			u->asked = asked;
			u->transcript = turn->transcript;
			u->want_skip = said == SAID_SKIP;
			u->want_nothing = said == SAID_NOTHING;
			if (said == SAID_VALUE && !(u->want_value = cJSON_Duplicate(val, 1)))
				goto out;
			u->answer = said == SAID_VALUE ? value_text(val) : NULL;
		}
		if (!history_push(h, "user", turn->transcript ? turn->transcript : ""))
			goto out;
		cJSON_Delete(d);
		d = NULL;
		if ((e = turn_json(fl, ex, &d)) != ERR_OK)
			goto out;
		e = ERR_NOMEM;
		xp->t[t] = (struct expect_turn){asked, said, cJSON_Duplicate(flow_form_status(fl), 1),
						cJSON_Duplicate(flow_form_data(fl), 1)};
		xp->n = t + 1;
		if (!xp->t[t].status || !xp->t[t].data)
			goto out;
		extraction_free(ex);
		ex = NULL;
		free(words);
		if (!(words = script_words(f, d, h, NULL)))
			goto out;
		if (fresh) {
			u = &b->units[b->n_units - 1];
			if (!(u->decision = cJSON_Duplicate(d, 1)) ||
			    !(u->history_after = cJSON_Duplicate(h, 1)) || !(u->reference = strdup(words)))
				goto out;
			u->end = strcmp(tool_name(d), "end_call") == 0;
			if (u->end)
				b->counts.reply_end++;
			else
				b->counts.reply_ask++;
		}
		if (!history_push(h, "agent", words))
			goto out;
	}
	/* or the turns ran out before the rules ended the call, or with another status */
	if (!reached || flow_status(fl) == CALL_IN_PROGRESS)
		b->counts.plan_mismatches++;
	e = ERR_OK;
out:
	free(choice);
	if (kf)
		fclose(kf);
	free(key);
	free(words);
	extraction_free(ex);
	cJSON_Delete(d);
	cJSON_Delete(h);
	flow_free(fl);
	return e;
}

static enum err plan(struct bench *b)
{
	const struct corpus *c = b->cfg->corpus;
	struct set seen = {0}, utt_seen = {0}, callers = {0}, conds = {0};
	enum err e = ERR_NOMEM;

	if (!(b->calls = calloc((size_t)c->n_calls + 1, sizeof *b->calls)) ||
	    !(b->expect = calloc((size_t)c->n_calls + 1, sizeof *b->expect)))
		goto out;
	for (int i = 0; i < c->n_calls; i++) {
		const struct corpus_call *call = &c->calls[i];
		if (!call->expected_status || !call->expected_data)
			continue;
		b->calls[b->n_calls++] = call;
		if (!set_add(&callers, call->caller ? call->caller : "") ||
		    !set_add(&conds, call->n_turns && call->turns[0].condition
					     ? call->turns[0].condition
					     : ""))
			goto out;
		if ((e = plan_call(b, call, &seen)) != ERR_OK)
			goto out;
		e = ERR_NOMEM;
		for (int t = 0; t < call->n_turns; t++) {
			const struct corpus_turn *turn = &call->turns[t];
			if (set_has(&utt_seen, turn->utterance_id))
				continue;
			if (!set_add(&utt_seen, turn->utterance_id))
				goto out;
			struct utt *v = vec_grow(b->utts, b->n_utts, &b->cap_utts, sizeof *v, 256);
			if (!v)
				goto out;
			b->utts = v;
			b->utts[b->n_utts++] = (struct utt){turn, call->caller};
		}
	}
	b->counts.utterances = b->n_utts;
	b->counts.extract = b->n_units;
	b->counts.calls = b->n_calls;
	b->counts.callers = (long)callers.n;
	b->counts.conditions = (long)conds.n;
	e = b->n_calls ? ERR_OK : ERR_INVALID;
	if (e != ERR_OK && asprintf(&b->msg, "corpus %s: no call has an expected form (expected.jsonl)",
				    c->dir) < 0)
		b->msg = NULL;
out:
	set_free(&seen);
	set_free(&utt_seen);
	set_free(&callers);
	set_free(&conds);
	return e;
}

/* ---- recording results ---- */

static void put(struct bench *b, const char *stage, const char *spec, const char *key, cJSON *row)
{
	char *s = row ? cJSON_PrintUnformatted(row) : NULL;
	enum err e;
	if (!s)
		fail(b, ERR_NOMEM, "result");
	else if ((e = benchdb_put(b->db, stage, b->scope, spec, key, s)) != ERR_OK)
		fail(b, e, "bench database");
	free(s);
	cJSON_Delete(row);
	progress(b);
}

/* usage: the cost and latency of the backend call just made inline. */
static void usage_of(const struct backend *be, double wall_ms, double *ms, double *cost, char *error,
		     size_t n)
{
	struct backend_usage u;
	*ms = wall_ms;
	*cost = 0;
	if (backend_last_usage(be, &u)) {
		if (u.total_ms > 0)
			*ms = u.total_ms;
		*cost = u.cost_usd > 0 ? u.cost_usd : 0;
		if (error && u.error[0])
			snprintf(error, n, "%s", u.error);
	}
}

/* request_failed: the backend call returned e with usage u: true when no answer came
 * from the provider (nothing listening, a timeout, an HTTP error after the retries, a
 * request that could not be built), which is an error, asked again on the next run;
 * false when it answered (2xx) or is offline, whatever it said, which is a result. */
static bool request_failed(const struct backend *be, enum err e, const struct backend_usage *u)
{
	if (e == ERR_OK || !backend_is_network(be))
		return false;
	return !u || u->http_status < 200 || u->http_status >= 300;
}

/* errored: mark row as an error with its cause and count it in *n. */
static void errored(struct bench *b, cJSON *row, const char *cause, long *n)
{
	cJSON_AddBoolToObject(row, "errored", true);
	(*n)++;
	if (!b->counts.first_error[0])
		snprintf(b->counts.first_error, sizeof b->counts.first_error, "%s", cause);
}

/* ---- STT ---- */

enum err bench_judge_offline(void *ctx, const char *ref, const char *hyp, bool *equivalent)
{
	const struct lexicon *lex = ctx;
	char *a = NULL, *c = NULL;
	bool fa = false, fc = false;
	double va = 0, vc = 0;
	enum err e;
	*equivalent = false;
	if (!ref[0] || !hyp[0])
		return ERR_OK;
	if (namematch_judge(ref, hyp) == NAMEMATCH_SAME) {
		*equivalent = true;
		return ERR_OK;
	}
	if ((e = parse_digits(lex, ref, &a)) != ERR_OK || (e = parse_digits(lex, hyp, &c)) != ERR_OK)
		goto out;
	if (a && c && strcmp(a, c) == 0) {
		*equivalent = true;
		goto out;
	}
	if ((e = parse_number(lex, ref, &fa, &va)) != ERR_OK ||
	    (e = parse_number(lex, hyp, &fc, &vc)) != ERR_OK)
		goto out;
	*equivalent = fa && fc && va == vc;
out:
	free(a);
	free(c);
	return e;
}

static void stt_one(struct bench *b, const struct utt *ut)
{
	const struct corpus_turn *turn = ut->turn;
	struct stt_request rq = {.reference = turn->transcript, .language = "hi",
				 .sample_rate = STT_RATE};
	float *samples = NULL;
	size_t n = 0;
	char *hyp = NULL, *msg = NULL, error[256] = "";
	struct wer *ww = NULL, *wc = NULL;
	double t0 = now_ms(), ms, cost = 0;
	cJSON *row = cJSON_CreateObject();
	enum err e = ERR_OK;

	/* The reference backend needs no audio; any other hears the whole recording. An
	 * unreadable recording goes as no audio: the backend says whether it can do without. */
	if (!(b->cfg->stt.ops && b->cfg->stt.ops->reference_only) && turn->audio) {
		if ((e = audiofile_read(turn->audio, STT_RATE, &samples, &n, &msg)) != ERR_OK) {
			snprintf(error, sizeof error, "audio: %s", msg ? msg : err_str(e));
			samples = NULL;
			n = 0;
		}
		rq.samples = samples;
		rq.n_samples = n;
	}
	e = backend_transcribe(&b->cfg->stt, &rq, &hyp);
	usage_of(&b->cfg->stt, now_ms() - t0, &ms, &cost, error, sizeof error);
	struct backend_usage us;
	bool failed = request_failed(&b->cfg->stt, e, backend_last_usage(&b->cfg->stt, &us) ? &us : NULL);
	if (e != ERR_OK) {
		hyp = NULL;
		if (!error[0])
			snprintf(error, sizeof error, "%s", err_str(e));
	} else {
		error[0] = '\0';
	}
	cJSON_AddStringToObject(row, "utterance", turn->utterance_id);
	cJSON_AddStringToObject(row, "condition", turn->condition ? turn->condition : "");
	cJSON_AddStringToObject(row, "ref", turn->transcript ? turn->transcript : "");
	if (hyp)
		cJSON_AddStringToObject(row, "hyp", hyp);
	else
		cJSON_AddNullToObject(row, "hyp");
	if (wer_align(turn->transcript ? turn->transcript : "", hyp ? hyp : "", WER_WORDS, &ww) ==
		    ERR_OK &&
	    wer_align(turn->transcript ? turn->transcript : "", hyp ? hyp : "", WER_CHARS, &wc) ==
		    ERR_OK) {
		if (wer_judge(ww, bench_judge_offline, (void *)b->cfg->lex) != ERR_OK)
			snprintf(error, sizeof error, "the judge failed");
		int forgiven = 0;
		for (int i = 0; i < ww->n_segments; i++)
			forgiven += ww->segments[i].forgiven;
		cJSON_AddNumberToObject(row, "segments", ww->n_segments);
		cJSON_AddNumberToObject(row, "forgiven_offline", forgiven);
		cJSON_AddNumberToObject(row, "words", ww->n_ref);
		cJSON_AddNumberToObject(row, "word_errors", wer_errors(ww));
		cJSON_AddNumberToObject(row, "word_genuine", wer_genuine_errors(ww));
		cJSON_AddNumberToObject(row, "chars", wc->n_ref);
		cJSON_AddNumberToObject(row, "char_errors", wer_errors(wc));
	} else if (!error[0]) {
		snprintf(error, sizeof error, "not valid UTF-8");
	}
	cJSON_AddNumberToObject(row, "ms", ms);
	cJSON_AddNumberToObject(row, "cost", cost);
	cJSON_AddStringToObject(row, "error", error);
	if (failed)
		errored(b, row, error, &b->counts.errors_stt);
	put(b, "stt", b->cfg->stt_spec, turn->utterance_id, row);
	wer_free(ww);
	wer_free(wc);
	free(hyp);
	free(msg);
	free(samples);
}

/* stt_load: one STT row into the map the integration calls read. */
static int stt_row(void *ud, const char *spec, const char *key, const char *data)
{
	struct bench *b = ud;
	cJSON *o = cJSON_Parse(data);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hyp");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "cost");
	if (set_has(&b->stt_keys, key)) {
		size_t i = set_find(&b->stt_keys, key);
		b->stt_failed[i] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "errored"));
		b->stt_wrong[i] = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "word_genuine")) > 0;
		free(b->stt_hyp[i]);
		b->stt_hyp[i] = cJSON_IsString(h) ? strdup(h->valuestring) : NULL;
		b->stt_cost[i] = cJSON_IsNumber(c) ? c->valuedouble : 0;
		b->stt_ms[i] = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "ms"))
				       ? cJSON_GetObjectItemCaseSensitive(o, "ms")->valuedouble
				       : 0;
	}
	cJSON_Delete(o);
	return 0;
}

/* ---- EXTRACT ---- */

static void add_check(cJSON *checks, const char *name, bool ok, const cJSON *want, const cJSON *got)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "check", name);
	cJSON_AddBoolToObject(o, "ok", ok);
	cJSON_AddItemToObject(o, "want", want ? cJSON_Duplicate(want, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "got", got ? cJSON_Duplicate(got, 1) : cJSON_CreateNull());
	cJSON_AddItemToArray(checks, o);
}

/* extract_grade: the checks of one EXTRACT unit test; true when all pass. */
static bool extract_grade(struct bench *b, const struct unit *u, const struct extraction *ex,
			  cJSON *checks)
{
	const struct form *f = b->cfg->form;
	const struct form_question *q = &f->questions[u->asked];
	cJSON *chk = NULL, *want_st = NULL;
	bool pass = true;

	if (!ex) {
		add_check(checks, "extraction", false, NULL, NULL);
		return false;
	}
	if (flow_check(f, b->cfg->lex, b->cfg->today, u->asked, ex, &chk) != ERR_OK) {
		fail(b, ERR_NOMEM, "extract check");
		return false;
	}
	const cJSON *got = cJSON_GetObjectItemCaseSensitive(chk, q->name);
	const cJSON *got_st = cJSON_GetObjectItemCaseSensitive(got, "status");
	const cJSON *got_v = cJSON_GetObjectItemCaseSensitive(got, "value");
	bool got_skip = cJSON_IsString(got_st) && strcmp(got_st->valuestring, "skipped") == 0;
	bool got_ans = cJSON_IsString(got_st) && strcmp(got_st->valuestring, "answered") == 0;
	/* The skip flag, exactly; words that answer nothing leave the field empty. */
	want_st = cJSON_CreateString(u->want_skip ? "skipped" : u->want_nothing ? "empty" : "answered");
	bool ok = u->want_skip ? got_skip : u->want_nothing ? !got_skip && !got_ans : got_ans;
	add_check(checks, "status", ok, want_st, got_st);
	pass &= ok;
	if (u->want_value) {
		ok = got_ans && score_same_value(q, u->want_value, got_v);
		add_check(checks, "value", ok, u->want_value, got_v);
		pass &= ok;
	}
	/* The paper's failure of type: a number field answered with a string. */
	const struct extraction_item *it = extraction_find(ex, q->name);
	if (q->type == FORM_NUMBER && it && it->value && !it->skip) {
		ok = cJSON_IsNumber(it->value);
		cJSON *num = cJSON_CreateString("number");
		add_check(checks, "type", ok, num, it->value);
		cJSON_Delete(num);
		pass &= ok;
	}
	/* Every other field captured must be what the expected form holds. */
	const cJSON *o;
	cJSON_ArrayForEach(o, chk) {
		int qi = form_find(f, o->string);
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
		if (qi == u->asked || qi < 0 || !cJSON_IsString(st) ||
		    strcmp(st->valuestring, "answered") != 0)
			continue;
		const cJSON *ws = cJSON_GetObjectItemCaseSensitive(u->call->expected_status, o->string);
		const cJSON *wv = cJSON_GetObjectItemCaseSensitive(u->call->expected_data, o->string);
		const cJSON *gv = cJSON_GetObjectItemCaseSensitive(o, "value");
		ok = cJSON_IsString(ws) && strcmp(ws->valuestring, "answered") == 0 &&
		     score_same_value(&f->questions[qi], wv, gv);
		char name[160];
		snprintf(name, sizeof name, "other:%s", o->string);
		add_check(checks, name, ok, wv, gv);
		pass &= ok;
	}
	cJSON_Delete(want_st);
	cJSON_Delete(chk);
	return pass;
}

static void extract_done(struct bench *b, const struct unit *u, enum err e, bool failed,
			 struct extraction *ex, double ms, double cost, const char *error)
{
	cJSON *row = cJSON_CreateObject(), *checks = cJSON_CreateArray();
	bool pass = e == ERR_OK && extract_grade(b, u, ex, checks);
	cJSON_AddStringToObject(row, "call", u->call->id);
	cJSON_AddNumberToObject(row, "turn", u->turn);
	cJSON_AddStringToObject(row, "field", b->cfg->form->questions[u->asked].name);
	cJSON_AddStringToObject(row, "condition",
				u->call->turns[u->turn - 1].condition ? u->call->turns[u->turn - 1].condition
								     : "");
	cJSON_AddBoolToObject(row, "pass", pass);
	cJSON_AddItemToObject(row, "checks", checks);
	if (!pass && ex)
		cJSON_AddItemToObject(row, "extraction", extraction_to_json(ex));
	cJSON_AddNumberToObject(row, "ms", ms);
	cJSON_AddNumberToObject(row, "cost", cost);
	cJSON_AddStringToObject(row, "error", e == ERR_OK ? "" : error && error[0] ? error : err_str(e));
	if (failed)
		errored(b, row, error && error[0] ? error : err_str(e), &b->counts.errors_extract);
	put(b, "extract", b->cfg->extract_spec, u->key, row);
}

/* An EXTRACT or REPLY request in flight. */
struct flight {
	struct bench *b;
	const struct unit *u;
	struct extract_request xrq;
	struct reply_request rrq;
	struct backend_usage us; /* reset by backend_start */
};

static void extract_http_done(void *ud, struct http_result *res)
{
	struct flight *fl = ud;
	struct bench *b = fl->b;
	struct extraction *ex = NULL;
	struct backend_usage us = {0};
	enum err e = backend_finish(&b->cfg->extract, &fl->xrq, res, &ex, &us);
	b->inflight--;
	extract_done(b, fl->u, e, request_failed(&b->cfg->extract, e, &us), e == ERR_OK ? ex : NULL,
		     us.total_ms > 0 ? us.total_ms : res->total_ms,
		     us.cost_usd > 0 ? us.cost_usd : 0, us.error);
	extraction_free(ex);
	http_result_free(res);
	free(fl);
}

static void extract_start(struct bench *b, const struct unit *u)
{
	struct extract_request rq = {b->cfg->form, b->cfg->lex, u->asked, u->transcript,
				     u->history_before, b->cfg->today};
	if (b->extract_async) {
		struct flight *fl = calloc(1, sizeof *fl);
		struct http_req *hr = NULL;
		enum err e;
		if (!fl) {
			fail(b, ERR_NOMEM, "extract");
			return;
		}
		*fl = (struct flight){.b = b, .u = u, .xrq = rq};
		if ((e = backend_start(&b->cfg->extract, &fl->xrq, &hr, &fl->us)) != ERR_OK) {
			extract_done(b, u, e, true, NULL, 0, 0, "could not build the request");
			free(fl);
			return;
		}
		if ((e = http_start(b->http, hr, extract_http_done, fl, NULL)) != ERR_OK) {
			free(fl);
			fail(b, e, "extract request");
			return;
		}
		b->inflight++;
		return;
	}
	struct extraction *ex = NULL;
	char error[256] = "";
	double t0 = now_ms(), ms, cost;
	enum err e = backend_extract_fields(&b->cfg->extract, &rq, &ex);
	struct backend_usage us;
	usage_of(&b->cfg->extract, now_ms() - t0, &ms, &cost, error, sizeof error);
	extract_done(b, u, e,
		     request_failed(&b->cfg->extract, e,
				    backend_last_usage(&b->cfg->extract, &us) ? &us : NULL),
		     e == ERR_OK ? ex : NULL, ms, cost, error);
	extraction_free(ex);
}

/* ---- REPLY ---- */

static void reply_done(struct bench *b, const struct unit *u, enum err e, bool failed,
		       const char *text, double ms, double cost, const char *error)
{
	cJSON *row = cJSON_CreateObject();
	struct replycheck rc = {0};
	bool pass;
	const char *why = "";
	if (u->end) {
		const char *status = tool_arg(u->decision, "status");
		bool exact = strcmp(tool_name(u->decision), "end_call") == 0 && status &&
			     u->call->expected_call_status &&
			     strcmp(status, u->call->expected_call_status) == 0;
		pass = exact && e == ERR_OK && text && text[0];
		why = !exact ? "the tool call is not end_call with the expected status"
		      : !pass ? "REPLY gave no closing words" : "";
		cJSON_AddStringToObject(row, "kind", "end");
	} else {
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(u->decision, "tool_call"), "arguments");
		const cJSON *label = cJSON_GetObjectItemCaseSensitive(args, "label");
		struct replycheck_input in = {text, u->reference,
					      cJSON_IsString(label) ? label->valuestring : NULL,
					      u->answer, u->transcript};
		if (e == ERR_OK && text && replycheck_grade(&in, &rc) == ERR_OK) {
			pass = rc.pass;
			why = rc.why;
		} else {
			pass = false;
			why = "REPLY failed";
		}
		cJSON_AddStringToObject(row, "kind", "ask");
		cJSON_AddBoolToObject(row, "asks", rc.asks);
		cJSON_AddBoolToObject(row, "asks_unsure", rc.asks_unsure);
		if (rc.asks_unsure) {
			/* what an LLM judge needs to decide it (sessions/eval/benchjudge.h) */
			cJSON_AddStringToObject(row, "question", u->reference ? u->reference : "");
			if (cJSON_IsString(label))
				cJSON_AddStringToObject(row, "label", label->valuestring);
		}
		cJSON_AddBoolToObject(row, "hindi", rc.hindi);
		cJSON_AddBoolToObject(row, "single_line", rc.single_line);
		cJSON_AddBoolToObject(row, "no_ack", rc.no_ack);
		cJSON_AddBoolToObject(row, "no_echo", rc.no_echo);
	}
	cJSON_AddStringToObject(row, "call", u->call->id);
	cJSON_AddNumberToObject(row, "turn", u->turn);
	cJSON_AddBoolToObject(row, "pass", pass);
	cJSON_AddStringToObject(row, "why", why);
	cJSON_AddStringToObject(row, "text", text ? text : "");
	cJSON_AddNumberToObject(row, "ms", ms);
	cJSON_AddNumberToObject(row, "cost", cost);
	cJSON_AddStringToObject(row, "error", e == ERR_OK ? "" : error && error[0] ? error : err_str(e));
	if (failed)
		errored(b, row, error && error[0] ? error : err_str(e), &b->counts.errors_reply);
	put(b, "reply", b->cfg->reply_spec, u->key, row);
}

static void reply_http_done(void *ud, struct http_result *res)
{
	struct flight *fl = ud;
	struct bench *b = fl->b;
	struct backend_usage us = {0};
	char *text = NULL;
	enum err e = backend_finish(&b->cfg->reply, &fl->rrq, res, &text, &us);
	b->inflight--;
	reply_done(b, fl->u, e, request_failed(&b->cfg->reply, e, &us), e == ERR_OK ? text : NULL,
		   us.total_ms > 0 ? us.total_ms : res->total_ms, us.cost_usd > 0 ? us.cost_usd : 0,
		   us.error);
	free(e == ERR_OK ? text : NULL);
	http_result_free(res);
	free(fl);
}

static void reply_start(struct bench *b, const struct unit *u)
{
	struct reply_request rq = {b->cfg->form, u->decision, u->history_after, NULL};
	if (b->reply_async) {
		struct flight *fl = calloc(1, sizeof *fl);
		struct http_req *hr = NULL;
		enum err e;
		if (!fl) {
			fail(b, ERR_NOMEM, "reply");
			return;
		}
		*fl = (struct flight){.b = b, .u = u, .rrq = rq};
		if ((e = backend_start(&b->cfg->reply, &fl->rrq, &hr, &fl->us)) != ERR_OK) {
			reply_done(b, u, e, true, NULL, 0, 0, "could not build the request");
			free(fl);
			return;
		}
		if ((e = http_start(b->http, hr, reply_http_done, fl, NULL)) != ERR_OK) {
			free(fl);
			fail(b, e, "reply request");
			return;
		}
		b->inflight++;
		return;
	}
	char *text = NULL, error[256] = "";
	double t0 = now_ms(), ms, cost;
	enum err e = backend_say(&b->cfg->reply, &rq, &text);
	struct backend_usage us;
	usage_of(&b->cfg->reply, now_ms() - t0, &ms, &cost, error, sizeof error);
	reply_done(b, u, e,
		   request_failed(&b->cfg->reply, e, backend_last_usage(&b->cfg->reply, &us) ? &us : NULL),
		   e == ERR_OK ? text : NULL, ms, cost, error);
	free(e == ERR_OK ? text : NULL);
}

/* ---- integration: each call through the call engine (sessions/calls/engine.h) ---- */

static const char *status_str(const cJSON *status, const char *field)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(status, field);
	return cJSON_IsString(v) ? v->valuestring : "empty";
}

void bench_score_fields(const struct form *f, const cJSON *want_data, const cJSON *want_status,
			const cJSON *got_data, const cJSON *got_status, struct bench_field_score *out)
{
	for (int i = 0; i < f->n_questions; i++) {
		const struct form_question *q = &f->questions[i];
		const char *ws = status_str(want_status, q->name), *gs = status_str(got_status, q->name);
		const cJSON *gv = cJSON_GetObjectItemCaseSensitive(got_data, q->name);
		struct bench_field_score *o = &out[i];
		o->asked = strcmp(ws, "answered") == 0 || strcmp(ws, "skipped") == 0;
		o->ok = o->asked && strcmp(ws, gs) == 0 &&
			(strcmp(ws, "answered") != 0 ||
			 score_same_value(q, cJSON_GetObjectItemCaseSensitive(want_data, q->name), gv));
		/* a field the path never asks is right only left empty, with no value */
		o->ok_all = o->asked ? o->ok
				     : strcmp(gs, "answered") != 0 && strcmp(gs, "skipped") != 0 &&
					       (!gv || cJSON_IsNull(gv));
	}
}

/* form_differs: whether the form (status, data) differs from the expected one. */
static bool form_differs(const struct form *f, const cJSON *want_status, const cJSON *want_data,
			 const cJSON *got_status, const cJSON *got_data)
{
	for (int i = 0; i < f->n_questions; i++) {
		const struct form_question *q = &f->questions[i];
		const char *ws = status_str(want_status, q->name), *gs = status_str(got_status, q->name);
		if (strcmp(ws, gs) != 0 ||
		    (strcmp(ws, "answered") == 0 &&
		     !score_same_value(q, cJSON_GetObjectItemCaseSensitive(want_data, q->name),
				       cJSON_GetObjectItemCaseSensitive(got_data, q->name))))
			return true;
	}
	return false;
}

/* The replies of a call, by kind: the opening question, a question after a caller
 * turn, the closing words of the call's end. */
enum reply_kind { REPLY_OPENING, REPLY_TURN, REPLY_END, REPLY_KINDS };
static const char *const reply_kind_key[REPLY_KINDS][2] = {
	{"replies_opening", "replies_opening_ok"},
	{"replies_turn", "replies_turn_ok"},
	{"replies_end", "replies_end_ok"},
};

/* A call on an engine of its own: the STT results are the caller's turns, typed in, so
 * EXTRACT, the rules and REPLY run as in any other call; the listener grades each reply
 * and scores the form when the call ends. */
struct icall {
	struct bench *b;
	const struct corpus_call *call;
	struct engine *eng;
	int t;                  /* caller turns fed */
	const char *transcript; /* the current turn's STT output, borrowed from the map */
	int asked;              /* the question asked when the current turn began */
	bool asks;              /* the last decision asks a question (not end_call) */
	char *label;            /* ... its question's label, NULL when none */
	char *ref;              /* ... the script replier's words for it */
	char *answer;           /* the value captured in the current turn, as text */
	bool pending;           /* the decision's reply is not graded yet */
	bool reply_failed;      /* ... REPLY failed (the engine said the script's words) */
	bool ended;
	bool closing;           /* being freed: the engine's last events are not ours */
	int kind;               /* the last decision's reply: enum reply_kind */
	int replies[REPLY_KINDS], replies_ok[REPLY_KINDS];
	double cost, turn_ms, opening_ms, stt_ms;
	cJSON *turn_times;
	cJSON *turn_lat;        /* per caller turn {"field" asked, "latency"} (latency.h) */
	char error[256];        /* a request of the call failed: the call is an error, not scored */
	const struct expect *expect; /* its expected conversation */
	cJSON *extracted;       /* the current turn's EXTRACT output (extraction_to_json) */
	cJSON *captured;        /* ... and the rules' decision's "captured" */
	int fault_turn;         /* where it first went wrong (0: nowhere seen) */
	const char *fault_stage; /* ... the stage at fault, NULL while none */
};

static void icall_finish(struct icall *c, const struct engine_event *ev)
{
	struct bench *b = c->b;
	cJSON *row = cJSON_CreateObject(), *misses = cJSON_CreateArray();
	struct score sc = {0};
	const char *cond = c->call->n_turns && c->call->turns[0].condition ? c->call->turns[0].condition
									    : "";
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(ev->json, "usage");
	const cJSON *cost = cJSON_GetObjectItemCaseSensitive(usage, "cost_usd");
	if (c->error[0]) {
		cJSON_Delete(misses);
		cJSON_AddStringToObject(row, "caller", c->call->caller ? c->call->caller : "");
		cJSON_AddStringToObject(row, "condition", cond);
		cJSON_AddStringToObject(row, "error", c->error);
		errored(b, row, c->error, &b->counts.errors_calls);
		put(b, "call", b->call_spec, c->call->id, row);
		c->ended = true;
		return;
	}
	if (cJSON_IsNumber(cost) && cost->valuedouble > 0)
		c->cost += cost->valuedouble;
	if (score_call(b->cfg->form, c->call->expected_data, c->call->expected_status,
		       cJSON_GetObjectItemCaseSensitive(ev->json, "form_data"),
		       cJSON_GetObjectItemCaseSensitive(ev->json, "form_status"), &sc, misses) != ERR_OK)
		fail(b, ERR_NOMEM, "score");
	cJSON_AddStringToObject(row, "caller", c->call->caller ? c->call->caller : "");
	cJSON_AddStringToObject(row, "condition", cond);
	cJSON_AddStringToObject(row, "path", c->call->path ? c->call->path : "");
	cJSON_AddNumberToObject(row, "fields", sc.fields);
	cJSON_AddNumberToObject(row, "correct", sc.correct);
	/* per field: [asked by the path, right, right over all fields] */
	const struct form *f = b->cfg->form;
	struct bench_field_score *fs = calloc((size_t)f->n_questions + 1, sizeof *fs);
	cJSON *per = cJSON_AddObjectToObject(row, "per_field");
	int all_ok = 0;
	if (!fs || !per) {
		fail(b, ERR_NOMEM, "score");
	} else {
		bench_score_fields(f, c->call->expected_data, c->call->expected_status,
				   cJSON_GetObjectItemCaseSensitive(ev->json, "form_data"),
				   cJSON_GetObjectItemCaseSensitive(ev->json, "form_status"), fs);
		for (int i = 0; i < f->n_questions; i++) {
			int v[3] = {fs[i].asked, fs[i].ok, fs[i].ok_all};
			cJSON_AddItemToObject(per, f->questions[i].name, cJSON_CreateIntArray(v, 3));
			all_ok += fs[i].ok_all;
		}
	}
	free(fs);
	cJSON_AddNumberToObject(row, "fields_all", f->n_questions);
	cJSON_AddNumberToObject(row, "correct_all", all_ok);
	if (sc.correct < sc.fields || all_ok < f->n_questions) {
		cJSON *fault = cJSON_AddObjectToObject(row, "fault");
		cJSON_AddNumberToObject(fault, "turn", c->fault_stage ? c->fault_turn : -1);
		cJSON_AddStringToObject(fault, "stage", c->fault_stage ? c->fault_stage : "unattributed");
	}
	cJSON_AddStringToObject(row, "status_want",
				c->call->expected_call_status ? c->call->expected_call_status : "");
	cJSON_AddStringToObject(row, "status_got", call_status_name(ev->status));
	cJSON_AddNumberToObject(row, "turns", c->t);
	for (int k = 0; k < REPLY_KINDS; k++) {
		cJSON_AddNumberToObject(row, reply_kind_key[k][0], c->replies[k]);
		cJSON_AddNumberToObject(row, reply_kind_key[k][1], c->replies_ok[k]);
	}
	cJSON_AddNumberToObject(row, "opening_ms", c->opening_ms);
	cJSON_AddItemToObject(row, "turn_ms", c->turn_times);
	c->turn_times = NULL;
	cJSON_AddItemToObject(row, "turn_latency", c->turn_lat);
	c->turn_lat = NULL;
	cJSON_AddNumberToObject(row, "cost", c->cost);
	cJSON_AddItemToObject(row, "misses", misses);
	put(b, "call", b->call_spec, c->call->id, row);
	c->ended = true;
}

static void icall_free(struct icall *c)
{
	if (!c)
		return;
	c->closing = true;
	engine_free(c->eng);
	free(c->label);
	free(c->ref);
	cJSON_Delete(c->turn_times);
	cJSON_Delete(c->turn_lat);
	cJSON_Delete(c->extracted);
	cJSON_Delete(c->captured);
	free(c->answer);
	free(c);
}

/* icall_grade: REPLY's words for the last decision (said, NULL when none) are known:
 * graded like a unit test. */
static void icall_grade(struct icall *c, const char *said)
{
	if (!c->pending)
		return;
	c->pending = false;
	const char *text = c->reply_failed ? NULL : said;
	c->replies[c->kind]++;
	if (c->asks) {
		struct replycheck rc = {0};
		struct replycheck_input in = {text, c->ref, c->label, c->answer,
					      c->t > 0 ? c->transcript : NULL};
		if (text && replycheck_grade(&in, &rc) == ERR_OK && rc.pass)
			c->replies_ok[c->kind]++;
		else if (!c->fault_stage) {
			/* a wrong question misleads the caller: it went wrong here */
			c->fault_stage = "REPLY";
			c->fault_turn = c->t;
		}
	} else {
		c->replies_ok[c->kind] += text && text[0]; /* closing words, as the end-call test */
	}
	c->reply_failed = false;
}

/* icall_decided: the rules' decision for the turn (or the opening): kept for grading its
 * reply, with the value captured for the asked field, for the echo check. */
static void icall_decided(struct icall *c, const struct engine_event *ev)
{
	struct bench *b = c->b;
	icall_grade(c, NULL);
	const char *label = tool_arg(ev->json, "label");
	free(c->answer);
	free(c->label);
	free(c->ref);
	c->answer = c->label = c->ref = NULL;
	c->asks = strcmp(tool_name(ev->json), "end_call") != 0;
	c->kind = !c->asks ? REPLY_END : ev->turn == 0 ? REPLY_OPENING : REPLY_TURN;
	if (c->asks) {
		c->ref = script_words(b->cfg->form, ev->json, NULL, ev->decision); /* NULL: none */
		if (label && !(c->label = strdup(label))) {
			fail(b, ERR_NOMEM, "rules");
			return;
		}
	}
	c->pending = true;
	if (ev->turn == 0 || !c->transcript || !c->transcript[0])
		return;
	const cJSON *cap;
	cJSON_ArrayForEach(cap, cJSON_GetObjectItemCaseSensitive(ev->json, "captured")) {
		const cJSON *fld = cJSON_GetObjectItemCaseSensitive(cap, "field");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(cap, "status");
		if (c->asked >= 0 && cJSON_IsString(fld) && cJSON_IsString(st) &&
		    strcmp(fld->valuestring, b->cfg->form->questions[c->asked].name) == 0 &&
		    strcmp(st->valuestring, "answered") == 0)
			c->answer = value_text(cJSON_GetObjectItemCaseSensitive(cap, "value"));
	}
}

/* stage_ms: a stage's time in a turn: its request's own (start to end, retries
 * included) when it made one, so that waiting on the other calls' engines is not
 * counted, else the wall time. */
static double stage_ms(const struct engine_timings *tm, enum engine_stage s, double wall)
{
	return tm->has_usage[s] && tm->usage[s].total_ms > 0 ? tm->usage[s].total_ms : wall;
}

/* extract_as_expected: whether the turn's EXTRACT output gave what the words say (et):
 * for the field asked, its value (raw, or as the rules captured it), the skip flag, or
 * nothing; and no other field with a value the expected form does not hold. */
static bool extract_as_expected(const struct icall *c, const struct expect_turn *et)
{
	const struct form *f = c->b->cfg->form;
	const struct form_question *q = &f->questions[et->asked];
	const cJSON *want = cJSON_GetObjectItemCaseSensitive(c->call->expected_data, q->name);
	const cJSON *it;
	bool asked_ok = et->said == SAID_NOTHING;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(c->extracted, "fields")) {
		const cJSON *fld = cJSON_GetObjectItemCaseSensitive(it, "field");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "value");
		bool skip = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "skip"));
		int qi = cJSON_IsString(fld) ? form_find(f, fld->valuestring) : -1;
		if (qi < 0)
			continue;
		if (qi == et->asked) {
			bool same = score_same_value(q, want, v);
			const cJSON *cp;
			cJSON_ArrayForEach(cp, c->captured) {
				const cJSON *cf = cJSON_GetObjectItemCaseSensitive(cp, "field");
				if (cJSON_IsString(cf) && strcmp(cf->valuestring, q->name) == 0 &&
				    strcmp(status_str(cp, "status"), "answered") == 0)
					same |= score_same_value(q, want,
								 cJSON_GetObjectItemCaseSensitive(cp, "value"));
			}
			asked_ok = et->said == SAID_SKIP    ? skip
				   : et->said == SAID_VALUE ? !skip && same
							    : !skip && (!v || cJSON_IsNull(v));
		} else if (!skip && v && !cJSON_IsNull(v)) {
			/* another field: it must be one the expected form holds, with that value */
			const char *ws = status_str(c->call->expected_status, f->questions[qi].name);
			if (strcmp(ws, "answered") != 0)
				return false;
		}
	}
	return asked_ok;
}

/* icall_blame: after caller turn c->t, the first turn whose form differs from the
 * expected conversation's is where the call went wrong: STT's fault when its transcript
 * has genuine errors, else EXTRACT's when its output is not what the words say, else the
 * rules'. */
static void icall_blame(struct icall *c)
{
	struct bench *b = c->b;
	int t = c->t;
	if (c->fault_stage || !c->expect || t < 1 || t > c->expect->n)
		return;
	const struct expect_turn *et = &c->expect->t[t - 1];
	const struct flow *fl = engine_flow(c->eng);
	if (!fl || !form_differs(b->cfg->form, et->status, et->data, flow_form_status(fl),
				 flow_form_data(fl)))
		return;
	size_t i = set_find(&b->stt_keys, c->call->turns[t - 1].utterance_id);
	c->fault_turn = t;
	c->fault_stage = b->stt_keys.slot[i] && b->stt_wrong[i] ? "STT"
			 : !extract_as_expected(c, et)           ? "EXTRACT"
								 : "rules";
}

/* icall_latency: the turn's end of speech to first words, with the field asked; its words
 * were typed in, so the STT part is their unit result's own time, as for turn_ms. */
static void icall_latency(struct icall *c, const struct latency *lat)
{
	const struct form *f = c->b->cfg->form;
	struct latency l = *lat;
	cJSON *x;

	if (!l.known)
		return;
	latency_set(&l, LATENCY_STT, c->stt_ms, c->b->cfg->stt_spec);
	latency_close(&l, l.total_ms + c->stt_ms);
	if (!(x = cJSON_CreateObject()) || !cJSON_AddItemToArray(c->turn_lat, x) ||
	    !cJSON_AddStringToObject(x, "field", c->asked >= 0 && c->asked < f->n_questions
							 ? f->questions[c->asked].name : "") ||
	    !cJSON_AddItemToObject(x, "latency", latency_to_json(&l)))
		fail(c->b, ERR_NOMEM, "call");
}

static void icall_event(void *ud, const struct engine_event *ev)
{
	struct icall *c = ud;
	if (c->closing)
		return;
	switch (ev->kind) {
	case ENGINE_EXTRACTED:
		cJSON_Delete(c->extracted);
		c->extracted = cJSON_Duplicate(ev->json, 1);
		break;
	case ENGINE_DECISION:
		icall_decided(c, ev);
		cJSON_Delete(c->captured);
		c->captured = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ev->json, "captured"), 1);
		break;
	case ENGINE_ERROR:
		if (ev->stage == ENGINE_STAGE_REPLY)
			c->reply_failed = true;
		/* the opening's REPLY (a turn's requests are judged at ENGINE_TURN_DONE) */
		if (c->t == 0 && ev->stage >= 0 && !c->error[0] &&
		    request_failed(ev->stage == ENGINE_STAGE_REPLY ? &c->b->cfg->reply
							       : &c->b->cfg->extract,
				   ERR_BACKEND, NULL))
			snprintf(c->error, sizeof c->error, "%s", ev->text ? ev->text : "request failed");
		break;
	case ENGINE_AGENT_SAYS:
		icall_grade(c, ev->text);
		break;
	case ENGINE_TURN_DONE:
		icall_grade(c, NULL); /* no words at all */
		for (int s = 0; s < ENGINE_STAGES && !c->error[0]; s++) {
			const struct backend_usage *u = &ev->timings->usage[s];
			if (ev->timings->has_usage[s] && u->error[0] &&
			    (u->http_status < 200 || u->http_status >= 300))
				snprintf(c->error, sizeof c->error, "turn %d: %s", c->t, u->error);
		}
		/* from the end of the caller's speech: her words' STT (its unit result's own
		 * time), EXTRACT, the rules, REPLY */
		c->turn_ms = c->stt_ms +
			     stage_ms(ev->timings, ENGINE_STAGE_EXTRACT, ev->timings->extract_ms) +
			     ev->timings->rules_ms +
			     stage_ms(ev->timings, ENGINE_STAGE_REPLY, ev->timings->reply_ms);
		cJSON_AddItemToArray(c->turn_times, cJSON_CreateNumber(c->turn_ms));
		c->turn_ms = 0;
		icall_latency(c, &ev->timings->latency);
		icall_blame(c);
		break;
	case ENGINE_CALL_END:
		icall_grade(c, NULL);
		icall_finish(c, ev);
		break;
	default:
		break;
	}
}

/* opening_ms: the opening REPLY's time, reported apart from the caller turns'. */
static double opening_ms(const struct engine *eng)
{
	cJSON *u = engine_usage_json(eng);
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(u, "reply_ms");
	double v = cJSON_IsNumber(ms) ? ms->valuedouble : 0;
	cJSON_Delete(u);
	return v;
}

/* icall_advance: feed c's engine the caller's next turns while it waits for nothing. */
static void icall_advance(struct icall *c)
{
	struct bench *b = c->b;
	enum err e;
	while (b->err == ERR_OK && !c->ended && !engine_busy(c->eng) && c->t < c->call->n_turns) {
		if (c->t == 0) {
			icall_grade(c, NULL); /* the opening had no words */
			c->opening_ms = opening_ms(c->eng);
		}
		const struct corpus_turn *turn = &c->call->turns[c->t++];
		size_t i = set_find(&b->stt_keys, turn->utterance_id);
		c->transcript = b->stt_keys.slot[i] ? b->stt_hyp[i] : NULL;
		if (b->stt_keys.slot[i] && b->stt_failed[i] && !c->error[0])
			snprintf(c->error, sizeof c->error, "turn %d: the STT request for %s failed",
				 c->t, turn->utterance_id);
		c->cost += b->stt_keys.slot[i] ? b->stt_cost[i] : 0;
		c->stt_ms = b->stt_keys.slot[i] ? b->stt_ms[i] : 0;
		c->asked = flow_current(engine_flow(c->eng));
		/* nothing heard is silence: the rules count a retry */
		struct engine_input in = {.transcript = c->transcript, .input = "typed"};
		if ((e = engine_start_turn(c->eng, &in)) != ERR_OK)
			fail(b, e, "call");
	}
}

/* icall_new: a place for calls, one at a time, with its engine. Output: *out (caller
 * frees with icall_free). Errors: as engine_new. */
static enum err icall_new(struct bench *b, struct icall **out)
{
	struct engine_config ec = {
		.form = b->cfg->form,
		.form_path = b->cfg->form_path,
		.lex = b->cfg->lex,
		.stt = b->cfg->stt,
		.extract = b->cfg->extract,
		.reply = b->cfg->reply,
		.today = b->cfg->today,
		.endpoint = endpoint_defaults(),
		.corpus_name = b->cfg->corpus->name,
		.store = b->cfg->store,
		.run_id = b->cfg->run_id,
	};
	struct icall *c = calloc(1, sizeof *c);
	enum err e;
	if (!c)
		return ERR_NOMEM;
	c->b = b;
	if ((e = engine_new(&ec, icall_event, c, &c->eng)) != ERR_OK) {
		free(c);
		return e;
	}
	*out = c;
	return ERR_OK;
}

/* icall_start: begin call on c's engine (its opening decision and words), the last call
 * forgotten. */
static void icall_start(struct icall *c, long k)
{
	const struct corpus_call *call = c->b->calls[k];
	enum err e;
	cJSON_Delete(c->turn_times);
	cJSON_Delete(c->turn_lat);
	cJSON_Delete(c->extracted);
	cJSON_Delete(c->captured);
	free(c->answer);
	free(c->label);
	free(c->ref);
	*c = (struct icall){.b = c->b, .eng = c->eng, .call = call, .asked = -1,
			    .turn_times = cJSON_CreateArray(), .turn_lat = cJSON_CreateArray(),
			    .expect = &c->b->expect[k]};
	if (!c->turn_times || !c->turn_lat) {
		fail(c->b, ERR_NOMEM, "call");
		return;
	}
	if ((e = engine_start_call(c->eng, call)) != ERR_OK) {
		fail(c->b, e, "call");
		return;
	}
	icall_advance(c);
}

/* icall_busy: c holds a call not yet ended. */
static bool icall_busy(const struct icall *c)
{
	return c && c->call && !c->ended;
}

/* ---- the loop ---- */

static void wait_some(struct bench *b)
{
	enum err e;
	if (b->inflight > 0 && (e = http_poll(b->http, 200, NULL, 0)) != ERR_OK)
		fail(b, e, "HTTP");
}

/* done_keys: the keys of stage/spec already in the database. */
static int key_row(void *ud, const char *spec, const char *key, const char *data)
{
	cJSON *o = cJSON_Parse(data);
	bool failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "errored"));
	cJSON_Delete(o);
	return failed || set_add(ud, key) ? 0 : 1; /* an error is asked again */
}

static enum err done_keys(struct bench *b, const char *stage, const char *spec, struct set *out)
{
	enum err e = benchdb_each(b->db, stage, b->scope, spec, key_row, out);
	if (e != ERR_OK)
		fail(b, e == ERR_CANCELLED ? ERR_NOMEM : e, "bench database");
	return b->err;
}

static void stage_begin(struct bench *b, const char *stage, long total)
{
	b->stage = stage;
	b->done = 0;
	b->total = total;
	if (b->cfg->progress)
		b->cfg->progress(b->cfg->ud, stage, 0, total);
}

char *bench_scope(const struct bench_config *cfg)
{
	char real[PATH_MAX], *s = NULL;
	const char *form = cfg->form_path && realpath(cfg->form_path, real) ? real
			   : cfg->form_path                                  ? cfg->form_path
									     : "";
	if (asprintf(&s, "corpus=%s;form=%s;today=%04d-%02d-%02d", cfg->corpus->dir, form,
		     cfg->today.y, cfg->today.m, cfg->today.d) < 0)
		return NULL;
	return s;
}

enum err bench_run(const struct bench_config *cfg, struct benchdb *db, struct bench_counts *counts,
		   char **errmsg)
{
	struct bench b = {.cfg = cfg, .db = db};
	struct set done = {0};
	struct icall **live = NULL;
	int n_live = 0, limit = cfg->concurrency > 0 ? cfg->concurrency : 1;
	unsigned want = cfg->stages ? cfg->stages : BENCH_STT | BENCH_EXTRACT | BENCH_REPLY | BENCH_CALLS;
	enum err e;

	b.extract_async = backend_is_network(&cfg->extract);
	b.reply_async = backend_is_network(&cfg->reply);
	if (!(b.scope = bench_scope(cfg)) ||
	    asprintf(&b.call_spec, "%s+%s+%s", cfg->stt_spec, cfg->extract_spec, cfg->reply_spec) < 0) {
		b.call_spec = NULL;
		fail(&b, ERR_NOMEM, "bench");
		goto out;
	}
	if ((e = plan(&b)) != ERR_OK) {
		b.err = e;
		goto out;
	}
	if ((b.extract_async || b.reply_async) && (e = http_client_new(&b.http)) != ERR_OK) {
		fail(&b, e, "HTTP client");
		goto out;
	}
	if ((e = benchdb_run_mark(db, b.scope, cfg->stt_spec, cfg->extract_spec, cfg->reply_spec,
				  false)) != ERR_OK) {
		fail(&b, e, "bench database");
		goto out;
	}

	/* STT, one utterance at a time. */
	if (done_keys(&b, "stt", cfg->stt_spec, &done) != ERR_OK)
		goto out;
	if (want & BENCH_STT)
		stage_begin(&b, "stt", b.n_utts - (long)done.n);
	for (long i = 0; i < b.n_utts && b.err == ERR_OK && (want & BENCH_STT); i++)
		if (!set_has(&done, b.utts[i].turn->utterance_id)) {
			stt_one(&b, &b.utts[i]);
			b.counts.new_stt++;
		}
	set_free(&done);

	/* EXTRACT and REPLY unit tests, up to `limit` requests in flight. */
	for (int stage = 0; stage < 2 && b.err == ERR_OK; stage++) {
		const char *name = stage == 0 ? "extract" : "reply";
		const char *spec = stage == 0 ? cfg->extract_spec : cfg->reply_spec;
		long pending = 0, next = 0;
		if (!(want & (stage == 0 ? BENCH_EXTRACT : BENCH_REPLY)))
			continue;
		if (done_keys(&b, name, spec, &done) != ERR_OK)
			goto out;
		for (long i = 0; i < b.n_units; i++)
			pending += !set_has(&done, b.units[i].key);
		stage_begin(&b, name, pending);
		while (b.err == ERR_OK && (next < b.n_units || b.inflight > 0)) {
			while (b.err == ERR_OK && next < b.n_units && b.inflight < limit) {
				const struct unit *u = &b.units[next++];
				if (set_has(&done, u->key))
					continue;
				if (stage == 0) {
					extract_start(&b, u);
					b.counts.new_extract++;
				} else {
					reply_start(&b, u);
					b.counts.new_reply++;
				}
			}
			wait_some(&b);
		}
		set_free(&done);
	}

	/* The LLM judge, where the offline judges cannot decide. */
	if (b.err == ERR_OK && cfg->judge) {
		struct benchjudge_config jc = {
			.db = db, .scope = b.scope, .form = cfg->form, .lex = cfg->lex, .judge = cfg->judge,
			.stt_spec = (want & BENCH_STT) ? cfg->stt_spec : NULL,
			.extract_spec = (want & BENCH_EXTRACT) ? cfg->extract_spec : NULL,
			.reply_spec = (want & BENCH_REPLY) ? cfg->reply_spec : NULL,
			.concurrency = limit,
		};
		char *jm = NULL;
		if ((e = benchjudge_run(&jc, &b.counts.judge, &jm)) != ERR_OK) {
			b.err = e;
			b.msg = jm;
			goto out;
		}
	}

	/* Integration: the STT results as the transcripts, calls side by side. */
	if (b.err != ERR_OK || !(want & BENCH_CALLS))
		goto out;
	/* The map's slots are fixed once every key is in: add them all first. */
	for (long i = 0; i < b.n_utts; i++)
		if (!set_add(&b.stt_keys, b.utts[i].turn->utterance_id)) {
			fail(&b, ERR_NOMEM, "bench");
			goto out;
		}
	b.stt_hyp = calloc(b.stt_keys.cap, sizeof *b.stt_hyp);
	b.stt_cost = calloc(b.stt_keys.cap, sizeof *b.stt_cost);
	b.stt_failed = calloc(b.stt_keys.cap, sizeof *b.stt_failed);
	b.stt_ms = calloc(b.stt_keys.cap, sizeof *b.stt_ms);
	b.stt_wrong = calloc(b.stt_keys.cap, sizeof *b.stt_wrong);
	if (!b.stt_hyp || !b.stt_cost || !b.stt_failed || !b.stt_ms || !b.stt_wrong) {
		fail(&b, ERR_NOMEM, "bench");
		goto out;
	}
	if ((e = benchdb_each(db, "stt", b.scope, cfg->stt_spec, stt_row, &b)) != ERR_OK) {
		fail(&b, e, "bench database");
		goto out;
	}
	if (done_keys(&b, "call", b.call_spec, &done) != ERR_OK)
		goto out;
	{
		long pending = 0, next = 0;
		for (long i = 0; i < b.n_calls; i++)
			pending += !set_has(&done, b.calls[i]->id);
		stage_begin(&b, "calls", pending);
		if (!(live = calloc((size_t)limit, sizeof *live))) {
			fail(&b, ERR_NOMEM, "bench");
			goto out;
		}
		n_live = limit;
		for (;;) {
			int busy = 0;
			/* each free place takes the next call; offline calls end at once */
			for (int i = 0; i < limit && b.err == ERR_OK; i++) {
				while (b.err == ERR_OK && !icall_busy(live[i])) {
					while (next < b.n_calls && set_has(&done, b.calls[next]->id))
						next++;
					if (next >= b.n_calls)
						break;
					if (!live[i] && (e = icall_new(&b, &live[i])) != ERR_OK) {
						fail(&b, e, "call");
						break;
					}
					b.counts.new_calls++;
					icall_start(live[i], next++);
				}
				busy += icall_busy(live[i]);
			}
			if (b.err != ERR_OK || !busy)
				break;
			/* the calls waiting on the network: a short wait on the first, a look at the
			 * others, so that no answer waits long to be read */
			for (int i = 0, wait = busy > 1 ? 2 : 200; i < limit && b.err == ERR_OK; i++) {
				if (!icall_busy(live[i]))
					continue;
				if ((e = engine_poll(live[i]->eng, wait, NULL, 0)) != ERR_OK)
					fail(&b, e, "HTTP");
				wait = 0;
				icall_advance(live[i]);
			}
		}
	}
	if (b.err == ERR_OK && (e = benchdb_flush(db)) != ERR_OK)
		fail(&b, e, "bench database");
	if (b.err == ERR_OK && (e = benchdb_run_mark(db, b.scope, cfg->stt_spec, cfg->extract_spec,
						     cfg->reply_spec, true)) != ERR_OK)
		fail(&b, e, "bench database");
out:
	/* Cancel what is still in flight before the requests' owners go. */
	http_client_free(b.http);
	b.http = NULL;
	for (int i = 0; i < n_live; i++)
		icall_free(live[i]);
	free(live);
	set_free(&done);
	if (b.err == ERR_OK && counts)
		*counts = b.counts;
	if (b.err != ERR_OK && errmsg) {
		*errmsg = b.msg;
		b.msg = NULL;
	}
	benchdb_flush(db);
	for (long i = 0; i < b.n_units; i++)
		unit_free(&b.units[i]);
	free(b.units);
	free(b.utts);
	for (long i = 0; b.expect && i < b.n_calls; i++)
		expect_free(&b.expect[i]);
	free(b.expect);
	free(b.calls);
	if (b.stt_hyp)
		for (size_t i = 0; i < b.stt_keys.cap; i++)
			free(b.stt_hyp[i]);
	free(b.stt_hyp);
	free(b.stt_cost);
	free(b.stt_failed);
	free(b.stt_ms);
	free(b.stt_wrong);
	set_free(&b.stt_keys);
	free(b.scope);
	free(b.call_spec);
	free(b.msg);
	return b.err;
}
