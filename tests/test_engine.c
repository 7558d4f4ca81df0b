/* test_engine: the call engine with fake backends on the enrollment form: events in
 * order, a failing backend recorded as a turn with nothing captured, an unreadable audio
 * file, the caller hanging up, a required field running out, an abandoned call, and
 * form-completion scoring. Turns without audio are typed text (no audio stage). */
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

#include "fake_backend.h"
#include "agent/rules/form.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/corpus/score.h"
#include "sessions/store/store.h"
#include "tests/support/enginefix.h"
#include "tests/support/dbq.h"
#include "tests/support/testmain.h"

/* Fake STT: the reference, or a failure for the words "stt-fails". */
static enum err fake_stt(void *ctx, const struct stt_request *req, char **text)
{
	(void)ctx;
	if (!req->reference || strcmp(req->reference, "stt-fails") == 0)
		return ERR_BACKEND;
	*text = strdup(req->reference);
	return *text ? ERR_OK : ERR_NOMEM;
}

/* Fake EXTRACT: "FIELD=VALUE" captures VALUE (a number when it is digits: an option
 * index for a select), "FIELD?" is the skip flag, "extract-fails" fails, anything else
 * captures nothing. */
static enum err fake_extract(void *ctx, const struct extract_request *req, struct extraction **out)
{
	struct extraction *ex;
	const char *eq = strchr(req->transcript, '=');
	size_t n = strlen(req->transcript);
	(void)ctx;

	assert_true(cJSON_IsArray(req->history));
	if (strcmp(req->transcript, "extract-fails") == 0)
		return ERR_BACKEND;
	if (!(ex = extraction_new()))
		return ERR_NOMEM;
	if (eq) {
		char field[64];
		snprintf(field, sizeof field, "%.*s", (int)(eq - req->transcript), req->transcript);
		cJSON *v = strspn(eq + 1, "0123456789") == strlen(eq + 1)
				   ? cJSON_CreateNumber(atof(eq + 1))
				   : cJSON_CreateString(eq + 1);
		extraction_add(ex, field, v, false, NULL, req->transcript);
	} else if (n > 1 && req->transcript[n - 1] == '?') {
		char field[64];
		snprintf(field, sizeof field, "%.*s", (int)(n - 1), req->transcript);
		extraction_add(ex, field, NULL, true, "dont_know", req->transcript);
	}
	*out = ex;
	return ERR_OK;
}

/* Fake REPLY: the tool call's name and field. */
static enum err fake_reply(void *ctx, const struct reply_request *req, char **text)
{
	const cJSON *tc = cJSON_GetObjectItem(req->decision, "tool_call");
	const cJSON *args = cJSON_GetObjectItem(tc, "arguments");
	const cJSON *field = cJSON_GetObjectItem(args, "field");
	(void)ctx;
	if (asprintf(text, "%s %s", cJSON_GetObjectItem(tc, "name")->valuestring,
		     cJSON_IsString(field) ? field->valuestring : "-") < 0)
		return ERR_NOMEM;
	return ERR_OK;
}

FAKE_OPS(fake_stt_ops, BACKEND_STT, fake_stt);
FAKE_OPS(fake_extract_ops, BACKEND_EXTRACT, fake_extract);
FAKE_OPS(fake_reply_ops, BACKEND_REPLY, fake_reply);

/* The events, one letter each: S start, A agent, C caller, X extracted, D decision,
 * T turn done, E end, ! error, K acknowledgement. */
struct log {
	char kinds[256];
	int n;
	enum call_status end_status;
	int end_turn;
	char last_error[512];
	char error_stages[16]; /* each ENGINE_ERROR's stage: '0' STT, '1' EXTRACT, '2' REPLY,
	                          '-' none */
};

static void listener(void *ud, const struct engine_event *ev)
{
	struct log *l = ud;
	static const char letters[] = "SACXDTE!K";
	if (l->n < (int)sizeof l->kinds - 1)
		l->kinds[l->n++] = letters[ev->kind];
	if (ev->kind == ENGINE_CALL_END) {
		l->end_status = ev->status;
		l->end_turn = ev->turn;
		assert_non_null(cJSON_GetObjectItem(ev->json, "form_data"));
	}
	if (ev->kind == ENGINE_ERROR) {
		size_t k = strlen(l->error_stages);
		snprintf(l->last_error, sizeof l->last_error, "%s", ev->text);
		if (k < sizeof l->error_stages - 1)
			l->error_stages[k] = ev->stage >= 0 ? (char)('0' + ev->stage) : '-';
	}
	if (ev->kind == ENGINE_TURN_DONE)
		assert_non_null(ev->timings);
}

struct fixture {
	struct enginefix fx; /* form, store and engine */
	struct log log;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	enginefix_open(&f->fx, "engine", "fake", (struct backend){"fakestt", &fake_stt_ops, NULL},
		       (struct backend){"fakeextract", &fake_extract_ops, NULL},
		       (struct backend){"fakereply", &fake_reply_ops, NULL}, listener, &f->log);
	*state = f;
	return 0;
}

/* A corpus of one call of typed turns (no audio); free it with corpus_free. */
static struct corpus *make_call(const char *id, int n, const char *const *words)
{
	struct corpus *k = calloc(1, sizeof *k);
	assert_non_null(k);
	struct corpus_call *c = k->calls = calloc(1, sizeof *c);
	k->n_calls = 1;
	c->id = strdup(id);
	c->turns = calloc((size_t)n, sizeof *c->turns);
	c->n_turns = n;
	for (int i = 0; i < n; i++) {
		c->turns[i].utterance_id = strdup(words[i]);
		c->turns[i].transcript = strdup(words[i]);
		c->turns[i].condition = strdup("ideal");
		c->turns[i].barge_in_ms = -1; /* as corpus_load: no barge-in */
	}
	return k;
}

static int run(struct fixture *f, const struct corpus_call *c)
{
	bool ended = false;
	int steps = 0;
	assert_int_equal(engine_begin(f->fx.engine, c), ERR_OK);
	while (!ended) {
		assert_int_equal(engine_step(f->fx.engine, &ended), ERR_OK);
		steps++;
		assert_true(steps <= c->n_turns);
	}
	return steps;
}

/* Failing stages count as nothing captured, are recorded, and the caller hangs up when
 * the turns run out. */
static void test_failures_and_hang_up(void **state)
{
	struct fixture *f = *state;
	static const char *const words[] = {"name=Sunita Devi", "extract-fails", "stt-fails",
					    "district=1"};
	struct corpus *k = make_call("k1", 4, words);
	struct corpus_call *c = k->calls;

	assert_int_equal(run(f, c), 4);
	assert_string_equal(f->log.kinds, "SDA" "CXDAT" "C!DAT" "!CDAT" "CXDATE");
	assert_int_equal(f->log.end_status, CALL_FAILED);
	assert_int_equal(f->log.end_turn, 4);
	/* each backend failure names its stage: EXTRACT in turn 2, STT in turn 3 */
	assert_string_equal(f->log.error_stages, "10");
	const struct flow *fl = engine_flow(f->fx.engine);
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(fl), "name")->valuestring, "Sunita Devi");
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(fl), "district")->valuestring, "Gaya");

	dbq_expect(f->fx.db, "SELECT status||'|'||turns||'|'||corpus||'|'||stt||'|'||today FROM calls",
		   "failed|4|fake|fakestt|2025-03-15");
	dbq_expect(f->fx.db, "SELECT reason FROM calls",
		   "the caller hung up: the call's recorded turns ran out");
	dbq_expect(f->fx.db, "SELECT opening FROM calls", "ask_question name");
	dbq_expect(f->fx.db, "SELECT error FROM turns WHERE idx = 2", "extract (fakeextract): backend error");
	dbq_expect(f->fx.db, "SELECT error FROM turns WHERE idx = 3", "stt (fakestt): backend error");
	dbq_expect(f->fx.db, "SELECT coalesce(transcript, 'NULL') FROM turns WHERE idx = 3", "NULL");
	dbq_expect(f->fx.db, "SELECT count(*) FROM turns WHERE error IS NULL", "2");
	dbq_expect(f->fx.db, "SELECT reply FROM turns WHERE idx = 4", "ask_question clinic_name");
	dbq_expect(f->fx.db, "SELECT json_extract(decision, '$.asked') FROM turns WHERE idx = 4",
		   "district");
	dbq_expect(f->fx.db, "SELECT count(*) FROM captures WHERE field = 'district' AND status = 'answered'",
		   "1");
	dbq_expect(f->fx.db, "SELECT json_extract(form_data, '$.district') FROM calls", "Gaya");
	corpus_free(k);
}

/* The rules end the call (a required field runs out) before the turns do; later turns are
 * not played. */
static void test_required_runs_out(void **state)
{
	struct fixture *f = *state;
	static const char *const words[] = {"name?", "umm", "hmm", "ahh", "district=1", "more"};
	struct corpus *k = make_call("k2", 6, words);
	struct corpus_call *c = k->calls;

	assert_int_equal(run(f, c), 4);
	assert_int_equal(f->log.end_status, CALL_FAILED);
	dbq_expect(f->fx.db, "SELECT status||'|'||turns FROM calls", "failed|4");
	dbq_expect(f->fx.db, "SELECT reason LIKE 'district%' FROM calls", "1");
	dbq_expect(f->fx.db, "SELECT json_extract(form_status, '$.name') FROM calls", "skipped");
	dbq_expect(f->fx.db, "SELECT reply FROM turns WHERE idx = 4", "end_call -");
	corpus_free(k);
}

/* An audio file that cannot be read: recorded, nothing captured. */
static void test_unreadable_audio(void **state)
{
	struct fixture *f = *state;
	static const char *const words[] = {"name=Sunita"};
	struct corpus *k = make_call("k3", 1, words);
	struct corpus_call *c = k->calls;
	c->turns[0].audio = strdup("/nonexistent/a.wav");

	assert_int_equal(run(f, c), 1);
	assert_non_null(strstr(f->log.last_error, "/nonexistent/a.wav"));
	dbq_expect(f->fx.db, "SELECT error LIKE 'audio: %/nonexistent/a.wav%' FROM turns", "1");
	dbq_expect(f->fx.db, "SELECT json_extract(form_status, '$.name') FROM calls", "empty");
	corpus_free(k);
}

/* A call left open when the next one begins is recorded as abandoned. */
static void test_abandoned(void **state)
{
	struct fixture *f = *state;
	static const char *const words[] = {"name=Sunita", "district=2"};
	struct corpus *ka = make_call("a", 2, words), *kb = make_call("b", 2, words);
	struct corpus_call *a = ka->calls, *b = kb->calls;
	bool ended = false;

	assert_int_equal(engine_begin(f->fx.engine, a), ERR_OK);
	assert_int_equal(engine_step(f->fx.engine, &ended), ERR_OK);
	assert_false(ended);
	assert_int_equal(run(f, b), 2);
	dbq_expect(f->fx.db, "SELECT status||'|'||turns||'|'||reason FROM calls WHERE corpus_call_id = 'a'",
		   "failed|1|abandoned: the next call was started");
	dbq_expect(f->fx.db, "SELECT json_extract(form_data, '$.district') FROM calls WHERE corpus_call_id = 'b'",
		   "Leh");
	corpus_free(ka);
	corpus_free(kb);
}

static void test_score(void **state)
{
	struct fixture *f = *state;
	struct score s = {0};
	cJSON *want_data = cJSON_Parse("{\"name\":\"Lakshmi\",\"district\":\"Gaya\",\"clinic_name\":null,"
				       "\"gestational_age\":5,\"child_name\":null,\"aadhaar_last4\":\"4567\"}");
	cJSON *want_status = cJSON_Parse("{\"name\":\"answered\",\"district\":\"answered\","
					 "\"clinic_name\":\"skipped\",\"gestational_age\":\"answered\","
					 "\"child_name\":\"empty\",\"aadhaar_last4\":\"answered\"}");
	cJSON *got_data = cJSON_Parse("{\"name\":\"LAXMI\",\"district\":\"Gaya\",\"clinic_name\":null,"
				      "\"gestational_age\":5,\"child_name\":\"Pari\",\"aadhaar_last4\":4567}");
	cJSON *got_status = cJSON_Parse("{\"name\":\"answered\",\"district\":\"answered\","
					"\"clinic_name\":\"skipped\",\"gestational_age\":\"answered\","
					"\"child_name\":\"answered\",\"aadhaar_last4\":\"answered\"}");
	cJSON *misses = cJSON_CreateArray();

	assert_int_equal(score_call(f->fx.form, want_data, want_status, got_data, got_status, &s, misses),
			 ERR_OK);
	/* child_name is left out (its branch never opened in the expected form); the name
	 * judge accepts Laxmi for Lakshmi; the Aadhaar digits as a number are wrong. */
	assert_int_equal(s.fields, 5);
	assert_int_equal(s.correct, 4);
	assert_int_equal(cJSON_GetArraySize(misses), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(misses, 0), "field")->valuestring,
			    "aadhaar_last4");
	/* A skipped field that came back answered is wrong; so is a different name. */
	cJSON_ReplaceItemInObject(got_status, "clinic_name", cJSON_CreateString("answered"));
	cJSON_ReplaceItemInObject(got_data, "name", cJSON_CreateString("Sumita"));
	s = (struct score){0};
	assert_int_equal(score_call(f->fx.form, want_data, want_status, got_data, got_status, &s, NULL),
			 ERR_OK);
	assert_int_equal(s.correct, 2);
	assert_true(score_accuracy(&s) > 0.39 && score_accuracy(&s) < 0.41);
	s = (struct score){0};
	assert_true(score_accuracy(&s) == 0.0);
	/* Unicode: NFKC case folding on open fields. */
	const int q = form_find(f->fx.form, "name");
	/* ड़ precomposed (U+095C) and as ड + nukta. */
	cJSON *a = cJSON_CreateString("\xe0\xa4\x97\xe0\xa5\x9c"),
	      *b = cJSON_CreateString("\xe0\xa4\x97\xe0\xa4\xa1\xe0\xa4\xbc");
	assert_true(score_same_value(&f->fx.form->questions[q], a, b));
	assert_false(score_same_value(NULL, a, cJSON_GetObjectItem(want_data, "district")));
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(want_data);
	cJSON_Delete(want_status);
	cJSON_Delete(got_data);
	cJSON_Delete(got_status);
	cJSON_Delete(misses);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(test_failures_and_hang_up, setup, enginefix_teardown),
	  cmocka_unit_test_setup_teardown(test_required_runs_out, setup, enginefix_teardown),
	  cmocka_unit_test_setup_teardown(test_unreadable_audio, setup, enginefix_teardown),
	  cmocka_unit_test_setup_teardown(test_abandoned, setup, enginefix_teardown),
	  cmocka_unit_test_setup_teardown(test_score, setup, enginefix_teardown))
