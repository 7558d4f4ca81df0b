/* labels: the annotation desk's tables in the session database (labels.h). */
#include "labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adjud.h"
#include "task.h"
#include "base/vec.h"

struct labels {
	struct store *st;
	sqlite3 *db;         /* st's connection, for the annotation tables only */
	char *path;
	char err[512];
};

static const char schema_v1[] =
	"CREATE TABLE IF NOT EXISTS ann_meta (name TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS ann_items ("
	" id INTEGER PRIMARY KEY,"
	" task TEXT NOT NULL, key TEXT NOT NULL,"
	" call_id INTEGER, turn_id INTEGER, turn INTEGER,"
	" corpus TEXT, corpus_call_id TEXT, field TEXT,"
	" expected TEXT, captured TEXT, transcript TEXT, audio TEXT, context TEXT,"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" UNIQUE (task, key));"
	"CREATE TABLE IF NOT EXISTS ann_labels ("
	" id INTEGER PRIMARY KEY,"
	" item_id INTEGER NOT NULL REFERENCES ann_items(id) ON DELETE CASCADE,"
	" annotator TEXT NOT NULL, label TEXT NOT NULL, note TEXT,"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" UNIQUE (item_id, annotator));"
	"CREATE TABLE IF NOT EXISTS ann_judgements ("
	" id INTEGER PRIMARY KEY,"
	" item_id INTEGER NOT NULL REFERENCES ann_items(id) ON DELETE CASCADE,"
	" judge TEXT NOT NULL, prompt_version TEXT NOT NULL,"
	" decision TEXT NOT NULL, raw TEXT,"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" UNIQUE (item_id, judge, prompt_version));"
	"CREATE INDEX IF NOT EXISTS ann_labels_annotator ON ann_labels(annotator, item_id);";

/* Version 2: an annotator's flag on an item, "a second person should look at this"
 * (labels_flag), with an optional note. */
static const char schema_v2[] =
	"CREATE TABLE IF NOT EXISTS ann_flags ("
	" id INTEGER PRIMARY KEY,"
	" item_id INTEGER NOT NULL REFERENCES ann_items(id) ON DELETE CASCADE,"
	" annotator TEXT NOT NULL, note TEXT,"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" UNIQUE (item_id, annotator));";

/* Migrations, as data: schema_v1 uses IF NOT EXISTS because files of before the one
 * open policy may hold the tables at version 0 only when a creation was cut short.
 * Version 3: the reviewers' decisions (annotations/adjud.h). */
static const char *const migrations[] = {schema_v1, schema_v2, ADJUD_SCHEMA};
_Static_assert(sizeof migrations / sizeof migrations[0] == LABELS_SCHEMA_VERSION,
	       "a migration per annotation schema version");

/* The annotation tables, opened with the store (sessions/store/store.h). durable: a label is
 * committed to the disk, not only to the OS, before the screen moves on; labels are few
 * and small, so the cost is not felt. */
static const struct store_part part = {
	.name = "annotation tables",
	.prefix = "ann_",
	.meta = "ann_meta",
	.migrations = migrations,
	.n_migrations = LABELS_SCHEMA_VERSION,
	.durable = true,
};

static const char *const task_names[] = {
#define X(e, name, ops) name,
	LABELS_TASKS(X)
#undef X
};

const char *labels_task_name(enum labels_task t)
{
	return (unsigned)t < LABELS_NTASKS ? task_names[t] : "?";
}

enum err labels_task_parse(const char *s, enum labels_task *t)
{
	for (int i = 0; i < LABELS_NTASKS; i++)
		if (s && strcmp(s, task_names[i]) == 0) {
			*t = (enum labels_task)i;
			return ERR_OK;
		}
	return ERR_NOTFOUND;
}

/* answer_index: the index of the answer of ops spelled by the len bytes at s; -1 none. */
static int answer_index(const struct task_ops *ops, const char *s, size_t len)
{
	for (int i = 0; i < ops->n_labels; i++)
		if (strlen(ops->labels[i]) == len && strncmp(s, ops->labels[i], len) == 0)
			return i;
	return -1;
}

bool labels_valid(enum labels_task t, const char *label)
{
	const struct task_ops *ops = (unsigned)t < LABELS_NTASKS ? task_ops(t) : NULL;
	int last = -1;

	if (!label || !ops)
		return false;
	if (!ops->tags)
		return answer_index(ops, label, strlen(label)) >= 0;
	/* tags: one or more, joined by LABELS_TAG_SEP, each once, in the taxonomy's order */
	for (const char *p = label;;) {
		const char *sep = strchr(p, LABELS_TAG_SEP);
		size_t len = sep ? (size_t)(sep - p) : strlen(p);
		int i = answer_index(ops, p, len);
		if (i <= last)
			return false;
		last = i;
		if (!sep)
			return true;
		p = sep + 1;
	}
}

bool labels_has_tag(const char *label, const char *tag)
{
	size_t len = tag ? strlen(tag) : 0;
	for (const char *p = label; p && len;) {
		const char *sep = strchr(p, LABELS_TAG_SEP);
		size_t n = sep ? (size_t)(sep - p) : strlen(p);
		if (n == len && strncmp(p, tag, len) == 0)
			return true;
		p = sep ? sep + 1 : NULL;
	}
	return false;
}

char *labels_tag_toggle(enum labels_task t, const char *label, const char *tag)
{
	const struct task_ops *ops = task_ops(t);
	size_t size = 1;
	char *out;
	bool had = labels_has_tag(label, tag);

	if (!ops || !ops->tags || answer_index(ops, tag, strlen(tag)) < 0)
		return NULL;
	for (int i = 0; i < ops->n_labels; i++)
		size += strlen(ops->labels[i]) + 1;
	if (!(out = calloc(1, size)))
		return NULL;
	for (int i = 0; i < ops->n_labels; i++) {
		bool is_tag = strcmp(ops->labels[i], tag) == 0;
		if (is_tag ? had : !labels_has_tag(label, ops->labels[i]))
			continue;
		if (out[0])
			strncat(out, (char[]){LABELS_TAG_SEP, 0}, size - strlen(out) - 1);
		strncat(out, ops->labels[i], size - strlen(out) - 1);
	}
	return out;
}


#define ITEM(type, member) LABELS_COLUMN(type, struct labels_item, member)
static const struct labels_column item_cols[] = {
	ITEM(LABELS_INT64, id), ITEM(LABELS_TEXT, key), ITEM(LABELS_INT64, call_id),
	ITEM(LABELS_INT64, turn_id), ITEM(LABELS_INT, turn), ITEM(LABELS_TEXT, corpus),
	ITEM(LABELS_TEXT, corpus_call_id), ITEM(LABELS_TEXT, field), ITEM(LABELS_TEXT, expected),
	ITEM(LABELS_TEXT, captured), ITEM(LABELS_TEXT, transcript), ITEM(LABELS_TEXT, audio),
	ITEM(LABELS_TEXT, context),
};
#undef ITEM
static const struct labels_rows item_rows = LABELS_ROWS(struct labels_item, item_cols);

void labels_item_clear(struct labels_item *it)
{
	if (!it)
		return;
	labels_row_clear(&item_rows, it);
	memset(it, 0, sizeof *it);
}

void labels_items_free(struct labels_item *v, int n)
{
	labels_rows_free(&item_rows, v, n);
}

enum err labels_fail(struct labels *l, const char *what)
{
	snprintf(l->err, sizeof l->err, "%s: %s: %s", l->path, what, sqlite3_errmsg(l->db));
	return ERR_DB;
}

enum err labels_fail_store(struct labels *l)
{
	snprintf(l->err, sizeof l->err, "%s", store_error(l->st));
	return ERR_DB;
}

const char *labels_error(const struct labels *l)
{
	return l ? l->err : "";
}

sqlite3 *labels_db(struct labels *l)
{
	return l->db;
}

const char *labels_path(const struct labels *l)
{
	return l->path;
}

/* begin, end: store_begin and store_end on l's connection (a write waits for the write
 * lock up front, busy timeout, instead of failing half way), their message kept in l. */
static enum err begin(struct labels *l, const char *what)
{
	return store_begin(l->st, what) == ERR_OK ? ERR_OK : labels_fail_store(l);
}

static enum err end(struct labels *l, enum err e, const char *what)
{
	enum err r = store_end(l->st, e, what);
	if (e == ERR_OK && r != ERR_OK)
		labels_fail_store(l);
	return r;
}

enum err labels_open(const char *path, struct labels **out, char **errmsg)
{
	struct labels *l = calloc(1, sizeof *l);
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	if (!l || !(l->path = strdup(path)))
		goto out;
	if ((e = store_open_with(path, STORE_EXISTING, &part, &l->st, errmsg)) != ERR_OK)
		goto out;
	l->db = store_sqlite(l->st);
out:
	if (e == ERR_OK) {
		*out = l;
		return ERR_OK;
	}
	if (errmsg && !*errmsg)
		*errmsg = strdup(err_str(e));
	labels_close(l);
	return e;
}

struct store *labels_store(struct labels *l)
{
	return l->st;
}

void labels_close(struct labels *l)
{
	if (!l)
		return;
	store_close(l->st);
	free(l->path);
	free(l);
}

static void bind_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(q, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, i);
}

static void bind_id(sqlite3_stmt *q, int i, long long id)
{
	if (id)
		sqlite3_bind_int64(q, i, id);
	else
		sqlite3_bind_null(q, i);
}

char *labels_col(sqlite3_stmt *q, int i, bool *bad)
{
	const unsigned char *s = sqlite3_column_text(q, i);
	char *d;
	if (!s)
		return NULL;
	if (!(d = strdup((const char *)s)))
		*bad = true;
	return d;
}

/* fill: row (zeroed) from q's columns, as kind k places them; false when a copy failed. */
static bool fill(const struct labels_rows *k, sqlite3_stmt *q, char *row)
{
	bool bad = false;
	for (int i = 0; i < k->n_cols; i++) {
		char *at = row + k->cols[i].off;
		switch (k->cols[i].type) {
		case LABELS_TEXT:
			*(char **)at = labels_col(q, i, &bad);
			break;
		case LABELS_INT64:
			*(long long *)at = sqlite3_column_int64(q, i);
			break;
		case LABELS_INT:
			*(int *)at = sqlite3_column_int(q, i);
			break;
		}
	}
	return !bad;
}

enum err labels_select(struct labels *l, const struct labels_rows *k, sqlite3_stmt *q,
		       const char *what, void **out, int *n)
{
	char *v = NULL;
	int cnt = 0, cap = 0, rc;
	enum err e = ERR_NOMEM;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char *nv = vec_grow(v, cnt, &cap, k->size, 32);
		if (!nv)
			goto out;
		v = nv;
		char *row = v + (size_t)cnt++ * k->size;
		if (!fill(k, q, row))
			goto out;
	}
	e = rc == SQLITE_DONE ? ERR_OK : labels_fail(l, what);
out:
	sqlite3_finalize(q);
	if (e == ERR_OK) {
		*out = v;
		*n = cnt;
	} else {
		labels_rows_free(k, v, cnt);
	}
	return e;
}

enum err labels_select_task(struct labels *l, const struct labels_rows *k, const char *sql,
			    enum labels_task t, const char *what, void **out, int *n)
{
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(l->db, sql, -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, what);
	if (t < LABELS_NTASKS)
		sqlite3_bind_text(q, 1, labels_task_name(t), -1, SQLITE_STATIC);
	return labels_select(l, k, q, what, out, n);
}

void labels_rows_free(const struct labels_rows *k, void *v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		labels_row_clear(k, (char *)v + (size_t)i * k->size);
	free(v);
}

void labels_row_clear(const struct labels_rows *k, void *row)
{
	for (int i = 0; i < k->n_cols; i++)
		if (k->cols[i].type == LABELS_TEXT)
			free(*(char **)((char *)row + k->cols[i].off));
}

enum err labels_items_add(struct labels *l, struct labels_item *v, int n)
{
	static const char ins[] =
		"INSERT INTO ann_items (task, key, call_id, turn_id, turn, corpus, corpus_call_id,"
		" field, expected, captured, transcript, audio, context)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (task, key) DO NOTHING";
	static const char get[] = "SELECT id FROM ann_items WHERE task = ? AND key = ?";
	sqlite3_stmt *qi = NULL, *qg = NULL;
	enum err e = ERR_DB;

	if (n == 0)
		return ERR_OK;
	if (begin(l, "storing the items") != ERR_OK)
		return ERR_DB;
	if (sqlite3_prepare_v2(l->db, ins, -1, &qi, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(l->db, get, -1, &qg, NULL) != SQLITE_OK) {
		labels_fail(l, "storing the items");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const struct labels_item *it = &v[i];
		sqlite3_reset(qi);
		bind_text(qi, 1, labels_task_name(it->task));
		bind_text(qi, 2, it->key);
		bind_id(qi, 3, it->call_id);
		bind_id(qi, 4, it->turn_id);
		if (it->turn)
			sqlite3_bind_int(qi, 5, it->turn);
		else
			sqlite3_bind_null(qi, 5);
		bind_text(qi, 6, it->corpus);
		bind_text(qi, 7, it->corpus_call_id);
		bind_text(qi, 8, it->field);
		bind_text(qi, 9, it->expected);
		bind_text(qi, 10, it->captured);
		bind_text(qi, 11, it->transcript);
		bind_text(qi, 12, it->audio);
		bind_text(qi, 13, it->context);
		if (sqlite3_step(qi) != SQLITE_DONE) {
			labels_fail(l, "storing an item");
			goto out;
		}
		sqlite3_reset(qg);
		bind_text(qg, 1, labels_task_name(it->task));
		bind_text(qg, 2, it->key);
		if (sqlite3_step(qg) != SQLITE_ROW) {
			labels_fail(l, "reading an item back");
			goto out;
		}
		v[i].id = sqlite3_column_int64(qg, 0);
	}
	e = ERR_OK;
out:
	sqlite3_finalize(qi);
	sqlite3_finalize(qg);
	return end(l, e, "storing the items");
}

enum err labels_items(struct labels *l, enum labels_task t, struct labels_item **out, int *n)
{
	static const char sql[] =
		"SELECT id, key, call_id, turn_id, turn, corpus, corpus_call_id, field, expected,"
		" captured, transcript, audio, context FROM ann_items WHERE task = ? ORDER BY id";
	enum err e = labels_select_task(l, &item_rows, sql, t, "reading the items", (void **)out, n);

	for (int i = 0; e == ERR_OK && i < *n; i++)
		(*out)[i].task = t;
	return e;
}

/* item_task: the task of item id. Errors: ERR_NOTFOUND, ERR_DB. */
static enum err item_task(struct labels *l, long long id, enum labels_task *t)
{
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;
	int rc;

	if (sqlite3_prepare_v2(l->db, "SELECT task FROM ann_items WHERE id = ?", -1, &q, NULL) !=
	    SQLITE_OK) {
		labels_fail(l, "reading an item");
		goto out;
	}
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		snprintf(l->err, sizeof l->err, "%s: no item %lld", l->path, id);
		e = ERR_NOTFOUND;
	} else if (rc != SQLITE_ROW) {
		labels_fail(l, "reading an item");
	} else {
		e = labels_task_parse((const char *)sqlite3_column_text(q, 0), t);
		if (e != ERR_OK)
			snprintf(l->err, sizeof l->err, "%s: item %lld has an unknown task", l->path,
				 id);
	}
out:
	sqlite3_finalize(q);
	return e;
}

/* write1: run a one-statement write in its own transaction. */
static enum err write1(struct labels *l, sqlite3_stmt *q, const char *what)
{
	enum err e = ERR_OK;
	if (begin(l, what) != ERR_OK)
		return ERR_DB;
	if (sqlite3_step(q) != SQLITE_DONE)
		e = labels_fail(l, what);
	return end(l, e, what);
}

enum err labels_put_many(struct labels *l, const long long *items, int n, const char *annotator,
			 const char *label, const char *note)
{
	static const char sql[] =
		"INSERT INTO ann_labels (item_id, annotator, label, note) VALUES (?,?,?,?)"
		" ON CONFLICT (item_id, annotator) DO UPDATE SET label = excluded.label,"
		" note = excluded.note, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')";
	sqlite3_stmt *q = NULL;
	enum labels_task t, t0 = LABELS_NTASKS;
	enum err e;

	if (!annotator || !annotator[0]) {
		snprintf(l->err, sizeof l->err, "a label needs the annotator's name");
		return ERR_INVALID;
	}
	/* every member is checked before anything is written */
	for (int i = 0; i < n; i++) {
		if ((e = item_task(l, items[i], &t)) != ERR_OK)
			return e;
		if (i > 0 && t != t0) {
			snprintf(l->err, sizeof l->err, "items %lld and %lld are of different tasks",
				 items[0], items[i]);
			return ERR_INVALID;
		}
		t0 = t;
	}
	if (n > 0 && !labels_valid(t0, label)) {
		snprintf(l->err, sizeof l->err, "'%s' is not a %s label", label ? label : "",
			 labels_task_name(t0));
		return ERR_INVALID;
	}
	e = ERR_DB;
	if (begin(l, "storing a label") != ERR_OK)
		return ERR_DB;
	if (sqlite3_prepare_v2(l->db, sql, -1, &q, NULL) != SQLITE_OK) {
		labels_fail(l, "storing a label");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, items[i]);
		bind_text(q, 2, annotator);
		bind_text(q, 3, label);
		bind_text(q, 4, note && note[0] ? note : NULL);
		if (sqlite3_step(q) != SQLITE_DONE) {
			labels_fail(l, "storing a label");
			goto out;
		}
	}
	e = ERR_OK;
out:
	sqlite3_finalize(q);
	return end(l, e, "storing a label");
}

enum err labels_put(struct labels *l, long long item, const char *annotator, const char *label,
		    const char *note)
{
	return labels_put_many(l, &item, 1, annotator, label, note);
}

enum err labels_flag(struct labels *l, long long item, const char *annotator, bool on,
		     const char *note)
{
	static const char ins[] =
		"INSERT INTO ann_flags (item_id, annotator, note) VALUES (?,?,?)"
		" ON CONFLICT (item_id, annotator) DO UPDATE SET note = excluded.note";
	static const char del[] = "DELETE FROM ann_flags WHERE item_id = ? AND annotator = ?";
	sqlite3_stmt *q = NULL;
	enum labels_task t;
	enum err e;

	if (!annotator || !annotator[0]) {
		snprintf(l->err, sizeof l->err, "a flag needs the annotator's name");
		return ERR_INVALID;
	}
	if ((e = item_task(l, item, &t)) != ERR_OK)
		return e;
	if (sqlite3_prepare_v2(l->db, on ? ins : del, -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "storing a flag");
	sqlite3_bind_int64(q, 1, item);
	bind_text(q, 2, annotator);
	if (on)
		bind_text(q, 3, note && note[0] ? note : NULL);
	e = write1(l, q, "storing a flag");
	sqlite3_finalize(q);
	return e;
}

enum err labels_flagged(struct labels *l, long long item, const char *annotator, bool *on)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (sqlite3_prepare_v2(l->db, "SELECT 1 FROM ann_flags WHERE item_id = ? AND annotator = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "reading a flag");
	sqlite3_bind_int64(q, 1, item);
	bind_text(q, 2, annotator);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return labels_fail(l, "reading a flag");
	*on = rc == SQLITE_ROW;
	return ERR_OK;
}

enum err labels_remove(struct labels *l, long long item, const char *annotator)
{
	sqlite3_stmt *q = NULL;
	enum err e;

	if (sqlite3_prepare_v2(l->db, "DELETE FROM ann_labels WHERE item_id = ? AND annotator = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "removing a label");
	sqlite3_bind_int64(q, 1, item);
	bind_text(q, 2, annotator);
	e = write1(l, q, "removing a label");
	sqlite3_finalize(q);
	return e;
}

enum err labels_get(struct labels *l, long long item, const char *annotator, char **label,
		    char **note)
{
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;
	char *lb = NULL, *nt = NULL;
	bool bad = false;
	int rc;

	if (sqlite3_prepare_v2(l->db,
			       "SELECT label, note FROM ann_labels WHERE item_id = ? AND annotator = ?",
			       -1, &q, NULL) != SQLITE_OK) {
		labels_fail(l, "reading a label");
		goto out;
	}
	sqlite3_bind_int64(q, 1, item);
	bind_text(q, 2, annotator);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		e = ERR_NOTFOUND;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		labels_fail(l, "reading a label");
		goto out;
	}
	lb = labels_col(q, 0, &bad);
	nt = labels_col(q, 1, &bad);
	e = bad ? ERR_NOMEM : ERR_OK;
out:
	sqlite3_finalize(q);
	if (e == ERR_OK) {
		if (label)
			*label = lb, lb = NULL;
		if (note)
			*note = nt, nt = NULL;
	}
	free(lb);
	free(nt);
	return e;
}

#define LABEL(type, member) LABELS_COLUMN(type, struct labels_label, member)
static const struct labels_column label_cols[] = {
	LABEL(LABELS_INT64, id), LABEL(LABELS_INT64, item), LABEL(LABELS_TEXT, annotator),
	LABEL(LABELS_TEXT, label), LABEL(LABELS_TEXT, note), LABEL(LABELS_TEXT, created_at),
	LABEL(LABELS_TEXT, updated_at),
};
#undef LABEL
static const struct labels_rows label_rows = LABELS_ROWS(struct labels_label, label_cols);

void labels_all_free(struct labels_label *v, int n)
{
	labels_rows_free(&label_rows, v, n);
}

enum err labels_all(struct labels *l, enum labels_task t, struct labels_label **out, int *n)
{
	static const char sql[] =
		"SELECT l.id, l.item_id, l.annotator, l.label, l.note, l.created_at, l.updated_at"
		" FROM ann_labels l JOIN ann_items i ON i.id = l.item_id WHERE i.task = ?"
		" ORDER BY l.item_id, l.annotator";
	return labels_select_task(l, &label_rows, sql, t, "reading the labels", (void **)out, n);
}
