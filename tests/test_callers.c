/* test_callers: the simulated callers (sessions/calls/callers.h) on the enrollment form, one
 * hand-checked row per behaviour (tests/data/callers_behaviours.tsv): the words she says
 * the first and second time the field is asked, the timing (pieces, pauses, barge-in,
 * backchannel) and the form the call should end with; then the behaviour list, seeded
 * draws, and bad input named by file, line and field (profiles, behaviours, persona
 * files). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/rules/decision.h"
#include "agent/rules/form.h"
#include "sessions/calls/callers.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/persona.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

#define PROFILES "tests/data/callers/profiles.json"

static struct form *form;
static struct callers_profiles *prof;
static const struct ymd today = {2025, 3, 15};

static int setup(void **state)
{
	(void)state;
	if (form_load("forms/armman_enrollment.json", &form, NULL) != ERR_OK)
		return -1;
	return callers_profiles_load(PROFILES, form, &prof, NULL) == ERR_OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	callers_profiles_free(prof);
	form_free(form);
	return 0;
}

static struct decision *ask(const char *field)
{
	struct decision *d = decision_new();
	assert_non_null(d);
	d->tool = DECISION_ASK_QUESTION;
	d->ask.field = strdup(field);
	return d;
}

/* A time column: milliseconds, or the name of the callers.h time it is. */
static long ms_of(const struct table_row *r, int c)
{
	const char *v = r->col[c];
	return !strcmp(v, "hesitate")      ? CALLERS_HESITATE_MS
	       : !strcmp(v, "group-gap")   ? CALLERS_GROUP_GAP_MS
	       : !strcmp(v, "backchannel") ? CALLERS_BACKCHANNEL_MS
	       : !strcmp(v, "barge-in")    ? CALLERS_BARGE_IN_MS
					   : (long)table_num(r, c);
}

/* behaviour row (tests/data/callers_behaviours.tsv): the mix planned into one call, the
 * field asked twice: her words, their timing, and the form the call should end with. ud:
 * the behaviours seen so far (bool[CALLERS_N]). */
static void behaviour_row(struct table_row *r, const void *ud)
{
	bool *covered = (bool *)ud;
	const char *field = r->col[1], *first = r->col[2];
	int pieces = (int)table_num(r, 3);
	struct callers_mix *m = NULL;
	struct callers_call *c = NULL;
	struct callers_turn t;
	struct decision *d = ask(field);
	int q = form_find(form, field);
	print_message("%s: %s\n", r->name, r->col[0]);
	assert_int_equal(callers_mix_parse(r->col[0], form, &m, NULL), ERR_OK);
	assert_int_equal(callers_plan(prof, m, form, 0, 1, today, &c), ERR_OK);
	covered[callers_call_behaviour(c, q)] = true;
	assert_true(callers_answer(c, d, &t));
	assert_string_equal(t.text, first);
	assert_int_equal(t.silence, !first[0]);
	assert_int_equal(t.n_pieces, pieces);
	if (pieces)
		assert_int_equal(t.gap_ms[pieces - 1], ms_of(r, 4));
	assert_int_equal(t.barge_in, !strcmp(r->col[5], "yes"));
	assert_int_equal(t.barge_in_ms, ms_of(r, 6));
	assert_int_equal(t.backchannel, !strcmp(r->col[7], "yes"));
	assert_string_equal(t.field, field);
	assert_true(callers_answer(c, d, &t));
	assert_string_equal(t.text, r->col[8]);
	assert_false(t.barge_in);
	const struct corpus_call *cc = callers_call_corpus(c);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(cc->expected_status, field);
	char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(cc->expected_data, field));
	assert_string_equal(st->valuestring, r->col[9]);
	assert_string_equal(v, r->col[10]);
	assert_string_equal(cc->expected_call_status, "complete");
	free(v);
	decision_free(d);
	callers_call_free(c);
	callers_mix_free(m);
}

static void test_behaviour_rows(void **state)
{
	(void)state;
	bool covered[CALLERS_N] = {0};
	table_each("tests/data/callers_behaviours.tsv", 11, 11, TABLE_UNESCAPE, behaviour_row, covered);
	for (int b = 0; b < CALLERS_N; b++) {
		print_message("behaviour %s has a row\n", callers_behaviour_name(b));
		assert_true(covered[b]);
	}
}

/* The end of the call: nothing to answer. */
static void test_end_call(void **state)
{
	(void)state;
	struct callers_mix *m = NULL;
	struct callers_call *c = NULL;
	struct callers_turn t;
	struct decision *d = decision_new();
	d->tool = DECISION_END_CALL;
	assert_int_equal(callers_mix_parse("plain", form, &m, NULL), ERR_OK);
	assert_int_equal(callers_plan(prof, m, form, 0, 1, today, &c), ERR_OK);
	assert_false(callers_answer(c, d, &t));
	decision_free(d);
	callers_call_free(c);
	callers_mix_free(m);
}

/* Unweighted lists take turns; weighted ones draw from the seed, the same each time. */
static void test_mix(void **state)
{
	(void)state;
	struct callers_mix *m = NULL;
	struct callers_call *c = NULL;
	int count[CALLERS_N] = {0};
	enum callers_behaviour first[40];

	assert_int_equal(callers_mix_parse("all", form, &m, NULL), ERR_OK);
	for (int i = 0; i < CALLERS_N; i++) {
		assert_int_equal(callers_plan(prof, m, form, i, 7, today, &c), ERR_OK);
		assert_int_equal(callers_call_behaviour(c, 0), i);
		assert_true(callers_call_uses(c, i));
		callers_call_free(c);
	}
	callers_mix_free(m);
	assert_int_equal(callers_mix_parse("plain:3,silence:1,district=repeat", form, &m, NULL), ERR_OK);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 40; i++) {
			assert_int_equal(callers_plan(prof, m, form, i, 42, today, &c), ERR_OK);
			enum callers_behaviour b = callers_call_behaviour(c, 0);
			assert_int_equal(callers_call_behaviour(c, form_find(form, "district")), CALLERS_REPEAT);
			if (round == 0) {
				first[i] = b;
				count[b]++;
			} else {
				assert_int_equal(b, first[i]);
			}
			callers_call_free(c);
		}
	assert_int_equal(count[CALLERS_PLAIN] + count[CALLERS_SILENCE], 40);
	assert_true(count[CALLERS_PLAIN] > count[CALLERS_SILENCE]);
	assert_true(count[CALLERS_SILENCE] > 0);
	callers_mix_free(m);
}

static void bad_mix(const char *list, const char *want)
{
	struct callers_mix *m = NULL;
	char *msg = NULL;
	assert_int_equal(callers_mix_parse(list, form, &m, &msg), ERR_INVALID);
	assert_null(m);
	print_message("%s\n", msg);
	assert_non_null(strstr(msg, want));
	free(msg);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct callers_profiles *p = NULL;
	struct persona *per = NULL;
	char *msg = NULL;

	bad_mix("plain,shout", "'shout': no such behaviour (plain, hinglish,");
	bad_mix("nosuch=plain", "no field 'nosuch' in the form");
	bad_mix("plain:0", "'plain:0': the weight must be a number above 0");
	bad_mix("district=shout", "'shout': no such behaviour");

	assert_int_equal(callers_profiles_load("tests/data/callers/profiles_no_value.json", form, &p, &msg),
			 ERR_INVALID);
	assert_null(p);
	assert_string_equal(msg, "tests/data/callers/profiles_no_value.json:15: callers[0] ('sunita'): "
				 "field 'district': no 'value' for a field the form asks");
	free(msg);
	msg = NULL;
	assert_int_equal(callers_profiles_load("tests/data/callers/nosuch.json", form, &p, &msg), ERR_IO);
	free(msg);
	msg = NULL;

	assert_int_equal(persona_load("tests/data/callers/persona_bad.json", &per, &msg), ERR_INVALID);
	assert_string_equal(msg, "tests/data/callers/persona_bad.json:5: field 'patience': must be low, "
				 "medium or high, not 'very'");
	free(msg);
	msg = NULL;
	assert_int_equal(persona_load(PROFILES, &per, &msg), ERR_INVALID);
	assert_non_null(strstr(msg, "field 'who': must be a non-empty string"));
	free(msg);
	msg = NULL;
	assert_int_equal(persona_load("tests/data/callers/persona.json", &per, &msg), ERR_OK);
	assert_int_equal(persona_turn_limit(per, 99), 30);
	persona_free(per);
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_behaviour_rows),
	  cmocka_unit_test(test_end_call),
	  cmocka_unit_test(test_mix),
	  cmocka_unit_test(test_bad_input))
