/* test_store: the SQLite session store: schema, WAL, a call with turns read back, and a
 * turn that survives a crash right after its transaction; the migration of a version 1
 * file (through versions 2 and 3), of a version 2 file and of a version 3 file;
 * per-request stage usage and cancelled turns; the live-call columns (input, barge-in,
 * silence, recording offsets); the early acknowledgement (stage_usage.ack_ms, turns.ack). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sqlite3.h>

#include "sessions/store.h"

struct fixture {
	char dir[64];
	char path[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/test_store.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof f->path, "%s/t.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", f->dir);
	free(f);
	return 0;
}

/* query_text: the first column of the first row of sql on a separate connection, as a
 * new string ("" for NULL, "(none)" for no row). */
static char *query_text(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	char *s;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(q, 0);
		s = strdup(t ? (const char *)t : "");
	} else {
		s = strdup("(none)");
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return s;
}

static void assert_query(const char *path, const char *sql, const char *want)
{
	char *got = query_text(path, sql);
	if (strcmp(got, want) != 0)
		fail_msg("%s\n  got:  %s\n  want: %s", sql, got, want);
	free(got);
}

static const char decision1[] =
	"{\"turn\":1,\"asked\":\"name\",\"captured\":[{\"field\":\"name\",\"raw\":\"Sunita\","
	"\"value\":\"Sunita\",\"status\":\"answered\"}],\"verdicts\":[{\"field\":\"name\","
	"\"rule\":\"min_length\",\"ok\":true,\"message\":\"\"}],\"call_status\":\"in_progress\"}";
static const char decision2[] =
	"{\"turn\":2,\"asked\":\"district\",\"captured\":[{\"field\":\"district\",\"raw\":\"Patna\","
	"\"value\":null,\"status\":\"invalid\",\"reason\":\"not an option\"}],"
	"\"verdicts\":[{\"field\":\"district\",\"rule\":\"options\",\"ok\":false,"
	"\"message\":\"Patna is not one of the options\"}],\"call_status\":\"in_progress\"}";

static struct store_turn turn(int i, const char *transcript, const char *decision)
{
	struct store_turn t = {0};
	t.index = i;
	t.utterance_id = "u1";
	t.audio = "/tmp/a.wav";
	t.condition = "ideal";
	t.seg_start_ms = 120;
	t.seg_end_ms = 1500;
	t.segments = "[{\"start_ms\":120,\"end_ms\":1500}]";
	t.transcript = transcript;
	t.extraction = "{\"fields\":[]}";
	t.decision = decision;
	t.reply = "आप किस ज़िले में रहती हैं?";
	t.stt_ms = 1.5;
	t.total_ms = 9.25;
	return t;
}

static void test_schema(void **state)
{
	struct fixture *f = *state;
	struct store *st = NULL;
	char *msg = NULL;
	char want[16];

	assert_int_equal(store_open(f->path, &st, &msg), ERR_OK);
	assert_null(msg);
	store_close(st);
	/* Opening again keeps the schema as it is. */
	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	store_close(st);
	store_close(NULL);
	snprintf(want, sizeof want, "%d", STORE_SCHEMA_VERSION);
	assert_query(f->path, "PRAGMA user_version", want);
	assert_query(f->path, "PRAGMA journal_mode", "wal");
	assert_query(f->path,
		     "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
		     "WHERE type = 'table' ORDER BY name)",
		     "calls,captures,stage_usage,turns,verdicts");
}

/* A file written at schema version 1 is brought to the current version in place: its
 * rows stay, old turns are not cancelled, and new turns can carry stage usage. */
static void test_migrate_v1(void **state)
{
	struct fixture *f = *state;
	FILE *in = fopen("tests/data/store_v1.sql", "r");
	char sql[8192];
	size_t n;
	sqlite3 *db;
	struct store *st = NULL;
	char want[16];

	if (!in)
		fail_msg("cannot open tests/data/store_v1.sql (run from the source tree)");
	n = fread(sql, 1, sizeof sql - 1, in);
	fclose(in);
	sql[n] = '\0';
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_query(f->path, "PRAGMA user_version", "1");

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	snprintf(want, sizeof want, "%d", STORE_SCHEMA_VERSION);
	assert_query(f->path, "PRAGMA user_version", want);
	assert_query(f->path, "SELECT transcript||'|'||cancelled FROM turns WHERE call_id = 1", "haan ji|0");
	{
		struct store_usage u = {.stage = "extract", .provider = "openai", .model = "m",
					.ttfb_ms = 10, .total_ms = 20, .attempts = 1,
					.tokens_in = 100, .tokens_out = 7, .cost_usd = -1};
		struct store_turn t = turn(2, "nahi", decision1);
		t.usage = &u;
		t.n_usage = 1;
		assert_int_equal(store_turn_add(st, 1, &t), ERR_OK);
	}
	store_close(st);
	assert_query(f->path, "SELECT stage||'|'||tokens_in||'|'||coalesce(cost_usd,'NULL') FROM stage_usage",
		     "extract|100|NULL");
	/* Through version 2 to 3: the old turn of a corpus call is marked as such. */
	assert_query(f->path, "SELECT input||'|'||barge_in||'|'||silence||'|'||(caller_audio_start_ms IS NULL)"
			      " FROM turns WHERE idx = 1",
		     "corpus|0|0|1");
	/* Through version 3 to 4: no acknowledgement is known for what was stored before. */
	assert_query(f->path, "SELECT (ack_ms IS NULL) FROM stage_usage", "1");
	assert_query(f->path, "SELECT count(*) FROM turns WHERE ack IS NOT NULL", "0");
}

/* A file written at schema version 2 is brought to the current version in place (through
 * 3): its rows stay (cancelled included), turns of corpus calls are marked "corpus",
 * others stay unknown, nothing is a barge-in or silence; new live turns and recordings
 * can be stored. */
static void test_migrate_v2(void **state)
{
	struct fixture *f = *state;
	FILE *in = fopen("tests/data/store_v2.sql", "r");
	char sql[8192];
	size_t n;
	sqlite3 *db;
	struct store *st = NULL;

	if (!in)
		fail_msg("cannot open tests/data/store_v2.sql (run from the source tree)");
	n = fread(sql, 1, sizeof sql - 1, in);
	fclose(in);
	sql[n] = '\0';
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_query(f->path, "PRAGMA user_version", "2");

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	{
		char want[16];
		snprintf(want, sizeof want, "%d", STORE_SCHEMA_VERSION);
		assert_query(f->path, "PRAGMA user_version", want);
	}
	assert_query(f->path, "SELECT group_concat(coalesce(input,'NULL')||'/'||cancelled||'/'||barge_in||'/'||"
			      "silence||'/'||coalesce(barge_in_ms,'NULL'), ';') FROM turns ORDER BY id",
		     "corpus/0/0/0/NULL;NULL/1/0/0/NULL");
	assert_query(f->path, "SELECT coalesce(audio_dir,'NULL') FROM calls WHERE id = 2", "NULL");
	{
		struct store_turn t = turn(2, "haan", decision1);
		t.input = "mic";
		t.barge_in = true;
		t.barge_in_ms = 900;
		t.recorded = true;
		t.caller_audio_start_ms = 16000;
		t.caller_audio_end_ms = 17560;
		assert_int_equal(store_turn_add(st, 2, &t), ERR_OK);
		assert_int_equal(store_turn_agent_audio(st, 2, 2, 18200, 19687), ERR_OK);
		assert_int_equal(store_call_audio_dir(st, 2, "x.audio/call-2"), ERR_OK);
	}
	store_close(st);
	assert_query(f->path, "SELECT input||'|'||barge_in||'|'||barge_in_ms||'|'||caller_audio_start_ms||'|'||"
			      "caller_audio_end_ms||'|'||agent_audio_start_ms||'|'||agent_audio_end_ms"
			      " FROM turns WHERE call_id = 2 AND idx = 2",
		     "mic|1|900|16000|17560|18200|19687");
	assert_query(f->path, "SELECT audio_dir FROM calls WHERE id = 2", "x.audio/call-2");
	assert_query(f->path, "SELECT count(*) FROM turns WHERE ack IS NOT NULL", "0");
}

/* A file written at schema version 3 is brought to version 4 in place: its turns and
 * stage usage stay, with no acknowledgement known (stage_usage.ack_ms and turns.ack
 * NULL); a new turn stores its acknowledgement and EXTRACT's time to it, and a request
 * without one (ack_ms 0 or -1: none, or not measured) stores NULL. */
static void test_migrate_v3(void **state)
{
	struct fixture *f = *state;
	FILE *in = fopen("tests/data/store_v3.sql", "r");
	char sql[8192];
	size_t n;
	sqlite3 *db;
	struct store *st = NULL;

	if (!in)
		fail_msg("cannot open tests/data/store_v3.sql (run from the source tree)");
	n = fread(sql, 1, sizeof sql - 1, in);
	fclose(in);
	sql[n] = '\0';
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_query(f->path, "PRAGMA user_version", "3");

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	assert_query(f->path, "PRAGMA user_version", "4");
	assert_query(f->path, "SELECT group_concat(stage||'/'||total_ms||'/'||coalesce(ack_ms,'NULL'), ';')"
			      " FROM (SELECT * FROM stage_usage ORDER BY id)",
		     "extract/90.0/NULL;reply/60.0/NULL");
	assert_query(f->path, "SELECT transcript||'|'||input||'|'||coalesce(ack,'NULL') FROM turns",
		     "haan ji|corpus|NULL");
	{
		struct store_usage u[3] = {
			{.stage = "extract", .provider = "openai", .model = "m", .ttfb_ms = 50,
			 .total_ms = 400, .attempts = 1, .tokens_in = 90, .tokens_out = 12,
			 .cost_usd = -1, .ack_ms = 120.5},
			{.stage = "reply", .provider = "openai", .model = "m", .ttfb_ms = 30,
			 .total_ms = 70, .attempts = 1, .tokens_in = -1, .tokens_out = -1,
			 .cost_usd = -1, .ack_ms = -1},
			{.stage = "stt", .provider = "deepgram", .model = "nova-3", .ttfb_ms = 30,
			 .total_ms = 70, .attempts = 1, .tokens_in = -1, .tokens_out = -1,
			 .cost_usd = -1},
		};
		struct store_turn t = turn(2, "Gaya", decision1);
		t.ack = "जी";
		t.usage = u;
		t.n_usage = 3;
		assert_int_equal(store_turn_add(st, 1, &t), ERR_OK);
	}
	store_close(st);
	assert_query(f->path, "SELECT group_concat(stage||'/'||coalesce(ack_ms,'NULL'), ';')"
			      " FROM (SELECT * FROM stage_usage WHERE turn_id = 2 ORDER BY id)",
		     "extract/120.5;reply/NULL;stt/NULL");
	assert_query(f->path, "SELECT group_concat(idx||'/'||coalesce(ack,'NULL'), ';')"
			      " FROM (SELECT * FROM turns ORDER BY idx)",
		     "1/NULL;2/जी");
}

/* The live-call columns: a typed turn, a silence turn, a barge-in turn (barge_in_ms kept
 * only with barge_in), recording offsets only when recorded; placing a reply in the
 * recording of a turn or a call that does not exist is refused. */
static void test_live_columns(void **state)
{
	struct fixture *f = *state;
	struct store *st = NULL;
	long long id = 0;
	struct store_call_info info = {.corpus_call_id = "live", .opening = "नमस्ते"};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", decision1);
	struct store_turn t2 = turn(2, NULL, NULL);
	struct store_turn t3 = turn(3, "Gaya", decision2);

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	assert_int_equal(store_call_begin(st, &info, &id), ERR_OK);
	t1.input = "typed";
	t1.barge_in_ms = 1234; /* without barge_in it is not kept */
	t2.input = "mic";
	t2.silence = true;
	t3.input = "mic";
	t3.barge_in = true;
	t3.barge_in_ms = 0;
	t3.recorded = true;
	t3.caller_audio_start_ms = 5000;
	t3.caller_audio_end_ms = 6500;
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	assert_int_equal(store_turn_add(st, id, &t2), ERR_OK);
	assert_int_equal(store_turn_add(st, id, &t3), ERR_OK);
	assert_int_equal(store_turn_agent_audio(st, id, 3, 7000, 9000), ERR_OK);
	assert_int_equal(store_turn_agent_audio(st, id, 9, 7000, 9000), ERR_NOTFOUND);
	assert_int_equal(store_call_audio_dir(st, id + 5, "nowhere"), ERR_NOTFOUND);
	store_close(st);
	assert_query(f->path,
		     "SELECT group_concat(idx||':'||input||'/'||barge_in||'/'||coalesce(barge_in_ms,'-')||'/'||"
		     "silence||'/'||coalesce(caller_audio_start_ms,'-')||'-'||coalesce(caller_audio_end_ms,'-')||'/'||"
		     "coalesce(agent_audio_start_ms,'-')||'-'||coalesce(agent_audio_end_ms,'-'), ';') FROM turns",
		     "1:typed/0/-/0/---/---;2:mic/0/-/1/---/---;3:mic/1/0/0/5000-6500/7000-9000");
}

/* Stage usage of the opening (no turn) and of a turn; a cancelled turn. */
static void test_usage_and_cancelled(void **state)
{
	struct fixture *f = *state;
	struct store *st = NULL;
	long long id = 0;
	struct store_usage open_u = {.stage = "reply", .provider = "openai", .model = "gpt-x",
				     .ttfb_ms = 40, .total_ms = 55.5, .attempts = 1,
				     .tokens_in = 300, .tokens_out = 20, .cost_usd = 0.00042};
	struct store_usage turn_u[2] = {
		{.stage = "stt", .provider = "deepgram", .model = "nova-3", .ttfb_ms = 80,
		 .total_ms = 90, .attempts = 1, .tokens_in = -1, .tokens_out = -1, .audio_s = 1.5,
		 .cost_usd = 0.0001},
		{.stage = "extract", .provider = "openai", .model = "gpt-x", .ttfb_ms = 0,
		 .total_ms = 1200, .attempts = 3, .tokens_in = -1, .tokens_out = -1,
		 .cost_usd = -1, .error = "openai: HTTP 500"},
	};
	struct store_call_info info = {.corpus = "u", .corpus_call_id = "c", .opening = "नमस्ते",
				       .usage = &open_u, .n_usage = 1};
	struct store_turn t1 = turn(1, "haan", decision1);
	struct store_turn t2 = turn(2, NULL, NULL);

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	assert_int_equal(store_call_begin(st, &info, &id), ERR_OK);
	t1.usage = turn_u;
	t1.n_usage = 2;
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	t2.cancelled = true;
	t2.error = "cancelled while waiting for EXTRACT";
	assert_int_equal(store_turn_add(st, id, &t2), ERR_OK);
	store_close(st);

	assert_query(f->path,
		     "SELECT stage||'|'||provider||'|'||model||'|'||tokens_in||'|'||tokens_out||'|'||"
		     "cost_usd FROM stage_usage WHERE turn_id IS NULL",
		     "reply|openai|gpt-x|300|20|0.00042");
	assert_query(f->path, "SELECT count(*) FROM stage_usage s JOIN turns t ON t.id = s.turn_id"
			      " WHERE t.idx = 1 AND s.call_id = t.call_id", "2");
	assert_query(f->path,
		     "SELECT attempts||'|'||coalesce(tokens_in,'NULL')||'|'||coalesce(cost_usd,'NULL')||'|'||error"
		     " FROM stage_usage WHERE stage = 'extract'",
		     "3|NULL|NULL|openai: HTTP 500");
	assert_query(f->path, "SELECT audio_s||'|'||(error IS NULL) FROM stage_usage WHERE stage = 'stt'",
		     "1.5|1");
	assert_query(f->path, "SELECT cancelled||'|'||error FROM turns WHERE idx = 2",
		     "1|cancelled while waiting for EXTRACT");
	assert_query(f->path, "SELECT cancelled FROM turns WHERE idx = 1", "0");
}

/* Files that are not this formdesk's database: each refused with what is wrong. */
static void test_newer_schema_refused(void **state)
{
	static const struct {
		const char *sql;   /* run on a fresh SQLite file; NULL: write text instead */
		const char *want;
	} cases[] = {
		{"PRAGMA user_version = 99", "schema version 99 is newer"},
		{"PRAGMA user_version = -1", "schema version -1 is not one of formdesk's"},
		{"CREATE TABLE calls (x)", "not a formdesk database"},
		{NULL, "file is not a database"},
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct store *st = (struct store *)&st; /* must stay untouched */
		struct store *orig = st;
		sqlite3 *db;
		char *msg = NULL;

		unlink(f->path);
		if (cases[i].sql) {
			assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
			assert_int_equal(sqlite3_exec(db, cases[i].sql, NULL, NULL, NULL), SQLITE_OK);
			sqlite3_close(db);
		} else {
			FILE *fp = fopen(f->path, "w");
			assert_non_null(fp);
			fputs("call_id,turn\nnot a database at all, but long enough to have a header\n"
			      "................................................................\n", fp);
			fclose(fp);
		}
		assert_int_equal(store_open(f->path, &st, &msg), ERR_DB);
		assert_ptr_equal(st, orig);
		assert_non_null(msg);
		if (!strstr(msg, cases[i].want) || !strstr(msg, f->path))
			fail_msg("case %zu: got '%s', want '%s'", i, msg, cases[i].want);
		free(msg);
	}
}

static void test_unopenable(void **state)
{
	struct store *st = NULL;
	char *msg = NULL;
	(void)state;
	assert_int_equal(store_open("/nonexistent-dir/x/y.db", &st, &msg), ERR_DB);
	assert_null(st);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "/nonexistent-dir/x/y.db"));
	free(msg);
}

static void test_call_round_trip(void **state)
{
	struct fixture *f = *state;
	struct store *st = NULL;
	long long id = 0;
	struct store_call_info info = {
		.corpus = "demo", .corpus_call_id = "c1-p01", .caller = "c1",
		.path = "pregnant/linked", .form_path = "forms/armman_enrollment.json",
		.form_title = "ARMMAN", .stt = "reference", .extract = "rules", .reply = "script",
		.today = "2025-03-15", .opening = "नमस्ते", .opening_decision = "{\"turn\":0}",
	};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", decision1);
	struct store_turn t2 = turn(2, "Patna", decision2);

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	assert_int_equal(store_call_begin(st, &info, &id), ERR_OK);
	assert_true(id > 0);
	assert_query(f->path, "SELECT status FROM calls", "in_progress");
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	t2.error = "stt: timeout";
	t2.seg_start_ms = -1;
	assert_int_equal(store_turn_add(st, id, &t2), ERR_OK);
	/* The same turn twice is refused, and leaves nothing half-written behind. */
	assert_int_equal(store_turn_add(st, id, &t2), ERR_DB);
	assert_non_null(strstr(store_error(st), "UNIQUE"));
	/* A turn of a call that does not exist breaks the foreign key. */
	assert_int_equal(store_turn_add(st, id + 100, &t1), ERR_DB);
	assert_int_equal(store_call_end(st, id, "failed", "caller hung up",
					"{\"name\":\"Sunita\",\"district\":null}",
					"{\"name\":\"answered\",\"district\":\"empty\"}", 2),
			 ERR_OK);
	assert_int_equal(store_call_end(st, id + 100, "failed", NULL, "{}", "{}", 0), ERR_NOTFOUND);
	/* Malformed decision JSON is refused before anything is written. */
	{
		struct store_turn bad = turn(3, "x", "{not json");
		assert_int_equal(store_turn_add(st, id, &bad), ERR_PARSE);
	}
	store_close(st);

	assert_query(f->path,
		     "SELECT corpus||'|'||corpus_call_id||'|'||caller||'|'||form_title||'|'||stt||'|'||"
		     "extract||'|'||reply||'|'||today||'|'||status||'|'||reason||'|'||turns FROM calls",
		     "demo|c1-p01|c1|ARMMAN|reference|rules|script|2025-03-15|failed|caller hung up|2");
	assert_query(f->path, "SELECT json_extract(form_data, '$.name') FROM calls", "Sunita");
	assert_query(f->path, "SELECT ended_at IS NOT NULL AND started_at <= ended_at FROM calls", "1");
	assert_query(f->path, "SELECT count(*) FROM turns", "2");
	assert_query(f->path,
		     "SELECT transcript||'|'||reply||'|'||seg_start_ms||'|'||seg_end_ms||'|'||stt_ms"
		     " FROM turns WHERE idx = 1",
		     "mera naam Sunita hai|आप किस ज़िले में रहती हैं?|120|1500|1.5");
	assert_query(f->path, "SELECT seg_start_ms IS NULL FROM turns WHERE idx = 2", "1");
	assert_query(f->path, "SELECT error FROM turns WHERE idx = 2", "stt: timeout");
	assert_query(f->path, "SELECT json_extract(decision, '$.asked') FROM turns WHERE idx = 2",
		     "district");
	/* Verdicts and captures are rows, so they can be queried. */
	assert_query(f->path,
		     "SELECT v.field||'|'||v.rule||'|'||v.message FROM verdicts v JOIN turns t ON"
		     " t.id = v.turn_id WHERE v.ok = 0",
		     "district|options|Patna is not one of the options");
	assert_query(f->path, "SELECT count(*) FROM verdicts", "2");
	assert_query(f->path,
		     "SELECT group_concat(field||'='||coalesce(value,'NULL')||':'||status, ';')"
		     " FROM captures",
		     "name=Sunita:answered;district=NULL:invalid");
}

/* A turn committed and then the process dies at once (no close, no atexit): the turn is
 * in the database. */
static void test_turn_survives_crash(void **state)
{
	struct fixture *f = *state;
	pid_t pid;
	int status = 0;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *st = NULL;
		long long id;
		struct store_call_info info = {.corpus = "crash", .corpus_call_id = "k1"};
		struct store_turn t = turn(1, "haan ji", decision1);
		if (store_open(f->path, &st, NULL) != ERR_OK ||
		    store_call_begin(st, &info, &id) != ERR_OK ||
		    store_turn_add(st, id, &t) != ERR_OK)
			_exit(3);
		_exit(0); /* crash: the store is never closed */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_query(f->path, "SELECT transcript FROM turns t JOIN calls c ON c.id = t.call_id"
			      " WHERE c.corpus = 'crash'",
		     "haan ji");
	assert_query(f->path, "SELECT status||'|'||turns FROM calls WHERE corpus = 'crash'",
		     "in_progress|1");
	assert_query(f->path, "SELECT count(*) FROM verdicts", "1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unopenable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_call_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_turn_survives_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_and_cancelled, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
