/* benchjudge: the benchmark's LLM judge over the stored rows (benchjudge.h). */
#include "benchjudge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/stages/http.h"
#include "agent/stages/judge_llm.h"
#include "agent/hindi/namematch.h"
#include "bench.h"
#include "sessions/store/benchdb.h"
#include "wer.h"
#include "base/vec.h"

/* One distinct item to judge (texts owned). */
struct item {
	char *key;
	enum judge_llm_kind kind;
	char *a, *b, *ctx_a, *ctx_b;
	const char *verdict; /* static, NULL when undecided */
	bool failed;
};

struct row {
	const char *stage;
	char *spec, *key;
	cJSON *data;
};

struct bj {
	const struct benchjudge_config *cfg;
	char judge[256];
	struct item *items;
	int n_items, cap_items;
	struct row *rows;
	int n_rows, cap_rows;
	bool apply;         /* visiting rows to rewrite them (else to collect items) */
	struct benchjudge_counts counts;
	struct http_client *http;
	int inflight;
	enum err err;
	char *msg;
};

static void fail(struct bj *b, enum err e, const char *what)
{
	if (b->err != ERR_OK)
		return;
	b->err = e;
	if (asprintf(&b->msg, "judge: %s: %s%s%s", what, err_str(e), e == ERR_DB ? ": " : "",
		     e == ERR_DB ? benchdb_error(b->cfg->db) : "") < 0)
		b->msg = NULL;
}

void benchjudge_name(const struct backend *judge, char *buf, size_t n)
{
	const char *model = backend_model(judge);
	snprintf(buf, n, "llm:%s:%s", judge->name ? judge->name : "?", model ? model : "");
}

static char *dup0(const char *s)
{
	return strdup(s ? s : "");
}

static int cmp_item(const void *x, const void *y)
{
	return strcmp(((const struct item *)x)->key, ((const struct item *)y)->key);
}

static void item_free(struct item *it)
{
	free(it->key);
	free(it->a);
	free(it->b);
	free(it->ctx_a);
	free(it->ctx_b);
}

/* judged: collecting, note q and return NULL; applying, its verdict (NULL when none, with
 * *failed set when the judge failed on it). */
static const char *judged(struct bj *b, const struct judge_llm_item *q, bool *failed)
{
	char *key = judge_llm_key(q);
	const char *v = NULL;
	*failed = false;
	if (!key) {
		fail(b, ERR_NOMEM, "item");
		return NULL;
	}
	if (b->apply) {
		struct item probe = {.key = key};
		const struct item *it = b->n_items ? bsearch(&probe, b->items, (size_t)b->n_items,
							     sizeof *b->items, cmp_item)
						   : NULL;
		if (it) {
			v = it->verdict;
			*failed = it->failed;
		}
		free(key);
		return v;
	}
	struct item *nv = vec_grow(b->items, b->n_items, &b->cap_items, sizeof *nv, 64);
	if (!nv) {
		free(key);
		fail(b, ERR_NOMEM, "item");
		return NULL;
	}
	b->items = nv;
	struct item *it = &b->items[b->n_items++];
	*it = (struct item){key, q->kind, dup0(q->a), dup0(q->b), dup0(q->ctx_a), dup0(q->ctx_b),
			    NULL, false};
	if (!it->a || !it->b || !it->ctx_a || !it->ctx_b)
		fail(b, ERR_NOMEM, "item");
	return NULL;
}

static void set(cJSON *o, const char *k, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(o, k))
		cJSON_ReplaceItemInObjectCaseSensitive(o, k, v);
	else
		cJSON_AddItemToObject(o, k, v);
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* base: the deterministic verdict k_rules when a judge already rewrote k, else k. */
static bool base(const cJSON *o, const char *k, const char *k_rules)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, k_rules);
	return cJSON_IsBool(r) ? cJSON_IsTrue(r) : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* keep_rules: remember the deterministic verdict of k once, as k_rules. */
static void keep_rules(cJSON *o, const char *k, const char *k_rules)
{
	if (!cJSON_GetObjectItemCaseSensitive(o, k_rules))
		cJSON_AddBoolToObject(o, k_rules, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k)));
}

/* stt: LLM-WER over the segments the offline judge does not forgive. */
static bool stt(struct bj *b, struct row *r)
{
	const char *ref = str(r->data, "ref"), *hyp = str(r->data, "hyp");
	struct wer *w = NULL;
	int offline = 0, genuine = 0, asked = 0, forgiven = 0, failed = 0;
	if (!ref || !hyp || wer_align(ref, hyp, WER_WORDS, &w) != ERR_OK)
		return false;
	for (int i = 0; i < w->n_segments && b->err == ERR_OK; i++) {
		const struct wer_segment *s = &w->segments[i];
		bool eq = false, f;
		int edits = s->subs + s->dels + s->ins;
		if (bench_judge_offline((void *)b->cfg->lex, s->ref, s->hyp, &eq) == ERR_OK && eq)
			continue;
		offline += edits;
		asked++;
		struct judge_llm_item q = {JUDGE_LLM_WER, s->ref, s->hyp, w->ref_norm, w->hyp_norm};
		const char *v = judged(b, &q, &f);
		if (v && judge_llm_forgives(JUDGE_LLM_WER, v))
			forgiven++;
		else
			genuine += edits;
		failed += f;
	}
	wer_free(w);
	if (!b->apply || !asked)
		return false;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "judge", b->judge);
	cJSON_AddStringToObject(j, "version", JUDGE_LLM_WER_VERSION);
	cJSON_AddNumberToObject(j, "asked", asked);
	cJSON_AddNumberToObject(j, "forgiven", forgiven);
	cJSON_AddNumberToObject(j, "failed", failed);
	set(r->data, "word_genuine_offline", cJSON_CreateNumber(offline));
	set(r->data, "word_genuine", cJSON_CreateNumber(genuine));
	set(r->data, "llm_judge", j);
	return true;
}

/* extract: open string fields the name judge is unsure of. */
static bool extract(struct bj *b, struct row *r)
{
	const struct form *f = b->cfg->form;
	const char *field = str(r->data, "field");
	cJSON *checks = cJSON_GetObjectItemCaseSensitive(r->data, "checks"), *c;
	bool changed = false;
	cJSON_ArrayForEach(c, checks) {
		const char *name = str(c, "check"), *fname = NULL;
		if (!name)
			continue;
		if (strcmp(name, "value") == 0)
			fname = field;
		else if (strncmp(name, "other:", 6) == 0)
			fname = name + 6;
		int qi = fname ? form_find(f, fname) : -1;
		if (qi < 0 || f->questions[qi].type != FORM_STRING || base(c, "ok", "ok_rules"))
			continue;
		const char *want = str(c, "want"), *got = str(c, "got");
		if (!want || !got || namematch_judge(want, got) != NAMEMATCH_UNSURE)
			continue;
		struct judge_llm_item q = {JUDGE_LLM_NAME, want, got, NULL, NULL};
		bool failed;
		const char *v = judged(b, &q, &failed);
		if (!b->apply)
			continue;
		keep_rules(c, "ok", "ok_rules");
		set(c, "ok", cJSON_CreateBool(judge_llm_forgives(JUDGE_LLM_NAME, v)));
		set(c, "llm_judge", cJSON_CreateString(v ? v : failed ? "failed" : "undecided"));
		changed = true;
	}
	if (!changed)
		return false;
	const char *error = str(r->data, "error");
	bool pass = !error || !error[0];
	cJSON_ArrayForEach(c, checks)
		pass &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok"));
	keep_rules(r->data, "pass", "pass_rules");
	set(r->data, "pass", cJSON_CreateBool(pass));
	set(r->data, "judge", cJSON_CreateString(b->judge));
	return true;
}

/* reply: "asks the decided question" where the words cannot settle it. */
static bool reply(struct bj *b, struct row *r)
{
	const char *kind = str(r->data, "kind"), *question = str(r->data, "question");
	const char *text = str(r->data, "text");
	if (!kind || strcmp(kind, "ask") != 0 || !question || !text ||
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->data, "asks_unsure")) ||
	    base(r->data, "asks", "asks_rules"))
		return false;
	struct judge_llm_item q = {JUDGE_LLM_ASKS, question, text, str(r->data, "label"), NULL};
	bool failed;
	const char *v = judged(b, &q, &failed);
	if (!b->apply)
		return false;
	keep_rules(r->data, "asks", "asks_rules");
	keep_rules(r->data, "pass", "pass_rules");
	bool asks = judge_llm_forgives(JUDGE_LLM_ASKS, v);
	set(r->data, "asks", cJSON_CreateBool(asks));
	set(r->data, "asks_judge", cJSON_CreateString(v ? v : failed ? "failed" : "undecided"));
	set(r->data, "judge", cJSON_CreateString(b->judge));
	const char *error = str(r->data, "error");
	bool pass = (!error || !error[0]) && asks;
	static const char *const dims[] = {"hindi", "single_line", "no_ack", "no_echo"};
	for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
		pass &= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->data, dims[i]));
	set(r->data, "pass", cJSON_CreateBool(pass));
	if (pass)
		set(r->data, "why", cJSON_CreateString(""));
	else if (asks && strncmp(str(r->data, "why") ? str(r->data, "why") : "", "asks:", 5) == 0)
		set(r->data, "why", cJSON_CreateString("a dimension other than asks failed"));
	return true;
}

struct loader {
	struct bj *b;
	const char *stage;
};

static int load_row(void *ud, const char *spec, const char *key, const char *data)
{
	struct loader *l = ud;
	struct bj *b = l->b;
	struct row *v = vec_grow(b->rows, b->n_rows, &b->cap_rows, sizeof *v, 256);
	if (!v)
		return 1;
	b->rows = v;
	struct row *r = &b->rows[b->n_rows];
	*r = (struct row){l->stage, strdup(spec), strdup(key), cJSON_Parse(data)};
	b->n_rows++;
	return r->spec && r->key && r->data ? 0 : 1;
}

static bool visit(struct bj *b, struct row *r)
{
	if (strcmp(r->stage, "stt") == 0)
		return stt(b, r);
	if (strcmp(r->stage, "extract") == 0)
		return extract(b, r);
	return reply(b, r);
}

struct flight {
	struct bj *b;
	long i;
	struct backend_usage u; /* as backend_start left it */
};

static void on_done(void *ud, struct http_result *res)
{
	struct flight *fl = ud;
	struct bj *b = fl->b;
	struct item *it = &b->items[fl->i];
	struct judge_llm_item q = {it->kind, it->a, it->b, it->ctx_a, it->ctx_b};
	struct backend_usage u = fl->u;
	struct judge_answer a = {NULL, NULL};
	enum err e = backend_finish(b->cfg->judge, &q, res, &a, &u);
	const char *v = a.verdict;
	char *raw = a.raw;
	b->inflight--;
	double cost = u.cost_usd > 0 ? u.cost_usd : 0;
	b->counts.cost_usd += cost;
	if (e == ERR_NOMEM) {
		fail(b, e, "answer");
	} else if (e == ERR_OK) {
		it->verdict = v;
		if ((e = benchdb_judgement_put(b->cfg->db, b->judge, judge_llm_version(it->kind), it->key,
					       v, raw, cost, NULL)) != ERR_OK)
			fail(b, e, "cache");
	} else {
		it->failed = true;
		b->counts.failed++;
		if ((e = benchdb_judgement_put(b->cfg->db, b->judge, judge_llm_version(it->kind), it->key,
					       NULL, NULL, cost, u.error)) != ERR_OK)
			fail(b, e, "cache");
	}
	free(raw);
	http_result_free(res);
	free(fl);
}

/* known: the static verdict string equal to d, NULL for none. */
static const char *known(const char *d)
{
	static const char *const all[] = {"same", "different", "unsure", "equivalent", "similar",
					  "yes", "no"};
	for (size_t j = 0; j < sizeof all / sizeof *all; j++)
		if (strcmp(d, all[j]) == 0)
			return all[j];
	return NULL;
}

/* ask: the cache, then the judge, for every distinct item. */
static void ask(struct bj *b)
{
	int limit = b->cfg->concurrency > 0 ? b->cfg->concurrency : 1;
	long next = 0;
	enum err e;
	for (long i = 0; i < b->n_items && b->err == ERR_OK; i++) {
		struct item *it = &b->items[i];
		char *d = NULL;
		b->counts.by_kind[it->kind]++;
		e = benchdb_judgement_get(b->cfg->db, b->judge, judge_llm_version(it->kind), it->key, &d,
					  NULL);
		if (e == ERR_OK) {
			it->verdict = known(d);
			b->counts.cached++;
		} else if (e != ERR_NOTFOUND) {
			fail(b, e, "cache");
		}
		free(d);
	}
	while (b->err == ERR_OK && (next < b->n_items || b->inflight > 0)) {
		while (b->err == ERR_OK && next < b->n_items && b->inflight < limit) {
			long i = next++;
			if (b->items[i].verdict)
				continue;
			if (!b->http && (e = http_client_new(&b->http)) != ERR_OK) {
				fail(b, e, "HTTP client");
				return;
			}
			struct item *it = &b->items[i];
			struct judge_llm_item q = {it->kind, it->a, it->b, it->ctx_a, it->ctx_b};
			struct http_req *req = NULL;
			struct flight *fl = malloc(sizeof *fl);
			if (!fl) {
				fail(b, ERR_NOMEM, "request");
				return;
			}
			*fl = (struct flight){.b = b, .i = i};
			b->counts.asked++;
			if ((e = backend_start(b->cfg->judge, &q, &req, &fl->u)) != ERR_OK ||
			    (e = http_start(b->http, req, on_done, fl, NULL)) != ERR_OK) {
				free(fl);
				it->failed = true;
				b->counts.failed++;
				benchdb_judgement_put(b->cfg->db, b->judge, judge_llm_version(it->kind), it->key,
						      NULL, NULL, 0, err_str(e));
				continue;
			}
			b->inflight++;
		}
		if (b->inflight > 0 && (e = http_poll(b->http, 200, NULL, 0)) != ERR_OK)
			fail(b, e, "HTTP");
	}
}

enum err benchjudge_run(const struct benchjudge_config *cfg, struct benchjudge_counts *out,
			char **errmsg)
{
	struct bj b = {.cfg = cfg};
	const char *stages[] = {"stt", "extract", "reply"};
	const char *specs[] = {cfg->stt_spec, cfg->extract_spec, cfg->reply_spec};
	enum err e;

	benchjudge_name(cfg->judge, b.judge, sizeof b.judge);
	for (int s = 0; s < 3 && b.err == ERR_OK; s++) {
		struct loader l = {&b, stages[s]};
		if (!specs[s])
			continue;
		if ((e = benchdb_each(cfg->db, stages[s], cfg->scope, specs[s], load_row, &l)) != ERR_OK)
			fail(&b, e == ERR_CANCELLED ? ERR_NOMEM : e, "reading the results");
	}
	for (long i = 0; i < b.n_rows && b.err == ERR_OK; i++)
		visit(&b, &b.rows[i]);
	if (b.err != ERR_OK)
		goto out;
	/* one question per distinct item */
	if (b.n_items)
		qsort(b.items, (size_t)b.n_items, sizeof *b.items, cmp_item);
	long n = 0;
	for (long i = 0; i < b.n_items; i++) {
		if (n && strcmp(b.items[n - 1].key, b.items[i].key) == 0) {
			item_free(&b.items[i]);
			continue;
		}
		b.items[n++] = b.items[i];
	}
	b.n_items = n;
	b.counts.items = n;
	ask(&b);
	if (b.err != ERR_OK)
		goto out;
	for (long i = 0; i < b.n_items; i++)
		b.counts.forgiven += b.items[i].verdict && judge_llm_forgives(b.items[i].kind, b.items[i].verdict);
	b.apply = true;
	for (long i = 0; i < b.n_rows && b.err == ERR_OK; i++) {
		struct row *r = &b.rows[i];
		if (!visit(&b, r))
			continue;
		char *s = cJSON_PrintUnformatted(r->data);
		if (!s)
			fail(&b, ERR_NOMEM, "result");
		else if ((e = benchdb_put(cfg->db, r->stage, cfg->scope, r->spec, r->key, s)) != ERR_OK)
			fail(&b, e, "writing the results");
		free(s);
	}
	if (b.err == ERR_OK && (e = benchdb_flush(cfg->db)) != ERR_OK)
		fail(&b, e, "writing the results");
out:
	http_client_free(b.http);
	benchdb_flush(cfg->db);
	for (long i = 0; i < b.n_items; i++)
		item_free(&b.items[i]);
	free(b.items);
	for (long i = 0; i < b.n_rows; i++) {
		free(b.rows[i].spec);
		free(b.rows[i].key);
		cJSON_Delete(b.rows[i].data);
	}
	free(b.rows);
	if (b.err == ERR_OK && out)
		*out = b.counts;
	if (b.err != ERR_OK && errmsg) {
		*errmsg = b.msg;
		b.msg = NULL;
	}
	free(b.msg);
	return b.err;
}
