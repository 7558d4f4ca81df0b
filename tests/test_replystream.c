/* test_replystream: REPLY streamed and spoken sentence by sentence. Against a local server
 * that streams a chat completion as OpenAI's documentation shows (chat.completion.chunk
 * events whose choices[0].delta carries content or tool_calls, a finish_reason, then
 * "data: [DONE]"), each event its own piece with a delay before it:
 * - the splitter: sentences end at "।", "?", "!", ".", a newline; not inside "3.5", not
 *   after "Dr.", "Rs.", "डॉ.", an initial; a terminator at the end of what arrived waits;
 *   nothing is handed out once the answer calls a tool;
 * - the engine asks REPLY for a stream and hands each sentence out (ENGINE_REPLY_SENTENCE)
 *   while the rest still arrives; the stored reply and ENGINE_AGENT_SAYS are the whole line;
 *   the latency part reply_first_sentence is REPLY to its first sentence;
 * - the rules keep their say: an answer stopped at the token limit or a stream cut off,
 *   after a sentence was said, is refused and the form's script line follows it whole; an
 *   end_call when the rules asked a question is refused, no sentence said;
 * - a barge-in (engine_cancel) stops it at once: the request is closed, no later sentence
 *   is handed out, the stored reply is what was handed out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "agent/stages/backend.h"
#include "agent/stages/llm_stream.h"
#include "agent/stages/provider.h"
#include "sessions/calls/engine.h"
#include "sessions/store/store.h"
#include "tests/support/loopwait.h"
#include "tests/support/dbq.h"
#include "tests/support/mockdir.h"
#include "tests/support/mockserver.h"
#include "tests/support/sse.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

#define FORM "forms/armman_enrollment.json"
#define PIECE_MS 250 /* the server's wait before each piece after the first */

static struct mockserver *ms;
static char dir[128];

/* ---- the server's streamed answers ---- */

/* ---- the splitter ---- */

static void feed(struct llm_stream *s, const char *content)
{
	struct sse_body b = {0};
	sse_add(&b, sse_openai_chunk(content, NULL));
	assert_int_equal(llm_stream_feed(s, b.p, b.n, 0), ERR_OK);
	sse_body_free(&b);
}

static void expect(struct llm_stream *s, const char *want)
{
	char *t = NULL;
	bool got = llm_stream_take_sentence(s, &t);
	if (!want) {
		if (got)
			fail_msg("no sentence expected, got \"%s\"", t);
		return;
	}
	if (!got)
		fail_msg("\"%s\" expected, no sentence", want);
	assert_string_equal(t, want);
	free(t);
}

static void test_sentences(void **state)
{
	(void)state;
	struct llm_stream *s = NULL;
	assert_int_equal(llm_stream_new(PROTO_OPENAI_CHAT, &s), ERR_OK);
	feed(s, "नमस्ते जी। आपका");
	expect(s, "नमस्ते जी।");
	expect(s, NULL);
	feed(s, " नाम डॉ. शर्मा है? ");
	expect(s, "आपका नाम डॉ. शर्मा है?");
	feed(s, "वज़न 3.");
	expect(s, NULL); /* "3." may go on as "3.5": wait */
	feed(s, "5 किलो है।");
	expect(s, NULL); /* the danda is the last byte so far: what follows decides */
	feed(s, " Dr. A. K. Rao को Rs. 500 दीजिए\n\"ठीक है!\" फिर");
	expect(s, "वज़न 3.5 किलो है।");
	expect(s, "Dr. A. K. Rao को Rs. 500 दीजिए");
	expect(s, "\"ठीक है!\""); /* its closing quote goes with it */
	feed(s, " मिलते हैं...  ");
	expect(s, "फिर मिलते हैं...");
	expect(s, NULL);
	llm_stream_free(s);

	/* an answer that calls a tool is no line to say: nothing more is handed out */
	assert_int_equal(llm_stream_new(PROTO_OPENAI_CHAT, &s), ERR_OK);
	feed(s, "अलविदा। फिर");
	const char *tool = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
			   "\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"end_call\","
			   "\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n";
	assert_int_equal(llm_stream_feed(s, tool, strlen(tool), 0), ERR_OK);
	feed(s, " मिलेंगे। ");
	expect(s, NULL);
	llm_stream_free(s);

	/* Anthropic's text_delta events */
	assert_int_equal(llm_stream_new(PROTO_ANTHROPIC, &s), ERR_OK);
	const char *ev = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
			 "\"delta\":{\"type\":\"text_delta\",\"text\":\"आप कहाँ रहती हैं? अपने\"}}\n\n";
	assert_int_equal(llm_stream_feed(s, ev, strlen(ev), 0), ERR_OK);
	expect(s, "आप कहाँ रहती हैं?");
	expect(s, NULL);
	llm_stream_free(s);
}

/* ---- the engine ---- */

struct seen {
	char *sentences[16];
	double at[16];
	int n_sentences;
	char *says;            /* the last ENGINE_AGENT_SAYS of a caller turn */
	int says_sentences;    /* its json's "sentences", -1 none */
	double says_at;
	cJSON *decision;       /* the last caller turn's decision */
	struct engine_timings tm;
};

static void on_event(void *ud, const struct engine_event *ev)
{
	struct seen *s = ud;
	if (ev->turn == 0)
		return;
	if (ev->kind == ENGINE_REPLY_SENTENCE && s->n_sentences < 16) {
		s->at[s->n_sentences] = loopwait_ms();
		s->sentences[s->n_sentences++] = strdup(ev->text);
	} else if (ev->kind == ENGINE_AGENT_SAYS) {
		const cJSON *n = cJSON_GetObjectItem(ev->json, "sentences");
		free(s->says);
		s->says = strdup(ev->text);
		s->says_sentences = cJSON_IsNumber(n) ? n->valueint : -1;
		s->says_at = loopwait_ms();
	} else if (ev->kind == ENGINE_DECISION) {
		cJSON_Delete(s->decision);
		s->decision = cJSON_Duplicate(ev->json, 1);
	} else if (ev->kind == ENGINE_TURN_DONE) {
		s->tm = *ev->timings;
	}
}

static void seen_clear(struct seen *s)
{
	for (int i = 0; i < s->n_sentences; i++)
		free(s->sentences[i]);
	free(s->says);
	cJSON_Delete(s->decision);
	memset(s, 0, sizeof *s);
}

struct rig {
	struct form *form;
	struct lexicon *lex;
	struct store *store;
	struct engine *e;
	struct seen seen;
	char db[200];
};

/* rig_open: a live call on an engine whose REPLY is the local server's model, its opening
 * said (a short streamed answer: the opening is said whole). */
static void rig_open_on(struct rig *r, const char *name, bool anthropic)
{
	char *msg = NULL;
	const char *why = NULL;
	static const char *const opening[] = {"नमस्ते। आपका नाम क्या है?", NULL};

	memset(r, 0, sizeof *r);
	snprintf(r->db, sizeof r->db, "%s/%s.db", dir, name);
	assert_int_equal(form_load(FORM, &r->form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &r->lex, &msg), ERR_OK);
	free(msg);
	assert_int_equal(store_open(r->db, &r->store, NULL), ERR_OK);
	struct engine_config cfg = {.form = r->form, .form_path = FORM, .lex = r->lex,
				    .store = r->store, .today = {2025, 3, 15},
				    .endpoint = endpoint_defaults(), .turn_deadline_ms = -1,
				    .call_deadline_ms = -1};
	assert_int_equal(backend_stt("reference", &cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract("rules", &cfg.extract, &why), ERR_OK);
	assert_int_equal(backend_reply(anthropic ? "anthropic" : "openai:gpt-test", &cfg.reply, &why),
			 ERR_OK);
	assert_int_equal(engine_new(&cfg, on_event, &r->seen, &r->e), ERR_OK);
	mockserver_clear(ms);
	if (anthropic) {
		struct sse_body b = {0};
		sse_anthropic_answer(&b, opening, "end_turn");
		sse_push(ms, &b, 0, false, 1);
		sse_body_free(&b);
	} else {
		sse_push_openai(ms, opening, "stop", true, false, 0, 1);
	}
	assert_int_equal(engine_begin(r->e, NULL), ERR_OK);
	assert_int_equal(r->seen.n_sentences, 0); /* the opening is said whole */
}

static void rig_open(struct rig *r, const char *name)
{
	rig_open_on(r, name, false);
}

static void rig_close(struct rig *r)
{
	engine_free(r->e);
	store_close(r->store);
	lexicon_free(r->lex);
	form_free(r->form);
	seen_clear(&r->seen);
	backend_cleanup();
}

/* turn: the caller types her name (or, silent, says nothing: no acknowledgement comes
 * before the reply); returns when the turn is done. */
static void turn_of(struct rig *r, bool silent)
{
	struct engine_input in = {.transcript = silent ? NULL : "mera naam Jhanvi Ghatak hai",
				  .input = "typed", .silence = silent};
	double t0 = loopwait_ms();
	assert_int_equal(engine_start_turn(r->e, &in), ERR_OK);
	while (engine_busy(r->e)) {
		assert_int_equal(engine_poll(r->e, 20, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 10000);
	}
}

static void turn(struct rig *r)
{
	turn_of(r, false);
}

/* script_line: what the script replier says for the decision seen. */
static char *script_line(struct rig *r)
{
	struct backend script;
	char *text = NULL;
	assert_int_equal(backend_reply("script", &script, NULL), ERR_OK);
	struct reply_request rq = {.form = r->form, .decision = r->seen.decision};
	assert_int_equal(backend_say(&script, &rq, &text), ERR_OK);
	return text;
}

/* The streamed reply's deltas, whole. */
static const char WHOLE[] = "धन्यवाद जी। आप किस ज़िले में रहती हैं? अपने ज़िले का नाम बताइए।";

static void test_streamed_reply(void **state)
{
	(void)state;
	struct rig r;
	static const char *const deltas[] = {"धन्यवाद जी। आप किस", " ज़िले में", " रहती हैं? अपने",
					     " ज़िले का नाम बताइए।", NULL};
	rig_open(&r, "streamed");
	sse_push_openai(ms, deltas, "stop", true, false, PIECE_MS, 1);
	turn_of(&r, true); /* silence: the reply is the first sound */
	/* asked for a stream */
	cJSON *sent = cJSON_Parse(mockserver_request(ms, 1)->body);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sent, "stream")));
	cJSON_Delete(sent);
	/* each sentence as it completed, the first long before the answer ended */
	assert_int_equal(r.seen.n_sentences, 3);
	assert_string_equal(r.seen.sentences[0], "धन्यवाद जी।");
	assert_string_equal(r.seen.sentences[1], "आप किस ज़िले में रहती हैं?");
	assert_string_equal(r.seen.sentences[2], "अपने ज़िले का नाम बताइए।");
	if (r.seen.says_at - r.seen.at[0] < 2 * PIECE_MS)
		fail_msg("the first sentence came %.0f ms before the whole reply",
			 r.seen.says_at - r.seen.at[0]);
	assert_true(r.seen.says_at - r.seen.at[1] >= PIECE_MS);
	/* the whole line is what is said, shown and stored */
	const char *whole = WHOLE;
	assert_string_equal(r.seen.says, whole);
	assert_int_equal(r.seen.says_sentences, 3);
	dbq_expect(r.db, "SELECT reply FROM turns WHERE idx = 1", whole);
	dbq_expect(r.db, "SELECT coalesce(error, '') FROM turns WHERE idx = 1", "");
	/* REPLY's part of the latency runs to its first sentence */
	const struct latency *l = &r.seen.tm.latency;
	assert_true(l->known);
	assert_true(l->ms[LATENCY_REPLY] > 0);
	if (l->ms[LATENCY_REPLY] > r.seen.tm.reply_ms - 2 * PIECE_MS)
		fail_msg("reply_first_sentence %.0f ms of REPLY's %.0f ms", l->ms[LATENCY_REPLY],
			 r.seen.tm.reply_ms);
	char *lat = dbq_text(r.db, "SELECT json_extract(latency, '$.parts[4].ms') FROM turns "
			     "WHERE idx = 1");
	assert_true(atof(lat) > 0 && atof(lat) < r.seen.tm.reply_ms - 2 * PIECE_MS);
	free(lat);
	rig_close(&r);
}

/* Anthropic's Messages stream (text_delta events): asked for with "stream": true, its
 * sentences handed out as they complete, the whole line said and stored. */
static void test_anthropic(void **state)
{
	(void)state;
	struct rig r;
	struct sse_body b = {0};
	static const char *const deltas[] = {"धन्यवाद जी। आप किस", " ज़िले में", " रहती हैं? अपने",
					     " ज़िले का नाम बताइए।", NULL};
	rig_open_on(&r, "anthropic", true);
	sse_anthropic_answer(&b, deltas, "end_turn");
	sse_push(ms, &b, PIECE_MS, false, 1);
	sse_body_free(&b);
	turn_of(&r, true);
	cJSON *sent = cJSON_Parse(mockserver_request(ms, 1)->body);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sent, "stream")));
	cJSON_Delete(sent);
	assert_int_equal(r.seen.n_sentences, 3);
	assert_string_equal(r.seen.sentences[0], "धन्यवाद जी।");
	assert_true(r.seen.says_at - r.seen.at[0] >= 2 * PIECE_MS);
	assert_string_equal(r.seen.says, WHOLE);
	dbq_expect(r.db, "SELECT reply FROM turns WHERE idx = 1", WHOLE);
	rig_close(&r);
}

/* Not streamed ("stream": false), the same answer is the same words, shown and stored as
 * the streamed one: streaming changes when they are heard, not what they are. */
static void test_same_words_unstreamed(void **state)
{
	(void)state;
	struct rig r;
	char path[200];
	snprintf(path, sizeof path, "%s/nostream.json", dir);
	tmpdir_write(path, "{\"providers\":{\"openai\":{\"stream\":false}}}");
	setenv("FORMDESK_CONFIG", path, 1);
	provider_config_free();
	rig_open(&r, "unstreamed");
	cJSON *body = cJSON_Parse("{\"id\":\"chatcmpl-8\",\"object\":\"chat.completion\",\"choices\":"
				  "[{\"index\":0,\"message\":{\"role\":\"assistant\"},\"finish_reason\":"
				  "\"stop\"}]}");
	cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "choices"),
								       0), "message"), "content", WHOLE);
	char *text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	mockserver_push(ms, (struct mock_reply){200, NULL, text, NULL, 0});
	free(text);
	turn_of(&r, true);
	cJSON *sent = cJSON_Parse(mockserver_request(ms, 1)->body);
	assert_null(cJSON_GetObjectItem(sent, "stream"));
	cJSON_Delete(sent);
	assert_int_equal(r.seen.n_sentences, 0);
	assert_string_equal(r.seen.says, WHOLE);
	assert_int_equal(r.seen.says_sentences, -1);
	dbq_expect(r.db, "SELECT reply FROM turns WHERE idx = 1", WHOLE);
	rig_close(&r);
	unsetenv("FORMDESK_CONFIG");
	provider_config_free();
}

/* A stream that fails after its first sentence was said: refused, never the answer; the
 * form's script line follows, whole. */
static void failed_after_a_sentence(const char *name, const char *finish, bool done, bool cut_off,
				    const char *why)
{
	struct rig r;
	static const char *const deltas[] = {"धन्यवाद जी। आप किस", " ज़िले में", NULL};
	rig_open(&r, name);
	sse_push_openai(ms, deltas, finish, done, cut_off, PIECE_MS, 1);
	turn(&r);
	char *script = script_line(&r), *all = NULL;
	assert_int_equal(r.seen.n_sentences, 2);
	assert_string_equal(r.seen.sentences[0], "धन्यवाद जी।");
	assert_string_equal(r.seen.sentences[1], script);
	assert_true(asprintf(&all, "धन्यवाद जी। %s", script) > 0);
	assert_string_equal(r.seen.says, all);
	assert_int_equal(r.seen.says_sentences, 2);
	dbq_expect(r.db, "SELECT reply FROM turns WHERE idx = 1", all);
	char *err = dbq_text(r.db, "SELECT error FROM turns WHERE idx = 1");
	if (!strstr(err, why) || !strstr(err, "the script's words were said after the sentences"))
		fail_msg("turn error: %s", err);
	free(err);
	dbq_expect(r.db, "SELECT count(*) FROM stage_usage WHERE stage = 'reply' AND error <> ''", "1");
	free(all);
	free(script);
	rig_close(&r);
}

static void test_token_limit_after_a_sentence(void **state)
{
	(void)state;
	failed_after_a_sentence("limit", "length", true, false, "cut off at the token limit");
}

static void test_cut_short_after_a_sentence(void **state)
{
	(void)state;
	failed_after_a_sentence("cut", NULL, false, false, "cut short before its end");
}

static void test_dropped_after_a_sentence(void **state)
{
	(void)state;
	failed_after_a_sentence("dropped", NULL, false, true, "reply (openai");
}

/* end_call while the rules asked a question: refused, nothing of it said. */
static void test_end_call_refused(void **state)
{
	(void)state;
	struct rig r;
	struct sse_body b = {0};
	rig_open(&r, "endcall");
	sse_add(&b, cJSON_Parse("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
			     "\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":"
			     "{\"name\":\"end_call\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}"));
	sse_add(&b, cJSON_Parse("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
			     "\"function\":{\"arguments\":\"{\\\"message\\\":\\\"अलविदा। फिर मिलेंगे।\\\"}\"}}]},"
			     "\"finish_reason\":null}]}"));
	sse_add(&b, sse_openai_chunk(NULL, "tool_calls"));
	sse_add(&b, NULL);
	sse_push(ms, &b, PIECE_MS, false, 1);
	sse_body_free(&b);
	turn(&r);
	char *script = script_line(&r);
	assert_int_equal(r.seen.n_sentences, 0);
	assert_string_equal(r.seen.says, script);
	assert_int_equal(r.seen.says_sentences, -1);
	char *err = dbq_text(r.db, "SELECT error FROM turns WHERE idx = 1");
	assert_non_null(strstr(err, "the model tried to end the call; the rules asked a question"));
	free(err);
	dbq_expect(r.db, "SELECT status FROM calls", "in_progress");
	free(script);
	rig_close(&r);
}

/* A barge-in after the first sentence: the request is closed at once, nothing more is
 * handed out, the turn keeps what was. */
static void test_barge_in(void **state)
{
	(void)state;
	struct rig r;
	static const char *const deltas[] = {"धन्यवाद जी। आप", " किस ज़िले में रहती हैं? ",
					     "अपने ज़िले का नाम बताइए। ", NULL};
	rig_open(&r, "bargein");
	sse_push_openai(ms, deltas, "stop", true, false, PIECE_MS, 1);
	struct engine_input in = {.transcript = "mera naam Jhanvi Ghatak hai", .input = "typed"};
	double t0 = loopwait_ms();
	assert_int_equal(engine_start_turn(r.e, &in), ERR_OK);
	while (r.seen.n_sentences == 0) {
		assert_int_equal(engine_poll(r.e, 20, NULL, 0), ERR_OK);
		assert_true(loopwait_ms() - t0 < 5000);
	}
	double t1 = loopwait_ms();
	assert_int_equal(engine_cancel(r.e, "barge-in"), ERR_OK);
	assert_true(loopwait_ms() - t1 < 50);
	assert_false(engine_busy(r.e));
	assert_false(engine_waiting(r.e, NULL, NULL, NULL));
	/* the rest of the answer would have come by now: nothing more is said */
	while (loopwait_ms() - t1 < 4 * PIECE_MS)
		assert_int_equal(engine_poll(r.e, 20, NULL, 0), ERR_OK);
	assert_int_equal(r.seen.n_sentences, 1);
	assert_string_equal(r.seen.sentences[0], "धन्यवाद जी।");
	assert_string_equal(r.seen.says, "धन्यवाद जी।");
	dbq_expect(r.db, "SELECT reply || '|' || cancelled FROM turns WHERE idx = 1",
		   "धन्यवाद जी।|1");
	dbq_expect(r.db, "SELECT count(*) FROM stage_usage WHERE stage = 'reply' AND error LIKE "
		   "'cancelled after % ms: barge-in'", "1");
	rig_close(&r);
}

static int setup(void **state)
{
	(void)state;
	if (mockdir_open(dir, sizeof dir, "test_replystream", sse_openai_server, &ms) != 0)
		return -1;
	setenv("ANTHROPIC_BASE_URL", mockserver_url(ms), 1);
	setenv("ANTHROPIC_API_KEY", "sk-ant-test-Qw7Zr4Xp9Lm2", 1);
	return 0;
}

TESTMAIN(setup, mockdir_teardown,
	  cmocka_unit_test(test_sentences),
	  cmocka_unit_test(test_streamed_reply),
	  cmocka_unit_test(test_same_words_unstreamed),
	  cmocka_unit_test(test_anthropic),
	  cmocka_unit_test(test_token_limit_after_a_sentence),
	  cmocka_unit_test(test_cut_short_after_a_sentence),
	  cmocka_unit_test(test_dropped_after_a_sentence),
	  cmocka_unit_test(test_end_call_refused),
	  cmocka_unit_test(test_barge_in))
