/* test_latency: a turn's end-of-speech-to-first-sound figure (sessions/store/latency.h) through
 * the call engine, with fake backends of known delays: the parts come in order, each named
 * by what governs it, add up to the total exactly (formdesk's own time the remainder),
 * are stored with the turn and in the call's totals (the headless JSON line), and are
 * completed by whoever plays the first sound (TTS and playback), in the store too. When
 * the acknowledgement is the first sound, the rules and REPLY are not on its way. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include "fake_backend.h"
#include "agent/rules/form.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/store/latency.h"
#include "sessions/store/store.h"
#include "tests/support/enginefix.h"
#include "tests/support/loopwait.h"
#include "tests/support/testmain.h"

#define STT_MS 15
#define EXTRACT_MS 25
#define REPLY_MS 10

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static enum err slow_stt(void *ctx, const struct stt_request *req, char **text)
{
	(void)ctx;
	sleep_ms(STT_MS);
	*text = strdup(req->reference ? req->reference : "");
	return *text ? ERR_OK : ERR_NOMEM;
}

/* "ack:WORDS": the name WORDS, acknowledgement "जी"; anything else: nothing, no ack. */
static enum err slow_extract(void *ctx, const struct extract_request *req, struct extraction **out)
{
	(void)ctx;
	sleep_ms(EXTRACT_MS);
	if (!(*out = extraction_new()))
		return ERR_NOMEM;
	if (strncmp(req->transcript, "ack:", 4) == 0) { /* the name, answered: said with an ack */
		extraction_add(*out, "name", cJSON_CreateString(req->transcript + 4), false, NULL,
			       req->transcript);
		extraction_set_text(&(*out)->ack, "जी");
	}
	return ERR_OK;
}

static enum err slow_reply(void *ctx, const struct reply_request *req, char **text)
{
	(void)ctx;
	(void)req;
	sleep_ms(REPLY_MS);
	*text = strdup("फिर से बताइए");
	return *text ? ERR_OK : ERR_NOMEM;
}

FAKE_OPS(slow_stt_ops, BACKEND_STT, slow_stt);
FAKE_OPS(slow_extract_ops, BACKEND_EXTRACT, slow_extract);
FAKE_OPS(slow_reply_ops, BACKEND_REPLY, slow_reply);

struct fixture {
	struct enginefix fx; /* form, store and engine */
	struct latency done[8]; /* from each ENGINE_TURN_DONE */
	int n_done;
};

static void listener(void *ud, const struct engine_event *ev)
{
	struct fixture *f = ud;
	if (ev->kind == ENGINE_TURN_DONE && f->n_done < 8)
		f->done[f->n_done++] = ev->timings->latency;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	enginefix_open(&f->fx, "latency", NULL, (struct backend){"slowstt", &slow_stt_ops, NULL},
		       (struct backend){"slowextract", &slow_extract_ops, NULL},
		       (struct backend){"slowreply", &slow_reply_ops, NULL}, listener, f);
	*state = f;
	return 0;
}

/* stored: turns.latency of turn idx of the only call, read back. */
static struct latency stored(const struct fixture *f, int idx)
{
	sqlite3 *h;
	sqlite3_stmt *q;
	struct latency l;
	assert_int_equal(sqlite3_open_v2(f->fx.db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT latency FROM turns WHERE idx = ?", -1, &q,
					    NULL), SQLITE_OK);
	sqlite3_bind_int(q, 1, idx);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(latency_from_text((const char *)sqlite3_column_text(q, 0), &l), ERR_OK);
	sqlite3_finalize(q);
	sqlite3_close(h);
	return l;
}

/* The parts add up to the total: exactly in memory, within 1e-6 ms read back. */
static void assert_adds_up(const struct latency *l)
{
	double sum = 0;
	assert_true(l->known);
	for (int p = 0; p < LATENCY_PARTS; p++)
		sum += l->ms[p];
	if (fabs(sum - l->total_ms) > 1e-6)
		fail_msg("parts %.6f ms, total %.6f ms", sum, l->total_ms);
}

/* A recorded call (STT runs on its reference): every stage on the way to the reply. */
static void test_reply_first(void **state)
{
	struct fixture *f = *state;
	struct corpus_turn turns[2] = {{.transcript = "mera naam", .barge_in_ms = -1},
				       {.transcript = "Sunita", .barge_in_ms = -1}};
	struct corpus_call call = {.id = "c1", .turns = turns, .n_turns = 2};
	bool ended = false;

	assert_int_equal(engine_begin(f->fx.engine, &call), ERR_OK);
	assert_int_equal(engine_step(f->fx.engine, &ended), ERR_OK);
	assert_int_equal(f->n_done, 1);
	const struct latency *l = &f->done[0];
	assert_adds_up(l);
	assert_int_equal(l->turn, 1);
	static const char *const names[] = {"endpointing", "stt", "extract_ack", "rules",
					    "reply_first_sentence", "tts_first_audio",
					    "playback_start", "formdesk"};
	for (int p = 0; p < LATENCY_PARTS; p++)
		assert_string_equal(latency_part_name(p), names[p]);
	assert_string_equal(l->by[LATENCY_ENDPOINT], "recorded turn: read whole");
	assert_true(l->ms[LATENCY_ENDPOINT] == 0);
	assert_string_equal(l->by[LATENCY_STT], "slowstt");
	assert_true(l->ms[LATENCY_STT] >= STT_MS);
	assert_string_equal(l->by[LATENCY_EXTRACT], "slowextract");
	assert_true(l->ms[LATENCY_EXTRACT] >= EXTRACT_MS);
	assert_string_equal(l->by[LATENCY_RULES], "rule layer");
	assert_true(l->ms[LATENCY_RULES] > 0);
	assert_string_equal(l->by[LATENCY_REPLY], "slowreply");
	assert_true(l->ms[LATENCY_REPLY] >= REPLY_MS);
	assert_true(l->ms[LATENCY_TTS] == 0 && l->ms[LATENCY_PLAYBACK] == 0);
	assert_string_equal(l->by[LATENCY_FORMDESK], "formdesk");
	/* formdesk's own share here is bookkeeping: well under the stages' */
	assert_true(l->ms[LATENCY_FORMDESK] >= 0);
	assert_true(l->total_ms >= STT_MS + EXTRACT_MS + REPLY_MS);

	struct latency s = stored(f, 1);
	assert_adds_up(&s);
	assert_true(fabs(s.total_ms - l->total_ms) < 1e-9);
	for (int p = 0; p < LATENCY_PARTS; p++) {
		assert_true(fabs(s.ms[p] - l->ms[p]) < 1e-9);
		assert_string_equal(s.by[p], l->by[p]);
	}

	/* the call's totals carry it per turn (the headless JSON line) */
	cJSON *u = engine_usage_json(f->fx.engine);
	const cJSON *a = cJSON_GetObjectItem(u, "turn_latency");
	assert_int_equal(cJSON_GetArraySize(a), 1);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "turn")->valueint, 1);
	struct latency j;
	assert_int_equal(latency_from_json(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "latency"),
					   &j), ERR_OK);
	assert_adds_up(&j);
	cJSON_Delete(u);
	engine_hang_up(f->fx.engine, "test over");
}

/* A live typed turn whose acknowledgement is its first sound: the endpointing wait as
 * given, the rules and REPLY not on the way; the one who plays it completes the figure
 * (TTS, playback, formdesk's share the remainder), in the store too, once. */
static void test_ack_first_played(void **state)
{
	struct fixture *f = *state;
	struct engine_input in = {.transcript = "ack:Sunita Devi", .input = "mic",
				  .endpoint_wait_ms = 600,
				  .endpoint_by = "endpointer: stop 200 ms + turn wait 400 ms"};
	struct latency l, p;

	assert_int_equal(engine_start_call(f->fx.engine, NULL), ERR_OK);
	assert_false(engine_latency(f->fx.engine, &l));
	double t0 = loopwait_ms();
	assert_int_equal(engine_start_turn(f->fx.engine, &in), ERR_OK);
	assert_true(engine_latency(f->fx.engine, &l));
	assert_adds_up(&l);
	assert_true(l.ms[LATENCY_ENDPOINT] == 600);
	assert_string_equal(l.by[LATENCY_ENDPOINT], "endpointer: stop 200 ms + turn wait 400 ms");
	assert_true(l.ms[LATENCY_EXTRACT] >= EXTRACT_MS);
	assert_true(l.ms[LATENCY_RULES] == 0 && l.ms[LATENCY_REPLY] == 0);
	assert_true(l.origin >= t0 - 600 - 1e-6);

	/* its first sound started 40 ms later, after 30 ms of synthesis and 5 of playback */
	double at = l.origin + l.total_ms + 40;
	assert_true(engine_latency_played(f->fx.engine, 1, 30, "espeak-ng", 5, "out.wav", at, &p));
	assert_adds_up(&p);
	assert_true(fabs(p.total_ms - (l.total_ms + 40)) < 0.002);
	assert_true(p.ms[LATENCY_TTS] == 30 && p.ms[LATENCY_PLAYBACK] == 5);
	assert_string_equal(p.by[LATENCY_TTS], "espeak-ng");
	assert_string_equal(p.by[LATENCY_PLAYBACK], "out.wav");
	assert_true(fabs(p.ms[LATENCY_FORMDESK] - (l.ms[LATENCY_FORMDESK] + 5)) < 0.003);
	assert_false(engine_latency_played(f->fx.engine, 1, 1, "x", 1, "y", at + 100, NULL));
	assert_false(engine_latency_played(f->fx.engine, 2, 1, "x", 1, "y", at + 100, NULL));

	struct latency s = stored(f, 1);
	assert_adds_up(&s);
	assert_true(fabs(s.total_ms - p.total_ms) < 1e-9);
	assert_true(s.ms[LATENCY_TTS] == 30);
	engine_hang_up(f->fx.engine, "test over");
}

/* The JSON form and the status bar's line. */
static void test_json_and_line(void **state)
{
	(void)state;
	struct latency l = {0}, r;
	char line[256];
	latency_set(&l, LATENCY_ENDPOINT, 600, "endpointer");
	latency_set(&l, LATENCY_STT, 210.0004, "elevenlabs");
	latency_set(&l, LATENCY_EXTRACT, 95.1234567, "openai:gpt-4o-mini");
	latency_set(&l, LATENCY_TTS, 30, "espeak-ng");
	latency_set(&l, LATENCY_PLAYBACK, 5, "default");
	latency_close(&l, 943.3333333);
	assert_adds_up(&l);
	assert_true(fabs(l.ms[LATENCY_FORMDESK] - 3.210) < 1e-9);
	cJSON *j = latency_to_json(&l);
	char *text = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(text, "{\"total_ms\":943.333,\"parts\":[{\"name\":\"endpointing\","
				     "\"ms\":600,\"governed_by\":\"endpointer\"}"));
	assert_int_equal(latency_from_text(text, &r), ERR_OK);
	assert_adds_up(&r);
	free(text);
	cJSON_Delete(j);
	latency_line(&l, line, sizeof line);
	assert_string_equal(line, "speech end to sound 943 ms: wait 600 · STT 210 · EXTRACT 95 · "
				  "TTS 30 · play 5 · formdesk 3");
	assert_int_equal(latency_from_text("[1]", &r), ERR_PARSE);
	assert_int_equal(latency_from_text(NULL, &r), ERR_PARSE);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(test_reply_first, setup, enginefix_teardown),
	  cmocka_unit_test_setup_teardown(test_ack_first_played, setup, enginefix_teardown),
	  cmocka_unit_test(test_json_and_line))
