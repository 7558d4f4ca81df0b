/* A failing-allocation run (curl's habit): the config loaders (a form, the providers'
 * config file), the rule layer (flow, its decisions, validation, normalization, extraction
 * records) and the store, compiled with tests/support/failalloc.h, run one scenario again
 * and again, the Nth allocation failing on the Nth run (cJSON's counted too), for every N
 * until a run needs no more than N. Then the store alone with SQLite's own allocations
 * failing, again for every N (FAILALLOC_SQLITE_STEP=K tries every Kth only). Each run
 * must end without a crash; the sanitizers' leak check at exit finds anything a failure
 * path forgot to free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/rules/decision.h"
#include "agent/rules/extraction.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"
#include "sessions/store/store.h"
#include "tests/support/failalloc.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

/* A small form with every kind of rule the scenario exercises: a name of at least two
 * letters, a choice, a yes/no that opens a branch, a number in a range, a regex. */
static const char FORM[] =
	"{\"title\":\"t\",\"questions\":["
	"{\"name\":\"name\",\"label\":\"Name?\",\"type\":\"string\",\"required\":true,"
	"\"validation\":{\"type\":\"min_length\",\"rules\":{\"min_length\":2}}},"
	"{\"name\":\"district\",\"label\":\"District?\",\"type\":\"single-select\","
	"\"options\":[\"Gaya\",\"Patna\"],\"required\":true},"
	"{\"name\":\"pregnant\",\"label\":\"Pregnant?\",\"type\":\"boolean\",\"required\":true},"
	"{\"name\":\"months\",\"label\":\"Months?\",\"type\":\"number\",\"required\":true,"
	"\"branch_id\":\"p\",\"validation\":{\"type\":\"number_range\",\"rules\":{\"min\":1,\"max\":10}}},"
	"{\"name\":\"pin\",\"label\":\"PIN?\",\"type\":\"string\",\"required\":false,"
	"\"validation\":{\"type\":\"regex\",\"rules\":{\"pattern\":\"^[0-9]{4}$\"}}}],"
	"\"branches\":[{\"id\":\"p\",\"condition\":{\"field\":\"pregnant\",\"equals\":true}}]}";

static char dir[64], cfg[128], db[128];

static void turn(struct flow *fl, const char *field, cJSON *value)
{
	struct extraction *ex = extraction_new();
	struct decision *d = NULL;
	if (!ex) {
		cJSON_Delete(value);
		return;
	}
	if (extraction_add(ex, field, value, false, NULL, NULL) == ERR_OK && flow_turn(fl, ex, &d) == ERR_OK)
		decision_free(d);
	extraction_free(ex);
}

static void store_part(void);

static void scenario(void)
{
	struct form *f = NULL;
	struct form_issues is = {0};
	if (form_parse(FORM, &f, &is) == ERR_OK) {
		struct flow *fl = NULL;
		struct decision *d = NULL;
		if (flow_new(f, NULL, (struct ymd){2025, 3, 15}, &fl) == ERR_OK) {
			if (flow_start(fl, &d) == ERR_OK)
				decision_free(d);
			turn(fl, "name", cJSON_CreateString("S"));      /* refused: too short */
			turn(fl, "name", cJSON_CreateString("Sunita"));
			turn(fl, "district", cJSON_CreateNumber(1));
			turn(fl, "pregnant", cJSON_CreateString("haan"));
			turn(fl, "months", cJSON_CreateNumber(12));    /* refused: out of range */
			turn(fl, "months", cJSON_CreateString("5"));
			turn(fl, "pin", cJSON_CreateString("12a4"));   /* refused: the pattern */
			flow_free(fl);
		}
		form_free(f);
	}
	form_issues_free(&is);

	char why[200];
	provider_config_load(cfg, why, sizeof(why));
	provider_config_free();
	store_part();
}

static void store_part(void)
{
	struct store *st = NULL;
	char *msg = NULL;
	unlink(db);
	if (store_open(db, &st, &msg) == ERR_OK) {
		struct store_call_info info = {.corpus = "c", .corpus_call_id = "call1", .form_title = "t",
					       .today = "2025-03-15", .opening = "Name?",
					       .opening_decision = "{\"turn\":0}"};
		long long id;
		if (store_call_begin(st, &info, &id) == ERR_OK) {
			struct store_turn t = {.index = 1, .transcript = "Sunita", .extraction = "{\"fields\":[]}",
					       .decision = "{\"turn\":1,\"captured\":[{\"field\":\"name\",\"status\":\"answered\"}]}",
					       .reply = "District?", .seg_start_ms = -1, .seg_end_ms = -1};
			store_turn_add(st, id, &t);
			store_call_end(st, id, "complete", NULL, "{\"name\":\"Sunita\"}", "{\"name\":\"answered\"}", 1);
		}
		store_close(st);
	}
	free(msg);
}

static void test_every_allocation_fails_once(void **state)
{
	(void)state;
	long n;
	for (n = 1;; n++) {
		failalloc_fail_at(n, 0);
		scenario();
		if (!failalloc_failed())
			break;
	}
	failalloc_fail_at(0, 0);
	print_message("%ld runs, the last with no failure\n", n);
	assert_true(n > 500); /* the scenario really allocates: each part was reached */
}

static void test_sqlite_allocations_fail(void **state)
{
	(void)state;
	const char *s = getenv("FAILALLOC_SQLITE_STEP");
	long step = s && atol(s) > 0 ? atol(s) : 1, n, runs = 0;
	for (n = 1;; n += step, runs++) {
		failalloc_fail_at(n, 1);
		store_part();
		if (!failalloc_failed())
			break;
	}
	failalloc_fail_at(0, 0);
	print_message("%ld runs (every %ld), the last with no failure at %ld\n", runs + 1, step, n);
	assert_true(n > 1000);
}

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "failalloc") != 0 || failalloc_install() != 0)
		return -1;
	snprintf(cfg, sizeof(cfg), "%s/formdesk.json", dir);
	snprintf(db, sizeof(db), "%s/calls.db", dir);
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	fputs("{\"providers\":{\"openai\":{\"model\":\"m\",\"timeout_ms\":5000,\"retries\":1}},"
	      "\"extract\":{\"history_turns\":20}}", f);
	return fclose(f) == 0 ? 0 : -1;
}

TESTMAIN(setup, tmpdir_teardown,
	  cmocka_unit_test(test_every_allocation_fails_once),
	  cmocka_unit_test(test_sqlite_allocations_fail))
