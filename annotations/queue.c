/* queue: items to label, drawn from recorded calls (queue.h). */
#include "queue.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/form.h"
#include "sessions/corpus.h"
#include "sessions/score.h"

/* Corpora and forms loaded so far, by name or path, so each is read once. */
struct cache {
	char **keys;
	void **vals;
	bool *is_form;
	int n;
};

struct build {
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

static void note(struct build *b, const char *fmt, ...)
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
static struct corpus *corpus_for(struct build *b, const char *name)
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

static struct form *form_for(struct build *b, const char *path)
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

static struct labels_item *new_item(struct build *b)
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

static char *dup_or_null(const char *s, struct build *b)
{
	char *d;
	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		b->e = ERR_NOMEM;
	return d;
}

static char *col(sqlite3_stmt *q, int i, struct build *b)
{
	return dup_or_null((const char *)sqlite3_column_text(q, i), b);
}

static char *keyf(struct build *b, const char *fmt, long long id, const char *s)
{
	char buf[512];
	snprintf(buf, sizeof buf, fmt, id, s ? s : "");
	return dup_or_null(buf, b);
}

/* capture_turn: the turn of call where field was captured, preferring the one whose
 * value is the final one, then the latest; fills it->turn_id, turn, transcript, audio. */
static void capture_turn(struct build *b, long long call, const char *field, const char *value,
			 struct labels_item *it)
{
	static const char sql[] =
		"SELECT t.id, t.idx, t.transcript, t.audio FROM captures c"
		" JOIN turns t ON t.id = c.turn_id WHERE t.call_id = ? AND c.field = ?"
		" ORDER BY (c.value IS ?) DESC, t.idx DESC LIMIT 1";
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(labels_db(b->l), sql, -1, &q, NULL) != SQLITE_OK) {
		b->e = labels_fail(b->l, "finding the capturing turn");
		return;
	}
	sqlite3_bind_int64(q, 1, call);
	sqlite3_bind_text(q, 2, field, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, value, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(q) == SQLITE_ROW) {
		it->turn_id = sqlite3_column_int64(q, 0);
		it->turn = sqlite3_column_int(q, 1);
		it->transcript = col(q, 2, b);
		it->audio = col(q, 3, b);
	}
	sqlite3_finalize(q);
}

static void name_match_call(struct build *b, long long id, const char *corpus_name,
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
		bool code = fq->validation == VALID_EXACT_NUM_DIGITS ||
			    fq->validation == VALID_PHONE_NUMBER || fq->validation == VALID_REGEX;
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

/* call_wrong: whether a finished call's final form or status is not what its corpus
 * expects. */
static bool call_wrong(struct build *b, const char *corpus_name, const char *call_id,
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

/* rows_json: the rows of sql (bound to turn) as a JSON array of objects. */
static cJSON *rows_json(struct build *b, const char *sql, long long turn)
{
	sqlite3_stmt *q = NULL;
	cJSON *a = cJSON_CreateArray();

	if (!a || sqlite3_prepare_v2(labels_db(b->l), sql, -1, &q, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return a;
	}
	sqlite3_bind_int64(q, 1, turn);
	while (sqlite3_step(q) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		for (int i = 0; o && i < sqlite3_column_count(q); i++) {
			const char *name = sqlite3_column_name(q, i);
			if (sqlite3_column_type(q, i) == SQLITE_NULL)
				cJSON_AddNullToObject(o, name);
			else if (sqlite3_column_type(q, i) == SQLITE_INTEGER)
				cJSON_AddBoolToObject(o, name, sqlite3_column_int(q, i));
			else
				cJSON_AddStringToObject(o, name,
							(const char *)sqlite3_column_text(q, i));
		}
		cJSON_AddItemToArray(a, o);
	}
	sqlite3_finalize(q);
	return a;
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

static void turn_items(struct build *b, long long call, const char *corpus_name,
		       const char *call_id, const char *status, const char *reason)
{
	static const char sql[] =
		"SELECT id, idx, transcript, audio, extraction, decision, reply, error, utterance_id"
		" FROM turns WHERE call_id = ? ORDER BY idx";
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(labels_db(b->l), sql, -1, &q, NULL) != SQLITE_OK) {
		b->e = labels_fail(b->l, "reading turns");
		return;
	}
	sqlite3_bind_int64(q, 1, call);
	while (b->e == ERR_OK && sqlite3_step(q) == SQLITE_ROW) {
		long long tid = sqlite3_column_int64(q, 0);
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
		it->turn = sqlite3_column_int(q, 1);
		it->corpus = dup_or_null(corpus_name, b);
		it->corpus_call_id = dup_or_null(call_id, b);
		it->transcript = col(q, 2, b);
		it->audio = col(q, 3, b);
		cJSON_AddStringToObject(ctx, "call_status", status ? status : "");
		if (reason)
			cJSON_AddStringToObject(ctx, "call_reason", reason);
		add_json_text(ctx, "extraction", (const char *)sqlite3_column_text(q, 4));
		cJSON_AddItemToObject(ctx, "captures",
				      rows_json(b, "SELECT field, raw, value, status, reason"
						   " FROM captures WHERE turn_id = ? ORDER BY id", tid));
		cJSON_AddItemToObject(ctx, "verdicts",
				      rows_json(b, "SELECT field, rule, ok, message"
						   " FROM verdicts WHERE turn_id = ? ORDER BY id", tid));
		add_json_text(ctx, "decision", (const char *)sqlite3_column_text(q, 5));
		add_json_text(ctx, "reply", (const char *)sqlite3_column_text(q, 6));
		if (sqlite3_column_type(q, 7) != SQLITE_NULL)
			add_json_text(ctx, "error", (const char *)sqlite3_column_text(q, 7));
		if (!(it->context = cJSON_PrintUnformatted(ctx)))
			b->e = ERR_NOMEM;
		cJSON_Delete(ctx);
	}
	sqlite3_finalize(q);
}

static void stt_items(struct build *b, long long call, const char *corpus_name,
		      const char *call_id)
{
	static const char sql[] =
		"SELECT id, idx, transcript, audio, utterance_id FROM turns WHERE call_id = ?"
		" AND transcript IS NOT NULL ORDER BY idx";
	struct corpus *c = corpus_for(b, corpus_name);
	const struct corpus_call *cc = find_call(c, call_id);
	sqlite3_stmt *q = NULL;

	if (!cc)
		return;
	if (sqlite3_prepare_v2(labels_db(b->l), sql, -1, &q, NULL) != SQLITE_OK) {
		b->e = labels_fail(b->l, "reading turns");
		return;
	}
	sqlite3_bind_int64(q, 1, call);
	while (b->e == ERR_OK && sqlite3_step(q) == SQLITE_ROW) {
		const char *got = (const char *)sqlite3_column_text(q, 2);
		const char *utt = (const char *)sqlite3_column_text(q, 4);
		int idx = sqlite3_column_int(q, 1);
		const char *ref = NULL;
		for (int i = 0; i < cc->n_turns && !ref; i++)
			if (utt ? (cc->turns[i].utterance_id &&
				   strcmp(cc->turns[i].utterance_id, utt) == 0)
				: i == idx - 1)
				ref = cc->turns[i].transcript;
		struct labels_item *it;
		if (!ref || strcmp(ref, got) == 0 || !(it = new_item(b)))
			continue;
		it->key = keyf(b, "turn %lld%s", sqlite3_column_int64(q, 0), NULL);
		it->call_id = call;
		it->turn_id = sqlite3_column_int64(q, 0);
		it->turn = idx;
		it->corpus = dup_or_null(corpus_name, b);
		it->corpus_call_id = dup_or_null(call_id, b);
		it->expected = dup_or_null(ref, b);
		it->captured = dup_or_null(got, b);
		it->transcript = dup_or_null(got, b);
		it->audio = col(q, 3, b);
	}
	sqlite3_finalize(q);
}

enum err queue_build(struct labels *l, enum labels_task t, const char *corpus_dir, char **notes,
		     int *added)
{
	static const char sql[] =
		"SELECT id, corpus, corpus_call_id, form_path, status, reason, form_data, form_status"
		" FROM calls WHERE status <> 'in_progress' ORDER BY id";
	struct build b = {.l = l, .task = t, .corpus_dir = corpus_dir};
	sqlite3_stmt *q = NULL;
	int rc;

	*notes = NULL;
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
	if (sqlite3_prepare_v2(labels_db(l), sql, -1, &q, NULL) != SQLITE_OK) {
		b.e = labels_fail(l, "reading calls");
		goto out;
	}
	while (b.e == ERR_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);
		const char *corpus = (const char *)sqlite3_column_text(q, 1);
		const char *call_id = (const char *)sqlite3_column_text(q, 2);
		const char *form = (const char *)sqlite3_column_text(q, 3);
		const char *status = (const char *)sqlite3_column_text(q, 4);
		const char *reason = (const char *)sqlite3_column_text(q, 5);
		const char *data = (const char *)sqlite3_column_text(q, 6);
		const char *fstatus = (const char *)sqlite3_column_text(q, 7);

		switch (t) {
		case LABELS_NAME_MATCH:
			if (corpus && call_id && data)
				name_match_call(&b, id, corpus, call_id, form, data);
			break;
		case LABELS_STT:
			if (corpus && call_id)
				stt_items(&b, id, corpus, call_id);
			break;
		case LABELS_TURN_ERRORS:
			if ((status && strcmp(status, "failed") == 0) ||
			    call_wrong(&b, corpus, call_id, form, status, data, fstatus))
				turn_items(&b, id, corpus, call_id, status, reason);
			break;
		default:
			break;
		}
	}
	sqlite3_finalize(q);
	q = NULL;
	if (b.e == ERR_OK)
		b.e = labels_items_add(l, b.items, b.n);
out:
	sqlite3_finalize(q);
	if (added)
		*added = b.n;
	labels_items_free(b.items, b.n);
	cache_free(&b.cache);
	corpus_free(b.given);
	*notes = b.notes;
	return b.e;
}
