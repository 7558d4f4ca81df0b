/* test_store: the SQLite session store: schema, WAL, a call with turns read back, and a
 * turn that survives a crash right after its transaction; the migration of a file of
 * each older version (one table of cases: a new file's tables, the rows kept and filled
 * in, new turns written); per-request stage usage and cancelled turns; the live-call
 * columns (input, barge-in, silence, recording offsets); the early acknowledgement
 * (stage_usage.ack_ms, turns.ack); the readers, the review list's pages and counts, and
 * the query plans of the readers called per turn (an index, never a scan); the one open
 * policy (newer versions refused, parts migrated, concurrent migration). */
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

#include "sessions/store/store.h"
#include "tests/support/dbq.h"
#include "tests/support/oldstore.h"
#include "tests/support/testmain.h"

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

/* load_version: write the file of schema version v at path (tests/support/oldstore). */
static void load_version(const char *path, int v)
{
	char want[16];

	oldstore_write(path, v);
	snprintf(want, sizeof want, "%d", v);
	dbq_expect(path, "PRAGMA user_version", want);
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


/* begin: the store at f->path opened and a call begun with info. Output: the store (caller
 * closes); *id the call's id. */
static struct store *begin(const struct fixture *f, const struct store_call_info *info, long long *id)
{
	struct store *st = NULL;
	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	assert_int_equal(store_call_begin(st, info, id), ERR_OK);
	return st;
}
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
	dbq_expect(f->path, "PRAGMA user_version", want);
	dbq_expect(f->path, "PRAGMA journal_mode", "wal");
	dbq_expect(f->path,
		   "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
		   "WHERE type = 'table' ORDER BY name)",
		   "calls,captures,runs,stage_usage,turns,verdicts");
}

/* schema_of: every table's columns (type, NOT NULL, default, key), foreign keys and
 * indexes of the file at path, as one string (caller frees). */
static char *schema_of(const char *path)
{
	static const char *const parts[] = {
		"SELECT group_concat(d, ';') FROM (SELECT m.name||'.'||p.name||' '||p.type||' '||"
		"p.\"notnull\"||' '||coalesce(p.dflt_value,'-')||' '||p.pk AS d FROM sqlite_master m"
		" JOIN pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY m.name, p.cid)",
		"SELECT group_concat(d, ';') FROM (SELECT m.name||'.'||k.\"from\"||'>'||k.\"table\"||"
		"'.'||coalesce(k.\"to\",'-')||' '||k.on_delete AS d FROM sqlite_master m"
		" JOIN pragma_foreign_key_list(m.name) k WHERE m.type = 'table' ORDER BY m.name, k.id)",
		"SELECT group_concat(d, ';') FROM (SELECT m.name||'('||i.name||')' AS d FROM"
		" sqlite_master m JOIN pragma_index_info(m.name) i WHERE m.type = 'index'"
		" ORDER BY m.name, i.seqno)",
	};
	size_t len = 0;
	char *all = NULL;

	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		char *got = dbq_text(path, parts[i]);
		size_t n = strlen(got);
		all = realloc(all, len + n + 2);
		memcpy(all + len, got, n);
		all[len + n] = '\n';
		all[len + n + 1] = '\0';
		len += n + 1;
		free(got);
	}
	return all;
}

/* What a turn written by this formdesk stores in a migrated file of each version. */

/* version 1: new turns can carry stage usage */
static void write_v1(struct store *st)
{
	struct store_usage u = {.stage = "extract",
				.backend = {.provider = "openai", .model = "m", .ttfb_ms = 10,
					    .total_ms = 20, .attempts = 1, .tokens_in = 100,
					    .tokens_out = 7, .cost_usd = -1}};
	struct store_turn t = turn(2, "nahi", decision1);
	t.usage = &u;
	t.n_usage = 1;
	assert_int_equal(store_turn_add(st, 1, &t), ERR_OK);
}

/* version 2: new live turns and recordings can be stored */
static void write_v2(struct store *st)
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

/* version 3: a new turn stores its acknowledgement and EXTRACT's time to it, and a
 * request without one (ack_ms 0 or -1: none, or not measured) stores NULL */
static void write_v3(struct store *st)
{
	struct store_usage u[3] = {
		{.stage = "extract",
		 .backend = {.provider = "openai", .model = "m", .ttfb_ms = 50, .total_ms = 400,
			     .attempts = 1, .tokens_in = 90, .tokens_out = 12, .cost_usd = -1,
			     .ack_ms = 120.5}},
		{.stage = "reply",
		 .backend = {.provider = "openai", .model = "m", .ttfb_ms = 30, .total_ms = 70,
			     .attempts = 1, .tokens_in = -1, .tokens_out = -1, .cost_usd = -1,
			     .ack_ms = -1}},
		{.stage = "stt",
		 .backend = {.provider = "deepgram", .model = "nova-3", .ttfb_ms = 30,
			     .total_ms = 70, .attempts = 1, .tokens_in = -1, .tokens_out = -1,
			     .cost_usd = -1}},
	};
	struct store_turn t = turn(2, "Gaya", decision1);
	t.ack = "जी";
	t.usage = u;
	t.n_usage = 3;
	assert_int_equal(store_turn_add(st, 1, &t), ERR_OK);
}

/* version 4: a new run is recorded whole, and a new call belongs to it */
static void write_v4(struct store *st)
{
	struct store_run_info r = {.source = "replay", .form_path = "f.json", .form_title = "F",
				   .form_json = "{}", .form_sha256 = "44136fa3", .stt = "reference",
				   .extract = "rules", .reply = "script", .corpus = "demo",
				   .version = "v", .replay_of = 1};
	struct store_call_info c = {.corpus = "demo", .corpus_call_id = "c1"};
	long long run = 0, call = 0;

	assert_int_equal(store_run_begin(st, &r, &run), ERR_OK);
	assert_int_equal(run, 5);
	c.run_id = run;
	c.replay_of = 1;
	assert_int_equal(store_call_begin(st, &c, &call), ERR_OK);
	assert_int_equal(store_run_end(st, run), ERR_OK);
	assert_int_equal(store_run_end(st, 99), ERR_NOTFOUND);
}

/* version 5: a new turn keeps its latency, and one stored before gains it later (the
 * agent's first sound played after the turn's row was written) */
static void write_v5(struct store *st)
{
	struct store_turn t = turn(3, "haan", decision1);
	t.latency = "{\"total_ms\":12.5,\"parts\":[]}";
	assert_int_equal(store_turn_add(st, 1, &t), ERR_OK);
	assert_int_equal(store_turn_latency(st, 1, 2, "{\"total_ms\":8.25,\"parts\":[]}"), ERR_OK);
	assert_int_equal(store_turn_latency(st, 1, 9, "{}"), ERR_NOTFOUND);
}

struct check {
	const char *sql, *want;
};

/* A file of each older version (tests/data/store_vN.sql) is brought to the current
 * version in place, one version at a time: it ends with the tables a new file gets from
 * the store's column tables (same columns in the same order with the same types,
 * defaults and keys, same foreign keys and indexes), its rows stay with what the later
 * versions added filled in as documented, and this formdesk's turns can be written to it.
 * - from 1: old turns are not cancelled; through 2 to 3 the old turn of a corpus call is
 *   marked as such; through 3 to 4 no acknowledgement is known for what was stored;
 * - from 2: rows stay (cancelled included), turns of corpus calls are marked "corpus",
 *   others stay unknown, nothing is a barge-in or silence;
 * - from 3: turns and stage usage stay, with no acknowledgement known (stage_usage.ack_ms
 *   and turns.ack NULL);
 * - from 4: the calls fall into one run per source, form and backends (the two corpus
 *   calls on the same backends share one; another EXTRACT, a typed and a microphone call
 *   each get their own), in the order of their first call, with "today" where the calls
 *   agree, started and ended with their calls, marked migrated;
 * - from 5: turns stay, with no latency known (turns.latency NULL). */
static void test_migrations(void **state)
{
	static const struct {
		int version;
		struct check opened[3]; /* after the migration */
		void (*write)(struct store *st);
		struct check written[4]; /* after write and close */
	} cases[] = {
		{1,
		 {{"SELECT transcript||'|'||cancelled FROM turns WHERE call_id = 1", "haan ji|0"}},
		 write_v1,
		 {{"SELECT stage||'|'||tokens_in||'|'||coalesce(cost_usd,'NULL') FROM stage_usage",
		   "extract|100|NULL"},
		  {"SELECT input||'|'||barge_in||'|'||silence||'|'||(caller_audio_start_ms IS NULL)"
		   " FROM turns WHERE idx = 1",
		   "corpus|0|0|1"},
		  {"SELECT (ack_ms IS NULL) FROM stage_usage", "1"},
		  {"SELECT count(*) FROM turns WHERE ack IS NOT NULL", "0"}}},
		{2,
		 {{"SELECT group_concat(coalesce(input,'NULL')||'/'||cancelled||'/'||barge_in||'/'||"
		   "silence||'/'||coalesce(barge_in_ms,'NULL'), ';') FROM turns ORDER BY id",
		   "corpus/0/0/0/NULL;NULL/1/0/0/NULL"},
		  {"SELECT coalesce(audio_dir,'NULL') FROM calls WHERE id = 2", "NULL"}},
		 write_v2,
		 {{"SELECT input||'|'||barge_in||'|'||barge_in_ms||'|'||caller_audio_start_ms||'|'||"
		   "caller_audio_end_ms||'|'||agent_audio_start_ms||'|'||agent_audio_end_ms"
		   " FROM turns WHERE call_id = 2 AND idx = 2",
		   "mic|1|900|16000|17560|18200|19687"},
		  {"SELECT audio_dir FROM calls WHERE id = 2", "x.audio/call-2"},
		  {"SELECT count(*) FROM turns WHERE ack IS NOT NULL", "0"}}},
		{3,
		 {{"SELECT group_concat(stage||'/'||total_ms||'/'||coalesce(ack_ms,'NULL'), ';')"
		   " FROM (SELECT * FROM stage_usage ORDER BY id)",
		   "extract/90.0/NULL;reply/60.0/NULL"},
		  {"SELECT transcript||'|'||input||'|'||coalesce(ack,'NULL') FROM turns",
		   "haan ji|corpus|NULL"}},
		 write_v3,
		 {{"SELECT group_concat(stage||'/'||coalesce(ack_ms,'NULL'), ';')"
		   " FROM (SELECT * FROM stage_usage WHERE turn_id = 2 ORDER BY id)",
		   "extract/120.5;reply/NULL;stt/NULL"},
		  {"SELECT group_concat(idx||'/'||coalesce(ack,'NULL'), ';')"
		   " FROM (SELECT * FROM turns ORDER BY idx)",
		   "1/NULL;2/जी"}}},
		{4,
		 {{"SELECT group_concat(id||'/'||run_id, ';') FROM (SELECT * FROM calls ORDER BY id)",
		   "1/1;2/1;3/2;4/3;5/4"},
		  {"SELECT group_concat(id||'/'||source||'/'||extract||'/'||coalesce(corpus,'NULL')||'/'||"
		   "coalesce(json_extract(options,'$.today'),'NULL')||'/'||started_at||'/'||migrated, ';')"
		   " FROM (SELECT * FROM runs ORDER BY id)",
		   "1/run/rules/demo/2026-01-15/2026-02-01T10:00:00.000Z/1;"
		   "2/run/openai:m/demo/2026-01-15/2026-02-01T11:00:00.000Z/1;"
		   "3/typed/rules/NULL/2026-03-02/2026-02-02T09:00:00.000Z/1;"
		   "4/mic/rules/NULL/2026-03-02/2026-02-02T09:30:00.000Z/1"},
		  {"SELECT count(*) FROM runs WHERE form_json IS NOT NULL", "0"}},
		 write_v4,
		 {{"SELECT source||'|'||form_sha256||'|'||replay_of||'|'||migrated||'|'||"
		   "(ended_at IS NOT NULL) FROM runs WHERE id = 5",
		   "replay|44136fa3|1|0|1"},
		  {"SELECT run_id||'|'||replay_of FROM calls WHERE id = 6", "5|1"}}},
		{5,
		 {{"SELECT group_concat(idx||'/'||coalesce(latency,'NULL'), ';')"
		   " FROM (SELECT * FROM turns ORDER BY idx)",
		   "1/NULL;2/NULL"}},
		 write_v5,
		 {{"SELECT group_concat(idx||'/'||coalesce(json_extract(latency,'$.total_ms'),'NULL'),"
		   " ';') FROM (SELECT * FROM turns ORDER BY idx)",
		   "1/NULL;2/8.25;3/12.5"}}},
	};
	struct fixture *f = *state;
	struct store *st = NULL;
	char fresh[128], want[16];
	char *expect;

	_Static_assert(sizeof cases / sizeof cases[0] == STORE_SCHEMA_VERSION - 1,
		       "a case (and a tests/data/store_vN.sql) per older schema version");
	snprintf(fresh, sizeof fresh, "%s/new.db", f->dir);
	assert_int_equal(store_open(fresh, &st, NULL), ERR_OK);
	store_close(st);
	expect = schema_of(fresh);
	assert_non_null(strstr(expect, "turns.ack TEXT"));
	snprintf(want, sizeof want, "%d", STORE_SCHEMA_VERSION);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got;
		unlink(f->path);
		load_version(f->path, cases[i].version);
		assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
		dbq_expect(f->path, "PRAGMA user_version", want);
		got = schema_of(f->path);
		if (strcmp(got, expect) != 0)
			fail_msg("version %d migrated:\n%s\nnew file:\n%s", cases[i].version, got,
				 expect);
		free(got);
		for (size_t c = 0; c < 3 && cases[i].opened[c].sql; c++)
			dbq_expect(f->path, cases[i].opened[c].sql, cases[i].opened[c].want);
		cases[i].write(st);
		store_close(st);
		for (size_t c = 0; c < 4 && cases[i].written[c].sql; c++)
			dbq_expect(f->path, cases[i].written[c].sql, cases[i].written[c].want);
	}
	free(expect);
}

/* The live-call columns: a typed turn, a silence turn, a barge-in turn (barge_in_ms kept
 * only with barge_in), recording offsets only when recorded, the reply's read back;
 * placing a reply in the recording of a turn or a call that does not exist is refused. */
static void test_live_columns(void **state)
{
	struct fixture *f = *state;
	long long id = 0;
	struct store_call_info info = {.corpus_call_id = "live", .opening = "नमस्ते"};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", decision1);
	struct store_turn t2 = turn(2, NULL, NULL);
	struct store_turn t3 = turn(3, "Gaya", decision2);

	struct store *st = begin(f, &info, &id);
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
	{ /* the reader gives the reply's place back (review plays it), -1 where unknown */
		struct store_turn_row *rows = NULL;
		int n = 0;
		assert_int_equal(store_turns(st, id, &rows, &n), ERR_OK);
		assert_int_equal(n, 3);
		assert_true(rows[0].agent_audio_start_ms == -1 && rows[0].agent_audio_end_ms == -1);
		assert_true(rows[2].agent_audio_start_ms == 7000 && rows[2].agent_audio_end_ms == 9000);
		store_turns_free(rows, n);
	}
	store_close(st);
	dbq_expect(f->path,
		   "SELECT group_concat(idx||':'||input||'/'||barge_in||'/'||coalesce(barge_in_ms,'-')||'/'||"
		   "silence||'/'||coalesce(caller_audio_start_ms,'-')||'-'||coalesce(caller_audio_end_ms,'-')||'/'||"
		   "coalesce(agent_audio_start_ms,'-')||'-'||coalesce(agent_audio_end_ms,'-'), ';') FROM turns",
		   "1:typed/0/-/0/---/---;2:mic/0/-/1/---/---;3:mic/1/0/0/5000-6500/7000-9000");
}

/* Stage usage of the opening (no turn) and of a turn; a cancelled turn. */
static void test_usage_and_cancelled(void **state)
{
	struct fixture *f = *state;
	long long id = 0;
	struct store_usage open_u = {.stage = "reply",
				     .backend = {.provider = "openai", .model = "gpt-x",
						 .ttfb_ms = 40, .total_ms = 55.5, .attempts = 1,
						 .tokens_in = 300, .tokens_out = 20,
						 .cost_usd = 0.00042}};
	struct store_usage turn_u[2] = {
		{.stage = "stt",
		 .backend = {.provider = "deepgram", .model = "nova-3", .ttfb_ms = 80,
			     .total_ms = 90, .attempts = 1, .tokens_in = -1, .tokens_out = -1,
			     .audio_s = 1.5, .cost_usd = 0.0001}},
		{.stage = "extract",
		 .backend = {.provider = "openai", .model = "gpt-x", .ttfb_ms = 0,
			     .total_ms = 1200, .attempts = 3, .tokens_in = -1, .tokens_out = -1,
			     .cost_usd = -1, .error = "openai: HTTP 500"}},
	};
	struct store_call_info info = {.corpus = "u", .corpus_call_id = "c", .opening = "नमस्ते",
				       .usage = &open_u, .n_usage = 1};
	struct store_turn t1 = turn(1, "haan", decision1);
	struct store_turn t2 = turn(2, NULL, NULL);

	struct store *st = begin(f, &info, &id);
	t1.usage = turn_u;
	t1.n_usage = 2;
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	t2.cancelled = true;
	t2.error = "cancelled while waiting for EXTRACT";
	assert_int_equal(store_turn_add(st, id, &t2), ERR_OK);
	store_close(st);

	dbq_expect(f->path,
		   "SELECT stage||'|'||provider||'|'||model||'|'||tokens_in||'|'||tokens_out||'|'||"
		   "cost_usd FROM stage_usage WHERE turn_id IS NULL",
		   "reply|openai|gpt-x|300|20|0.00042");
	dbq_expect(f->path, "SELECT count(*) FROM stage_usage s JOIN turns t ON t.id = s.turn_id"
			    " WHERE t.idx = 1 AND s.call_id = t.call_id", "2");
	dbq_expect(f->path,
		   "SELECT attempts||'|'||coalesce(tokens_in,'NULL')||'|'||coalesce(cost_usd,'NULL')||'|'||error"
		   " FROM stage_usage WHERE stage = 'extract'",
		   "3|NULL|NULL|openai: HTTP 500");
	dbq_expect(f->path, "SELECT audio_s||'|'||(error IS NULL) FROM stage_usage WHERE stage = 'stt'",
		   "1.5|1");
	dbq_expect(f->path, "SELECT cancelled||'|'||error FROM turns WHERE idx = 2",
		   "1|cancelled while waiting for EXTRACT");
	dbq_expect(f->path, "SELECT cancelled FROM turns WHERE idx = 1", "0");
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
	long long id = 0;
	struct store_call_info info = {
		.corpus = "demo", .corpus_call_id = "c1-p01", .caller = "c1",
		.path = "pregnant/linked", .form_path = "forms/armman_enrollment.json",
		.form_title = "ARMMAN", .stt = "reference", .extract = "rules", .reply = "script",
		.today = "2025-03-15", .opening = "नमस्ते", .opening_decision = "{\"turn\":0}",
	};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", decision1);
	struct store_turn t2 = turn(2, "Patna", decision2);

	struct store *st = begin(f, &info, &id);
	assert_true(id > 0);
	dbq_expect(f->path, "SELECT status FROM calls", "in_progress");
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

	dbq_expect(f->path,
		   "SELECT corpus||'|'||corpus_call_id||'|'||caller||'|'||form_title||'|'||stt||'|'||"
		   "extract||'|'||reply||'|'||today||'|'||status||'|'||reason||'|'||turns FROM calls",
		   "demo|c1-p01|c1|ARMMAN|reference|rules|script|2025-03-15|failed|caller hung up|2");
	dbq_expect(f->path, "SELECT json_extract(form_data, '$.name') FROM calls", "Sunita");
	dbq_expect(f->path, "SELECT ended_at IS NOT NULL AND started_at <= ended_at FROM calls", "1");
	dbq_expect(f->path, "SELECT count(*) FROM turns", "2");
	dbq_expect(f->path,
		   "SELECT transcript||'|'||reply||'|'||seg_start_ms||'|'||seg_end_ms||'|'||stt_ms"
		   " FROM turns WHERE idx = 1",
		   "mera naam Sunita hai|आप किस ज़िले में रहती हैं?|120|1500|1.5");
	dbq_expect(f->path, "SELECT seg_start_ms IS NULL FROM turns WHERE idx = 2", "1");
	dbq_expect(f->path, "SELECT error FROM turns WHERE idx = 2", "stt: timeout");
	dbq_expect(f->path, "SELECT json_extract(decision, '$.asked') FROM turns WHERE idx = 2",
		   "district");
	/* Verdicts and captures are rows, so they can be queried. */
	dbq_expect(f->path,
		   "SELECT v.field||'|'||v.rule||'|'||v.message FROM verdicts v JOIN turns t ON"
		   " t.id = v.turn_id WHERE v.ok = 0",
		   "district|options|Patna is not one of the options");
	dbq_expect(f->path, "SELECT count(*) FROM verdicts", "2");
	dbq_expect(f->path,
		   "SELECT group_concat(field||'='||coalesce(value,'NULL')||':'||status, ';')"
		   " FROM captures",
		   "name=Sunita:answered;district=NULL:invalid");
}

/* The engine hands the decision as JSON (not text): the store prints it into the column,
 * byte for byte what the text would have been, and writes its captures and verdicts from
 * it; a decision that is not an object is refused before anything is written. */
static void test_decision_json(void **state)
{
	struct fixture *f = *state;
	long long id = 0;
	cJSON *opening = cJSON_Parse("{\"turn\":0,\"asked\":null}");
	cJSON *d1 = cJSON_Parse(decision1), *bad = cJSON_CreateArray();
	assert_non_null(opening);
	assert_non_null(d1);
	struct store_call_info info = {.corpus = "demo", .corpus_call_id = "c1",
				       .opening_decision_json = opening};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", NULL), t2 = turn(2, "x", NULL);
	t1.decision_json = d1;
	t2.decision_json = bad;

	struct store *st = begin(f, &info, &id);
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	assert_int_equal(store_turn_add(st, id, &t2), ERR_PARSE);
	store_close(st);
	dbq_expect(f->path, "SELECT opening_decision FROM calls", "{\"turn\":0,\"asked\":null}");
	dbq_expect(f->path, "SELECT decision FROM turns", decision1);
	dbq_expect(f->path, "SELECT count(*) FROM turns", "1");
	dbq_expect(f->path, "SELECT field||'='||value||':'||status FROM captures",
		   "name=Sunita:answered");
	dbq_expect(f->path, "SELECT field||'|'||rule||'|'||ok FROM verdicts", "name|min_length|1");
	cJSON_Delete(opening);
	cJSON_Delete(d1);
	cJSON_Delete(bad);
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
	dbq_expect(f->path, "SELECT transcript FROM turns t JOIN calls c ON c.id = t.call_id"
			    " WHERE c.corpus = 'crash'",
		   "haan ji");
	dbq_expect(f->path, "SELECT status||'|'||turns FROM calls WHERE corpus = 'crash'",
		   "in_progress|1");
	dbq_expect(f->path, "SELECT count(*) FROM verdicts", "1");
}

/* The readers give back what the writers were given: calls by filter, a call's turns,
 * the captures and verdicts of a call or of one turn. */
static void test_readers(void **state)
{
	struct fixture *f = *state;
	long long id = 0, other = 0;
	struct store_call_info info = {.corpus = "demo", .corpus_call_id = "c1", .caller = "c",
				       .form_path = "forms/f.json", .today = "2025-03-15",
				       .opening = "नमस्ते", .opening_decision = "{\"turn\":0}"};
	struct store_call_info info2 = {.corpus = "other", .corpus_call_id = "c2"};
	struct store_call_filter finished = {.finished = true}, by_corpus = {.corpus = "other"};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", decision1);
	struct store_turn t2 = turn(2, "Patna", decision2);
	struct store_call_row *calls = NULL;
	struct store_turn_row *turns = NULL;
	struct store_capture *caps = NULL;
	struct store_verdict *vs = NULL;
	int n = -1;

	t1.input = "mic";
	t1.barge_in = true;
	t1.barge_in_ms = 300;
	t1.recorded = true;
	t1.caller_audio_start_ms = 1000;
	t1.caller_audio_end_ms = 2500;
	t1.ack = "जी";
	t2.seg_start_ms = -1;
	t2.error = "stt: timeout";
	t2.cancelled = true;
	struct store *st = begin(f, &info, &id);
	assert_int_equal(store_call_begin(st, &info2, &other), ERR_OK);
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	assert_int_equal(store_turn_add(st, id, &t2), ERR_OK);
	assert_int_equal(store_call_end(st, id, "failed", "caller hung up", "{\"name\":\"Sunita\"}",
					"{\"name\":\"answered\"}", 2),
			 ERR_OK);

	assert_int_equal(store_calls(st, NULL, &calls, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_true(calls[0].id == id && calls[1].id == other);
	store_calls_free(calls, n);
	assert_int_equal(store_calls(st, &finished, &calls, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_true(calls[0].id == id);
	assert_string_equal(calls[0].info.corpus, "demo");
	assert_string_equal(calls[0].info.corpus_call_id, "c1");
	assert_string_equal(calls[0].info.form_path, "forms/f.json");
	assert_string_equal(calls[0].info.opening_decision, "{\"turn\":0}");
	assert_null(calls[0].info.stt);
	assert_string_equal(calls[0].status, "failed");
	assert_string_equal(calls[0].reason, "caller hung up");
	assert_string_equal(calls[0].form_data, "{\"name\":\"Sunita\"}");
	assert_string_equal(calls[0].form_status, "{\"name\":\"answered\"}");
	assert_int_equal(calls[0].turns, 2);
	assert_non_null(calls[0].started_at);
	assert_non_null(calls[0].ended_at);
	assert_null(calls[0].audio_dir);
	store_calls_free(calls, n);
	assert_int_equal(store_calls(st, &by_corpus, &calls, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(calls[0].status, "in_progress");
	assert_null(calls[0].ended_at);
	store_calls_free(calls, n);
	store_calls_free(NULL, 0);

	assert_int_equal(store_turns(st, id, &turns, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(turns[0].call_id, id);
	assert_int_equal(turns[0].t.index, 1);
	assert_string_equal(turns[0].t.transcript, "mera naam Sunita hai");
	assert_string_equal(turns[0].t.decision, decision1);
	assert_string_equal(turns[0].t.utterance_id, "u1");
	assert_string_equal(turns[0].t.segments, "[{\"start_ms\":120,\"end_ms\":1500}]");
	assert_int_equal(turns[0].t.seg_start_ms, 120);
	assert_true(turns[0].t.stt_ms == 1.5 && turns[0].t.total_ms == 9.25);
	assert_string_equal(turns[0].t.input, "mic");
	assert_true(turns[0].t.barge_in && turns[0].t.recorded && !turns[0].t.cancelled);
	assert_int_equal(turns[0].t.barge_in_ms, 300);
	assert_int_equal(turns[0].t.caller_audio_end_ms, 2500);
	assert_string_equal(turns[0].t.ack, "जी");
	assert_null(turns[0].t.error);
	assert_null(turns[0].t.usage);
	assert_int_equal(turns[1].t.index, 2);
	assert_int_equal(turns[1].t.seg_start_ms, -1);
	assert_string_equal(turns[1].t.error, "stt: timeout");
	assert_true(turns[1].t.cancelled && !turns[1].t.barge_in && !turns[1].t.recorded);
	assert_int_equal(turns[1].t.barge_in_ms, -1);
	assert_null(turns[1].t.ack);

	assert_int_equal(store_captures(st, id, 0, &caps, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_true(caps[0].turn_id == turns[0].id && caps[1].turn_id == turns[1].id);
	assert_string_equal(caps[0].field, "name");
	assert_string_equal(caps[0].raw, "Sunita");
	assert_string_equal(caps[0].value, "Sunita");
	assert_string_equal(caps[0].status, "answered");
	assert_null(caps[0].reason);
	assert_null(caps[1].value);
	assert_string_equal(caps[1].reason, "not an option");
	store_captures_free(caps, n);
	assert_int_equal(store_captures(st, 0, turns[1].id, &caps, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(caps[0].field, "district");
	store_captures_free(caps, n);

	assert_int_equal(store_verdicts(st, id, 0, &vs, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_true(vs[0].ok && !vs[1].ok);
	assert_string_equal(vs[0].rule, "min_length");
	assert_string_equal(vs[1].message, "Patna is not one of the options");
	store_verdicts_free(vs, n);
	assert_int_equal(store_verdicts(st, 0, turns[0].id, &vs, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(vs[0].field, "name");
	store_verdicts_free(vs, n);
	assert_int_equal(store_verdicts(st, other, 0, &vs, &n), ERR_OK);
	assert_int_equal(n, 0);
	store_verdicts_free(vs, n);
	store_turns_free(turns, 2);
	store_close(st);
}

/* The review list's pages: counts and pages by SQL, each filter alone and together, the
 * offsets past the end. */
static void test_calls_page(void **state)
{
	struct fixture *f = *state;
	struct store *st = NULL;
	struct store_run_info run = {.source = "run"};
	long long r1 = 0, r2 = 0, id[7];
	struct store_call_row *v = NULL;
	int n = -1;

	assert_int_equal(store_open(f->path, &st, NULL), ERR_OK);
	assert_int_equal(store_run_begin(st, &run, &r1), ERR_OK);
	assert_int_equal(store_run_begin(st, &run, &r2), ERR_OK);
	for (int i = 0; i < 7; i++) {
		char cid[16];
		struct store_call_info info = {.corpus = i == 5 ? "respin" : "demo",
					       .corpus_call_id = cid, .run_id = i < 5 ? r1 : r2};
		/* call 4's answer is refused; call 2's EXTRACT request failed, call 1's STT
		 * request succeeded */
		struct store_turn t = turn(1, i == 3 ? "Mera naam PATNA" : "mera naam Sunita",
					   i == 4 ? decision2 : decision1);
		struct store_usage u = {.stage = i == 2 ? "extract" : "stt",
					.backend = {.provider = "p", .attempts = 1, .tokens_in = -1,
						    .tokens_out = -1, .cost_usd = -1}};
		if (i == 2)
			snprintf(u.backend.error, sizeof u.backend.error, "HTTP 503");
		if (i == 1 || i == 2) {
			t.usage = &u;
			t.n_usage = 1;
		}
		snprintf(cid, sizeof cid, "c%d", i);
		assert_int_equal(store_call_begin(st, &info, &id[i]), ERR_OK);
		assert_int_equal(store_turn_add(st, id[i], &t), ERR_OK);
		if (i == 6)
			continue; /* in progress */
		assert_int_equal(store_call_end(st, id[i], i % 2 ? "failed" : "complete", NULL, "{}",
						i % 2 ? "{\"name\":\"answered\",\"district\":\"skipped\"}"
						      : "{\"name\":\"answered\",\"district\":\"answered\"}",
						1),
				 ERR_OK);
	}
	struct {
		struct store_call_query q;
		int count, offset, limit, first, got;
	} cases[] = {
		{{0}, 7, 0, 3, 0, 3},
		{{0}, 7, 3, 3, 3, 3},
		{{0}, 7, 6, 3, 6, 1},
		{{0}, 7, 7, 3, -1, 0},
		{{.run = r1}, 5, 2, 10, 2, 3},
		{{.run = r2}, 2, 0, 10, 5, 2},
		{{.status = "failed"}, 3, 1, 10, 3, 2},
		{{.unanswered = "district"}, 3, 0, 1, 1, 1},
		{{.unanswered = "name"}, 0, 0, 10, -1, 0},
		{{.said = "patna"}, 1, 0, 10, 3, 1},
		{{.said = ""}, 7, 0, 10, 0, 7},
		{{.run = r1, .status = "complete", .said = "sunita"}, 3, 1, 10, 2, 2},
		{{.corpus = "respin"}, 1, 0, 10, 5, 1},
		{{.corpus = "demo", .run = r2}, 1, 0, 10, 6, 1},
		{{.fault = "extract"}, 1, 0, 10, 2, 1},
		{{.fault = "stt"}, 0, 0, 10, -1, 0},
		{{.fault = "validation"}, 1, 0, 10, 4, 1},
		{{.fault = "any"}, 2, 0, 10, 2, 2},
		{{.fault = "any", .corpus = "demo", .status = "complete"}, 2, 0, 10, 2, 2},
		{{.fault = "any", .said = "patna"}, 0, 0, 10, -1, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int c = -1;
		assert_int_equal(store_calls_count(st, &cases[i].q, &c), ERR_OK);
		assert_int_equal(c, cases[i].count);
		assert_int_equal(store_calls_page(st, &cases[i].q, cases[i].offset, cases[i].limit, &v,
						  &n),
				 ERR_OK);
		assert_int_equal(n, cases[i].got);
		if (n)
			assert_true(v[0].id == id[cases[i].first]);
		for (int k = 1; k < n; k++)
			assert_true(v[k].id > v[k - 1].id);
		store_calls_free(v, n);
	}
	store_close(st);
}

/* The statements a reader ran, caught by SQLite's trace hook. */
struct caught {
	char *sql[8];
	int n;
};

static int catch_sql(unsigned type, void *ud, void *p, void *x)
{
	struct caught *c = ud;
	(void)type;
	(void)p;
	if (c->n < 8 && strncmp((const char *)x, "SELECT", 6) == 0)
		c->sql[c->n++] = strdup((const char *)x);
	return 0;
}

/* plan: EXPLAIN QUERY PLAN of sql on db, its details joined by "; " (caller frees). */
static char *plan(sqlite3 *db, const char *sql)
{
	char *eq = NULL, *out = calloc(1, 4096);
	sqlite3_stmt *q = NULL;

	assert_true(asprintf(&eq, "EXPLAIN QUERY PLAN %s", sql) > 0);
	assert_int_equal(sqlite3_prepare_v2(db, eq, -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		strncat(out, (const char *)sqlite3_column_text(q, 3), 4000 - strlen(out));
		strncat(out, "; ", 4000 - strlen(out));
	}
	sqlite3_finalize(q);
	free(eq);
	return out;
}

/* The readers the review screen and the annotation queues call on every turn are answered
 * from indexes: store_verdicts and store_captures of a call or of one turn, and a run's
 * page of calls, never scan their table (an OR across two columns in one query made
 * SQLite scan every verdict). */
static void test_query_plans(void **state)
{
	struct fixture *f = *state;
	struct store_call_info info = {.corpus = "demo", .corpus_call_id = "c1", .run_id = 0};
	struct store_turn t1 = turn(1, "mera naam Sunita hai", decision1);
	struct store_call_query by_run = {.run = 1, .status = "failed"};
	struct store_verdict *vs = NULL;
	struct store_capture *cs = NULL;
	struct store_call_row *calls = NULL;
	struct caught c = {0};
	long long id = 0;
	int n;

	struct store *st = begin(f, &info, &id);
	assert_int_equal(store_turn_add(st, id, &t1), ERR_OK);
	sqlite3_trace_v2(store_sqlite(st), SQLITE_TRACE_STMT, catch_sql, &c);
	assert_int_equal(store_verdicts(st, id, 0, &vs, &n), ERR_OK);
	store_verdicts_free(vs, n);
	assert_int_equal(store_verdicts(st, 0, 1, &vs, &n), ERR_OK);
	store_verdicts_free(vs, n);
	assert_int_equal(store_captures(st, id, 0, &cs, &n), ERR_OK);
	store_captures_free(cs, n);
	assert_int_equal(store_captures(st, 0, 1, &cs, &n), ERR_OK);
	store_captures_free(cs, n);
	assert_int_equal(store_calls_page(st, &by_run, 0, 40, &calls, &n), ERR_OK);
	store_calls_free(calls, n);
	sqlite3_trace_v2(store_sqlite(st), 0, NULL, NULL);
	assert_int_equal(c.n, 5);
	for (int i = 0; i < c.n; i++) {
		char *p = plan(store_sqlite(st), c.sql[i]);
		print_message("# %s\n#   %s\n", c.sql[i], p);
		assert_null(strstr(p, "SCAN"));
		assert_non_null(strstr(p, "USING INDEX") ? p : strstr(p, "USING COVERING INDEX"));
		free(p);
		free(c.sql[i]);
	}
	store_close(st);
}

/* A part: tables of another module kept in the store's file with a version of its own. */
static const char *const part_v1[] = {"CREATE TABLE IF NOT EXISTS t_items (a TEXT);"};
static const char *const part_v2[] = {"CREATE TABLE IF NOT EXISTS t_items (a TEXT);",
				      "ALTER TABLE t_items ADD COLUMN b INTEGER NOT NULL DEFAULT 7;"};
static const struct store_part part1 = {"test tables", "t_", "t_meta", part_v1, 1, true};
static const struct store_part part2 = {"test tables", "t_", "t_meta", part_v2, 2, false};

/* The one open policy: a newer version (the store's or a part's) is refused with a
 * message naming the file and both versions; an older part is migrated, its rows kept;
 * STORE_EXISTING wants the file and the store's tables; a file holding only a part's
 * tables from before the policy (no version) gets the store's tables beside them, one
 * holding another program's is refused; the part's durability is its synchronous mode. */
static void test_open_policy(void **state)
{
	struct fixture *f = *state;
	struct store *st = NULL;
	char *msg = NULL, want[64], missing[128];
	sqlite3 *db;

	/* newer store schema */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open_with(f->path, STORE_CREATE, &part1, &st, &msg), ERR_DB);
	assert_null(st);
	snprintf(want, sizeof want, "schema version 99 is newer than this formdesk knows (%d)",
		 STORE_SCHEMA_VERSION);
	if (!strstr(msg, f->path) || !strstr(msg, want))
		fail_msg("got '%s'", msg);
	free(msg);
	unlink(f->path);

	/* a part at version 1, then migrated to 2 with its rows */
	assert_int_equal(store_open_with(f->path, STORE_CREATE, &part1, &st, &msg), ERR_OK);
	assert_null(msg);
	assert_string_equal(store_path(st), f->path);
	assert_int_equal(sqlite3_exec(store_sqlite(st), "INSERT INTO t_items VALUES ('x')", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	store_close(st);
	dbq_expect(f->path, "SELECT value FROM t_meta WHERE name = 'schema_version'", "1");
	assert_int_equal(store_open_with(f->path, STORE_EXISTING, &part2, &st, NULL), ERR_OK);
	store_close(st);
	dbq_expect(f->path, "SELECT value FROM t_meta WHERE name = 'schema_version'", "2");
	dbq_expect(f->path, "SELECT a||b FROM t_items", "x7");
	/* ... and a newer part is refused by this formdesk */
	st = NULL;
	assert_int_equal(store_open_with(f->path, STORE_EXISTING, &part1, &st, &msg), ERR_DB);
	if (!strstr(msg, f->path) ||
	    !strstr(msg, "test tables version 2 is newer than this formdesk knows (1)"))
		fail_msg("got '%s'", msg);
	free(msg);
	assert_null(st);

	/* STORE_EXISTING: no file (and none made), a file without the store's tables */
	snprintf(missing, sizeof missing, "%s/missing.db", f->dir);
	assert_int_equal(store_open_with(missing, STORE_EXISTING, &part1, &st, &msg), ERR_NOTFOUND);
	assert_non_null(strstr(msg, "no such database"));
	assert_non_null(strstr(msg, missing));
	assert_int_equal(access(missing, F_OK), -1);
	free(msg);
	unlink(f->path);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t_items (a TEXT)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open_with(f->path, STORE_EXISTING, &part1, &st, &msg), ERR_NOTFOUND);
	assert_non_null(strstr(msg, "no recorded calls"));
	free(msg);
	/* the part's tables alone: not the store's, but not another program's either */
	assert_int_equal(store_open(f->path, &st, &msg), ERR_DB);
	assert_non_null(strstr(msg, "not a formdesk database"));
	free(msg);
	assert_int_equal(store_open_with(f->path, STORE_CREATE, &part1, &st, NULL), ERR_OK);
	{
		sqlite3_stmt *q = NULL;
		assert_int_equal(sqlite3_prepare_v2(store_sqlite(st), "PRAGMA synchronous", -1, &q,
						    NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(q, 0), 2); /* FULL */
		sqlite3_finalize(q);
	}
	store_close(st);
	dbq_expect(f->path, "SELECT count(*) FROM sqlite_master WHERE name IN ('calls', 't_items')",
		   "2");
	dbq_expect(f->path, "PRAGMA journal_mode", "wal");
}

/* Two processes opening a version 1 file at the same moment: both open it, and it is
 * migrated once (each step's version is read again under the write lock). */
static void test_concurrent_migration(void **state)
{
	struct fixture *f = *state;
	pid_t pid[4];
	char want[16];

	load_version(f->path, 1);
	for (int p = 0; p < 4; p++) {
		pid[p] = fork();
		assert_true(pid[p] >= 0);
		if (pid[p] == 0) {
			struct store *st = NULL;
			char *msg = NULL;
			if (store_open(f->path, &st, &msg) != ERR_OK) {
				fprintf(stderr, "child %d: %s\n", p, msg ? msg : "?");
				_exit(1);
			}
			store_close(st);
			_exit(0);
		}
	}
	for (int p = 0; p < 4; p++) {
		int status = 0;
		assert_int_equal(waitpid(pid[p], &status, 0), pid[p]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	snprintf(want, sizeof want, "%d", STORE_SCHEMA_VERSION);
	dbq_expect(f->path, "PRAGMA user_version", want);
	dbq_expect(f->path, "SELECT transcript||'|'||input FROM turns", "haan ji|corpus");
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_unopenable, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_call_round_trip, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_decision_json, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_turn_survives_crash, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_migrations, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_live_columns, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_usage_and_cancelled, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_readers, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_calls_page, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_query_plans, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_open_policy, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_concurrent_migration, setup, teardown))
