/* queue: items to label, drawn from recorded calls (queue.h). */
#include "queue.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "agent/rules/form.h"
#include "agent/rules/normalize.h"
#include "judges.h"
#include "task.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/score.h"
#include "base/vec.h"

/* Corpora and forms loaded so far, by name or path, so each is read once. */
struct cache {
	char **keys;
	void **vals;
	bool *is_form;
	int n;
};

struct queue_build {
	struct labels *l;
	enum labels_task task;
	const char *corpus_dir;
	struct corpus *given;     /* the corpus in corpus_dir, loaded once */
	struct cache cache;
	struct labels_item *items;
	int n, cap;
	char *notes;
	size_t notes_len;
	enum err e;
};

static void note(struct queue_build *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int len;
	char *nn;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if ((size_t)len > sizeof line - 2)
		len = (int)sizeof line - 2;
	line[len++] = '\n';
	line[len] = '\0';
	/* A corpus that cannot be found is said once, not once per call. */
	if (b->notes && strstr(b->notes, line))
		return;
	if (!(nn = realloc(b->notes, b->notes_len + (size_t)len + 1)))
		return;
	memcpy(nn + b->notes_len, line, (size_t)len + 1);
	b->notes = nn;
	b->notes_len += (size_t)len;
}

static void cache_free(struct cache *c)
{
	for (int i = 0; i < c->n; i++) {
		if (c->is_form[i])
			form_free(c->vals[i]);
		else
			corpus_free(c->vals[i]);
		free(c->keys[i]);
	}
	free(c->keys);
	free(c->vals);
	free(c->is_form);
}

/* cache_find: index of key (NULL values cache a failure); -1 when not there. */
static int cache_find(const struct cache *c, const char *key, bool form)
{
	for (int i = 0; i < c->n; i++)
		if (c->is_form[i] == form && strcmp(c->keys[i], key) == 0)
			return i;
	return -1;
}

static void *cache_put(struct cache *c, const char *key, bool form, void *val)
{
	char **k = realloc(c->keys, (size_t)(c->n + 1) * sizeof *k);
	if (k)
		c->keys = k;
	void **v = realloc(c->vals, (size_t)(c->n + 1) * sizeof *v);
	if (v)
		c->vals = v;
	bool *f = realloc(c->is_form, (size_t)(c->n + 1) * sizeof *f);
	if (f)
		c->is_form = f;
	char *kd = strdup(key);
	if (!k || !v || !f || !kd) {
		free(kd);
		if (form)
			form_free(val);
		else
			corpus_free(val);
		return NULL;
	}
	c->keys[c->n] = kd;
	c->vals[c->n] = val;
	c->is_form[c->n] = form;
	c->n++;
	return val;
}

/* corpus_for: the loaded corpus a call names, NULL (with a note) when it cannot be had. */
static struct corpus *corpus_for(struct queue_build *b, const char *name)
{
	struct corpus *c = NULL;
	char *dir, *msg = NULL;
	int i;

	if (!name)
		return NULL;
	if (b->given && strcmp(b->given->name, name) == 0)
		return b->given;
	if ((i = cache_find(&b->cache, name, false)) >= 0)
		return b->cache.vals[i];
	if (!(dir = corpus_resolve(name)))
		return NULL;
	if (corpus_load(dir, &c, &msg) != ERR_OK) {
		note(b, "corpus '%s': %s (name its folder with --corpus DIR)", name,
		     msg ? msg : "cannot be loaded");
		c = NULL;
	}
	free(msg);
	free(dir);
	return cache_put(&b->cache, name, false, c);
}

static struct form *form_for(struct queue_build *b, const char *path)
{
	struct form *f = NULL;
	struct form_issues is = {0};
	int i;

	if (!path)
		return NULL;
	if ((i = cache_find(&b->cache, path, true)) >= 0)
		return b->cache.vals[i];
	if (form_load(path, &f, &is) != ERR_OK) {
		note(b, "form '%s': %s", path,
		     is.n ? is.v[0].message : "cannot be loaded");
		f = NULL;
	}
	form_issues_free(&is);
	return cache_put(&b->cache, path, true, f);
}

static const struct corpus_call *find_call(const struct corpus *c, const char *id)
{
	for (int i = 0; c && id && i < c->n_calls; i++)
		if (strcmp(c->calls[i].id, id) == 0)
			return &c->calls[i];
	return NULL;
}

static struct labels_item *new_item(struct queue_build *b)
{
	struct labels_item *v = vec_grow(b->items, b->n, &b->cap, sizeof *v, 64);
	if (!v) {
		b->e = ERR_NOMEM;
		return NULL;
	}
	b->items = v;
	struct labels_item *it = &b->items[b->n++];
	it->task = b->task;
	return it;
}

static char *dup_or_null(const char *s, struct queue_build *b)
{
	char *d;
	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		b->e = ERR_NOMEM;
	return d;
}

static char *keyf(struct queue_build *b, const char *fmt, long long id, const char *s)
{
	char buf[512];
	snprintf(buf, sizeof buf, fmt, id, s ? s : "");
	return dup_or_null(buf, b);
}

/* store_failed: note a failure to read the store (its message in labels_error). */
static void store_failed(struct queue_build *b, enum err e)
{
	b->e = e == ERR_DB ? labels_fail_store(b->l) : e;
}

/* capture_turn: the turn of call where field was captured, preferring the one whose
 * value is the final one, then the latest; fills it->turn_id, turn, transcript, audio. */
static void capture_turn(struct queue_build *b, long long call, const char *field, const char *value,
			 struct labels_item *it)
{
	struct store *st = labels_store(b->l);
	struct store_capture *c = NULL;
	struct store_turn_row *t = NULL;
	int nc = 0, nt = 0, best = -1;
	bool best_final = false;
	enum err e;

	if ((e = store_captures(st, call, 0, &c, &nc)) != ERR_OK ||
	    (e = store_turns(st, call, &t, &nt)) != ERR_OK) {
		store_failed(b, e);
		goto out;
	}
	/* captures come by turn index: a later one of the same kind wins */
	for (int i = 0; i < nc; i++) {
		bool final = c[i].value && value && strcmp(c[i].value, value) == 0;
		if (!c[i].field || strcmp(c[i].field, field) != 0 || (best_final && !final))
			continue;
		for (int j = 0; j < nt; j++)
			if (t[j].id == c[i].turn_id) {
				best = j;
				best_final = final;
			}
	}
	if (best >= 0) {
		it->turn_id = t[best].id;
		it->turn = t[best].t.index;
		it->transcript = dup_or_null(t[best].t.transcript, b);
		it->audio = dup_or_null(t[best].t.audio, b);
	}
out:
	store_captures_free(c, nc);
	store_turns_free(t, nt);
}

void queue_field_items(struct queue_build *b, long long id, const char *corpus_name,
		       const char *call_id, const char *form_path, const char *form_data)
{
	struct corpus *c = corpus_for(b, corpus_name);
	const struct corpus_call *cc = find_call(c, call_id);
	const cJSON *want = NULL;
	struct form *f;
	cJSON *got;

	/* a call without a corpus (a live call: typed, microphone), or whose corpus expects
	 * no form, has nothing expected: its items are the captured values alone, for a
	 * person to judge against the words said */
	if (corpus_name) {
		if (!c)
			return;
		if (!cc) {
			note(b, "call %lld: corpus '%s' has no call '%s'", id, corpus_name, call_id);
			return;
		}
		want = cc->expected_data;
	}
	if (!(f = form_for(b, form_path)))
		return;
	if (!(got = cJSON_Parse(form_data))) {
		note(b, "call %lld: form_data is not JSON", id);
		return;
	}
	for (int i = 0; i < f->n_questions && b->e == ERR_OK; i++) {
		const struct form_question *fq = &f->questions[i];
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(want, fq->name);
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, fq->name);
		struct labels_item *it;
		/* open text only: digits and codes (Aadhaar digits, a regex-shaped id) are judged
		 * by exact match, not by the name judge */
		bool code = form_digits(fq) != FORM_DIGITS_NO || fq->validation == VALID_REGEX;
		bool expected = want && cJSON_IsString(w) && w->valuestring[0];
		if (fq->type != FORM_STRING || code || (want && !expected) || !cJSON_IsString(g) ||
		    !g->valuestring[0] || !(it = new_item(b)))
			continue;
		it->key = keyf(b, "call %lld field %s", id, fq->name);
		it->call_id = id;
		it->corpus = dup_or_null(corpus_name, b);
		it->corpus_call_id = dup_or_null(call_id, b);
		it->field = dup_or_null(fq->name, b);
		it->expected = expected ? dup_or_null(w->valuestring, b) : NULL;
		it->captured = dup_or_null(g->valuestring, b);
		capture_turn(b, id, fq->name, g->valuestring, it);
	}
	cJSON_Delete(got);
}

bool queue_call_wrong(struct queue_build *b, const char *corpus_name, const char *call_id,
		      const char *form_path, const char *status, const char *data,
		      const char *fstatus)
{
	return queue_call_expectation(b, corpus_name, call_id, form_path, status, data, fstatus) >
	       0;
}

bool queue_abandoned(const char *reason)
{
	return reason && strncmp(reason, "abandoned", 9) == 0;
}

int queue_call_expectation(struct queue_build *b, const char *corpus_name, const char *call_id,
			   const char *form_path, const char *status, const char *data,
			   const char *fstatus)
{
	struct corpus *c = corpus_for(b, corpus_name);
	const struct corpus_call *cc = find_call(c, call_id);
	struct score s = {0};
	cJSON *gd, *gs;
	int wrong = -1;

	if (!cc)
		return -1;
	if (cc->expected_call_status && status && strcmp(cc->expected_call_status, status) != 0)
		return 1;
	if (!cc->expected_data || !cc->expected_status)
		return cc->expected_call_status && status ? 0 : -1;
	gd = data ? cJSON_Parse(data) : NULL;
	gs = fstatus ? cJSON_Parse(fstatus) : NULL;
	if (gd && gs &&
	    score_call(form_for(b, form_path), cc->expected_data, cc->expected_status, gd, gs, &s,
		       NULL) == ERR_OK)
		wrong = s.correct < s.fields ? 1 : 0;
	cJSON_Delete(gd);
	cJSON_Delete(gs);
	return wrong;
}

/* add_str: key: s, or null. */
static void add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

/* records_json: the captures and verdicts of turn as JSON arrays of objects, their
 * members named as the store's columns. */
static void records_json(struct queue_build *b, long long turn, cJSON *ctx)
{
	struct store *st = labels_store(b->l);
	struct store_capture *c = NULL;
	struct store_verdict *v = NULL;
	cJSON *ca = cJSON_CreateArray(), *va = cJSON_CreateArray();
	int nc = 0, nv = 0;

	/* a failed read leaves the lists empty, as a failed query did */
	if (store_captures(st, 0, turn, &c, &nc) != ERR_OK)
		nc = 0;
	if (store_verdicts(st, 0, turn, &v, &nv) != ERR_OK)
		nv = 0;
	for (int i = 0; ca && i < nc; i++) {
		cJSON *o = cJSON_CreateObject();
		add_str(o, "field", c[i].field);
		add_str(o, "raw", c[i].raw);
		add_str(o, "value", c[i].value);
		add_str(o, "status", c[i].status);
		add_str(o, "reason", c[i].reason);
		cJSON_AddItemToArray(ca, o);
	}
	for (int i = 0; va && i < nv; i++) {
		cJSON *o = cJSON_CreateObject();
		add_str(o, "field", v[i].field);
		add_str(o, "rule", v[i].rule);
		cJSON_AddBoolToObject(o, "ok", v[i].ok);
		add_str(o, "message", v[i].message);
		cJSON_AddItemToArray(va, o);
	}
	cJSON_AddItemToObject(ctx, "captures", ca);
	cJSON_AddItemToObject(ctx, "verdicts", va);
	store_captures_free(c, nc);
	store_verdicts_free(v, nv);
}

static void add_json_text(cJSON *o, const char *key, const char *text)
{
	cJSON *v = text ? cJSON_Parse(text) : NULL;
	if (v)
		cJSON_AddItemToObject(o, key, v);
	else if (text)
		cJSON_AddStringToObject(o, key, text);
	else
		cJSON_AddNullToObject(o, key);
}

/* asked_field: the field the caller was answering in a turn: its decision's "asked"
 * (NULL when none). Borrowed from dec. */
static const char *asked_field(const cJSON *dec)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(dec, "asked");
	return cJSON_IsString(a) && a->valuestring[0] ? a->valuestring : NULL;
}

/* question_context: what the caller was answering in turn k of t: the field and its
 * question in the form, the agent's words before the turn (the previous reply, or the
 * opening), the call so far (the turns before, agent and caller) and the expected value
 * of the field when the call's corpus gives one. Sets it->field and it->expected. */
static void question_context(struct queue_build *b, const struct task_call *c,
			     const struct store_turn_row *t, int k, struct labels_item *it,
			     cJSON *ctx)
{
	cJSON *dec = t[k].t.decision ? cJSON_Parse(t[k].t.decision) : NULL;
	const char *field = asked_field(dec);
	const char *words = k > 0 ? t[k - 1].t.reply : c->opening;
	struct form *f = field && c->form ? form_for(b, c->form) : NULL;
	const struct corpus_call *cc =
		c->corpus ? find_call(corpus_for(b, c->corpus), c->call_id) : NULL;
	cJSON *before = cJSON_CreateArray();

	if (field) {
		cJSON_AddStringToObject(ctx, "asked", field);
		it->field = dup_or_null(field, b);
	}
	for (int i = 0; f && i < f->n_questions; i++)
		if (strcmp(f->questions[i].name, field) == 0 && f->questions[i].label)
			cJSON_AddStringToObject(ctx, "asked_label", f->questions[i].label);
	if (words)
		cJSON_AddStringToObject(ctx, "question", words);
	if (field && cc && cc->expected_data) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(cc->expected_data, field);
		if (w) {
			char *s = cJSON_IsString(w) ? strdup(w->valuestring) : cJSON_PrintUnformatted(w);
			if (s)
				cJSON_AddStringToObject(ctx, "expected", s);
			it->expected = s;
		}
	}
	for (int i = 0; before && i < k; i++) {
		cJSON *o = cJSON_CreateObject();
		add_str(o, "agent", i > 0 ? t[i - 1].t.reply : c->opening);
		add_str(o, "caller", t[i].t.transcript);
		cJSON_AddItemToArray(before, o);
	}
	cJSON_AddItemToObject(ctx, "before", before);
	cJSON_Delete(dec);
}

void queue_turn_items(struct queue_build *b, const struct task_call *c)
{
	struct store_turn_row *t = NULL;
	int nt = 0;
	enum err e;

	if ((e = store_turns(labels_store(b->l), c->id, &t, &nt)) != ERR_OK) {
		store_failed(b, e);
		return;
	}
	for (int k = 0; b->e == ERR_OK && k < nt; k++) {
		long long tid = t[k].id;
		struct labels_item *it = new_item(b);
		cJSON *ctx = cJSON_CreateObject();
		if (!it || !ctx) {
			cJSON_Delete(ctx);
			b->e = ERR_NOMEM;
			break;
		}
		it->key = keyf(b, "turn %lld%s", tid, NULL);
		it->call_id = c->id;
		it->turn_id = tid;
		it->turn = t[k].t.index;
		it->corpus = dup_or_null(c->corpus, b);
		it->corpus_call_id = dup_or_null(c->call_id, b);
		it->transcript = dup_or_null(t[k].t.transcript, b);
		it->audio = dup_or_null(t[k].t.audio, b);
		cJSON_AddStringToObject(ctx, "call_status", c->status ? c->status : "");
		if (c->reason)
			cJSON_AddStringToObject(ctx, "call_reason", c->reason);
		question_context(b, c, t, k, it, ctx);
		add_json_text(ctx, "extraction", t[k].t.extraction);
		records_json(b, tid, ctx);
		add_json_text(ctx, "decision", t[k].t.decision);
		add_json_text(ctx, "reply", t[k].t.reply);
		if (t[k].t.error)
			add_json_text(ctx, "error", t[k].t.error);
		if (!(it->context = cJSON_PrintUnformatted(ctx)))
			b->e = ERR_NOMEM;
		cJSON_Delete(ctx);
	}
	store_turns_free(t, nt);
}

void queue_stt_items(struct queue_build *b, long long call, const char *corpus_name,
		     const char *call_id)
{
	struct corpus *c = corpus_for(b, corpus_name);
	const struct corpus_call *cc = find_call(c, call_id);
	struct store_turn_row *t = NULL;
	int nt = 0;
	enum err e;

	if (corpus_name && !cc)
		return;
	if ((e = store_turns(labels_store(b->l), call, &t, &nt)) != ERR_OK) {
		store_failed(b, e);
		return;
	}
	for (int k = 0; b->e == ERR_OK && k < nt; k++) {
		const char *got = t[k].t.transcript;
		const char *utt = t[k].t.utterance_id;
		int idx = t[k].t.index;
		const char *ref = NULL;
		if (!got || !got[0])
			continue;
		for (int i = 0; cc && i < cc->n_turns && !ref; i++)
			if (utt ? (cc->turns[i].utterance_id &&
				   strcmp(cc->turns[i].utterance_id, utt) == 0)
				: i == idx - 1)
				ref = cc->turns[i].transcript;
		struct labels_item *it;
		/* without a corpus there is no reference: a turn heard from a recording (not
		 * typed) is judged by ear against its audio */
		if (cc ? (!ref || strcmp(ref, got) == 0) : !t[k].t.audio)
			continue;
		if (!(it = new_item(b)))
			continue;
		it->key = keyf(b, "turn %lld%s", t[k].id, NULL);
		it->call_id = call;
		it->turn_id = t[k].id;
		it->turn = idx;
		it->corpus = dup_or_null(corpus_name, b);
		it->corpus_call_id = dup_or_null(call_id, b);
		it->expected = dup_or_null(ref, b);
		it->captured = dup_or_null(got, b);
		it->transcript = dup_or_null(got, b);
		it->audio = dup_or_null(t[k].t.audio, b);
	}
	store_turns_free(t, nt);
}

enum err queue_build(struct labels *l, enum labels_task t, const char *corpus_dir, char **notes,
		     int *added)
{
	static const struct store_call_filter finished = {.finished = true};
	struct queue_build b = {.l = l, .task = t, .corpus_dir = corpus_dir};
	const struct task_ops *ops = task_ops(t);
	struct store_call_row *calls = NULL;
	int n_calls = 0;

	*notes = NULL;
	if (added)
		*added = 0;
	if (!ops)
		return ERR_INVALID;
	if (corpus_dir) {
		char *dir = corpus_resolve(corpus_dir), *msg = NULL;
		b.e = dir ? corpus_load(dir, &b.given, &msg) : ERR_NOMEM;
		if (b.e != ERR_OK) {
			note(&b, "corpus %s: %s", corpus_dir, msg ? msg : err_str(b.e));
			b.e = ERR_OK;
		}
		free(msg);
		free(dir);
	}
	if ((b.e = store_calls(labels_store(l), &finished, &calls, &n_calls)) != ERR_OK) {
		store_failed(&b, b.e);
		goto out;
	}
	for (int k = 0; b.e == ERR_OK && k < n_calls; k++) {
		long long id = calls[k].id;
		const char *corpus = calls[k].info.corpus;
		const char *call_id = calls[k].info.corpus_call_id;
		const char *form = calls[k].info.form_path;
		const char *status = calls[k].status;
		const char *reason = calls[k].reason;
		const char *data = calls[k].form_data;
		const char *fstatus = calls[k].form_status;

		const struct task_call call = {id,     corpus, call_id, form,
					       status, reason, data,    fstatus,
					       calls[k].info.opening};
		ops->queue(&b, &call);
	}
	if (b.e == ERR_OK)
		b.e = labels_items_add(l, b.items, b.n);
out:
	store_calls_free(calls, n_calls);
	if (added)
		*added = b.n;
	labels_items_free(b.items, b.n);
	cache_free(&b.cache);
	corpus_free(b.given);
	*notes = b.notes;
	return b.e;
}

/* ---- the view: groups, filters, order ---- */

void queue_groups_free(struct queue_group *g, int n)
{
	for (int i = 0; g && i < n; i++)
		free(g[i].members);
	free(g);
}

/* A sort record: the item's identity as a group sees it. */
struct gkey {
	int idx;
	long long id;
	const struct labels_item *it;
	bool stages;
};

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") ? strcmp(a ? a : "", b ? b : "")
					      : (a != NULL) - (b != NULL);
}

/* same_kind: items are identical for a group: field, expected and captured value, and for
 * a task shown with its stage records the caller's words and the records too. */
static int gkey_cmp(const void *pa, const void *pb)
{
	const struct gkey *a = pa, *b = pb;
	int c;
	if ((c = strcmp0(a->it->field, b->it->field)) || (c = strcmp0(a->it->expected, b->it->expected)) ||
	    (c = strcmp0(a->it->captured, b->it->captured)))
		return c;
	if (a->stages && ((c = strcmp0(a->it->transcript, b->it->transcript)) ||
			  (c = strcmp0(a->it->context, b->it->context))))
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

static bool same_group(const struct gkey *a, const struct gkey *b)
{
	struct gkey x = *a, y = *b;
	x.id = y.id = 0;
	return gkey_cmp(&x, &y) == 0;
}

static int group_cmp(const void *pa, const void *pb)
{
	const struct queue_group *a = pa, *b = pb;
	if (a->doubt != b->doubt)
		return a->doubt < b->doubt ? -1 : 1;
	return a->members[0] < b->members[0] ? -1 : a->members[0] > b->members[0];
}

static int group_cmp_id(const void *pa, const void *pb)
{
	const struct queue_group *a = pa, *b = pb;
	return a->members[0] < b->members[0] ? -1 : a->members[0] > b->members[0];
}

/* item_doubt: how sure the judges found is of item (ERR_DB / ERR_NOMEM in *e). */
static enum queue_doubt item_doubt(struct labels *l, long long item, const struct judges_id *j,
				   int nj, enum err *e)
{
	char *first = NULL;
	enum queue_doubt d = QUEUE_NOT_JUDGED;
	bool unsure = false, differ = false;

	for (int k = 0; k < nj && *e == ERR_OK; k++) {
		char *dec = NULL;
		enum err r = judges_get(l, item, j[k].judge, j[k].version, &dec);
		if (r == ERR_NOTFOUND)
			continue;
		if (r != ERR_OK) {
			*e = r;
			break;
		}
		unsure |= strcmp(dec, LABELS_UNSURE) == 0;
		if (!first)
			first = dec;
		else {
			differ |= strcmp(first, dec) != 0;
			free(dec);
		}
	}
	if (first)
		d = differ ? QUEUE_JUDGES_DISAGREE : unsure ? QUEUE_JUDGE_UNSURE : QUEUE_JUDGES_AGREE;
	free(first);
	return d;
}

/* in_run: whether call is one of the n sorted ids. */
static bool in_ids(const long long *ids, int n, long long call)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == call)
			return true;
	return false;
}

enum err queue_groups(struct labels *l, const struct labels_item *v, int n,
		      const struct queue_view *o, struct queue_group **out, int *n_out)
{
	static const struct queue_view defaults = {0};
	const struct task_ops *ops = n > 0 ? task_ops(v[0].task) : NULL;
	struct gkey *k = NULL;
	struct queue_group *g = NULL;
	struct judges_id *j = NULL;
	struct store_call_row *calls = NULL;
	long long *run_ids = NULL;
	int nk = 0, ng = 0, nj = 0, nc = 0;
	enum err e = ERR_NOMEM;

	if (!o)
		o = &defaults;
	*out = NULL;
	*n_out = 0;
	if (n == 0)
		return ERR_OK;
	if (o->run) {
		struct store_call_filter f = {.run = o->run};
		if ((e = store_calls(labels_store(l), &f, &calls, &nc)) != ERR_OK) {
			e = e == ERR_DB ? labels_fail_store(l) : e;
			goto out;
		}
		if (nc && !(run_ids = malloc((size_t)nc * sizeof *run_ids))) {
			e = ERR_NOMEM;
			goto out;
		}
		for (int i = 0; i < nc; i++)
			run_ids[i] = calls[i].id;
	}
	if (!o->stored_order && (e = judges_list(l, v[0].task, &j, &nj)) != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	if (!(k = calloc((size_t)n, sizeof *k)))
		goto out;
	for (int i = 0; i < n; i++) {
		const struct labels_item *it = &v[i];
		char callno[32];
		snprintf(callno, sizeof callno, "%lld", it->call_id);
		/* a captured value that is the expected one (letter case, compatibility forms and
		 * surrounding spaces aside) is no question for a choice task */
		if (!o->include_exact && !ops->tags && it->expected && it->captured &&
		    normalize_text_eq(it->expected, it->captured))
			continue;
		if (o->field && (!it->field || strcmp(o->field, it->field) != 0))
			continue;
		if (o->call && strcmp(o->call, callno) != 0 &&
		    (!it->corpus_call_id || strcmp(o->call, it->corpus_call_id) != 0))
			continue;
		if (o->run && !in_ids(run_ids, nc, it->call_id))
			continue;
		k[nk++] = (struct gkey){i, it->id, it, ops->stages};
	}
	if (nk > 1)
		qsort(k, (size_t)nk, sizeof *k, gkey_cmp);
	if (nk && !(g = calloc((size_t)nk, sizeof *g)))
		goto out;
	for (int i = 0; i < nk;) {
		int m = i + 1;
		while (m < nk && same_group(&k[i], &k[m]))
			m++;
		struct queue_group *gr = &g[ng++];
		if (!(gr->members = malloc((size_t)(m - i) * sizeof *gr->members)))
			goto out;
		for (int x = i; x < m; x++)
			gr->members[gr->n++] = k[x].idx;
		/* identical items have the same decisions: the first speaks for the group */
		e = ERR_OK;
		gr->doubt = o->stored_order ? QUEUE_NOT_JUDGED : item_doubt(l, k[i].id, j, nj, &e);
		if (e != ERR_OK)
			goto out;
		e = ERR_NOMEM;
		i = m;
	}
	/* members came sorted by id within a group (gkey_cmp's last key) */
	if (ng > 1)
		qsort(g, (size_t)ng, sizeof *g, o->stored_order ? group_cmp_id : group_cmp);
	e = ERR_OK;
out:
	free(k);
	free(run_ids);
	store_calls_free(calls, nc);
	judges_list_free(j, nj);
	if (e == ERR_OK) {
		*out = g;
		*n_out = ng;
	} else {
		queue_groups_free(g, ng);
	}
	return e;
}

/* has_ci: whether needle is in hay, ASCII letters without regard to case. */
static bool has_ci(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	for (const char *p = hay; p && *p; p++)
		if (strncasecmp(p, needle, nl) == 0)
			return true;
	return false;
}

bool queue_item_has(const struct labels_item *it, const char *text)
{
	if (!text || !text[0])
		return true;
	return has_ci(it->key, text) || has_ci(it->corpus_call_id, text) ||
	       has_ci(it->field, text) || has_ci(it->expected, text) ||
	       has_ci(it->captured, text) || has_ci(it->transcript, text) ||
	       has_ci(it->context, text);
}
