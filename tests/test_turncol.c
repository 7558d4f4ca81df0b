/* test_turncol: a turn column registered through the registry (sessions/store/turncol.h)
 * and nothing else: "words", the transcript's word count, shown, and "asked", the field the
 * typed decision asked, not shown. The store declares them in a new file, adds them to a
 * file of every older schema version (tests/data/store_vN.sql) as a new file has them,
 * writes them with each turn and reads them back; a turn run by the call engine gets them
 * computed from what the engine hands over, and the call view shows the shown one, without
 * a terminal. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "tests/support/dbq.h"
#include "tests/support/oldstore.h"
#include "tests/support/tmpdir.h"
#include "agent/hindi/lexicon.h"
#include "agent/rules/decision.h"
#include "agent/rules/form.h"
#include "sessions/calls/engine.h"
#include "sessions/store/store.h"
#include "sessions/store/turncol.h"
#include "tui/callview.h"
#include "tests/support/testmain.h"

#define FORM "forms/armman_enrollment.json"

static char dir[64];

static enum err words(const struct store_turn *t, struct turncol_value *v)
{
	const char *s = t->transcript;
	if (!s)
		return ERR_OK;
	v->set = true;
	for (bool in = false; *s; s++) {
		bool space = *s == ' ';
		v->i += !space && !in;
		in = !space;
	}
	return ERR_OK;
}

static enum err asked(const struct store_turn *t, struct turncol_value *v)
{
	if (t->dec && t->dec->asked && !(v->s = strdup(t->dec->asked)))
		return ERR_NOMEM;
	v->set = v->s != NULL;
	return ERR_OK;
}

static const struct turncol words_col = {"words", TURNCOL_INTEGER, "words", words};
static const struct turncol asked_col = {"asked", TURNCOL_TEXT, NULL, asked};

static int setup(void **state)
{
	(void)state;
	if (turncol_register(&words_col) != ERR_OK || turncol_register(&asked_col) != ERR_OK)
		return -1;
	return tmpdir_make(dir, sizeof dir, "turncol");
}

/* The registry: built-in latency first, then the test's columns; a name taken, a name that
 * is not an identifier and a column without a function are refused. */
static void test_registry(void **state)
{
	(void)state;
	struct turncol bad = words_col;

	assert_int_equal(turncol_find("latency"), 0);
	assert_int_equal(turncol_find("words"), turncol_count() - 2);
	assert_int_equal(turncol_find("asked"), turncol_count() - 1);
	assert_int_equal(turncol_find("nope"), -1);
	assert_int_equal(turncol_register(&words_col), ERR_INVALID);
	bad.name = "two words";
	assert_int_equal(turncol_register(&bad), ERR_INVALID);
	bad.name = "Words";
	assert_int_equal(turncol_register(&bad), ERR_INVALID);
	bad.name = "w2";
	bad.value = NULL;
	assert_int_equal(turncol_register(&bad), ERR_INVALID);
	assert_string_equal(turncol_sql_type(TURNCOL_INTEGER), "INTEGER");
}

/* add_turn: a call with one turn saying transcript, its decision asking asked (typed, as
 * the engine hands it over), to the store at path. */
static void add_turn(const char *path, const char *transcript)
{
	struct store *st = NULL;
	struct decision *d = decision_new();
	struct store_call_info info = {.corpus_call_id = "t"};
	long long call;

	assert_non_null(d);
	d->turn = 1;
	assert_non_null(d->asked = strdup("district"));
	assert_int_equal(store_open(path, &st, NULL), ERR_OK);
	assert_int_equal(store_call_begin(st, &info, &call), ERR_OK);
	assert_int_equal(store_turn_add(st, call, &(struct store_turn){.index = 1,
			 .transcript = transcript, .dec = d, .seg_start_ms = -1,
			 .seg_end_ms = -1}), ERR_OK);
	store_close(st);
	decision_free(d);
}

/* A new file: both columns declared with their types, stored and read back. */
static void test_stored_and_read(void **state)
{
	(void)state;
	char path[128];
	struct store *st = NULL;
	struct store_turn_row *rows = NULL;
	int n = 0;

	snprintf(path, sizeof path, "%s/new.db", dir);
	add_turn(path, "mera  naam Sunita hai");
	dbq_expect(path, "SELECT group_concat(name||' '||type, ',') FROM pragma_table_info('turns')"
			 " WHERE name IN ('latency', 'words', 'asked')",
		   "latency TEXT,words INTEGER,asked TEXT");
	dbq_expect(path, "SELECT words||'|'||asked||'|'||typeof(words) FROM turns", "4|district|integer");
	dbq_expect(path, "SELECT latency IS NULL FROM turns", "1");

	assert_int_equal(store_open_with(path, STORE_EXISTING, NULL, &st, NULL), ERR_OK);
	assert_int_equal(store_turns(st, 1, &rows, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_true(store_turn_col(&rows[0], "words")->set);
	assert_int_equal(store_turn_col(&rows[0], "words")->i, 4);
	assert_string_equal(store_turn_col(&rows[0], "asked")->s, "district");
	assert_false(store_turn_col(&rows[0], "latency")->set);
	assert_null(store_turn_col(&rows[0], "nope"));
	store_turns_free(rows, n);
	store_close(st);
}

#define COLUMNS "SELECT group_concat(name||' '||type||' '||\"notnull\"||' '||coalesce(dflt_value," \
		"'-'), ',') FROM pragma_table_info('turns')"

/* A file of every older version: migrated, the registered columns added after the
 * versioned steps so its turns table is a new file's; the old rows have NULL, new turns
 * the value. */
static void test_migrated(void **state)
{
	(void)state;
	char fresh[128], path[128];
	char *want;

	snprintf(fresh, sizeof fresh, "%s/fresh.db", dir);
	add_turn(fresh, "x");
	want = dbq_text(fresh, COLUMNS);
	for (int v = 1; v < STORE_SCHEMA_VERSION; v++) {
		char *got;
		snprintf(path, sizeof path, "%s/v%d.db", dir, v);
		oldstore_write(path, v);
		dbq_expect(path, "SELECT count(*) FROM pragma_table_info('turns') WHERE name = 'words'",
			   "0");
		add_turn(path, "haan ji");
		got = dbq_text(path, COLUMNS);
		if (strcmp(got, want) != 0)
			fail_msg("version %d migrated:\n%s\nnew file:\n%s", v, got, want);
		free(got);
		/* the fixture's own turns keep NULL */
		dbq_expect(path, "SELECT count(*) FROM turns WHERE words IS NOT NULL OR asked IS NOT NULL",
			   "1");
		dbq_expect(path, "SELECT words||'|'||asked FROM turns WHERE id = (SELECT max(id) FROM turns)",
			   "2|district");
	}
	free(want);
}

struct run {
	struct callview *view;
	int done;
};

static void listener(void *ud, const struct engine_event *ev)
{
	struct run *r = ud;
	r->done += ev->kind == ENGINE_TURN_DONE && ev->text && strcmp(ev->text, "words 4") == 0;
	assert_int_equal(callview_event(r->view, ev), ERR_OK);
}

/* A typed call through the engine with the offline backends: the turn's columns are
 * computed from what the engine hands over, stored, and the call view's status bar shows
 * the shown one ("words 4"), not the one without a label. */
static void test_engine_and_view(void **state)
{
	(void)state;
	struct form *form = NULL;
	struct lexicon *lex = NULL;
	struct store *store = NULL;
	struct engine *e = NULL;
	struct run r = {0};
	char *msg = NULL, db[128];
	const char *why = NULL;

	snprintf(db, sizeof db, "%s/engine.db", dir);
	assert_int_equal(form_load(FORM, &form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &lex, &msg), ERR_OK);
	assert_int_equal(store_open(db, &store, NULL), ERR_OK);
	assert_non_null(r.view = callview_new(form, "live", 1));
	struct engine_config cfg = {.form = form, .form_path = FORM, .lex = lex, .store = store,
				    .today = {2025, 3, 15}, .endpoint = endpoint_defaults()};
	assert_int_equal(backend_stt("reference", &cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract("rules", &cfg.extract, &why), ERR_OK);
	assert_int_equal(backend_reply("script", &cfg.reply, &why), ERR_OK);
	assert_int_equal(engine_new(&cfg, listener, &r, &e), ERR_OK);

	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	while (engine_busy(e))
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	struct engine_input in = {.transcript = "mera naam Jhanvi hai", .input = "typed"};
	assert_int_equal(engine_start_turn(e, &in), ERR_OK);
	while (engine_busy(e))
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	assert_int_equal(r.done, 1);
	assert_non_null(strstr(callview_timings(r.view), "  words 4"));
	assert_null(strstr(callview_timings(r.view), "asked"));
	dbq_expect(db, "SELECT words||'|'||asked FROM turns WHERE idx = 1", "4|name");

	engine_free(e);
	callview_free(r.view);
	store_close(store);
	lexicon_free(lex);
	form_free(form);
	free(msg);
}

/* A registered column named as one of the store's own turn columns is refused when a store
 * opens, naming it (last: the registry keeps it). */
static void test_name_clash(void **state)
{
	(void)state;
	static const struct turncol clash = {"transcript", TURNCOL_TEXT, NULL, asked};
	char path[128], *msg = NULL;
	struct store *st = NULL;

	snprintf(path, sizeof path, "%s/clash.db", dir);
	assert_int_equal(turncol_register(&clash), ERR_OK);
	assert_int_equal(store_open(path, &st, &msg), ERR_INVALID);
	assert_null(st);
	assert_non_null(strstr(msg, "the registered turn column transcript is one of the store's own"));
	free(msg);
}

TESTMAIN(setup, tmpdir_teardown,
	  cmocka_unit_test(test_registry),
	  cmocka_unit_test(test_stored_and_read),
	  cmocka_unit_test(test_migrated),
	  cmocka_unit_test(test_engine_and_view),
	  cmocka_unit_test(test_name_clash))
