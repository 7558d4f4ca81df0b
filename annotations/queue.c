/* queue: items to label, drawn from recorded calls (queue.h). */
#include "queue.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/form.h"
#include "annotations/task.h"
#include "sessions/corpus.h"
#include "sessions/score.h"

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
	if (b->n == b->cap) {
		int nc = b->cap ? b->cap * 2 : 64;
		struct labels_item *v = realloc(b->items, (size_t)nc * sizeof *v);
		if (!v) {
			b->e = ERR_NOMEM;
			return NULL;
		}
		b->items = v;
		b->cap = nc;
	}
	struct labels_item *it = &b->items[b->n++];
	memset(it, 0, sizeof *it);
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
	struct form *f;
	cJSON *got;

	if (!c)
		return;
	if (!cc) {
		note(b, "call %lld: corpus '%s' has no call '%s'", id, corpus_name, call_id);
		return;
	}
	if (!cc->expected_data)
		return;
	if (!(f = form_for(b, form_path)))
		return;
	if (!(got = cJSON_Parse(form_data))) {
		note(b, "call %lld: form_data is not JSON", id);
		return;
	}
	for (int i = 0; i < f->n_questions && b->e == ERR_OK; i++) {
		const struct form_question *fq = &f->questions[i];
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(cc->expected_data, fq->name);
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, fq->name);
		struct labels_item *it;
		/* open text only: digits and codes (Aadhaar digits, a regex-shaped id) are judged
		 * by exact match, not by the name judge */
		bool code = form_digits(fq) != FORM_DIGITS_NO || fq->validation == VALID_REGEX;
		if (fq->type != FORM_STRING || code || !cJSON_IsString(w) || !cJSON_IsString(g) ||
		    !w->valuestring[0] || !g->valuestring[0] || !(it = new_item(b)))
			continue;
		it->key = keyf(b, "call %lld field %s", id, fq->name);
		it->call_id = id;
		it->corpus = dup_or_null(corpus_name, b);
		it->corpus_call_id = dup_or_null(call_id, b);
		it->field = dup_or_null(fq->name, b);
		it->expected = dup_or_null(w->valuestring, b);
		it->captured = dup_or_null(g->valuestring, b);
		capture_turn(b, id, fq->name, g->valuestring, it);
	}
	cJSON_Delete(got);
}

bool queue_call_wrong(struct queue_build *b, const char *corpus_name, const char *call_id,
		      const char *form_path, const char *status, const char *data,
		      const char *fstatus)
{
	struct corpus *c = corpus_for(b, corpus_name);
	const struct corpus_call *cc = find_call(c, call_id);
	struct score s = {0};
	cJSON *gd, *gs;
	bool wrong = false;

	if (!cc)
		return false;
	if (cc->expected_call_status && status && strcmp(cc->expected_call_status, status) != 0)
		return true;
	if (!cc->expected_data || !cc->expected_status)
		return false;
	gd = data ? cJSON_Parse(data) : NULL;
	gs = fstatus ? cJSON_Parse(fstatus) : NULL;
	if (gd && gs &&
	    score_call(form_for(b, form_path), cc->expected_data, cc->expected_status, gd, gs, &s,
		       NULL) == ERR_OK)
		wrong = s.correct < s.fields;
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

void queue_turn_items(struct queue_build *b, long long call, const char *corpus_name,
		      const char *call_id, const char *status, const char *reason)
{
	struct store_turn_row *t = NULL;
	int nt = 0;
	enum err e;

	if ((e = store_turns(labels_store(b->l), call, &t, &nt)) != ERR_OK) {
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
		it->call_id = call;
		it->turn_id = tid;
		it->turn = t[k].t.index;
		it->corpus = dup_or_null(corpus_name, b);
		it->corpus_call_id = dup_or_null(call_id, b);
		it->transcript = dup_or_null(t[k].t.transcript, b);
		it->audio = dup_or_null(t[k].t.audio, b);
		cJSON_AddStringToObject(ctx, "call_status", status ? status : "");
		if (reason)
			cJSON_AddStringToObject(ctx, "call_reason", reason);
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

	if (!cc)
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
		if (!got)
			continue;
		for (int i = 0; i < cc->n_turns && !ref; i++)
			if (utt ? (cc->turns[i].utterance_id &&
				   strcmp(cc->turns[i].utterance_id, utt) == 0)
				: i == idx - 1)
				ref = cc->turns[i].transcript;
		struct labels_item *it;
		if (!ref || strcmp(ref, got) == 0 || !(it = new_item(b)))
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

		const struct task_call call = {id, corpus, call_id, form, status, reason, data, fstatus};
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
