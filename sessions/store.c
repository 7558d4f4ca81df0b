/* store: the SQLite session store (see store.h for the tables). */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <cjson/cJSON.h>

struct store {
	sqlite3 *db;
	char *path;
	char err[512];
};

/* How long a writer waits for another process's lock before giving up: a desk user may
 * read the database with the sqlite3 shell while a run writes it. */
#define BUSY_TIMEOUT_MS 5000

static const char schema_v1[] =
	"CREATE TABLE calls ("
	" id INTEGER PRIMARY KEY,"
	" corpus TEXT, corpus_call_id TEXT, caller TEXT, path TEXT,"
	" form_path TEXT, form_title TEXT,"
	" stt TEXT, extract TEXT, reply TEXT, today TEXT,"
	" started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" ended_at TEXT,"
	" status TEXT NOT NULL DEFAULT 'in_progress',"
	" reason TEXT,"
	" opening TEXT, opening_decision TEXT,"
	" form_data TEXT, form_status TEXT,"
	" turns INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE turns ("
	" id INTEGER PRIMARY KEY,"
	" call_id INTEGER NOT NULL REFERENCES calls(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" utterance_id TEXT, audio TEXT, condition TEXT,"
	" seg_start_ms INTEGER, seg_end_ms INTEGER, segments TEXT,"
	" transcript TEXT, extraction TEXT, decision TEXT, reply TEXT,"
	" audio_ms REAL, vad_ms REAL, stt_ms REAL, extract_ms REAL, rules_ms REAL,"
	" reply_ms REAL, total_ms REAL, speech_ms REAL,"
	" error TEXT,"
	" created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
	" UNIQUE (call_id, idx));"
	"CREATE TABLE captures ("
	" id INTEGER PRIMARY KEY,"
	" turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,"
	" field TEXT, raw TEXT, value TEXT, status TEXT, reason TEXT);"
	"CREATE TABLE verdicts ("
	" id INTEGER PRIMARY KEY,"
	" turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,"
	" field TEXT, rule TEXT, ok INTEGER NOT NULL, message TEXT);"
	"CREATE INDEX turns_call ON turns(call_id);"
	"CREATE INDEX captures_turn ON captures(turn_id);"
	"CREATE INDEX verdicts_turn ON verdicts(turn_id);"
	"CREATE INDEX verdicts_field ON verdicts(field, ok);"
	"CREATE INDEX calls_corpus ON calls(corpus, corpus_call_id);";

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

/* Migrations, in order: migrations[i] brings version i to version i + 1. */
static const char *const migrations[] = {schema_v1, schema_v2, schema_v3, schema_v4};

static void set_err(struct store *st, const char *what)
{
	snprintf(st->err, sizeof st->err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

const char *store_error(const struct store *st)
{
	return st ? st->err : "";
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

static enum err migrate(struct store *st)
{
	sqlite3_stmt *q = NULL;
	int version = 0;
	const int latest = (int)(sizeof migrations / sizeof migrations[0]);

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &q, NULL) != SQLITE_OK) {
		set_err(st, "reading the schema version");
		return ERR_DB;
	}
	if (sqlite3_step(q) == SQLITE_ROW)
		version = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (version > latest) {
		snprintf(st->err, sizeof st->err,
			 "%s: schema version %d is newer than this formdesk knows (%d)", st->path,
			 version, latest);
		return ERR_DB;
	}
	if (version < 0) {
		snprintf(st->err, sizeof st->err,
			 "%s: schema version %d is not one of formdesk's (1 to %d)", st->path, version,
			 latest);
		return ERR_DB;
	}
	if (version == 0) {
		/* formdesk sets the version with the tables, so tables without one belong to
		 * another program */
		int tables = 0;
		if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) !=
		    SQLITE_OK) {
			set_err(st, "reading the schema");
			return ERR_DB;
		}
		if (sqlite3_step(q) == SQLITE_ROW)
			tables = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
		if (tables > 0) {
			snprintf(st->err, sizeof st->err,
				 "%s: not a formdesk database (it holds tables but no schema version)",
				 st->path);
			return ERR_DB;
		}
	}
	for (; version < latest; version++) {
		char pragma[64];
		/* IMMEDIATE: two processes opening a fresh file must not both migrate it. */
		if (exec(st, "BEGIN IMMEDIATE", "starting the schema update") != SQLITE_OK)
			return ERR_DB;
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version + 1);
		if (exec(st, migrations[version], "creating the schema") != SQLITE_OK ||
		    exec(st, pragma, "setting the schema version") != SQLITE_OK) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return ERR_DB;
		}
		if (exec(st, "COMMIT", "committing the schema") != SQLITE_OK)
			return ERR_DB;
	}
	return ERR_OK;
}

enum err store_open(const char *path, struct store **out, char **errmsg)
{
	struct store *st = calloc(1, sizeof *st);
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	if (!st || !(st->path = strdup(path)))
		goto out;
	e = ERR_DB;
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		set_err(st, "cannot open the database");
		goto out;
	}
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	/* WAL: readers (the sqlite3 shell, a second formdesk) never block the writer, and a
	 * commit is one append. synchronous=NORMAL in WAL mode keeps every committed
	 * transaction across a process crash; only a power loss may drop the last ones. */
	if (exec(st, "PRAGMA journal_mode=WAL", "setting WAL mode") != SQLITE_OK ||
	    exec(st, "PRAGMA synchronous=NORMAL", "setting synchronous") != SQLITE_OK ||
	    exec(st, "PRAGMA foreign_keys=ON", "enabling foreign keys") != SQLITE_OK)
		goto out;
	e = migrate(st);
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

/* add_usage: n stage_usage rows of call (turn 0: the opening). Errors: ERR_DB. */
static enum err add_usage(struct store *st, long long call, long long turn,
			  const struct store_usage *u, int n)
{
	static const char sql[] =
		"INSERT INTO stage_usage (call_id, turn_id, stage, provider, model, ttfb_ms,"
		" total_ms, attempts, tokens_in, tokens_out, audio_s, cost_usd, error, ack_ms)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *q = NULL;
	enum err e = ERR_OK;

	if (n <= 0)
		return ERR_OK;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, "recording stage usage");
		return ERR_DB;
	}
	for (int i = 0; i < n; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, call);
		if (turn > 0)
			sqlite3_bind_int64(q, 2, turn);
		else
			sqlite3_bind_null(q, 2);
		bind_text(q, 3, u[i].stage);
		bind_text(q, 4, u[i].provider);
		bind_text(q, 5, u[i].model);
		sqlite3_bind_double(q, 6, u[i].ttfb_ms);
		sqlite3_bind_double(q, 7, u[i].total_ms);
		sqlite3_bind_int(q, 8, u[i].attempts);
		if (u[i].tokens_in >= 0)
			sqlite3_bind_int64(q, 9, u[i].tokens_in);
		else
			sqlite3_bind_null(q, 9);
		if (u[i].tokens_out >= 0)
			sqlite3_bind_int64(q, 10, u[i].tokens_out);
		else
			sqlite3_bind_null(q, 10);
		sqlite3_bind_double(q, 11, u[i].audio_s);
		if (u[i].cost_usd >= 0)
			sqlite3_bind_double(q, 12, u[i].cost_usd);
		else
			sqlite3_bind_null(q, 12);
		bind_text(q, 13, u[i].error && u[i].error[0] ? u[i].error : NULL);
		if (u[i].ack_ms > 0)
			sqlite3_bind_double(q, 14, u[i].ack_ms);
		else
			sqlite3_bind_null(q, 14);
		if (sqlite3_step(q) != SQLITE_DONE) {
			set_err(st, "recording stage usage");
			e = ERR_DB;
			break;
		}
	}
	sqlite3_finalize(q);
	return e;
}

enum err store_call_begin(struct store *st, const struct store_call_info *c, long long *id)
{
	static const char sql[] =
		"INSERT INTO calls (corpus, corpus_call_id, caller, path, form_path, form_title,"
		" stt, extract, reply, today, opening, opening_decision)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *q = NULL;
	enum err e = ERR_DB;
	long long row;
	bool open = false;
	const char *v[] = {c->corpus, c->corpus_call_id, c->caller, c->path, c->form_path,
			   c->form_title, c->stt, c->extract, c->reply, c->today, c->opening,
			   c->opening_decision};

	if (exec(st, "BEGIN IMMEDIATE", "starting a call") != SQLITE_OK)
		goto out;
	open = true;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, "recording a call");
		goto out;
	}
	for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
		bind_text(q, i + 1, v[i]);
	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(st, "recording a call");
		goto out;
	}
	row = sqlite3_last_insert_rowid(st->db);
	if ((e = add_usage(st, row, 0, c->usage, c->n_usage)) != ERR_OK)
		goto out;
	e = ERR_DB;
	if (exec(st, "COMMIT", "committing a call") != SQLITE_OK)
		goto out;
	open = false;
	*id = row;
	e = ERR_OK;
out:
	if (open)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(q);
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

/* Binds one element of a decision's list (after the turn id, parameter 1). */
typedef void (*row_binder)(sqlite3_stmt *q, const cJSON *it);

static void bind_capture(sqlite3_stmt *q, const cJSON *it)
{
	char *raw = json_text(cJSON_GetObjectItemCaseSensitive(it, "raw"));
	char *val = json_text(cJSON_GetObjectItemCaseSensitive(it, "value"));
	bind_text(q, 2, str_item(it, "field"));
	bind_text(q, 3, raw);
	bind_text(q, 4, val);
	bind_text(q, 5, str_item(it, "status"));
	bind_text(q, 6, str_item(it, "reason"));
	free(raw); /* bind_text copies (SQLITE_TRANSIENT) */
	free(val);
}

static void bind_verdict(sqlite3_stmt *q, const cJSON *it)
{
	bind_text(q, 2, str_item(it, "field"));
	bind_text(q, 3, str_item(it, "rule"));
	sqlite3_bind_int(q, 4, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ok")));
	bind_text(q, 5, str_item(it, "message"));
}

/* add_rows: one row of sql per element of the decision's list key, for turn; what names
 * the rows in an error. Errors: ERR_DB (message kept in st). */
static enum err add_rows(struct store *st, long long turn, const cJSON *decision,
			 const char *key, const char *sql, const char *what, row_binder bind)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(decision, key);
	const cJSON *it;
	sqlite3_stmt *q = NULL;
	enum err e = ERR_OK;

	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
		return ERR_OK;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, what);
		return ERR_DB;
	}
	cJSON_ArrayForEach(it, list) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, turn);
		bind(q, it);
		if (sqlite3_step(q) != SQLITE_DONE) {
			set_err(st, what);
			e = ERR_DB;
			break;
		}
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
	static const char sql[] =
		"INSERT INTO turns (call_id, idx, utterance_id, audio, condition, seg_start_ms,"
		" seg_end_ms, segments, transcript, extraction, decision, reply, audio_ms, vad_ms,"
		" stt_ms, extract_ms, rules_ms, reply_ms, total_ms, speech_ms, error, cancelled,"
		" input, barge_in, barge_in_ms, silence, caller_audio_start_ms, caller_audio_end_ms,"
		" ack)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *q = NULL;
	cJSON *decision = NULL;
	long long turn;
	enum err e = ERR_DB;
	bool open = false;

	if (t->decision && !(decision = cJSON_Parse(t->decision))) {
		snprintf(st->err, sizeof st->err, "%s: turn %d: the decision record is not JSON",
			 st->path, t->index);
		return ERR_PARSE;
	}
	if (exec(st, "BEGIN IMMEDIATE", "starting a turn") != SQLITE_OK)
		goto out;
	open = true;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		set_err(st, "recording a turn");
		goto out;
	}
	sqlite3_bind_int64(q, 1, call);
	sqlite3_bind_int(q, 2, t->index);
	bind_text(q, 3, t->utterance_id);
	bind_text(q, 4, t->audio);
	bind_text(q, 5, t->condition);
	bind_ms(q, 6, t->seg_start_ms);
	bind_ms(q, 7, t->seg_end_ms);
	bind_text(q, 8, t->segments);
	bind_text(q, 9, t->transcript);
	bind_text(q, 10, t->extraction);
	bind_text(q, 11, t->decision);
	bind_text(q, 12, t->reply);
	sqlite3_bind_double(q, 13, t->audio_ms);
	sqlite3_bind_double(q, 14, t->vad_ms);
	sqlite3_bind_double(q, 15, t->stt_ms);
	sqlite3_bind_double(q, 16, t->extract_ms);
	sqlite3_bind_double(q, 17, t->rules_ms);
	sqlite3_bind_double(q, 18, t->reply_ms);
	sqlite3_bind_double(q, 19, t->total_ms);
	sqlite3_bind_double(q, 20, t->speech_ms);
	bind_text(q, 21, t->error);
	sqlite3_bind_int(q, 22, t->cancelled ? 1 : 0);
	bind_text(q, 23, t->input);
	sqlite3_bind_int(q, 24, t->barge_in ? 1 : 0);
	bind_ms(q, 25, t->barge_in ? t->barge_in_ms : -1);
	sqlite3_bind_int(q, 26, t->silence ? 1 : 0);
	bind_ms(q, 27, t->recorded ? t->caller_audio_start_ms : -1);
	bind_ms(q, 28, t->recorded ? t->caller_audio_end_ms : -1);
	bind_text(q, 29, t->ack);
	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(st, "recording a turn");
		goto out;
	}
	turn = sqlite3_last_insert_rowid(st->db);
	if ((e = add_rows(st, turn, decision, "captured",
			  "INSERT INTO captures (turn_id, field, raw, value, status, reason)"
			  " VALUES (?,?,?,?,?,?)",
			  "recording captures", bind_capture)) != ERR_OK ||
	    (e = add_rows(st, turn, decision, "verdicts",
			  "INSERT INTO verdicts (turn_id, field, rule, ok, message) VALUES (?,?,?,?,?)",
			  "recording verdicts", bind_verdict)) != ERR_OK ||
	    (e = add_usage(st, call, turn, t->usage, t->n_usage)) != ERR_OK)
		goto out;
	e = ERR_DB;
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
			goto out;
		}
	}
	if (exec(st, "COMMIT", "committing a turn") != SQLITE_OK)
		goto out;
	open = false;
	e = ERR_OK;
out:
	if (open)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(q);
	cJSON_Delete(decision);
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

/* changed: step q (bound by the caller), finalize it, and check that a row changed; what
 * names the step for messages. Errors: ERR_DB, ERR_NOTFOUND (no row changed). */
static enum err changed(struct store *st, sqlite3_stmt *q, const char *what)
{
	enum err e = ERR_OK;

	if (sqlite3_step(q) != SQLITE_DONE) {
		set_err(st, what);
		e = ERR_DB;
	} else if (sqlite3_changes(st->db) == 0) {
		snprintf(st->err, sizeof st->err, "%s: %s: no such call or turn", st->path, what);
		e = ERR_NOTFOUND;
	}
	sqlite3_finalize(q);
	return e;
}

enum err store_call_audio_dir(struct store *st, long long call, const char *dir)
{
	static const char what[] = "naming a call's recordings";
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(st->db, "UPDATE calls SET audio_dir = ? WHERE id = ?", -1, &q,
			       NULL) != SQLITE_OK) {
		set_err(st, what);
		return ERR_DB;
	}
	bind_text(q, 1, dir);
	sqlite3_bind_int64(q, 2, call);
	return changed(st, q, what);
}

enum err store_turn_agent_audio(struct store *st, long long call, int index, long start_ms,
				long end_ms)
{
	static const char what[] = "placing a turn's reply in the recording";
	sqlite3_stmt *q = NULL;

	if (sqlite3_prepare_v2(st->db,
			       "UPDATE turns SET agent_audio_start_ms = ?, agent_audio_end_ms = ?"
			       " WHERE call_id = ? AND idx = ?",
			       -1, &q, NULL) != SQLITE_OK) {
		set_err(st, what);
		return ERR_DB;
	}
	bind_ms(q, 1, start_ms);
	bind_ms(q, 2, end_ms);
	sqlite3_bind_int64(q, 3, call);
	sqlite3_bind_int(q, 4, index);
	return changed(st, q, what);
}
