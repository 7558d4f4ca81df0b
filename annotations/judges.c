/* judges: judges' decisions and their cache (judges.h). */
#include "judges.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/stages/backend.h"
#include "agent/stages/judge_llm.h"
#include "agent/hindi/namematch.h"

static bool decision_ok(const char *d)
{
	return d && (strcmp(d, LABELS_SAME) == 0 || strcmp(d, LABELS_DIFFERENT) == 0 ||
		     strcmp(d, LABELS_UNSURE) == 0);
}

enum err judges_put(struct labels *l, long long item, const char *judge, const char *version,
		    const char *decision, const char *raw)
{
	static const char sql[] =
		"INSERT INTO ann_judgements (item_id, judge, prompt_version, decision, raw)"
		" VALUES (?,?,?,?,?) ON CONFLICT (item_id, judge, prompt_version) DO UPDATE SET"
		" decision = excluded.decision, raw = excluded.raw,"
		" created_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')";
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;

	if (!decision_ok(decision) || !judge || !version)
		return ERR_INVALID;
	if (sqlite3_prepare_v2(labels_db(l), sql, -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "storing a judge's decision");
	sqlite3_bind_int64(q, 1, item);
	sqlite3_bind_text(q, 2, judge, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, version, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 4, decision, -1, SQLITE_TRANSIENT);
	if (raw)
		sqlite3_bind_text(q, 5, raw, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(q) == SQLITE_DONE)
		e = ERR_OK;
	else
		labels_fail(l, "storing a judge's decision");
	sqlite3_finalize(q);
	return e;
}

enum err judges_get(struct labels *l, long long item, const char *judge, const char *version,
		    char **decision)
{
	return judges_get_dated(l, item, judge, version, decision, NULL);
}

enum err judges_get_dated(struct labels *l, long long item, const char *judge,
			  const char *version, char **decision, char day[11])
{
	static const char sql[] = "SELECT decision, substr(created_at, 1, 10) FROM ann_judgements"
				  " WHERE item_id = ? AND judge = ? AND prompt_version = ?";
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;
	int rc;

	if (sqlite3_prepare_v2(labels_db(l), sql, -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "reading a judge's decision");
	sqlite3_bind_int64(q, 1, item);
	sqlite3_bind_text(q, 2, judge, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, version, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		char *d = strdup((const char *)sqlite3_column_text(q, 0));
		e = d ? ERR_OK : ERR_NOMEM;
		if (d)
			*decision = d;
		if (d && day) {
			const char *dy = (const char *)sqlite3_column_text(q, 1);
			snprintf(day, 11, "%s", dy ? dy : "");
		}
	} else if (rc == SQLITE_DONE) {
		e = ERR_NOTFOUND;
	} else {
		labels_fail(l, "reading a judge's decision");
	}
	sqlite3_finalize(q);
	return e;
}

/* in_tx: run the judge writes of one batch in one transaction (fewer fsyncs). */
static enum err tx(struct labels *l, const char *sql)
{
	if (sqlite3_exec(labels_db(l), sql, NULL, NULL, NULL) != SQLITE_OK)
		return labels_fail(l, "storing judges' decisions");
	return ERR_OK;
}

enum err judges_run_namematch(struct labels *l, int *n)
{
	struct labels_item *v = NULL;
	int cnt = 0;
	enum err e;

	if ((e = labels_items(l, LABELS_NAME_MATCH, &v, &cnt)) != ERR_OK)
		return e;
	if ((e = tx(l, "BEGIN IMMEDIATE")) != ERR_OK)
		goto out;
	for (int i = 0; i < cnt && e == ERR_OK; i++) {
		enum namematch_verdict d = namematch_judge(v[i].expected, v[i].captured);
		e = judges_put(l, v[i].id, JUDGES_NAMEMATCH, JUDGES_NAMEMATCH_VERSION,
			       namematch_verdict_name(d), NULL);
	}
	if (e == ERR_OK)
		e = tx(l, "COMMIT");
	if (e != ERR_OK)
		sqlite3_exec(labels_db(l), "ROLLBACK", NULL, NULL, NULL);
out:
	if (n)
		*n = e == ERR_OK ? cnt : 0;
	labels_items_free(v, cnt);
	return e;
}

/* ask: one call of the judge backend b about one item, with the name judge's prompt
 * (agent/stages/judge_llm.h, JUDGES_LLM_PROMPT_VERSION). Output: *decision (static string), *raw
 * (caller frees); why (size n) what failed. */
static enum err ask(const struct backend *b, const struct labels_item *it, const char **decision,
		    char **raw, char *why, size_t n)
{
	struct judge_llm_item q = {JUDGE_LLM_NAME, it->expected, it->captured, NULL, NULL};
	struct judge_answer a = {NULL, NULL};
	struct backend_usage u = {0};
	enum err e = backend_ask_judge(b, &q, &a);

	if (e == ERR_OK) {
		*decision = a.verdict;
		*raw = a.raw;
		return ERR_OK;
	}
	backend_last_usage(b, &u);
	if (e == ERR_PARSE)
		snprintf(why, n, "item %lld: %s", it->id, u.error);
	else
		snprintf(why, n, "item %lld: the model call failed (%s)", it->id,
			 u.error[0] ? u.error : err_str(e));
	return e;
}

enum err judges_run_llm(struct labels *l, const char *spec, int *asked, char *why, size_t n)
{
	struct backend b;
	struct labels_item *v = NULL;
	const char *bwhy = NULL;
	char judge[256];
	int cnt = 0, calls = 0;
	enum err e;

	/* the judge row of the backend table, as the benchmark asks it (cli/bench.c) */
	if ((e = backend_judge(spec, &b, &bwhy)) != ERR_OK) {
		snprintf(why, n, "%s", bwhy ? bwhy : err_str(e));
		goto out;
	}
	snprintf(judge, sizeof judge, "llm:%s:%s", b.name, backend_model(&b));
	if ((e = labels_items(l, LABELS_NAME_MATCH, &v, &cnt)) != ERR_OK) {
		snprintf(why, n, "%s", labels_error(l));
		goto out;
	}
	for (int i = 0; i < cnt && e == ERR_OK; i++) {
		char *cached = NULL, *raw = NULL;
		const char *d = NULL;
		e = judges_get(l, v[i].id, judge, JUDGES_LLM_PROMPT_VERSION, &cached);
		free(cached);
		if (e == ERR_OK)
			continue; /* the cache: never ask twice at one prompt version */
		if (e != ERR_NOTFOUND)
			break;
		calls++;
		if ((e = ask(&b, &v[i], &d, &raw, why, n)) == ERR_OK)
			e = judges_put(l, v[i].id, judge, JUDGES_LLM_PROMPT_VERSION, d, raw);
		free(raw);
	}
	if (e == ERR_DB)
		snprintf(why, n, "%s", labels_error(l));
out:
	if (asked)
		*asked = calls;
	labels_items_free(v, cnt);
	return e;
}

static const struct labels_column id_cols[] = {
	LABELS_COLUMN(LABELS_TEXT, struct judges_id, judge),
	LABELS_COLUMN(LABELS_TEXT, struct judges_id, version),
};
static const struct labels_rows id_rows = LABELS_ROWS(struct judges_id, id_cols);

void judges_list_free(struct judges_id *v, int n)
{
	labels_rows_free(&id_rows, v, n);
}

enum err judges_list(struct labels *l, enum labels_task t, struct judges_id **out, int *n)
{
	static const char sql[] =
		"SELECT DISTINCT j.judge, j.prompt_version FROM ann_judgements j"
		" JOIN ann_items i ON i.id = j.item_id WHERE i.task = ?"
		" ORDER BY j.judge, j.prompt_version";
	return labels_select_task(l, &id_rows, sql, t, "listing the judges", (void **)out, n);
}
