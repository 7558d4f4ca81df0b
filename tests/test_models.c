/* test_models: the call engine and the headless run on language models over HTTP, against
 * the local test server answering documented chat-completions bodies
 * (platform.openai.com/docs/api-reference/chat/object): a run of a small corpus with
 * --extract openai and --reply openai stores the fields, one stage_usage row per request
 * with tokens and cost from the configured prices, and never the key; a server failing
 * with 500s gives turns with nothing captured, recorded errors and the script's words,
 * and the call follows the rules; engine_cancel during a slow request returns without
 * waiting for it and records the turn as cancelled, and the next turn hears its words
 * first (its text, or its audio when STT was in flight). The early acknowledgement: with a
 * streamed answer (chat.completion.chunk events, the last piece held back) the engine
 * emits ENGINE_ACK with the ack's text while the answer is still arriving, and
 * ENGINE_EXTRACTED only once it has ended; stage_usage.ack_ms and turns.ack are stored;
 * with the offline rules extractor ENGINE_ACK comes from the extraction's ack right
 * before ENGINE_EXTRACTED. The simulator's conversation pane shows the acknowledgement
 * as the agent's words as soon as it comes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>
#include <cjson/cJSON.h>

#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/provider.h"
#include "audio/audiofile.h"
#include "cli/commands.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/store/store.h"
#include "tests/support/enginefix.h"
#include "tests/support/tmpdir.h"
#include "tests/support/dbq.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockserver.h"
#include "tui/callview.h"
#include "tests/support/testmain.h"

#define FORM "forms/armman_enrollment.json"
#define DEMO "corpus/demo"
#define KEY "sk-test-KEY-must-never-be-stored-0123456789"

/* Documented chat-completion bodies: an EXTRACT answer (the structured JSON as the
 * message content) and a REPLY line; usage 120 tokens in, 15 out. */
#define COMPLETION(content) \
	"{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-test\"," \
	"\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":" content "}," \
	"\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":15," \
	"\"total_tokens\":135}}"
static const char ans_name[] = COMPLETION(
	"\"{\\\"ack\\\":\\\"ji\\\",\\\"fields\\\":[{\\\"field\\\":\\\"name\\\",\\\"value\\\":\\\"Jhanvi Ghatak\\\","
	"\\\"skip\\\":false,\\\"reason\\\":\\\"none\\\"}]}\"");
static const char ans_district[] = COMPLETION(
	"\"{\\\"ack\\\":\\\"ji\\\",\\\"fields\\\":[{\\\"field\\\":\\\"district\\\",\\\"value\\\":3,"
	"\\\"skip\\\":false,\\\"reason\\\":\\\"none\\\"}]}\"");
static const char ans_nothing[] = COMPLETION(
	"\"{\\\"ack\\\":\\\"ji\\\",\\\"fields\\\":[]}\"");
static const char ans_reply[] = COMPLETION("\"अगला सवाल बताइए?\"");
static const char fail_body[] = "{\"error\":{\"message\":\"the server broke\",\"type\":\"server_error\"}}";

/* The model: EXTRACT requests (they carry response_format) answer from the caller's
 * latest words, the last message; REPLY requests get a line. */
static void model(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	(void)ud;
	cJSON *b = cJSON_Parse(req->body);
	const cJSON *msgs = cJSON_GetObjectItem(b, "messages");
	const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(last, "content"));
	out->status = 200;
	if (!cJSON_GetObjectItem(b, "response_format"))
		out->body = ans_reply;
	else if (text && strstr(text, "Jhanvi"))
		out->body = ans_name;
	else if (text && strstr(text, "Mayurbhanj"))
		out->body = ans_district;
	else
		out->body = ans_nothing;
	cJSON_Delete(b);
}

struct fixture {
	char dir[64], db[128], corpus[128], config[128], out[128];
	struct mockserver *ms;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/test_models.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db, sizeof f->db, "%s/m.db", f->dir);
	snprintf(f->corpus, sizeof f->corpus, "%s/corpus", f->dir);
	snprintf(f->config, sizeof f->config, "%s/formdesk.json", f->dir);
	snprintf(f->out, sizeof f->out, "%s/out.jsonl", f->dir);
	/* Prices: $1 per million tokens in, $2 out; no retries, so a 500 fails at once. */
	tmpdir_write(f->config, "{\"providers\":{\"openai\":{\"usd_per_million_input_tokens\":1.0,"
			        "\"usd_per_million_output_tokens\":2.0,\"retries\":0,"
			        "\"timeout_ms\":20000}}}");
	f->ms = mockserver_start();
	assert_non_null(f->ms);
	setenv("OPENAI_BASE_URL", mockserver_url(f->ms), 1);
	setenv("OPENAI_API_KEY", KEY, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];
	mockserver_stop(f->ms);
	backend_cleanup();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", f->dir);
	free(f);
	return 0;
}

/* file_has: whether the file's bytes contain s. */
static bool file_has(const char *path, const char *s)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	bool found;
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	found = memmem(buf, (size_t)n, s, strlen(s)) != NULL;
	free(buf);
	return found;
}

/* make_corpus: a one-call corpus from the demo corpus's first call (its audio linked). */
static void make_corpus(struct fixture *f)
{
	struct corpus *demo = NULL;
	char *msg = NULL, path[512];
	FILE *calls, *texts;

	if (corpus_load(DEMO, &demo, &msg) != ERR_OK)
		fail_msg("the demo corpus is built by `make corpora`: %s", msg ? msg : "?");
	const struct corpus_call *c = &demo->calls[0];
	snprintf(path, sizeof path, "%s/audios", f->corpus);
	assert_int_equal(mkdir(f->corpus, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/corpus.json", f->corpus);
	tmpdir_write(path, "{\"name\":\"models\",\"form\":\"" FORM "\",\"synthetic\":true,"
			   "\"today\":\"2025-03-15\"}");
	snprintf(path, sizeof path, "%s/calls.csv", f->corpus);
	assert_non_null(calls = fopen(path, "w"));
	snprintf(path, sizeof path, "%s/transcripts.csv", f->corpus);
	assert_non_null(texts = fopen(path, "w"));
	fputs("call_id,turn,utterance_id,condition,caller,path\n", calls);
	fputs("id,text\n", texts);
	for (int i = 0; i < c->n_turns; i++) {
		const struct corpus_turn *t = &c->turns[i];
		const char *ext = strrchr(t->audio, '.');
		fprintf(calls, "m1,%d,%s,%s,%s,\n", i + 1, t->utterance_id, t->condition,
			c->caller ? c->caller : "");
		fprintf(texts, "%s,\"%s\"\n", t->utterance_id, t->transcript);
		snprintf(path, sizeof path, "%s/audios/%s%s", f->corpus, t->utterance_id, ext);
		assert_int_equal(symlink(t->audio, path), 0);
	}
	fclose(calls);
	fclose(texts);
	corpus_free(demo);
	free(msg);
}

/* run: formdesk run in this process, stdout to f->out. Returns its exit status. */
static int run(struct fixture *f, const char *extract, const char *reply)
{
	char *argv[] = {"run", "--headless", "--form", FORM, "--corpus", f->corpus, "--db", f->db,
			"--config", f->config, "--extract", (char *)extract, "--reply", (char *)reply};
	int saved, fd, rc;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(f->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	rc = cmd_run((int)(sizeof argv / sizeof argv[0]), argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

/* The JSON line of the run's one call. */
static cJSON *call_line(struct fixture *f)
{
	FILE *in = fopen(f->out, "r");
	char line[16384];
	cJSON *o = NULL;
	assert_non_null(in);
	while (!o && fgets(line, sizeof line, in))
		if (strstr(line, "\"call_id\""))
			o = cJSON_Parse(line);
	fclose(in);
	assert_non_null(o);
	return o;
}

static void test_run_on_models(void **state)
{
	struct fixture *f = *state;
	make_corpus(f);
	mockserver_set_handler(f->ms, model, NULL);
	assert_int_equal(run(f, "openai:gpt-test", "openai:gpt-test"), 0);

	/* The fields the model found went through the rules into the store. */
	dbq_expect(f->db, "SELECT json_extract(form_data, '$.name') FROM calls", "Jhanvi Ghatak");
	dbq_expect(f->db, "SELECT json_extract(form_data, '$.district') FROM calls", "Mayurbhanj");
	dbq_expect(f->db, "SELECT extract||'|'||reply FROM calls", "openai|openai");
	/* One row per request: the opening's REPLY, then EXTRACT and REPLY per turn. */
	char *turns = dbq_text(f->db, "SELECT count(*) FROM turns WHERE transcript <> ''");
	char want[64];
	snprintf(want, sizeof want, "%d", 1 + 2 * atoi(turns));
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage", want);
	snprintf(want, sizeof want, "%d", mockserver_count(f->ms));
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage", want);
	free(turns);
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage WHERE turn_id IS NULL AND stage = 'reply'", "1");
	dbq_expect(f->db,
		   "SELECT DISTINCT provider||'|'||model||'|'||tokens_in||'|'||tokens_out||'|'||"
		   "printf('%.8f', cost_usd)||'|'||attempts||'|'||(error IS NULL)||'|'||"
		   "(ttfb_ms > 0 AND total_ms >= ttfb_ms) FROM stage_usage",
		   "openai|gpt-test|120|15|0.00015000|1|1|1");
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage s JOIN turns t ON t.id = s.turn_id "
			  "WHERE s.stage = 'extract' AND NOT t.extract_ms >= s.total_ms", "0");
	/* The call's line has the cost and latency totals. */
	cJSON *line = call_line(f);
	double cost = cJSON_GetNumberValue(cJSON_GetObjectItem(line, "cost_usd"));
	assert_true(cost > 0.00015 * mockserver_count(f->ms) - 1e-9 &&
		    cost < 0.00015 * mockserver_count(f->ms) + 1e-9);
	assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(line, "requests")),
			 mockserver_count(f->ms));
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(
			    cJSON_GetObjectItem(line, "latency_ms"), "extract")) > 0);
	cJSON_Delete(line);
	/* The key went to the server, and nowhere else. */
	assert_string_equal(mock_header(mockserver_request(f->ms, 0), "authorization"),
			    "Bearer " KEY);
	assert_false(file_has(f->db, KEY));
	assert_false(file_has(f->out, KEY));
	char wal[160];
	snprintf(wal, sizeof wal, "%s-wal", f->db);
	assert_false(file_has(wal, KEY));
}

static void test_run_on_failing_models(void **state)
{
	struct fixture *f = *state;
	make_corpus(f);
	mockserver_set_default(f->ms, (struct mock_reply){.status = 500, .body = fail_body});
	assert_int_equal(run(f, "openai:gpt-test", "openai:gpt-test"), 0);

	/* Nothing captured; every turn says why; the agent still spoke the script's words;
	 * the rules ended the call (district is required and ran out of retries). */
	dbq_expect(f->db, "SELECT count(*) FROM captures", "0");
	dbq_expect(f->db, "SELECT count(*) FROM turns WHERE error IS NULL OR reply IS NULL", "0");
	dbq_expect(f->db, "SELECT count(*) > 0 FROM turns WHERE error LIKE 'extract (openai): %500%'"
			  " AND error LIKE '%reply (openai): %the script''s words were said instead%'",
		   "1");
	dbq_expect(f->db, "SELECT status||'|'||(reason LIKE 'district%') FROM calls", "failed|1");
	dbq_expect(f->db, "SELECT json_extract(form_status, '$.name') FROM calls", "skipped");
	char *all = dbq_text(f->db, "SELECT count(*) FROM stage_usage");
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage WHERE error LIKE '%500%'", all);
	free(all);
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage WHERE cost_usd IS NOT NULL OR tokens_in IS NOT NULL", "0");
	cJSON *line = call_line(f);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(line, "status")), "failed");
	assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(line, "failed_requests")),
			 mockserver_count(f->ms));
	cJSON_Delete(line);
	assert_false(file_has(f->db, KEY));
	assert_false(file_has(f->out, KEY));
}

/* A typed caller turn while EXTRACT waits on a model that takes 20 s: the engine says what
 * it waits for; engine_cancel ends the wait at once and records the turn as cancelled. */
static void test_cancel_in_flight(void **state)
{
	struct fixture *f = *state;
	struct enginefix_rig r;
	struct engine *e = NULL;
	char *msg = NULL;

	char cwhy[200];
	assert_int_equal(provider_config_load(f->config, cwhy, sizeof cwhy), ERR_OK);
	mockserver_set_default(f->ms, (struct mock_reply){.status = 200, .body = ans_name,
							  .delay_ms = 20000});
	enginefix_rig_open(&r, f->db, "reference", "openai:gpt-test");
	assert_int_equal(engine_new(&r.cfg, NULL, NULL, &e), ERR_OK);

	/* A live call: turns come from outside. The opening is offline, so done at once. */
	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	assert_false(engine_busy(e));
	struct engine_input in = {.transcript = "mera naam Jhanvi hai", .utterance_id = "typed-1"};
	assert_int_equal(engine_start_turn(e, &in), ERR_OK);
	assert_true(engine_busy(e));
	/* Poll until the server has the request; the model is still thinking. */
	for (int i = 0; i < 200 && mockserver_count(f->ms) == 0; i++)
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	assert_int_equal(mockserver_count(f->ms), 1);
	enum engine_stage st;
	const char *name = NULL;
	double waited = -1;
	assert_true(engine_waiting(e, &st, &name, &waited));
	assert_int_equal(st, ENGINE_STAGE_EXTRACT);
	assert_string_equal(name, "openai");
	assert_true(waited >= 0);
	/* A second turn cannot start while one is in flight. */
	assert_int_equal(engine_start_turn(e, &in), ERR_INVALID);

	double t0 = loopwait_ms();
	assert_int_equal(engine_cancel(e, "barge-in"), ERR_OK);
	double took = loopwait_ms() - t0;
	assert_false(engine_busy(e));
	assert_false(engine_waiting(e, NULL, NULL, NULL));
	/* It did not wait for the answer (20 s away): far less than that. */
	assert_true(took < 10000);
	assert_true(engine_call_open(e));

	dbq_expect(f->db, "SELECT cancelled||'|'||transcript||'|'||(decision IS NULL)||'|'||"
			  "(error LIKE '%cancelled while waiting for EXTRACT: barge-in%') FROM turns",
		   "1|mera naam Jhanvi hai|1|1");
	dbq_expect(f->db, "SELECT stage||'|'||(error LIKE 'cancelled after % ms: barge-in')"
			  " FROM stage_usage WHERE turn_id IS NOT NULL",
		   "extract|1");
	/* The rules saw nothing: no retry was used, the name is still asked. */
	assert_int_equal(flow_retries_used(engine_flow(e), form_find(r.form, "name")), 0);
	assert_string_equal(call_status_name(flow_status(engine_flow(e))), "in_progress");
	/* Nothing in flight: cancelling again does nothing. */
	assert_int_equal(engine_cancel(e, "again"), ERR_OK);
	dbq_expect(f->db, "SELECT count(*) FROM turns", "1");

	/* The operator hangs up: the call is recorded as failed with the reason. */
	assert_int_equal(engine_hang_up(e, "abandoned: test over"), ERR_OK);
	assert_false(engine_call_open(e));
	dbq_expect(f->db, "SELECT status||'|'||reason||'|'||corpus_call_id FROM calls",
		   "failed|abandoned: test over|live");
	enginefix_rig_close(&r, e);
	free(msg);
}

/* A barge-in while the first turn waits on a model never loses what she said (issue 15,
 * item 1): cancelled while EXTRACT is in flight, the turn's words go before the next turn's
 * (one EXTRACT request with both, the name taken); cancelled while a cloud STT (whisper.cpp's
 * protocol here) is in flight, its audio goes before the next turn's, 500 ms apart, in one
 * STT request. Before, the second turn's words were heard alone under the first's question. */
static void test_cancel_keeps_words(void **state)
{
	struct fixture *f = *state;
	struct enginefix_rig r;
	struct engine *e = NULL;
	char *msg = NULL, cwhy[200];
	const char *why = NULL;
	float *clip = NULL;
	size_t n_clip = 0;

	assert_int_equal(provider_config_load(f->config, cwhy, sizeof cwhy), ERR_OK);
	enginefix_rig_open(&r, f->db, "reference", "openai:gpt-test");
	assert_int_equal(engine_new(&r.cfg, NULL, NULL, &e), ERR_OK);

	/* EXTRACT in flight */
	mockserver_push(f->ms, (struct mock_reply){.status = 200, .body = ans_nothing, .delay_ms = 20000});
	mockserver_push(f->ms, (struct mock_reply){.status = 200, .body = ans_name});
	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	struct engine_input first = {.transcript = "mera naam Jhanvi"};
	struct engine_input second = {.transcript = "Ghatak hai", .barge_in = true,
				      .barge_in_during = "thinking"};
	assert_int_equal(engine_start_turn(e, &first), ERR_OK);
	for (int i = 0; i < 200 && mockserver_count(f->ms) == 0; i++)
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	assert_int_equal(engine_start_turn(e, &second), ERR_OK); /* cancels the first */
	while (engine_busy(e))
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	assert_int_equal(mockserver_count(f->ms), 2);
	assert_true(mock_body_has(mockserver_request(f->ms, 1), "mera naam Jhanvi Ghatak hai"));
	dbq_expect(f->db, "SELECT group_concat(idx||'|'||cancelled||'|'||transcript, ';') FROM turns",
		   "1|1|mera naam Jhanvi;2|0|mera naam Jhanvi Ghatak hai");
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(engine_flow(e)), "name")->valuestring,
			    "Jhanvi Ghatak");
	assert_int_equal(engine_hang_up(e, "abandoned: test over"), ERR_OK);
	engine_free(e);
	e = NULL;

	/* STT in flight: the demo corpus's first clip twice */
	struct corpus *demo = NULL;
	if (corpus_load(DEMO, &demo, &msg) != ERR_OK)
		fail_msg("the demo corpus is built by `make corpora`: %s", msg ? msg : "?");
	free(msg);
	msg = NULL;
	assert_int_equal(audiofile_read(demo->calls[0].turns[0].audio, 16000, &clip, &n_clip, &msg),
			 ERR_OK);
	corpus_free(demo);
	setenv("WHISPERCPP_BASE_URL", mockserver_url(f->ms), 1);
	assert_int_equal(backend_stt("whispercpp", &r.cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract("rules", &r.cfg.extract, &why), ERR_OK);
	assert_int_equal(engine_new(&r.cfg, NULL, NULL, &e), ERR_OK);
	mockserver_clear(f->ms);
	mockserver_push(f->ms, (struct mock_reply){.status = 200, .body = "{\"text\":\"\"}",
						   .delay_ms = 20000});
	mockserver_push(f->ms, (struct mock_reply){.status = 200,
						   .body = "{\"text\":\"mera naam Jhanvi Ghatak hai\"}"});
	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	struct engine_input a = {.samples = clip, .n_samples = n_clip};
	struct engine_input b = {.samples = clip, .n_samples = n_clip, .barge_in = true,
				 .barge_in_during = "thinking"};
	assert_int_equal(engine_start_turn(e, &a), ERR_OK);
	for (int i = 0; i < 200 && mockserver_count(f->ms) == 0; i++)
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	assert_true(engine_busy(e));
	assert_int_equal(engine_start_turn(e, &b), ERR_OK);
	while (engine_busy(e))
		assert_int_equal(engine_poll(e, 50, NULL, 0), ERR_OK);
	assert_int_equal(mockserver_count(f->ms), 2);
	const struct mock_part *one = mock_part_named(mockserver_request(f->ms, 0), "file");
	const struct mock_part *two = mock_part_named(mockserver_request(f->ms, 1), "file");
	assert_non_null(one);
	assert_non_null(two);
	/* both clips' speech and the 500 ms between them (16-bit samples at 16 kHz) */
	assert_true(two->len > 2 * (one->len - 44) + 500 * 32);
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(engine_flow(e)), "name")->valuestring,
			    "Jhanvi Ghatak");
	assert_int_equal(engine_hang_up(e, "abandoned: test over"), ERR_OK);
	enginefix_rig_close(&r, e);
	free(clip);
	free(msg);
}

/* The engine's events, one letter each (S start, A agent, C caller, K acknowledgement,
 * X extracted, D decision, T turn done, E end, ! error), and what came before the server
 * let the answer's last piece go. */
struct evlog {
	char kinds[128];
	int n;
	char ack[128];
	int acks, ack_turn;
	bool released;          /* the test has released the held piece */
	bool ack_held;          /* ENGINE_ACK came while the piece was held back */
	bool extracted_held;    /* ENGINE_EXTRACTED came while it was held back */
	struct callview *view;  /* fed every event when set (the simulator's panes) */
};

static void evlog_listener(void *ud, const struct engine_event *ev)
{
	struct evlog *l = ud;
	static const char letters[] = "SACXDTE!K";
	if (l->view)
		assert_int_equal(callview_event(l->view, ev), ERR_OK);
	if (ev->kind >= 0 && (size_t)ev->kind < sizeof letters - 1 && l->n < (int)sizeof l->kinds - 1)
		l->kinds[l->n++] = letters[ev->kind];
	if (ev->kind == ENGINE_ACK) {
		assert_non_null(ev->text);
		snprintf(l->ack, sizeof l->ack, "%s", ev->text);
		l->acks++;
		l->ack_turn = ev->turn;
		if (!l->released)
			l->ack_held = true;
	} else if (ev->kind == ENGINE_EXTRACTED && !l->released) {
		l->extracted_held = true;
	}
}

static void sse_append(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);
	*buf = realloc(*buf, *len + n + 1);
	assert_non_null(*buf);
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

/* sse_chunk: one chat.completion.chunk event (platform.openai.com/docs/api-reference/
 * chat-streaming) carrying content (may be NULL), finish (may be NULL) or, with usage,
 * the last chunk's token counts and no choices. */
static void sse_chunk(char **buf, size_t *len, const char *content, const char *finish, bool usage)
{
	cJSON *c = cJSON_Parse("{\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\","
			       "\"created\":1767225600,\"model\":\"gpt-test\",\"choices\":[]}");
	if (usage) {
		cJSON_AddItemToObject(c, "usage", cJSON_Parse("{\"prompt_tokens\":120,"
							      "\"completion_tokens\":15,\"total_tokens\":135}"));
	} else {
		cJSON *ch = cJSON_Parse("{\"index\":0,\"delta\":{},\"finish_reason\":null}");
		if (content)
			cJSON_AddStringToObject(cJSON_GetObjectItem(ch, "delta"), "content", content);
		if (finish)
			cJSON_ReplaceItemInObject(ch, "finish_reason", cJSON_CreateString(finish));
		cJSON_AddItemToArray(cJSON_GetObjectItem(c, "choices"), ch);
	}
	char *d = cJSON_PrintUnformatted(c);
	sse_append(buf, len, "data: ");
	sse_append(buf, len, d);
	sse_append(buf, len, "\n\n");
	free(d);
	cJSON_Delete(c);
}

/* The streamed EXTRACT answer: the ack first (split inside a Devanagari letter), then the
 * fields. */
#define STREAM_ACK "जी, लिख लिया"
static const char *const stream_deltas[] = {
	"{\"ack\":\"ज", "ी, लिख लि", "या\",\"fields\":[{\"field\":",
	"\"name\",\"value\":\"Jhanvi Ghatak\",\"skip\":false,\"reason\":\"none\"}]}",
};

/* stream_body: the SSE body; *hold: the end of the event that completes the ack (the
 * server holds back what follows until released). */
static char *stream_body(size_t *hold)
{
	char *buf = NULL;
	size_t len = 0;
	sse_chunk(&buf, &len, "", NULL, false);
	for (size_t i = 0; i < sizeof stream_deltas / sizeof *stream_deltas; i++) {
		sse_chunk(&buf, &len, stream_deltas[i], NULL, false);
		if (i == 2)
			*hold = len;
	}
	sse_chunk(&buf, &len, NULL, "stop", false);
	sse_chunk(&buf, &len, NULL, NULL, true);
	sse_append(&buf, &len, "data: [DONE]\n\n");
	return buf;
}

/* A live call whose EXTRACT streams its answer: ENGINE_ACK comes with the ack's text
 * while the last piece is held back, ENGINE_EXTRACTED only after it is released; the
 * store has the ack and EXTRACT's time to it. */
static void test_streamed_ack(void **state)
{
	struct fixture *f = *state;
	struct enginefix_rig r;
	struct engine *e = NULL;
	char *msg = NULL;
	struct evlog log = {0};
	char cwhy[200];
	size_t hold = 0;

	assert_int_equal(provider_config_load(f->config, cwhy, sizeof cwhy), ERR_OK);
	char *body = stream_body(&hold);
	size_t cuts[] = {hold / 3, hold};
	mockserver_push_pieces(f->ms, (struct mock_reply){200, "text/event-stream", body, NULL, 0},
			       cuts, 2, true, false);
	enginefix_rig_open(&r, f->db, "reference", "openai:gpt-test");
	assert_non_null(log.view = callview_new(r.form, "live", 1));
	assert_int_equal(engine_new(&r.cfg, evlog_listener, &log, &e), ERR_OK);

	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	struct engine_input in = {.transcript = "mera naam Jhanvi Ghatak hai"};
	assert_int_equal(engine_start_turn(e, &in), ERR_OK);
	assert_true(engine_busy(e));
	/* The last piece is held back: the acknowledgement must come all the same. */
	for (int i = 0; i < 1500 && log.acks == 0; i++)
		assert_int_equal(engine_poll(e, 20, NULL, 0), ERR_OK);
	if (log.acks == 0)
		fail_msg("no ENGINE_ACK before the last piece (events %s)", log.kinds);
	assert_true(log.ack_held);
	assert_string_equal(log.ack, STREAM_ACK);
	assert_int_equal(log.ack_turn, 1);
	assert_true(engine_busy(e));
	/* The conversation pane has the agent's acknowledgement as its last line, at once. */
	const struct callview_lines *conv = callview_conv(log.view);
	assert_true(conv->n > 0);
	assert_string_equal(conv->v[conv->n - 1].prefix, "agent (ack): ");
	assert_string_equal(conv->v[conv->n - 1].text, STREAM_ACK);
	enum engine_stage st;
	assert_true(engine_waiting(e, &st, NULL, NULL));
	assert_int_equal(st, ENGINE_STAGE_EXTRACT);
	/* More polls while it is held: no second ack, no extraction yet. */
	for (int i = 0; i < 5; i++)
		assert_int_equal(engine_poll(e, 10, NULL, 0), ERR_OK);
	assert_int_equal(log.acks, 1);
	assert_false(log.extracted_held);
	assert_null(strchr(log.kinds + 2, 'X'));

	log.released = true;
	mockserver_release(f->ms);
	for (int i = 0; i < 1500 && engine_busy(e); i++)
		assert_int_equal(engine_poll(e, 20, NULL, 0), ERR_OK);
	assert_false(engine_busy(e));
	assert_int_equal(log.acks, 1);
	/* Opening: S D A; the turn: C K X D A T. */
	assert_string_equal(log.kinds, "SDA" "CKXDAT");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(flow_form_data(engine_flow(e)),
								    "name")),
			    "Jhanvi Ghatak");

	dbq_expect(f->db, "SELECT ack FROM turns WHERE idx = 1", STREAM_ACK);
	dbq_expect(f->db, "SELECT json_extract(extraction, '$.ack') FROM turns WHERE idx = 1", STREAM_ACK);
	dbq_expect(f->db, "SELECT stage||'|'||(ack_ms > 0)||'|'||(ack_ms <= total_ms)||'|'||(error IS NULL)"
			  " FROM stage_usage WHERE turn_id IS NOT NULL",
		   "extract|1|1|1");
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage WHERE stage <> 'extract' AND ack_ms IS NOT NULL",
		   "0");
	cJSON *sent = cJSON_Parse(mockserver_request(f->ms, 0)->body);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sent, "stream")));
	cJSON_Delete(sent);

	assert_int_equal(engine_hang_up(e, "abandoned: test over"), ERR_OK);
	enginefix_rig_close(&r, e);
	callview_free(log.view);
	free(body);
	free(msg);
}

/* The offline rules extractor: ENGINE_ACK comes from the extraction's ack ("जी") right
 * before ENGINE_EXTRACTED, and only when something was extracted; stored per turn, with
 * no stage_usage row (nothing went over the network). */
static void test_offline_ack(void **state)
{
	struct fixture *f = *state;
	struct enginefix_rig r;
	struct engine *e = NULL;
	char *msg = NULL;
	struct evlog log = {.released = true};

	enginefix_rig_open(&r, f->db, "reference", "rules");
	assert_int_equal(engine_new(&r.cfg, evlog_listener, &log, &e), ERR_OK);

	assert_int_equal(engine_start_call(e, NULL), ERR_OK);
	struct engine_input name = {.transcript = "mera naam Sunita Devi hai"};
	assert_int_equal(engine_start_turn(e, &name), ERR_OK);
	assert_false(engine_busy(e)); /* offline: done at once */
	assert_int_equal(log.acks, 1);
	assert_int_equal(log.ack_turn, 1);
	assert_string_equal(log.ack, "जी");
	struct engine_input nothing = {.transcript = "hmm"};
	assert_int_equal(engine_start_turn(e, &nothing), ERR_OK);
	assert_int_equal(log.acks, 1); /* nothing extracted: no acknowledgement */
	assert_string_equal(log.kinds, "SDA" "CKXDAT" "CXDAT");
	dbq_expect(f->db, "SELECT group_concat(idx||'/'||coalesce(ack,'NULL'), ';')"
			  " FROM (SELECT * FROM turns ORDER BY idx)", "1/जी;2/NULL");
	dbq_expect(f->db, "SELECT count(*) FROM stage_usage", "0");
	assert_int_equal(mockserver_count(f->ms), 0);

	assert_int_equal(engine_hang_up(e, "abandoned: test over"), ERR_OK);
	enginefix_rig_close(&r, e);
	free(msg);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(test_run_on_models, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_run_on_failing_models, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_cancel_in_flight, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_cancel_keeps_words, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_streamed_ack, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_offline_ack, setup, teardown))
