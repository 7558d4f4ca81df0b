/* store: the SQLite session store (see store.h for the tables). */
#include "store.h"

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <cjson/cJSON.h>

#include "base/vec.h"

struct store {
	sqlite3 *db;
	char *path;
	char err[512];
};

/* The columns of the store's tables, one row each: what CREATE declares, what INSERT
 * binds and what the readers fill, so a new column is one row here (plus its migration
 * step below, for older files). Rows are in the order the columns were added, so a
 * file created now and one migrated from version 1 have the same tables
 * (tests/test_store.c compares them). A turns column whose value follows from the turn
 * handed to store_turn_add is a row of the registry instead (turncol.h): it comes after
 * these, and needs no migration step. */
enum col_kind {
	K_NONE,     /* declared only (a default, or set by an UPDATE) */
	K_KEY,      /* long long: the row id (INTEGER PRIMARY KEY), read only */
	K_ID,       /* long long: a row id of another table, 0 stored NULL */
	K_TEXT,     /* const char *: NULL stored NULL */
	K_NONEMPTY, /* const char *: NULL or "" stored NULL */
	K_INT,      /* int */
	K_BOOL,     /* bool, stored 0 or 1 */
	K_LONG,     /* long: negative stored NULL (unknown) */
	K_REAL,     /* double */
	K_REAL_OPT, /* double: negative stored NULL (unknown) */
	K_REAL_POS, /* double: 0 or negative stored NULL (none) */
	K_CHARS,    /* char array: written only, as K_TEXT */
	K_CHARS_NONEMPTY, /* char array: written only, "" stored NULL */
};

#define COL_INS 1 /* bound by INSERT */
#define COL_RD 2  /* filled by the readers */

struct column {
	const char *name, *decl;
	enum col_kind kind;
	size_t off;   /* the member in the table's row struct */
	size_t guard; /* 1 + offset of a bool member that must be true for the value to be
	                 stored (and is set when it is read back non-NULL); 0 none */
	int flags;
};

/* MEMBER: the offset of member m of T, a compile error unless it has kind k's C type. */
#define KTYPE_K_KEY long long
#define KTYPE_K_ID long long
#define KTYPE_K_TEXT const char *
#define KTYPE_K_NONEMPTY const char *
#define KTYPE_K_INT int
#define KTYPE_K_BOOL bool
#define KTYPE_K_LONG long
#define KTYPE_K_REAL double
#define KTYPE_K_REAL_OPT double
#define KTYPE_K_REAL_POS double
#define KTYPE_K_CHARS char *
#define KTYPE_K_CHARS_NONEMPTY char *
#define MEMBER(T, m, k) \
	(offsetof(T, m) + 0 * sizeof(char[_Generic(((T *)0)->m, KTYPE_##k: 1, default: -1)]))
/* C: a column of member m; G: one stored only when bool member g is true; N: declared
 * only. */
#define C(T, name, decl, k, m, fl) {name, decl, k, MEMBER(T, m, k), 0, fl}
#define G(T, name, decl, k, m, g, fl) \
	{name, decl, k, MEMBER(T, m, k), 1 + MEMBER(T, g, K_BOOL), fl}
#define N(name, decl) {name, decl, K_NONE, 0, 0, 0}
#define IR (COL_INS | COL_RD)

#define NOW "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"

#define CR struct store_call_row
static const struct column call_cols[] = {
	C(CR, "id", "INTEGER PRIMARY KEY", K_KEY, id, COL_RD),
	C(CR, "corpus", "TEXT", K_TEXT, info.corpus, IR),
	C(CR, "corpus_call_id", "TEXT", K_TEXT, info.corpus_call_id, IR),
	C(CR, "caller", "TEXT", K_TEXT, info.caller, IR),
	C(CR, "path", "TEXT", K_TEXT, info.path, IR),
	C(CR, "form_path", "TEXT", K_TEXT, info.form_path, IR),
	C(CR, "form_title", "TEXT", K_TEXT, info.form_title, IR),
	C(CR, "stt", "TEXT", K_TEXT, info.stt, IR),
	C(CR, "extract", "TEXT", K_TEXT, info.extract, IR),
	C(CR, "reply", "TEXT", K_TEXT, info.reply, IR),
	C(CR, "today", "TEXT", K_TEXT, info.today, IR),
	C(CR, "started_at", "TEXT NOT NULL DEFAULT " NOW, K_TEXT, started_at, COL_RD),
	C(CR, "ended_at", "TEXT", K_TEXT, ended_at, COL_RD),
	C(CR, "status", "TEXT NOT NULL DEFAULT 'in_progress'", K_TEXT, status, COL_RD),
	C(CR, "reason", "TEXT", K_TEXT, reason, COL_RD),
	C(CR, "opening", "TEXT", K_TEXT, info.opening, IR),
	C(CR, "opening_decision", "TEXT", K_TEXT, info.opening_decision, IR),
	C(CR, "form_data", "TEXT", K_TEXT, form_data, COL_RD),
	C(CR, "form_status", "TEXT", K_TEXT, form_status, COL_RD),
	C(CR, "turns", "INTEGER NOT NULL DEFAULT 0", K_INT, turns, COL_RD),
	C(CR, "audio_dir", "TEXT", K_TEXT, audio_dir, COL_RD), /* version 3 */
	C(CR, "run_id", "INTEGER REFERENCES runs(id)", K_ID, info.run_id, IR), /* version 5 */
	C(CR, "replay_of", "INTEGER", K_ID, info.replay_of, IR),
};

#define TR struct store_turn_row
static const struct column turn_cols[] = {
	C(TR, "id", "INTEGER PRIMARY KEY", K_KEY, id, COL_RD),
	C(TR, "call_id", "INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE", K_ID,
	  call_id, IR),
	C(TR, "idx", "INTEGER NOT NULL", K_INT, t.index, IR),
	C(TR, "utterance_id", "TEXT", K_TEXT, t.utterance_id, IR),
	C(TR, "audio", "TEXT", K_TEXT, t.audio, IR),
	C(TR, "condition", "TEXT", K_TEXT, t.condition, IR),
	C(TR, "seg_start_ms", "INTEGER", K_LONG, t.seg_start_ms, IR),
	C(TR, "seg_end_ms", "INTEGER", K_LONG, t.seg_end_ms, IR),
	C(TR, "segments", "TEXT", K_TEXT, t.segments, IR),
	C(TR, "transcript", "TEXT", K_TEXT, t.transcript, IR),
	C(TR, "extraction", "TEXT", K_TEXT, t.extraction, IR),
	C(TR, "decision", "TEXT", K_TEXT, t.decision, IR),
	C(TR, "reply", "TEXT", K_TEXT, t.reply, IR),
	C(TR, "audio_ms", "REAL", K_REAL, t.audio_ms, IR),
	C(TR, "vad_ms", "REAL", K_REAL, t.vad_ms, IR),
	C(TR, "stt_ms", "REAL", K_REAL, t.stt_ms, IR),
	C(TR, "extract_ms", "REAL", K_REAL, t.extract_ms, IR),
	C(TR, "rules_ms", "REAL", K_REAL, t.rules_ms, IR),
	C(TR, "reply_ms", "REAL", K_REAL, t.reply_ms, IR),
	C(TR, "total_ms", "REAL", K_REAL, t.total_ms, IR),
	C(TR, "speech_ms", "REAL", K_REAL, t.speech_ms, IR),
	C(TR, "error", "TEXT", K_TEXT, t.error, IR),
	N("created_at", "TEXT NOT NULL DEFAULT " NOW),
	C(TR, "cancelled", "INTEGER NOT NULL DEFAULT 0", K_BOOL, t.cancelled, IR), /* v2 */
	C(TR, "input", "TEXT", K_TEXT, t.input, IR),                               /* v3 */
	C(TR, "barge_in", "INTEGER NOT NULL DEFAULT 0", K_BOOL, t.barge_in, IR),
	G(TR, "barge_in_ms", "INTEGER", K_LONG, t.barge_in_ms, t.barge_in, IR),
	C(TR, "silence", "INTEGER NOT NULL DEFAULT 0", K_BOOL, t.silence, IR),
	G(TR, "caller_audio_start_ms", "INTEGER", K_LONG, t.caller_audio_start_ms, t.recorded, IR),
	G(TR, "caller_audio_end_ms", "INTEGER", K_LONG, t.caller_audio_end_ms, t.recorded, IR),
	/* set by store_turn_agent_audio */
	C(TR, "agent_audio_start_ms", "INTEGER", K_LONG, agent_audio_start_ms, COL_RD),
	C(TR, "agent_audio_end_ms", "INTEGER", K_LONG, agent_audio_end_ms, COL_RD),
	C(TR, "ack", "TEXT", K_TEXT, t.ack, IR), /* v4 */
	/* then the registered columns (turncol.h), latency (v6) first */
};

#define KR struct store_capture
static const struct column capture_cols[] = {
	C(KR, "id", "INTEGER PRIMARY KEY", K_KEY, id, COL_RD),
	C(KR, "turn_id", "INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE", K_ID, turn_id,
	  IR),
	C(KR, "field", "TEXT", K_TEXT, field, IR),
	C(KR, "raw", "TEXT", K_TEXT, raw, IR),
	C(KR, "value", "TEXT", K_TEXT, value, IR),
	C(KR, "status", "TEXT", K_TEXT, status, IR),
	C(KR, "reason", "TEXT", K_TEXT, reason, IR),
};

#define VR struct store_verdict
static const struct column verdict_cols[] = {
	C(VR, "id", "INTEGER PRIMARY KEY", K_KEY, id, COL_RD),
	C(VR, "turn_id", "INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE", K_ID, turn_id,
	  IR),
	C(VR, "field", "TEXT", K_TEXT, field, IR),
	C(VR, "rule", "TEXT", K_TEXT, rule, IR),
	C(VR, "ok", "INTEGER NOT NULL", K_BOOL, ok, IR),
	C(VR, "message", "TEXT", K_TEXT, message, IR),
};

/* A stage_usage row: the request, and whose it is (turn_id 0: the call's opening). */
struct usage_row {
	long long id, call_id, turn_id;
	struct store_usage u;
};
#define UR struct usage_row
static const struct column usage_cols[] = {
	C(UR, "id", "INTEGER PRIMARY KEY", K_KEY, id, COL_RD),
	C(UR, "call_id", "INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE", K_ID, call_id,
	  IR),
	C(UR, "turn_id", "INTEGER REFERENCES turns(id) ON DELETE CASCADE", K_ID, turn_id, IR),
	C(UR, "stage", "TEXT NOT NULL", K_TEXT, u.stage, IR),
	C(UR, "provider", "TEXT", K_CHARS, u.backend.provider, COL_INS),
	C(UR, "model", "TEXT", K_CHARS, u.backend.model, COL_INS),
	C(UR, "ttfb_ms", "REAL", K_REAL, u.backend.ttfb_ms, IR),
	C(UR, "total_ms", "REAL", K_REAL, u.backend.total_ms, IR),
	C(UR, "attempts", "INTEGER", K_INT, u.backend.attempts, IR),
	C(UR, "tokens_in", "INTEGER", K_LONG, u.backend.tokens_in, IR),
	C(UR, "tokens_out", "INTEGER", K_LONG, u.backend.tokens_out, IR),
	C(UR, "audio_s", "REAL", K_REAL, u.backend.audio_s, IR),
	C(UR, "cost_usd", "REAL", K_REAL_OPT, u.backend.cost_usd, IR),
	C(UR, "error", "TEXT", K_CHARS_NONEMPTY, u.backend.error, COL_INS),
	C(UR, "ack_ms", "REAL", K_REAL_POS, u.backend.ack_ms, IR), /* v4 */
};

#define RR struct store_run_row
static const struct column run_cols[] = { /* version 5 */
	C(RR, "id", "INTEGER PRIMARY KEY", K_KEY, id, COL_RD),
	C(RR, "source", "TEXT NOT NULL", K_TEXT, info.source, IR),
	C(RR, "form_path", "TEXT", K_TEXT, info.form_path, IR),
	C(RR, "form_title", "TEXT", K_TEXT, info.form_title, IR),
	C(RR, "form_json", "TEXT", K_TEXT, info.form_json, IR),
	C(RR, "form_sha256", "TEXT", K_TEXT, info.form_sha256, IR),
	C(RR, "stt", "TEXT", K_TEXT, info.stt, IR),
	C(RR, "extract", "TEXT", K_TEXT, info.extract, IR),
	C(RR, "reply", "TEXT", K_TEXT, info.reply, IR),
	C(RR, "backends", "TEXT", K_TEXT, info.backends, IR),
	C(RR, "options", "TEXT", K_TEXT, info.options, IR),
	C(RR, "corpus", "TEXT", K_TEXT, info.corpus, IR),
	C(RR, "corpus_dir", "TEXT", K_TEXT, info.corpus_dir, IR),
	C(RR, "version", "TEXT", K_TEXT, info.version, IR),
	C(RR, "replay_of", "INTEGER", K_ID, info.replay_of, IR),
	C(RR, "started_at", "TEXT NOT NULL DEFAULT " NOW, K_TEXT, started_at, COL_RD),
	C(RR, "ended_at", "TEXT", K_TEXT, ended_at, COL_RD),
	C(RR, "migrated", "INTEGER NOT NULL DEFAULT 0", K_BOOL, migrated, COL_RD),
};

struct table {
	const char *name;
	const struct column *cols;
	int n;
	const char *constraint; /* table constraint after the columns, NULL none */
};
#define TABLE(name, cols, constraint) {name, cols, (int)(sizeof cols / sizeof cols[0]), constraint}
enum { T_CALLS, T_TURNS, T_CAPTURES, T_VERDICTS, T_USAGE, T_RUNS };
static const struct table tables[] = {
	[T_CALLS] = TABLE("calls", call_cols, NULL),
	[T_TURNS] = TABLE("turns", turn_cols, "UNIQUE (call_id, idx)"),
	[T_CAPTURES] = TABLE("captures", capture_cols, NULL),
	[T_VERDICTS] = TABLE("verdicts", verdict_cols, NULL),
	[T_USAGE] = TABLE("stage_usage", usage_cols, NULL),
	[T_RUNS] = TABLE("runs", run_cols, NULL),
};

static const char indexes[] =
	"CREATE INDEX turns_call ON turns(call_id);"
	"CREATE INDEX captures_turn ON captures(turn_id);"
	"CREATE INDEX verdicts_turn ON verdicts(turn_id);"
	"CREATE INDEX verdicts_field ON verdicts(field, ok);"
	"CREATE INDEX calls_corpus ON calls(corpus, corpus_call_id);"
	"CREATE INDEX stage_usage_turn ON stage_usage(turn_id);"
	"CREATE INDEX stage_usage_call ON stage_usage(call_id, stage);"
	"CREATE INDEX calls_run ON calls(run_id);";

/* Migrations, as data: an older file is brought up one version at a time, each step in
 * its own transaction (a new file gets the tables above at once). Version 1 was the
 * tables above without the columns marked with a later version and without stage_usage
 * (tests/data/store_v1_schema.sql). */

/* Version 2: per-request measurements of the network stages, and cancelled turns. */
static const char schema_v2[] =
	"ALTER TABLE turns ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE stage_usage ("
	" id INTEGER PRIMARY KEY,"
	" call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE,"
	" turn_id INTEGER REFERENCES turns(id) ON DELETE CASCADE,"
	" stage TEXT NOT NULL, provider TEXT, model TEXT,"
	" ttfb_ms REAL, total_ms REAL, attempts INTEGER,"
	" tokens_in INTEGER, tokens_out INTEGER, audio_s REAL, cost_usd REAL,"
	" error TEXT);"
	"CREATE INDEX stage_usage_turn ON stage_usage(turn_id);"
	"CREATE INDEX stage_usage_call ON stage_usage(call_id, stage);";

/* Version 3: live calls. Per turn: how the caller's words came in (input: "corpus",
 * "typed", "mic"; turns of earlier versions with a corpus are marked "corpus"), whether
 * the caller barged in and when (ms into the agent's speech), whether it was a silence
 * turn, and where the turn lies in the call's recordings (ms from the start of the
 * caller's and the agent's files). Per call: the folder of its recordings. */
static const char schema_v3[] =
	"ALTER TABLE turns ADD COLUMN input TEXT;"
	"ALTER TABLE turns ADD COLUMN barge_in INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE turns ADD COLUMN barge_in_ms INTEGER;"
	"ALTER TABLE turns ADD COLUMN silence INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE turns ADD COLUMN caller_audio_start_ms INTEGER;"
	"ALTER TABLE turns ADD COLUMN caller_audio_end_ms INTEGER;"
	"ALTER TABLE turns ADD COLUMN agent_audio_start_ms INTEGER;"
	"ALTER TABLE turns ADD COLUMN agent_audio_end_ms INTEGER;"
	"ALTER TABLE calls ADD COLUMN audio_dir TEXT;"
	"UPDATE turns SET input = 'corpus'"
	" WHERE call_id IN (SELECT id FROM calls WHERE corpus IS NOT NULL);";

/* Version 4: the acknowledgement said early. Per EXTRACT request, the time from its start
 * to the acknowledgement being known (stage_usage.ack_ms, NULL for other stages, for an
 * answer without one, and for rows of earlier versions); per turn, the acknowledgement the
 * agent said before the rest of EXTRACT's answer was in (turns.ack, NULL when none). */
static const char schema_v4[] =
	"ALTER TABLE stage_usage ADD COLUMN ack_ms REAL;"
	"ALTER TABLE turns ADD COLUMN ack TEXT;";

/* Version 5: runs. The calls of an older file are put in one run per what can be told
 * of how they were made (source: "run" for a corpus call, as the simulator's cannot be
 * told from it; "mic" for a call with a microphone turn; else "typed"), form and
 * backends, marked migrated; the form's content is not known, "today" is kept when the
 * run's calls agree on it. */
static const char schema_v5[] =
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, source TEXT NOT NULL, form_path TEXT,"
	" form_title TEXT, form_json TEXT, form_sha256 TEXT, stt TEXT, extract TEXT, reply TEXT,"
	" backends TEXT, options TEXT, corpus TEXT, corpus_dir TEXT, version TEXT,"
	" replay_of INTEGER, started_at TEXT NOT NULL DEFAULT " NOW ", ended_at TEXT,"
	" migrated INTEGER NOT NULL DEFAULT 0);"
	"ALTER TABLE calls ADD COLUMN run_id INTEGER REFERENCES runs(id);"
	"ALTER TABLE calls ADD COLUMN replay_of INTEGER;"
	"CREATE INDEX calls_run ON calls(run_id);"
	"CREATE TEMP TABLE call_source AS SELECT id, CASE WHEN corpus IS NOT NULL THEN 'run'"
	" WHEN EXISTS (SELECT 1 FROM turns t WHERE t.call_id = calls.id AND t.input = 'mic')"
	" THEN 'mic' ELSE 'typed' END AS source FROM calls;"
	"INSERT INTO runs (source, form_path, form_title, stt, extract, reply, corpus, options,"
	" started_at, ended_at, migrated)"
	" SELECT s.source, c.form_path, c.form_title, c.stt, c.extract, c.reply, c.corpus,"
	" CASE WHEN count(DISTINCT c.today) = 1 AND count(c.today) = count(*)"
	" THEN json_object('today', min(c.today)) END, min(c.started_at), max(c.ended_at), 1"
	" FROM calls c JOIN call_source s ON s.id = c.id"
	" GROUP BY s.source, c.form_path, c.form_title, c.stt, c.extract, c.reply, c.corpus"
	" ORDER BY min(c.id);"
	"UPDATE calls SET run_id = (SELECT r.id FROM runs r JOIN call_source s ON s.id = calls.id"
	" WHERE r.source = s.source AND r.form_path IS calls.form_path"
	" AND r.form_title IS calls.form_title AND r.stt IS calls.stt"
	" AND r.extract IS calls.extract AND r.reply IS calls.reply AND r.corpus IS calls.corpus);"
	"DROP TABLE temp.call_source;";

/* Version 6: where a turn's time went: the end of the caller's speech to the agent's first
 * sound in parts (sessions/store/latency.h), as {"total_ms","parts":[{"name","ms",
 * "governed_by"}]}; NULL for turns that said nothing and turns of earlier versions. */
static const char schema_v6[] = "ALTER TABLE turns ADD COLUMN latency TEXT;";

/* migrations[i] brings version i to i + 1; version 0 is a new file (NULL: the tables
 * above, created at the current version). */
static const char *const migrations[] = {NULL, schema_v2, schema_v3, schema_v4, schema_v5,
					 schema_v6};
_Static_assert(sizeof migrations / sizeof migrations[0] == STORE_SCHEMA_VERSION,
	       "a migration per schema version");

static void set_err(struct store *st, const char *what)
{
	snprintf(st->err, sizeof st->err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

enum err store_fail(struct store *st, const char *what)
{
	set_err(st, what);
	return ERR_DB;
}

const char *store_error(const struct store *st)
{
	return st ? st->err : "";
}

struct sqlite3 *store_sqlite(struct store *st)
{
	return st->db;
}

const char *store_path(const struct store *st)
{
	return st->path;
}

static int exec(struct store *st, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		snprintf(st->err, sizeof st->err, "%s: %s: %s", st->path, what,
			 msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
	}
	return rc;
}

int store_exec(struct store *st, const char *sql, const char *what)
{
	return exec(st, sql, what);
}

enum err store_begin(struct store *st, const char *what)
{
	return exec(st, "BEGIN IMMEDIATE", what) == SQLITE_OK ? ERR_OK : ERR_DB;
}

enum err store_end(struct store *st, enum err e, const char *what)
{
	if (e == ERR_OK && exec(st, "COMMIT", what) != SQLITE_OK)
		e = ERR_DB;
	if (e != ERR_OK)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return e;
}

/* scalar: the integer in the first column of the first row of sql (its parameter 1
 * bound to text arg when not NULL); def when there is no row or it is NULL. Errors:
 * ERR_DB (message in st). */
static enum err scalar(struct store *st, const char *sql, const char *arg, int def, int *v)
{
	sqlite3_stmt *q = NULL;
	int rc;

	*v = def;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, "reading the schema");
		return ERR_DB;
	}
	if (arg)
		sqlite3_bind_text(q, 1, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*v = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		set_err(st, "reading the schema");
		return ERR_DB;
	}
	return ERR_OK;
}

/* The tables one pass of the policy brings up to date: the store's own (part NULL,
 * version in PRAGMA user_version) or a part's (version in its meta table). */
static enum err read_version(struct store *st, const struct store_part *p, int *v)
{
	char sql[160];
	int has;
	enum err e;

	if (!p)
		return scalar(st, "PRAGMA user_version", NULL, 0, v);
	*v = 0;
	if ((e = scalar(st, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
			p->meta, 0, &has)) != ERR_OK || !has)
		return e;
	snprintf(sql, sizeof sql,
		 "SELECT CAST(value AS INTEGER) FROM %s WHERE name = 'schema_version'", p->meta);
	return scalar(st, sql, NULL, 0, v);
}

static int write_version(struct store *st, const struct store_part *p, int v)
{
	char sql[256];

	if (!p)
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
	else
		snprintf(sql, sizeof sql,
			 "CREATE TABLE IF NOT EXISTS %s (name TEXT PRIMARY KEY, value TEXT);"
			 "INSERT OR REPLACE INTO %s VALUES ('schema_version', '%d')",
			 p->meta, p->meta, v);
	return exec(st, sql, "setting the schema version");
}

/* version_ok: whether version v of the tables (part p, NULL the store's) is one this
 * formdesk can open; if not, the message is in st. */
static bool version_ok(struct store *st, const struct store_part *p, int v, int latest)
{
	const char *name = p ? p->name : "schema";

	if (v > latest)
		snprintf(st->err, sizeof st->err,
			 "%s: %s version %d is newer than this formdesk knows (%d): it was written "
			 "by a newer formdesk; open it with that one",
			 st->path, name, v, latest);
	else if (v < 0)
		snprintf(st->err, sizeof st->err, "%s: %s version %d is not one of formdesk's (1 to %d)",
			 st->path, name, v, latest);
	return v >= 0 && v <= latest;
}

/* append: s at the end of buf (size n, *len used); false when it does not fit. */
static bool append(char *buf, size_t n, size_t *len, const char *s)
{
	size_t l = strlen(s);
	if (*len + l + 1 > n)
		return false;
	memcpy(buf + *len, s, l + 1);
	*len += l;
	return true;
}

/* create_sql: CREATE TABLE statements for every table, then the indexes (caller frees).
 * NULL when out of memory. */
static char *create_sql(void)
{
	size_t n = sizeof indexes, len = 0;
	char *buf;
	bool ok = true;

	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		n += 64 + (tables[t].constraint ? strlen(tables[t].constraint) : 0);
		for (int i = 0; i < tables[t].n; i++)
			n += strlen(tables[t].cols[i].name) + strlen(tables[t].cols[i].decl) + 4;
	}
	for (int i = 0; i < turncol_count(); i++)
		n += strlen(turncol_at(i)->name) + 12;
	if (!(buf = malloc(n)))
		return NULL;
	buf[0] = '\0';
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		const struct table *tb = &tables[t];
		ok = ok && append(buf, n, &len, "CREATE TABLE ") && append(buf, n, &len, tb->name) &&
		     append(buf, n, &len, " (");
		for (int i = 0; i < tb->n; i++)
			ok = ok && append(buf, n, &len, i ? ", " : "") &&
			     append(buf, n, &len, tb->cols[i].name) && append(buf, n, &len, " ") &&
			     append(buf, n, &len, tb->cols[i].decl);
		for (int i = 0; t == T_TURNS && i < turncol_count(); i++)
			ok = ok && append(buf, n, &len, ", ") &&
			     append(buf, n, &len, turncol_at(i)->name) && append(buf, n, &len, " ") &&
			     append(buf, n, &len, turncol_sql_type(turncol_at(i)->type));
		if (tb->constraint)
			ok = ok && append(buf, n, &len, ", ") && append(buf, n, &len, tb->constraint);
		ok = ok && append(buf, n, &len, ");");
	}
	ok = ok && append(buf, n, &len, indexes);
	if (!ok) { /* cannot happen: n counts every piece */
		free(buf);
		return NULL;
	}
	return buf;
}

/* foreign_tables: the number of tables in the file that are neither SQLite's nor part p's
 * (may be NULL). */
static enum err foreign_tables(struct store *st, const struct store_part *p, int *n)
{
	char sql[256];
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
		 " AND name NOT LIKE 'sqlite\\_%%' ESCAPE '\\' AND (?1 IS NULL OR substr(name, 1, %zu) <> ?1)",
		 p && p->prefix ? strlen(p->prefix) : (size_t)0);
	return scalar(st, sql, p ? p->prefix : NULL, 0, n);
}

/* upgrade: bring the store's tables (p NULL; other is the part being opened with them)
 * or part p's up to date, one version per IMMEDIATE transaction. Errors: ERR_NOTFOUND
 * (STORE_EXISTING and no store tables), ERR_DB, ERR_NOMEM; the message is in st. */
static enum err upgrade(struct store *st, enum store_mode mode, const struct store_part *p,
			const struct store_part *other)
{
	const int latest = p ? p->n_migrations : STORE_SCHEMA_VERSION;
	enum err e;
	int v, next;

	for (;;) {
		char *fresh = NULL;
		const char *sql;

		if ((e = read_version(st, p, &v)) != ERR_OK)
			return e;
		if (v == latest)
			return ERR_OK;
		if (!version_ok(st, p, v, latest))
			return ERR_DB;
		/* IMMEDIATE, and the version read again inside: another process may have
		 * migrated the file while this one waited for the lock. */
		if (store_begin(st, "starting the schema update") != ERR_OK)
			return ERR_DB;
		e = read_version(st, p, &v);
		if (e != ERR_OK || v == latest || !version_ok(st, p, v, latest)) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			if (e == ERR_OK && v != latest)
				e = ERR_DB;
			if (e != ERR_OK)
				return e;
			continue;
		}
		next = v + 1;
		sql = p ? p->migrations[v] : migrations[v];
		if (!p && v == 0) {
			int n = 0;
			if (mode == STORE_EXISTING) {
				snprintf(st->err, sizeof st->err,
					 "%s: no recorded calls in it (not a formdesk session database; "
					 "make one with `formdesk run --headless ... --db %s`)",
					 st->path, st->path);
				e = ERR_NOTFOUND;
			} else if ((e = foreign_tables(st, other, &n)) == ERR_OK && n > 0) {
				/* formdesk sets the version with the tables, so tables without one
				 * belong to another program */
				snprintf(st->err, sizeof st->err,
					 "%s: not a formdesk database (it holds tables but no schema "
					 "version)", st->path);
				e = ERR_DB;
			} else if (e == ERR_OK && !(sql = fresh = create_sql())) {
				e = ERR_NOMEM;
			}
			if (e != ERR_OK)
				return store_end(st, e, NULL);
			next = latest;
		}
		if (exec(st, sql, "updating the schema") != SQLITE_OK ||
		    write_version(st, p, next) != SQLITE_OK)
			e = ERR_DB;
		free(fresh);
		if ((e = store_end(st, e, "committing the schema")) != ERR_OK)
			return e;
	}
}

/* registry_clash: a registered column named as one of turn_cols (it would be declared
 * and written twice): ERR_INVALID, naming it in st; else ERR_OK. */
static enum err registry_clash(struct store *st)
{
	for (int i = 0; i < turncol_count(); i++)
		for (int k = 0; k < tables[T_TURNS].n; k++)
			if (strcmp(turncol_at(i)->name, tables[T_TURNS].cols[k].name) == 0) {
				snprintf(st->err, sizeof st->err,
					 "%s: the registered turn column %s is one of the store's own",
					 st->path, turncol_at(i)->name);
				return ERR_INVALID;
			}
	return ERR_OK;
}

/* has_column: whether the file's turns table has a column called name (*has 1, else 0).
 * Errors: ERR_DB. */
static enum err has_column(struct store *st, const char *name, int *has)
{
	return scalar(st, "SELECT count(*) FROM pragma_table_info('turns') WHERE name = ?", name, 0,
		      has);
}

/* missing_columns: how many registered columns (turncol.h) the file's turns table lacks.
 * Errors: ERR_DB. */
static enum err missing_columns(struct store *st, int *n)
{
	*n = 0;
	for (int i = 0; i < turncol_count(); i++) {
		int has;
		enum err e = has_column(st, turncol_at(i)->name, &has);
		if (e != ERR_OK)
			return e;
		*n += !has;
	}
	return ERR_OK;
}

/* add_registered: add the registered columns the file's turns table lacks (a file written
 * before they were registered), as data: after the versioned steps, in one IMMEDIATE
 * transaction of their own, counted again inside it (another process may have added them
 * meanwhile); the rows written before keep NULL. The schema version stays: a registered
 * column is nullable, so a formdesk that does not know it leaves it NULL. Errors: ERR_DB
 * (message in st). */
static enum err add_registered(struct store *st)
{
	char sql[160];
	enum err e;
	int n;

	if ((e = missing_columns(st, &n)) != ERR_OK || n == 0)
		return e;
	if (store_begin(st, "adding the registered turn columns") != ERR_OK)
		return ERR_DB;
	for (int i = 0; i < turncol_count() && e == ERR_OK; i++) {
		const struct turncol *c = turncol_at(i);
		int has;
		if ((e = has_column(st, c->name, &has)) != ERR_OK || has)
			continue;
		snprintf(sql, sizeof sql, "ALTER TABLE turns ADD COLUMN %s %s", c->name,
			 turncol_sql_type(c->type));
		if (exec(st, sql, "adding a registered turn column") != SQLITE_OK)
			e = ERR_DB;
	}
	return store_end(st, e, "committing the registered turn columns");
}

enum err store_open_with(const char *path, enum store_mode mode, const struct store_part *part,
			 struct store **out, char **errmsg)
{
	struct store *st = calloc(1, sizeof *st);
	enum err e = ERR_NOMEM;
	struct stat sb;
	int flags = SQLITE_OPEN_READWRITE | (mode == STORE_CREATE ? SQLITE_OPEN_CREATE : 0);

	if (errmsg)
		*errmsg = NULL;
	if (!st || !(st->path = strdup(path)))
		goto out;
	if (mode == STORE_EXISTING && stat(path, &sb) != 0) {
		snprintf(st->err, sizeof st->err,
			 "%s: no such database (make one with `formdesk run --headless ... --db %s`)",
			 path, path);
		e = ERR_NOTFOUND;
		goto out;
	}
	e = ERR_DB;
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		set_err(st, "cannot open the database");
		goto out;
	}
	sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	/* WAL: readers (the sqlite3 shell, a second formdesk) never block the writer, and a
	 * commit is one append. */
	if (exec(st, "PRAGMA journal_mode=WAL", "setting WAL mode") != SQLITE_OK ||
	    exec(st, part && part->durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
		 "setting synchronous") != SQLITE_OK ||
	    exec(st, "PRAGMA foreign_keys=ON", "enabling foreign keys") != SQLITE_OK)
		goto out;
	if ((e = registry_clash(st)) == ERR_OK && (e = upgrade(st, mode, NULL, part)) == ERR_OK &&
	    (e = add_registered(st)) == ERR_OK && part)
		e = upgrade(st, mode, part, NULL);
out:
	if (e == ERR_OK) {
		*out = st;
		return ERR_OK;
	}
	if (errmsg && st)
		*errmsg = strdup(st->err[0] ? st->err : err_str(e));
	store_close(st);
	return e;
}

enum err store_open(const char *path, struct store **out, char **errmsg)
{
	return store_open_with(path, STORE_CREATE, NULL, out, errmsg);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

/* bind_text: bind s or NULL; SQLITE_TRANSIENT because callers' strings are short-lived. */
static int bind_text(sqlite3_stmt *q, int i, const char *s)
{
	return s ? sqlite3_bind_text(q, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(q, i);
}

#define AT(row, c, type) (*(type *)((char *)(row) + (c)->off))

/* bind_col: bind column c of row (a struct of c's table) as parameter i. */
static void bind_col(sqlite3_stmt *q, int i, const struct column *c, const void *row)
{
	if (c->guard && !*(const bool *)((const char *)row + c->guard - 1)) {
		sqlite3_bind_null(q, i);
		return;
	}
	switch (c->kind) {
	case K_ID:
		if (AT(row, c, const long long))
			sqlite3_bind_int64(q, i, AT(row, c, const long long));
		else
			sqlite3_bind_null(q, i);
		break;
	case K_TEXT:
		bind_text(q, i, AT(row, c, const char *const));
		break;
	case K_CHARS:
		bind_text(q, i, (const char *)row + c->off);
		break;
	case K_NONEMPTY:
	case K_CHARS_NONEMPTY: {
		const char *s = c->kind == K_CHARS_NONEMPTY ? (const char *)row + c->off
						   : AT(row, c, const char *const);
		bind_text(q, i, s && s[0] ? s : NULL);
		break;
	}
	case K_INT:
		sqlite3_bind_int(q, i, AT(row, c, const int));
		break;
	case K_BOOL:
		sqlite3_bind_int(q, i, AT(row, c, const bool) ? 1 : 0);
		break;
	case K_LONG:
		if (AT(row, c, const long) >= 0)
			sqlite3_bind_int64(q, i, AT(row, c, const long));
		else
			sqlite3_bind_null(q, i);
		break;
	case K_REAL:
		sqlite3_bind_double(q, i, AT(row, c, const double));
		break;
	case K_REAL_OPT:
	case K_REAL_POS: {
		double d = AT(row, c, const double);
		if (c->kind == K_REAL_OPT ? d >= 0 : d > 0)
			sqlite3_bind_double(q, i, d);
		else
			sqlite3_bind_null(q, i);
		break;
	}
	case K_NONE:
	case K_KEY:
		break;
	}
}

/* column_list: the names of table tb's columns having flag (and, for turns, the
 * registered columns, which are written and read), with alias "x." before each when alias
 * is not NULL, joined by ", ", into buf (size n). Output: the count. */
static int column_list(const struct table *tb, int flag, const char *alias, char *buf, size_t n)
{
	int extra = tb == &tables[T_TURNS] ? turncol_count() : 0;
	size_t len = 0;
	int cnt = 0;

	buf[0] = '\0';
	for (int i = 0; i < tb->n + extra; i++) {
		if (i < tb->n && !(tb->cols[i].flags & flag))
			continue;
		/* buf is sized for every table (a test would fail first) */
		if (!append(buf, n, &len, cnt ? ", " : "") ||
		    (alias && (!append(buf, n, &len, alias) || !append(buf, n, &len, "."))) ||
		    !append(buf, n, &len, i < tb->n ? tb->cols[i].name : turncol_at(i - tb->n)->name))
			return -1;
		cnt++;
	}
	return cnt;
}

#define SQL_MAX 2048

/* insert: prepare INSERT INTO table t of its COL_INS columns. Output: *q (caller
 * finalizes). Errors: ERR_DB (what names it in st's message). */
static enum err insert(struct store *st, int t, const char *what, sqlite3_stmt **q)
{
	char cols[SQL_MAX], sql[SQL_MAX * 2];
	int n = column_list(&tables[t], COL_INS, NULL, cols, sizeof cols);
	size_t len;

	if (n <= 0)
		return ERR_DB;
	len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (?", tables[t].name,
			       cols);
	for (int i = 1; i < n && len + 3 < sizeof sql; i++, len += 2)
		memcpy(sql + len, ",?", 3);
	if (len + 2 >= sizeof sql)
		return ERR_DB;
	memcpy(sql + len, ")", 2);
	if (sqlite3_prepare_v2(st->db, sql, -1, q, NULL) != SQLITE_OK) {
		set_err(st, what);
		return ERR_DB;
	}
	return ERR_OK;
}

/* bind_registered: the registered columns' values for turn t, computed, bound as
 * parameters p on. Errors: those of a column's function (ERR_NOMEM). */
static enum err bind_registered(sqlite3_stmt *q, int p, const struct store_turn *t)
{
	for (int i = 0; i < turncol_count(); i++, p++) {
		const struct turncol *c = turncol_at(i);
		struct turncol_value v;
		enum err e = turncol_compute(c, t, &v);
		if (e != ERR_OK)
			return e;
		if (!v.set)
			sqlite3_bind_null(q, p);
		else if (c->type == TURNCOL_INTEGER)
			sqlite3_bind_int64(q, p, v.i);
		else if (c->type == TURNCOL_REAL)
			sqlite3_bind_double(q, p, v.r);
		else
			bind_text(q, p, v.s);
		turncol_value_clear(&v);
	}
	return ERR_OK;
}

/* insert_row: bind row (a struct of table t) to q and step it; the row's id is
 * sqlite3_last_insert_rowid. Errors: ERR_DB, and for turns those of a registered
 * column's function (ERR_NOMEM). */
static enum err insert_row(struct store *st, int t, sqlite3_stmt *q, const void *row,
			   const char *what)
{
	int p = 1;
	enum err e;

	sqlite3_reset(q);
	for (int i = 0; i < tables[t].n; i++)
		if (tables[t].cols[i].flags & COL_INS)
			bind_col(q, p++, &tables[t].cols[i], row);
	if (t == T_TURNS &&
	    (e = bind_registered(q, p, &((const struct store_turn_row *)row)->t)) != ERR_OK)
		return e;
	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(st, what);
		return ERR_DB;
	}
	return ERR_OK;
}

/* add_usage: n stage_usage rows of call (turn 0: the opening). Errors: ERR_DB. */
static enum err add_usage(struct store *st, long long call, long long turn,
			  const struct store_usage *u, int n)
{
	static const char what[] = "recording stage usage";
	sqlite3_stmt *q = NULL;
	enum err e;

	if (n <= 0)
		return ERR_OK;
	if ((e = insert(st, T_USAGE, what, &q)) != ERR_OK)
		return e;
	for (int i = 0; i < n && e == ERR_OK; i++) {
		struct usage_row r = {.call_id = call, .turn_id = turn, .u = u[i]};
		e = insert_row(st, T_USAGE, q, &r, what);
	}
	sqlite3_finalize(q);
	return e;
}

enum err store_call_begin(struct store *st, const struct store_call_info *c, long long *id)
{
	static const char what[] = "recording a call";
	struct store_call_row r = {.info = *c};
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;
	long long row = 0;
	char *opening = NULL; /* the opening decision, printed once, here */

	if (c->opening_decision_json &&
	    !(r.info.opening_decision = opening = cJSON_PrintUnformatted(c->opening_decision_json)))
		return ERR_NOMEM;
	if ((e = store_begin(st, "starting a call")) != ERR_OK)
		goto out;
	if ((e = insert(st, T_CALLS, what, &q)) == ERR_OK &&
	    (e = insert_row(st, T_CALLS, q, &r, what)) == ERR_OK) {
		row = sqlite3_last_insert_rowid(st->db);
		e = add_usage(st, row, 0, c->usage, c->n_usage);
	}
	if ((e = store_end(st, e, "committing a call")) == ERR_OK)
		*id = row;
out:
	sqlite3_finalize(q);
	cJSON_free(opening);
	return e;
}

/* json_text: s as JSON text for a column: strings bare, everything else printed. */
static char *json_text(const cJSON *v)
{
	if (!v || cJSON_IsNull(v))
		return NULL;
	if (cJSON_IsString(v))
		return strdup(v->valuestring);
	return cJSON_PrintUnformatted(v);
}

static const char *str_item(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Fills the row of one element of a decision's list for turn; strings it allocates go
 * in hold[0..1] (freed once the row is written). */
typedef void (*row_fill)(const cJSON *it, long long turn, void *row, char **hold);

static void fill_capture(const cJSON *it, long long turn, void *row, char **hold)
{
	hold[0] = json_text(cJSON_GetObjectItemCaseSensitive(it, "raw"));
	hold[1] = json_text(cJSON_GetObjectItemCaseSensitive(it, "value"));
	*(struct store_capture *)row = (struct store_capture){
		.turn_id = turn, .field = str_item(it, "field"), .raw = hold[0], .value = hold[1],
		.status = str_item(it, "status"), .reason = str_item(it, "reason")};
}

static void fill_verdict(const cJSON *it, long long turn, void *row, char **hold)
{
	(void)hold;
	*(struct store_verdict *)row = (struct store_verdict){
		.turn_id = turn, .field = str_item(it, "field"), .rule = str_item(it, "rule"),
		.ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ok")),
		.message = str_item(it, "message")};
}

/* add_list: one row of table t per element of the decision's list key, for turn; what
 * names the rows in an error. Errors: ERR_DB (message kept in st). */
static enum err add_list(struct store *st, long long turn, const cJSON *decision,
			 const char *key, int t, const char *what, row_fill fill)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(decision, key), *it;
	union {
		struct store_capture c;
		struct store_verdict v;
	} row;
	sqlite3_stmt *q = NULL;
	enum err e;

	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
		return ERR_OK;
	if ((e = insert(st, t, what, &q)) != ERR_OK)
		return e;
	cJSON_ArrayForEach(it, list) {
		char *hold[2] = {NULL, NULL};
		fill(it, turn, &row, hold);
		e = insert_row(st, t, q, &row, what);
		free(hold[0]); /* bound with SQLITE_TRANSIENT: copied */
		free(hold[1]);
		if (e != ERR_OK)
			break;
	}
	sqlite3_finalize(q);
	return e;
}

static void bind_ms(sqlite3_stmt *q, int i, long ms)
{
	if (ms < 0)
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_int64(q, i, ms);
}

enum err store_turn_add(struct store *st, long long call, const struct store_turn *t)
{
	static const char what[] = "recording a turn";
	struct store_turn_row r = {.call_id = call, .t = *t};
	sqlite3_stmt *q = NULL;
	cJSON *parsed = NULL;
	const cJSON *decision = t->decision_json;
	char *dtext = NULL; /* decision_json, printed once, here */
	long long turn;
	enum err e = ERR_DB;

	if (decision && !cJSON_IsObject(decision)) {
		snprintf(st->err, sizeof st->err, "%s: turn %d: the decision record is not a JSON object",
			 st->path, t->index);
		return ERR_PARSE;
	}
	if (decision && !(r.t.decision = dtext = cJSON_PrintUnformatted(decision)))
		return ERR_NOMEM;
	if (!decision && t->decision && !(decision = parsed = cJSON_Parse(t->decision))) {
		snprintf(st->err, sizeof st->err, "%s: turn %d: the decision record is not JSON",
			 st->path, t->index);
		return ERR_PARSE;
	}
	if ((e = store_begin(st, "starting a turn")) != ERR_OK)
		goto out;
	if ((e = insert(st, T_TURNS, what, &q)) != ERR_OK ||
	    (e = insert_row(st, T_TURNS, q, &r, what)) != ERR_OK)
		goto txn;
	turn = sqlite3_last_insert_rowid(st->db);
	if ((e = add_list(st, turn, decision, "captured", T_CAPTURES, "recording captures",
			  fill_capture)) != ERR_OK ||
	    (e = add_list(st, turn, decision, "verdicts", T_VERDICTS, "recording verdicts",
			  fill_verdict)) != ERR_OK ||
	    (e = add_usage(st, call, turn, t->usage, t->n_usage)) != ERR_OK)
		goto txn;
	{
		/* Keep the call's count current, so a killed run still shows its turns. */
		sqlite3_stmt *u = NULL;
		int rc = sqlite3_prepare_v2(st->db,
					    "UPDATE calls SET turns = max(turns, ?) WHERE id = ?", -1,
					    &u, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int(u, 1, t->index);
			sqlite3_bind_int64(u, 2, call);
			rc = sqlite3_step(u);
		}
		sqlite3_finalize(u);
		if (rc != SQLITE_DONE) {
			set_err(st, "counting turns");
			e = ERR_DB;
		}
	}
txn:
	e = store_end(st, e, "committing a turn");
out:
	sqlite3_finalize(q);
	cJSON_Delete(parsed);
	cJSON_free(dtext);
	return e;
}

enum err store_call_end(struct store *st, long long call, const char *status, const char *reason,
			const char *form_data, const char *form_status, int turns)
{
	static const char sql[] =
		"UPDATE calls SET status = ?, reason = ?, form_data = ?, form_status = ?, turns = ?,"
		" ended_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?";
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, "ending a call");
		goto out;
	}
	bind_text(q, 1, status);
	bind_text(q, 2, reason);
	bind_text(q, 3, form_data);
	bind_text(q, 4, form_status);
	sqlite3_bind_int(q, 5, turns);
	sqlite3_bind_int64(q, 6, call);
	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(st, "ending a call");
		goto out;
	}
	if (sqlite3_changes(st->db) == 0) {
		snprintf(st->err, sizeof st->err, "%s: no call with id %lld", st->path, call);
		e = ERR_NOTFOUND;
		goto out;
	}
	e = ERR_OK;
out:
	sqlite3_finalize(q);
	return e;
}

/* prepare: *q for sql; what names the step for messages. Errors: ERR_DB. */
static enum err prepare(struct store *st, const char *sql, const char *what, sqlite3_stmt **q)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, q, NULL) != SQLITE_OK) {
		set_err(st, what);
		return ERR_DB;
	}
	return ERR_OK;
}

/* changed: step q (bound by the caller), finalize it, and check that a row changed; what
 * names the step for messages. Errors: ERR_DB, ERR_NOTFOUND (no row changed). */
static enum err changed(struct store *st, sqlite3_stmt *q, const char *what)
{
	enum err e = ERR_OK;

	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(st, what);
		e = ERR_DB;
	} else if (sqlite3_changes(st->db) == 0) {
		snprintf(st->err, sizeof st->err, "%s: %s: no such call, turn or run", st->path,
			 what);
		e = ERR_NOTFOUND;
	}
	sqlite3_finalize(q);
	return e;
}

/* update: prepare sql, bind the arguments after binds as parameters 1.. (one letter each:
 * 't' a const char * or NULL, 'l' a long long, 'i' an int, 'm' a long of milliseconds, NULL
 * when negative), and run it through changed(); what names the step for messages.
 * Errors: ERR_DB, ERR_NOTFOUND (no row changed). */
static enum err update(struct store *st, const char *what, const char *sql, const char *binds,
		       ...)
{
	sqlite3_stmt *q = NULL;
	va_list ap;

	if (prepare(st, sql, what, &q) != ERR_OK)
		return ERR_DB;
	va_start(ap, binds);
	for (int i = 1; binds[i - 1]; i++)
		switch (binds[i - 1]) {
		case 't':
			bind_text(q, i, va_arg(ap, const char *));
			break;
		case 'l':
			sqlite3_bind_int64(q, i, va_arg(ap, long long));
			break;
		case 'i':
			sqlite3_bind_int(q, i, va_arg(ap, int));
			break;
		case 'm':
			bind_ms(q, i, va_arg(ap, long));
			break;
		}
	va_end(ap);
	return changed(st, q, what);
}

enum err store_call_audio_dir(struct store *st, long long call, const char *dir)
{
	return update(st, "naming a call's recordings", "UPDATE calls SET audio_dir = ? WHERE id = ?",
		      "tl", dir, call);
}

enum err store_call_replay_of(struct store *st, long long call, long long src)
{
	return update(st, "naming the call replayed", "UPDATE calls SET replay_of = ? WHERE id = ?",
		      "ll", src, call);
}

enum err store_turn_reply_played(struct store *st, long long call, int index, const char *text)
{
	static const char what[] = "keeping the words the caller heard";

	if (index > 0)
		return update(st, what, "UPDATE turns SET reply = ? WHERE call_id = ? AND idx = ?",
			      "tli", text, call, index);
	return update(st, what, "UPDATE calls SET opening = ? WHERE id = ?", "tl", text, call);
}

enum err store_turn_agent_audio(struct store *st, long long call, int index, long start_ms,
				long end_ms)
{
	return update(st, "placing a turn's reply in the recording",
		      "UPDATE turns SET agent_audio_start_ms = ?, agent_audio_end_ms = ?"
		      " WHERE call_id = ? AND idx = ?",
		      "mmli", start_ms, end_ms, call, index);
}

enum err store_turn_latency(struct store *st, long long call, int index, const char *latency)
{
	return update(st, "keeping a turn's latency",
		      "UPDATE turns SET latency = ? WHERE call_id = ? AND idx = ?", "tli", latency,
		      call, index);
}

/* The readers: SELECT the COL_RD columns of a table into an array of its row structs. */

/* read_col: column i of q into member c of row. Errors: ERR_NOMEM. */
static enum err read_col(sqlite3_stmt *q, int i, const struct column *c, void *row)
{
	bool null = sqlite3_column_type(q, i) == SQLITE_NULL;

	if (c->guard && !null)
		*(bool *)((char *)row + c->guard - 1) = true;
	switch (c->kind) {
	case K_KEY:
	case K_ID:
		AT(row, c, long long) = sqlite3_column_int64(q, i);
		break;
	case K_TEXT:
	case K_NONEMPTY:
		if (!null && !(AT(row, c, const char *) =
				       strdup((const char *)sqlite3_column_text(q, i))))
			return ERR_NOMEM;
		break;
	case K_INT:
		AT(row, c, int) = sqlite3_column_int(q, i);
		break;
	case K_BOOL:
		AT(row, c, bool) = sqlite3_column_int(q, i) != 0;
		break;
	case K_LONG:
		AT(row, c, long) = null ? -1 : (long)sqlite3_column_int64(q, i);
		break;
	case K_REAL:
	case K_REAL_OPT:
	case K_REAL_POS:
		AT(row, c, double) = null && c->kind != K_REAL ? -1 : sqlite3_column_double(q, i);
		break;
	case K_NONE:
	case K_CHARS:
	case K_CHARS_NONEMPTY: /* written only */
		break;
	}
	return ERR_OK;
}

/* read_registered: the registered columns, from column col of q on, into row's cols.
 * Errors: ERR_NOMEM. */
static enum err read_registered(sqlite3_stmt *q, int col, struct store_turn_row *row)
{
	for (int i = 0; i < turncol_count(); i++, col++) {
		struct turncol_value *v = &row->cols[i];
		if (sqlite3_column_type(q, col) == SQLITE_NULL)
			continue;
		v->set = true;
		switch (turncol_at(i)->type) {
		case TURNCOL_INTEGER:
			v->i = sqlite3_column_int64(q, col);
			break;
		case TURNCOL_REAL:
			v->r = sqlite3_column_double(q, col);
			break;
		case TURNCOL_TEXT:
			if (!(v->s = strdup((const char *)sqlite3_column_text(q, col))))
				return ERR_NOMEM;
			break;
		}
	}
	return ERR_OK;
}

const struct turncol_value *store_turn_col(const struct store_turn_row *r, const char *name)
{
	int i = turncol_find(name);
	return i < 0 ? NULL : &r->cols[i];
}

/* rows_free: free the strings of the n rows of table t in v (each size bytes) and v. */
static void rows_free(int t, void *v, int n, size_t size)
{
	if (!v)
		return;
	for (int r = 0; r < n; r++) {
		for (int i = 0; i < tables[t].n; i++) {
			const struct column *c = &tables[t].cols[i];
			if ((c->flags & COL_RD) && (c->kind == K_TEXT || c->kind == K_NONEMPTY))
				/* the readers' strings are their own (struct members are const
				 * because the writers borrow theirs) */
				free((void *)AT((char *)v + (size_t)r * size, c, const char *));
		}
		for (int i = 0; t == T_TURNS && i < TURNCOL_MAX; i++)
			turncol_value_clear(&((struct store_turn_row *)v)[r].cols[i]);
	}
	free(v);
}

/* select_rows: SELECT the COL_RD columns of table t (as alias, may be NULL) followed by
 * tail, with the integers args[0..n_args-1] bound as parameters 1.. and text as the next
 * one (may be NULL: binds NULL), into a new array of row structs of size bytes.
 * Output: *out, *n. Errors: ERR_DB, ERR_NOMEM. */
static enum err select_rows_n(struct store *st, int t, const char *alias, const char *tail,
			      const long long *args, int n_args, const char *const *texts,
			      int n_texts, size_t size, void **out, int *n);
static enum err select_rows(struct store *st, int t, const char *alias, const char *tail,
			    const long long *args, int n_args, const char *text, size_t size,
			    void **out, int *n)
{
	return select_rows_n(st, t, alias, tail, args, n_args, &text, 1, size, out, n);
}

/* select_rows_n: select_rows with n_texts texts bound as parameters n_args + 1 on (a
 * NULL one binds NULL where the query has that parameter). */
static enum err select_rows_n(struct store *st, int t, const char *alias, const char *tail,
			      const long long *args, int n_args, const char *const *texts,
			      int n_texts, size_t size, void **out, int *n)
{
	char cols[SQL_MAX], sql[SQL_MAX * 2];
	sqlite3_stmt *q = NULL;
	char *v = NULL;
	int cnt = 0, cap = 0, rc;
	enum err e = ERR_DB;
	const char *what = "reading the recorded calls";

	if (column_list(&tables[t], COL_RD, alias, cols, sizeof cols) <= 0)
		goto out;
	snprintf(sql, sizeof sql, "SELECT %s FROM %s%s%s %s", cols, tables[t].name,
		 alias ? " " : "", alias ? alias : "", tail);
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, what);
		goto out;
	}
	for (int i = 0; i < n_args; i++)
		sqlite3_bind_int64(q, i + 1, args[i]);
	for (int i = 0; i < n_texts; i++)
		if (texts[i] || sqlite3_bind_parameter_count(q) > n_args + i)
			bind_text(q, n_args + 1 + i, texts[i]);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char *row;
		int col = 0;
		char *nv = vec_grow(v, cnt, &cap, size, 16);
		if (!nv) {
			e = ERR_NOMEM;
			goto out;
		}
		v = nv;
		row = v + (size_t)cnt++ * size;
		for (int i = 0; i < tables[t].n; i++)
			if ((tables[t].cols[i].flags & COL_RD) &&
			    read_col(q, col++, &tables[t].cols[i], row) != ERR_OK) {
				e = ERR_NOMEM;
				goto out;
			}
		if (t == T_TURNS && read_registered(q, col, (struct store_turn_row *)row) != ERR_OK) {
			e = ERR_NOMEM;
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		set_err(st, what);
		goto out;
	}
	e = ERR_OK;
out:
	sqlite3_finalize(q);
	if (e == ERR_OK) {
		*out = v;
		*n = cnt;
	} else {
		rows_free(t, v, cnt, size);
	}
	return e;
}

enum err store_calls(struct store *st, const struct store_call_filter *f,
		     struct store_call_row **out, int *n)
{
	long long args[3] = {f && f->finished, f ? f->run : 0, f ? f->id : 0};
	return select_rows(st, T_CALLS, NULL,
			   "WHERE (?1 = 0 OR status <> 'in_progress') AND (?2 = 0 OR run_id = ?2)"
			   " AND (?3 = 0 OR id = ?3) AND (?4 IS NULL OR corpus = ?4) ORDER BY id",
			   args, 3, f ? f->corpus : NULL, sizeof **out, (void **)out, n);
}

void store_calls_free(struct store_call_row *v, int n)
{
	rows_free(T_CALLS, v, n, sizeof *v);
}

/* call_query_where: the WHERE clause of q (every condition q sets, ANDed; never an OR
 * across columns, so the calls_run index serves a run), with the run as parameter ?3 and
 * status, field, text, corpus and fault as ?4 to ?8 (bound by store_calls_count, or
 * select_rows_n's texts). */
static void call_query_where(const struct store_call_query *q, char *buf, size_t n)
{
	bool stage = q->fault && strcmp(q->fault, "validation") != 0;
	bool valid = q->fault && (strcmp(q->fault, "validation") == 0 || strcmp(q->fault, "any") == 0);
	snprintf(buf, n, "WHERE 1%s%s%s%s%s%s%s%s", q->run ? " AND run_id = ?3" : "",
		 q->status ? " AND status = ?4" : "",
		 q->unanswered ? " AND json_valid(form_status) AND EXISTS (SELECT 1 FROM"
				 " json_each(calls.form_status) j"
				 " WHERE j.key = ?5 AND j.value IS NOT 'answered')"
			       : "",
		 q->said && q->said[0] ? " AND EXISTS (SELECT 1 FROM turns t WHERE"
					 " t.call_id = calls.id AND"
					 " instr(lower(t.transcript), lower(?6)) > 0)"
				       : "",
		 q->corpus ? " AND corpus = ?7" : "",
		 /* "any" is a stage's failed request or a refused answer */
		 stage && valid ? " AND (" : stage ? " AND" : "",
		 stage ? " EXISTS (SELECT 1 FROM stage_usage u WHERE u.call_id = calls.id AND"
			 " u.error IS NOT NULL AND u.error <> '' AND (?8 = 'any' OR u.stage = ?8))"
		       : "",
		 valid ? (stage ? " OR EXISTS (SELECT 1 FROM turns t JOIN verdicts v ON"
				  " v.turn_id = t.id WHERE t.call_id = calls.id AND v.ok = 0))"
				: " AND EXISTS (SELECT 1 FROM turns t JOIN verdicts v ON"
				  " v.turn_id = t.id WHERE t.call_id = calls.id AND v.ok = 0)")
		       : "");
}

enum err store_calls_count(struct store *st, const struct store_call_query *q, int *n)
{
	static const char what[] = "counting the recorded calls";
	char where[1400], sql[1500];
	sqlite3_stmt *s = NULL;
	enum err e;

	call_query_where(q, where, sizeof where);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM calls %s", where);
	if ((e = prepare(st, sql, what, &s)) != ERR_OK)
		return e;
	if (q->run)
		sqlite3_bind_int64(s, 3, q->run);
	if (q->status)
		bind_text(s, 4, q->status);
	if (q->unanswered)
		bind_text(s, 5, q->unanswered);
	if (q->said && q->said[0])
		bind_text(s, 6, q->said);
	if (q->corpus)
		bind_text(s, 7, q->corpus);
	if (q->fault)
		bind_text(s, 8, q->fault);
	if (sqlite3_step(s) == SQLITE_ROW)
		*n = sqlite3_column_int(s, 0);
	else
		e = store_fail(st, what);
	sqlite3_finalize(s);
	return e;
}

enum err store_calls_page(struct store *st, const struct store_call_query *q, int offset,
			  int limit, struct store_call_row **out, int *n)
{
	long long args[3] = {limit, offset, q->run};
	const char *texts[5] = {q->status, q->unanswered, q->said && q->said[0] ? q->said : NULL,
				q->corpus, q->fault};
	char tail[1400];

	call_query_where(q, tail, sizeof tail - 40);
	strcat(tail, " ORDER BY id LIMIT ?1 OFFSET ?2");
	return select_rows_n(st, T_CALLS, NULL, tail, args, 3, texts, 5, sizeof **out,
			     (void **)out, n);
}

enum err store_turns(struct store *st, long long call, struct store_turn_row **out, int *n)
{
	return select_rows(st, T_TURNS, NULL, "WHERE call_id = ?1 ORDER BY idx", &call, 1, NULL,
			   sizeof **out, (void **)out, n);
}

void store_turns_free(struct store_turn_row *v, int n)
{
	rows_free(T_TURNS, v, n, sizeof *v);
}

/* The rows of a turn's list: of turn when it is not 0, else of every turn of call. Two
 * queries, not one with an OR across the two columns, so each is answered from an index
 * (turns_call, or verdicts_turn and captures_turn), never by scanning the table:
 * tests/test_store.c reads their plans. */
static const char *of_turns(long long turn)
{
	return turn ? "JOIN turns t ON t.id = x.turn_id WHERE x.turn_id = ?2 ORDER BY t.idx, x.id"
		    : "JOIN turns t ON t.id = x.turn_id WHERE t.call_id = ?1 ORDER BY t.idx, x.id";
}

/* turn_rows: the rows of table t (each size bytes) of one turn or of a whole call, as
 * of_turns says. Output: *out, *n (freed with rows_free). Errors: ERR_DB, ERR_NOMEM. */
static enum err turn_rows(struct store *st, int t, long long call, long long turn, size_t size,
			  void **out, int *n)
{
	long long args[2] = {call, turn};
	return select_rows(st, t, "x", of_turns(turn), args, 2, NULL, size, out, n);
}

enum err store_captures(struct store *st, long long call, long long turn,
			struct store_capture **out, int *n)
{
	return turn_rows(st, T_CAPTURES, call, turn, sizeof **out, (void **)out, n);
}

void store_captures_free(struct store_capture *v, int n)
{
	rows_free(T_CAPTURES, v, n, sizeof *v);
}

enum err store_verdicts(struct store *st, long long call, long long turn,
			struct store_verdict **out, int *n)
{
	return turn_rows(st, T_VERDICTS, call, turn, sizeof **out, (void **)out, n);
}

void store_verdicts_free(struct store_verdict *v, int n)
{
	rows_free(T_VERDICTS, v, n, sizeof *v);
}

enum err store_run_begin(struct store *st, const struct store_run_info *info, long long *id)
{
	static const char what[] = "recording a run";
	struct store_run_row r = {.info = *info};
	sqlite3_stmt *q = NULL;
	enum err e;

	if ((e = insert(st, T_RUNS, what, &q)) == ERR_OK &&
	    (e = insert_row(st, T_RUNS, q, &r, what)) == ERR_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(q);
	return e;
}

enum err store_run_end(struct store *st, long long id)
{
	return update(st, "ending a run", "UPDATE runs SET ended_at = " NOW " WHERE id = ?", "l",
		      id);
}

enum err store_runs(struct store *st, long long id, struct store_run_row **out, int *n)
{
	struct store_run_row *v = NULL;
	sqlite3_stmt *q = NULL;
	int cnt = 0;
	enum err e;

	if ((e = select_rows(st, T_RUNS, NULL, "WHERE ?1 = 0 OR id = ?1 ORDER BY id", &id, 1, NULL,
			     sizeof *v, (void **)&v, &cnt)) != ERR_OK)
		return e;
	/* what the calls say of each run: how many, how many complete */
	if (sqlite3_prepare_v2(st->db,
			       "SELECT count(*), coalesce(sum(status = 'complete'), 0) FROM calls"
			       " WHERE run_id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		goto fail;
	for (int i = 0; i < cnt; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, v[i].id);
		if (sqlite3_step(q) != SQLITE_ROW)
			goto fail;
		v[i].calls = sqlite3_column_int(q, 0);
		v[i].complete = sqlite3_column_int(q, 1);
	}
	sqlite3_finalize(q);
	*out = v;
	*n = cnt;
	return ERR_OK;
fail:
	set_err(st, "counting a run's calls");
	sqlite3_finalize(q);
	store_runs_free(v, cnt);
	return ERR_DB;
}

void store_runs_free(struct store_run_row *v, int n)
{
	rows_free(T_RUNS, v, n, sizeof *v);
}
