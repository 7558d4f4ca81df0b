/* test_callers: the simulated callers (sessions/calls/callers.h) on the enrollment form, one
 * hand-checked row per behaviour: the words she says the first and second time the field
 * is asked, the timing (pieces, pauses, barge-in, backchannel) and the form the call
 * should end with; then the behaviour list, seeded draws, and bad input named by file,
 * line and field (profiles, behaviours, persona files). */
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

/* One behaviour on one field (the others plain), as she answers its first and second ask
 * (a language style holds on every ask; the others are first-time behaviours). */
struct row {
	const char *mix;        /* --behaviours */
	const char *field;
	const char *first;      /* her words the first time; "" silence */
	int pieces;
	long gap;               /* the pause before the last piece, ms */
	bool barge_in;
	long barge_ms;
	bool backchannel;
	const char *second;     /* her words when asked again */
	const char *status;     /* the field's expected status */
	const char *value;      /* its expected value, as JSON */
};

static const struct row rows[] = {
	{"district=plain", "district", "Gaya zila", 1, 0, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	{"gestational_age=hinglish", "gestational_age", "chhe", 1, 0, false, 0, false, "chhe", "answered", "6"},
	{"linked_number=english", "linked_number", "nine eight seven six five four three two one zero", 1, 0, false, 0, false,
	 "nine eight seven six five four three two one zero", "answered", "9876543210"},
	{"name=devanagari", "name", "मेरा नाम सुनीता देवी है", 1, 0, false, 0, false, "मेरा नाम सुनीता देवी है", "answered", "\"Sunita Devi\""},
	{"pregnant=devanagari", "pregnant", "हाँ जी", 1, 0, false, 0, false, "हाँ जी", "answered", "true"},
	/* her child's birthday: not asked on her path (she is pregnant), so it ends empty */
	{"child_dob=english", "child_dob", "August 15, 2024", 1, 0, false, 0, false, "August 15, 2024", "empty", "null"},
	{"gestational_age=self-correct", "gestational_age", "saat, nahi nahi, chhe mahine", 1, 0, false, 0, false, "chhe mahine", "answered", "6"},
	{"district=self-correct", "district", "Leh, nahi nahi, Gaya zila", 1, 0, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	{"district=volunteer", "district", "Sadar aspatal", 1, 0, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	{"clinic_name=two-answers", "clinic_name", "Sadar aspatal aur chhe mahine", 1, 0, false, 0, false, "Sadar aspatal", "answered", "\"Sadar aspatal\""},
	{"linked_number=dont-know", "linked_number", "number yaad nahi hai", 1, 0, false, 0, false, "number yaad nahi hai", "skipped", "null"},
	/* a required field: she does not know at first, then answers */
	{"district=dont-know", "district", "pata nahi", 1, 0, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	{"aadhaar_last4=decline", "aadhaar_last4", "yeh main nahi batana chahti", 1, 0, false, 0, false, "yeh main nahi batana chahti", "skipped", "null"},
	{"name=repeat", "name", "kya? phir se boliye", 1, 0, false, 0, false, "mera naam Sunita Devi hai", "answered", "\"Sunita Devi\""},
	{"district=silence", "district", "", 0, 0, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	{"district=off-topic", "district", "aaj bahut garmi hai, bachche school gaye hain Gaya zila", 2, 400, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	{"clinic_name=hesitate", "clinic_name", "umm... Sadar aspatal", 2, CALLERS_HESITATE_MS, false, 0, false, "Sadar aspatal", "answered", "\"Sadar aspatal\""},
	{"linked_number=wrong-then-right", "linked_number", "987654321", 1, 0, false, 0, false, "mera number 98765 43210 hai", "answered", "9876543210"},
	{"gestational_age=wrong-then-right", "gestational_age", "12", 1, 0, false, 0, false, "chhe mahine", "answered", "6"},
	{"district=wrong-then-right", "district", "Pune", 1, 0, false, 0, false, "Gaya zila", "answered", "\"Gaya\""},
	/* 400 days after today (2025-03-15): a birthday in the future */
	{"child_dob=wrong-then-right", "child_dob", "19 April 2026", 1, 0, false, 0, false, "15 August 2024", "empty", "null"},
	/* a name has no answer the form refuses: plainly */
	{"name=wrong-then-right", "name", "mera naam Sunita Devi hai", 1, 0, false, 0, false, "mera naam Sunita Devi hai", "answered", "\"Sunita Devi\""},
	{"linked_number=digit-groups", "linked_number", "98765 43210", 2, CALLERS_GROUP_GAP_MS, false, 0, false, "mera number 98765 43210 hai", "answered", "9876543210"},
	{"aadhaar_last4=digit-groups", "aadhaar_last4", "45 67", 2, CALLERS_GROUP_GAP_MS, false, 0, false, "4567", "answered", "\"4567\""},
	{"pregnant=backchannel", "pregnant", "hmm", 1, 0, true, CALLERS_BACKCHANNEL_MS, true, "haan", "answered", "true"},
	{"district=barge-in", "district", "Gaya zila", 1, 0, true, CALLERS_BARGE_IN_MS, false, "Gaya zila", "answered", "\"Gaya\""},
};

static struct decision *ask(const char *field)
{
	struct decision *d = decision_new();
	assert_non_null(d);
	d->tool = DECISION_ASK_QUESTION;
	d->ask.field = strdup(field);
	return d;
}

static void test_behaviour_rows(void **state)
{
	(void)state;
	bool covered[CALLERS_N] = {0};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const struct row *r = &rows[i];
		struct callers_mix *m = NULL;
		struct callers_call *c = NULL;
		struct callers_turn t;
		struct decision *d = ask(r->field);
		int q = form_find(form, r->field);
		print_message("row %zu: %s\n", i + 1, r->mix);
		assert_int_equal(callers_mix_parse(r->mix, form, &m, NULL), ERR_OK);
		assert_int_equal(callers_plan(prof, m, form, 0, 1, today, &c), ERR_OK);
		covered[callers_call_behaviour(c, q)] = true;
		assert_true(callers_answer(c, d, &t));
		assert_string_equal(t.text, r->first);
		assert_int_equal(t.silence, !r->first[0]);
		assert_int_equal(t.n_pieces, r->pieces);
		if (r->pieces)
			assert_int_equal(t.gap_ms[r->pieces - 1], r->gap);
		assert_int_equal(t.barge_in, r->barge_in);
		assert_int_equal(t.barge_in_ms, r->barge_ms);
		assert_int_equal(t.backchannel, r->backchannel);
		assert_string_equal(t.field, r->field);
		assert_true(callers_answer(c, d, &t));
		assert_string_equal(t.text, r->second);
		assert_false(t.barge_in);
		const struct corpus_call *cc = callers_call_corpus(c);
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(cc->expected_status, r->field);
		char *v = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(cc->expected_data, r->field));
		assert_string_equal(st->valuestring, r->status);
		assert_string_equal(v, r->value);
		assert_string_equal(cc->expected_call_status, "complete");
		free(v);
		decision_free(d);
		callers_call_free(c);
		callers_mix_free(m);
	}
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_behaviour_rows),
		cmocka_unit_test(test_end_call),
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
