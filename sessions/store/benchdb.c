/* benchdb: benchmark results in SQLite (benchdb.h). */
#include "benchdb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "store.h"

struct benchdb {
	struct store *st;
	sqlite3 *db;       /* st's connection, for the bench tables only */
	sqlite3_stmt *put;
	int pending;       /* rows written in the open transaction */
};

/* IF NOT EXISTS: files of before the one open policy hold these tables at version 0. */
static const char schema_v1[] =
	"CREATE TABLE IF NOT EXISTS bench_results("
	" stage TEXT NOT NULL, scope TEXT NOT NULL, spec TEXT NOT NULL, key TEXT NOT NULL,"
	" data TEXT NOT NULL, at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
	" PRIMARY KEY(stage, scope, spec, key));"
	"CREATE TABLE IF NOT EXISTS bench_runs("
	" scope TEXT NOT NULL, stt TEXT NOT NULL, extract TEXT NOT NULL, reply TEXT NOT NULL,"
	" started TEXT NOT NULL, finished TEXT, PRIMARY KEY(scope, stt, extract, reply));"
	"CREATE TABLE IF NOT EXISTS bench_judgements("
	" judge TEXT NOT NULL, version TEXT NOT NULL, item TEXT NOT NULL, decision TEXT,"
	" raw TEXT, cost REAL NOT NULL DEFAULT 0, error TEXT,"
	" at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
	" PRIMARY KEY(judge, version, item));";

/* Migrations, as data: migrations[i] brings version i to i + 1. */
static const char *const migrations[] = {schema_v1};

/* The bench tables, opened with the store (sessions/store/store.h). */
static const struct store_part part = {
	.name = "bench tables",
	.prefix = "bench_",
	.meta = "bench_meta",
	.migrations = migrations,
	.n_migrations = (int)(sizeof migrations / sizeof migrations[0]),
};

enum err benchdb_open(const char *path, struct benchdb **out, char **errmsg)
{
	struct benchdb *b = calloc(1, sizeof *b);
	enum err e;
	if (errmsg)
		*errmsg = NULL;
	if (!b)
		return ERR_NOMEM;
	if ((e = store_open_with(path, STORE_CREATE, &part, &b->st, errmsg)) != ERR_OK)
		goto out;
	b->db = store_sqlite(b->st);
	e = ERR_DB;
	if (sqlite3_prepare_v2(b->db,
			       "INSERT OR REPLACE INTO bench_results(stage,scope,spec,key,data) "
			       "VALUES(?,?,?,?,?)",
			       -1, &b->put, NULL) != SQLITE_OK) {
		if (errmsg && asprintf(errmsg, "%s: %s", path, sqlite3_errmsg(b->db)) < 0)
			*errmsg = NULL;
		goto out;
	}
	*out = b;
	b = NULL;
	e = ERR_OK;
out:
	if (b) {
		sqlite3_finalize(b->put);
		store_close(b->st);
		free(b);
	}
	return e;
}

enum err benchdb_flush(struct benchdb *db)
{
	if (db->pending == 0)
		return ERR_OK;
	db->pending = 0;
	return sqlite3_exec(db->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? ERR_OK : ERR_DB;
}

void benchdb_close(struct benchdb *db)
{
	if (!db)
		return;
	benchdb_flush(db);
	sqlite3_finalize(db->put);
	store_close(db->st);
	free(db);
}

const char *benchdb_error(const struct benchdb *db)
{
	return db ? sqlite3_errmsg(db->db) : "";
}

enum err benchdb_put(struct benchdb *db, const char *stage, const char *scope, const char *spec,
		     const char *key, const char *data)
{
	if (db->pending == 0 && sqlite3_exec(db->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return ERR_DB;
	db->pending++;
	sqlite3_reset(db->put);
	sqlite3_bind_text(db->put, 1, stage, -1, SQLITE_STATIC);
	sqlite3_bind_text(db->put, 2, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(db->put, 3, spec, -1, SQLITE_STATIC);
	sqlite3_bind_text(db->put, 4, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(db->put, 5, data, -1, SQLITE_STATIC);
	int rc = sqlite3_step(db->put);
	sqlite3_clear_bindings(db->put);
	if (rc != SQLITE_DONE)
		return ERR_DB;
	return db->pending >= BENCHDB_BATCH ? benchdb_flush(db) : ERR_OK;
}

/* prepare: sql prepared on db, its parameters 1 to n bound to the n strings that follow
 * (borrowed until the statement is finalized; a NULL one binds NULL). Returns the
 * statement (caller finalizes), NULL when SQLite cannot prepare it. */
static sqlite3_stmt *prepare(struct benchdb *db, const char *sql, int n, ...)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	va_list ap;
	va_start(ap, n);
	for (int i = 1; i <= n; i++)
		sqlite3_bind_text(st, i, va_arg(ap, const char *), -1, SQLITE_STATIC);
	va_end(ap);
	return st;
}

enum err benchdb_each(struct benchdb *db, const char *stage, const char *scope, const char *spec,
		      benchdb_row_fn fn, void *ud)
{
	sqlite3_stmt *st = NULL;
	enum err e = ERR_DB;
	int rc;
	if (benchdb_flush(db) != ERR_OK ||
	    !(st = prepare(db,
			   "SELECT spec, key, data FROM bench_results WHERE stage=? AND scope=? "
			   "AND (?3 IS NULL OR spec=?3) ORDER BY spec, key",
			   3, stage, scope, spec)))
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn(ud, (const char *)sqlite3_column_text(st, 0),
		       (const char *)sqlite3_column_text(st, 1),
		       (const char *)sqlite3_column_text(st, 2)) != 0) {
			e = ERR_CANCELLED;
			goto out;
		}
	e = rc == SQLITE_DONE ? ERR_OK : ERR_DB;
out:
	sqlite3_finalize(st);
	return e;
}

enum err benchdb_specs(struct benchdb *db, const char *stage, const char *scope,
		       benchdb_spec_fn fn, void *ud)
{
	sqlite3_stmt *st = NULL;
	enum err e = ERR_DB;
	int rc;
	if (benchdb_flush(db) != ERR_OK ||
	    !(st = prepare(db,
			   "SELECT spec FROM bench_results WHERE stage=? AND scope=? GROUP BY spec "
			   "ORDER BY min(rowid)",
			   2, stage, scope)))
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn(ud, (const char *)sqlite3_column_text(st, 0));
	e = rc == SQLITE_DONE ? ERR_OK : ERR_DB;
out:
	sqlite3_finalize(st);
	return e;
}

enum err benchdb_run_mark(struct benchdb *db, const char *scope, const char *stt,
			  const char *extract, const char *reply, bool done)
{
	sqlite3_stmt *st = NULL;
	enum err e = ERR_DB;
	const char *sql =
		done ? "UPDATE bench_runs SET finished=strftime('%Y-%m-%dT%H:%M:%SZ','now') "
		       "WHERE scope=? AND stt=? AND extract=? AND reply=?"
		     : "INSERT OR IGNORE INTO bench_runs(scope,stt,extract,reply,started) "
		       "VALUES(?,?,?,?,strftime('%Y-%m-%dT%H:%M:%SZ','now'))";
	if (benchdb_flush(db) != ERR_OK || !(st = prepare(db, sql, 4, scope, stt, extract, reply)))
		goto out;
	e = sqlite3_step(st) == SQLITE_DONE ? ERR_OK : ERR_DB;
out:
	sqlite3_finalize(st);
	return e;
}

enum err benchdb_judgement_get(struct benchdb *db, const char *judge, const char *version,
			       const char *item, char **decision, double *cost)
{
	sqlite3_stmt *st = NULL;
	enum err e = ERR_DB;
	int rc;
	if (!(st = prepare(db,
			   "SELECT decision, cost FROM bench_judgements WHERE judge=? AND version=? "
			   "AND item=? AND decision IS NOT NULL",
			   3, judge, version, item)))
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		char *d = strdup((const char *)sqlite3_column_text(st, 0));
		if (!d) {
			e = ERR_NOMEM;
			goto out;
		}
		*decision = d;
		if (cost)
			*cost = sqlite3_column_double(st, 1);
		e = ERR_OK;
	} else if (rc == SQLITE_DONE) {
		e = ERR_NOTFOUND;
	}
out:
	sqlite3_finalize(st);
	return e;
}

enum err benchdb_judgement_put(struct benchdb *db, const char *judge, const char *version,
			       const char *item, const char *decision, const char *raw,
			       double cost, const char *error)
{
	sqlite3_stmt *st = NULL;
	enum err e = ERR_DB;
	if (db->pending == 0 && sqlite3_exec(db->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return ERR_DB;
	db->pending++;
	if (!(st = prepare(db,
			   "INSERT OR REPLACE INTO bench_judgements(judge,version,item,decision,raw,"
			   "cost,error) VALUES(?,?,?,?,?,?,?)",
			   5, judge, version, item, decision, raw)))
		goto out;
	sqlite3_bind_double(st, 6, cost > 0 ? cost : 0);
	if (error)
		sqlite3_bind_text(st, 7, error, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		e = db->pending >= BENCHDB_BATCH ? benchdb_flush(db) : ERR_OK;
out:
	sqlite3_finalize(st);
	return e;
}
