/* EXTRACT over a streamed answer, against a local server that sends the documented
 * server-sent events in pieces split at awkward places (inside the ack string, inside an
 * escape sequence, inside a Devanagari character, between CR and LF) and holds the last
 * piece back until the test lets it go: the acknowledgement is handed over once, while
 * the request is still in flight, equal to the text; the extraction equals the one parsed
 * from the same answer sent whole; a stream cut short is a recorded fault; a dropped
 * connection a recorded failure. One case per row of CASES. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "agent/stages/extract_llm.h"
#include "agent/rules/form.h"
#include "agent/stages/http.h"
#include "agent/stages/llm_stream.h"
#include "agent/stages/provider.h"
#include "tests/support/mockserver.h"
#include "tests/support/sse.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

static struct mockserver *ms;
static struct form *form;

/* The model's answer, as the schema asks: "ack" first. Its ack has an escaped quote and
 * a \u escape; decoded it is ACK. */
static const char ANSWER[] =
	"{\"ack\":\"ठीक है, \\\"\\u0917या\\\" लिख लिया\",\"fields\":[{\"field\":\"district\","
	"\"value\":1,\"skip\":false,\"reason\":\"none\"}]}";
static const char ACK[] = "ठीक है, \"गया\" लिख लिया";

/* Where the model's answer is cut into deltas: after these substrings of ANSWER (the
 * offset into the substring given). */
struct at {
	const char *needle;
	int offset;
};

enum proto { OPENAI, ANTHROPIC };

struct scase {
	const char *name;
	enum proto proto;
	bool crlf;                 /* CRLF line ends instead of LF */
	struct at deltas[6];       /* delta boundaries in ANSWER */
	struct at cuts[6];         /* piece boundaries in the SSE body */
	bool no_end;               /* leave out [DONE] / message_stop and the answer's tail */
	bool cut_off;              /* the server drops the connection before the end */
};

static const struct scase CASES[] = {
	{"openai: deltas inside the ack and its escapes; pieces inside a Devanagari letter",
	 OPENAI, false,
	 {{"ठीक", 3}, {"\\\"", 1}, {"\\u09", 4}, {"लिख", 3}, {"\"fields", 0}},
	 {{"है", 4}, {"data: {", 3}, {"\\\\u", 2}, {"\"delta\"", 4}}, false, false},
	{"openai: CRLF line ends, a piece between CR and LF", OPENAI, true,
	 {{"\"ack\":\"", 4}, {"लिया\"", 6}, {"\"value\"", 2}},
	 {{"\r\n", 1}, {"लि", 5}, {"[DONE]", 3}}, false, false},
	{"anthropic: input_json_delta pieces split inside the ack", ANTHROPIC, false,
	 {{"है", 3}, {"\\u0917", 3}, {"\\\" ", 1}, {"\"field\"", 3}},
	 {{"ठीक", 4}, {"partial_json", 5}, {"event: content_block_delta", 9}}, false, false},
	{"openai: the stream is cut short after the ack", OPENAI, false,
	 {{"लिया\"", 13}, {"\"value\"", 2}}, {{"ठीक", 2}}, true, false},
	{"anthropic: the stream is cut short after the ack", ANTHROPIC, false,
	 {{"लिया\"", 13}, {"\"value\"", 2}}, {{"लिया", 1}}, true, false},
	{"openai: the server drops the connection", OPENAI, false,
	 {{"लिया\"", 13}, {"\"value\"", 2}}, {{"ठीक", 2}}, true, true},
};

static size_t find(const char *hay, const struct at *a)
{
	const char *p = strstr(hay, a->needle);
	if (!p)
		fail_msg("no \"%s\" to cut at", a->needle);
	return (size_t)(p - hay) + (size_t)a->offset;
}

static void append(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);
	*buf = realloc(*buf, *len + n + 1);
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

/* One event: "event: TYPE" (Anthropic) and its data line, then the blank line. */
static void event(char **buf, size_t *len, bool crlf, const char *type, cJSON *data)
{
	const char *nl = crlf ? "\r\n" : "\n";
	char *d = data ? cJSON_PrintUnformatted(data) : strdup("[DONE]");
	if (type) {
		append(buf, len, "event: ");
		append(buf, len, type);
		append(buf, len, nl);
	}
	append(buf, len, "data: ");
	append(buf, len, d);
	append(buf, len, nl);
	append(buf, len, nl);
	free(d);
	cJSON_Delete(data);
}

static cJSON *anthropic_delta(const char *partial)
{
	cJSON *c = cJSON_Parse("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
			       "{\"type\":\"input_json_delta\"}}");
	cJSON_AddStringToObject(cJSON_GetObjectItem(c, "delta"), "partial_json", partial);
	return c;
}

/* The SSE body of case c: ANSWER cut into deltas, in the protocol's documented events.
 * *hold: the end of the first event after which the ack is complete (the server holds
 * back what follows). */
static char *sse_body(const struct scase *c, size_t *hold)
{
	const struct at close = {"\",\"fields", 1};
	size_t ack_end = find(ANSWER, &close);
	*hold = 0;
	char *buf = NULL;
	size_t len = 0;
	size_t ends[8];
	int n = 0;
	for (int i = 0; i < 6 && c->deltas[i].needle; i++)
		ends[n++] = find(ANSWER, &c->deltas[i]);
	/* a stream cut short stops after its second delta */
	if (!c->no_end)
		ends[n++] = strlen(ANSWER);
	if (c->proto == OPENAI)
		event(&buf, &len, c->crlf, NULL, cJSON_Parse("{\"id\":\"chatcmpl-9\",\"object\":"
			"\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"gpt-5.4-mini\","
			"\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
			"\"finish_reason\":null}]}"));
	else {
		event(&buf, &len, c->crlf, "message_start", cJSON_Parse("{\"type\":\"message_start\","
			"\"message\":{\"id\":\"msg_9\",\"type\":\"message\",\"role\":\"assistant\","
			"\"content\":[],\"model\":\"claude-haiku-4-5\",\"stop_reason\":null,"
			"\"stop_sequence\":null,\"usage\":{\"input_tokens\":812,\"output_tokens\":1}}}"));
		event(&buf, &len, c->crlf, "content_block_start", cJSON_Parse("{\"type\":"
			"\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
			"\"id\":\"toolu_9\",\"name\":\"record_extraction\",\"input\":{}}}"));
		event(&buf, &len, c->crlf, "ping", cJSON_Parse("{\"type\":\"ping\"}"));
	}
	size_t from = 0;
	for (int i = 0; i < n; i++) {
		char piece[512];
		snprintf(piece, sizeof piece, "%.*s", (int)(ends[i] - from), ANSWER + from);
		from = ends[i];
		if (c->proto == OPENAI)
			event(&buf, &len, c->crlf, NULL, sse_openai_chunk(piece, NULL));
		else
			event(&buf, &len, c->crlf, "content_block_delta", anthropic_delta(piece));
		if (!*hold && ends[i] >= ack_end)
			*hold = len;
	}
	if (c->no_end)
		return buf;
	if (c->proto == OPENAI) {
		event(&buf, &len, c->crlf, NULL, sse_openai_chunk(NULL, "stop"));
		event(&buf, &len, c->crlf, NULL, cJSON_Parse("{\"id\":\"chatcmpl-9\",\"object\":"
			"\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"gpt-5.4-mini\","
			"\"choices\":[],\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":31,"
			"\"total_tokens\":843}}"));
		event(&buf, &len, c->crlf, NULL, NULL);
	} else {
		event(&buf, &len, c->crlf, "content_block_stop",
		      cJSON_Parse("{\"type\":\"content_block_stop\",\"index\":0}"));
		event(&buf, &len, c->crlf, "message_delta", cJSON_Parse("{\"type\":\"message_delta\","
			"\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":"
			"{\"output_tokens\":31}}"));
		event(&buf, &len, c->crlf, "message_stop", cJSON_Parse("{\"type\":\"message_stop\"}"));
	}
	return buf;
}

static void use(enum proto p, const char *config)
{
	static char path[64];
	unsetenv("FORMDESK_CONFIG");
	provider_config_free();
	if (path[0])
		unlink(path);
	path[0] = '\0';
	if (config) {
		snprintf(path, sizeof path, "/tmp/test_stream_%d.json", (int)getpid());
		tmpdir_write(path, config);
		setenv("FORMDESK_CONFIG", path, 1);
	}
	char base[128];
	if (p == OPENAI) {
		snprintf(base, sizeof base, "%s/v1", mockserver_url(ms));
		setenv("OPENAI_BASE_URL", base, 1);
		setenv("OPENAI_API_KEY", "sk-test-stream", 1);
	} else {
		setenv("ANTHROPIC_BASE_URL", mockserver_url(ms), 1);
		setenv("ANTHROPIC_API_KEY", "sk-ant-stream", 1);
	}
}

static struct extract_request request(void)
{
	return (struct extract_request){.form = form, .asked = form_find(form, "district"),
					.transcript = "मैं गया से हूँ", .today = {2026, 3, 15}};
}

/* The extraction of ANSWER sent whole, with streaming switched off in the config: the
 * request asks for no stream. */
static char *unstreamed(enum proto p)
{
	use(p, p == OPENAI ? "{\"providers\":{\"openai\":{\"stream\":false}}}"
			   : "{\"providers\":{\"anthropic\":{\"stream\":false}}}");
	cJSON *body;
	if (p == OPENAI) {
		body = cJSON_Parse("{\"id\":\"chatcmpl-8\",\"object\":\"chat.completion\",\"choices\":"
				   "[{\"index\":0,\"message\":{\"role\":\"assistant\"},\"finish_reason\":"
				   "\"stop\"}],\"usage\":{\"prompt_tokens\":812,\"completion_tokens\":31}}");
		cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetArrayItem(
			cJSON_GetObjectItem(body, "choices"), 0), "message"), "content", ANSWER);
	} else {
		body = cJSON_Parse("{\"id\":\"msg_8\",\"type\":\"message\",\"role\":\"assistant\","
				   "\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_8\",\"name\":"
				   "\"record_extraction\"}],\"stop_reason\":\"tool_use\",\"usage\":"
				   "{\"input_tokens\":812,\"output_tokens\":31}}");
		cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "content"), 0), "input",
				      cJSON_Parse(ANSWER));
	}
	char *text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	mockserver_answer(ms, text);
	free(text);
	struct backend be;
	assert_int_equal(backend_extract(p == OPENAI ? "openai" : "anthropic", &be, NULL), ERR_OK);
	struct extract_request rq = request();
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
	cJSON *sent = cJSON_Parse(mockserver_request(ms, 0)->body);
	assert_null(cJSON_GetObjectItem(sent, "stream"));
	cJSON_Delete(sent);
	assert_null(ex->fault);
	cJSON *j = extraction_to_json(ex);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	extraction_free(ex);
	return s;
}

static void on_done(void *ud, struct http_result *res)
{
	*(struct http_result **)ud = res;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static void run_case(const struct scase *c)
{
	char *want = unstreamed(c->proto);
	size_t hold;
	char *body = sse_body(c, &hold);
	size_t cuts[8];
	int n_cuts = 0;
	for (int i = 0; i < 6 && c->cuts[i].needle; i++)
		cuts[n_cuts++] = find(body, &c->cuts[i]);
	assert_true(hold > 0 && hold < strlen(body));
	cuts[n_cuts++] = hold;
	qsort(cuts, (size_t)n_cuts, sizeof *cuts, cmp_size);
	use(c->proto, NULL);
	mockserver_clear(ms);
	mockserver_push_pieces(ms, (struct mock_reply){200, "text/event-stream", body, NULL, 0}, cuts,
			       n_cuts, true, c->cut_off);

	struct backend be;
	struct backend_usage u;
	struct http_req *hr = NULL;
	struct http_client *client = NULL;
	struct http_xfer *x = NULL;
	struct http_result *res = NULL;
	struct extract_request rq = request();
	char *ack = NULL, *again = NULL;
	assert_int_equal(backend_extract(c->proto == OPENAI ? "openai" : "anthropic", &be, NULL), ERR_OK);
	assert_int_equal(http_client_new(&client), ERR_OK);
	assert_int_equal(backend_start(&be, &rq, &hr, &u), ERR_OK);
	assert_int_equal(http_start(client, hr, on_done, &res, &x), ERR_OK);
	/* the last piece is held back: the ack must come while the request still runs */
	for (int i = 0; i < 1500 && !res && !ack; i++) {
		assert_int_equal(http_poll(client, 20, NULL, 0), ERR_OK);
		if (!res && backend_ack(&be, x, &ack))
			break;
	}
	if (!ack)
		fail_msg("%s: no acknowledgement before the last piece", c->name);
	assert_null(res);
	assert_string_equal(ack, ACK);
	assert_false(backend_ack(&be, x, &again)); /* once */
	assert_null(again);
	mockserver_release(ms);
	for (int i = 0; i < 1500 && !res; i++)
		assert_int_equal(http_poll(client, 20, NULL, 0), ERR_OK);
	assert_non_null(res);

	/* the request, as each provider documents streaming */
	cJSON *sent = cJSON_Parse(mockserver_request(ms, 0)->body);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sent, "stream")));
	if (c->proto == OPENAI)
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(sent, "stream_options"),
							     "include_usage")));
	cJSON_Delete(sent);

	struct extraction *ex = NULL;
	enum err e = backend_finish(&be, &rq, res, &ex, &u);
	if (c->cut_off) {
		/* a dropped connection: the request failed, and says so */
		assert_int_equal(e, ERR_BACKEND);
		assert_true(u.error[0] != '\0');
	} else if (c->no_end) {
		assert_int_equal(e, ERR_OK);
		if (!ex->fault || !strstr(ex->fault, "the answer stream was cut short"))
			fail_msg("%s: fault \"%s\"", c->name, ex->fault ? ex->fault : "(none)");
		assert_string_equal(ex->ack, ACK);
		assert_int_equal(ex->n, 0); /* the fields never came */
	} else {
		assert_int_equal(e, ERR_OK);
		cJSON *j = extraction_to_json(ex);
		char *got = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		if (strcmp(got, want) != 0)
			fail_msg("%s: streamed extraction\n%s\nnot the whole answer's\n%s", c->name, got, want);
		free(got);
		assert_int_equal(u.tokens_in, 812);
		assert_int_equal(u.tokens_out, 31);
		assert_string_equal(u.error, "");
		/* the ack was known before the answer ended */
		assert_true(u.ack_ms >= 0 && u.ack_ms <= u.total_ms);
	}
	extraction_free(ex);
	http_result_free(res);
	http_client_free(client);
	free(ack);
	free(body);
	free(want);
}

static void streamed_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
		run_case(&CASES[i]);
}

/* The blocking path reads a streamed answer too, and a whole-body read of the stream
 * finds the same acknowledgement. */
static void blocking_and_whole_body(void **state)
{
	(void)state;
	size_t hold;
	char *body = sse_body(&CASES[0], &hold);
	use(OPENAI, NULL);
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, "text/event-stream", body, NULL, 0});
	struct backend be;
	assert_int_equal(backend_extract("openai", &be, NULL), ERR_OK);
	struct extract_request rq = request();
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
	assert_null(ex->fault);
	assert_string_equal(ex->ack, ACK);
	assert_int_equal(ex->n, 1);
	struct backend_usage u;
	assert_true(backend_last_usage(&be, &u));
	assert_true(u.ack_ms >= 0);
	extraction_free(ex);

	struct llm_stream *s = NULL;
	assert_int_equal(llm_stream_new(PROTO_OPENAI_CHAT, &s), ERR_OK);
	/* byte by byte: every split there is */
	for (size_t i = 0; body[i]; i++)
		assert_int_equal(llm_stream_feed(s, body + i, 1, (double)i), ERR_OK);
	double at = -1;
	assert_string_equal(llm_stream_ack(s, &at), ACK);
	assert_true(at > 0 && at < (double)strlen(body));
	char *t = NULL;
	assert_true(llm_stream_take_ack(s, &t));
	assert_false(llm_stream_take_ack(s, &t));
	free(t);
	llm_stream_free(s);
	free(body);
}

static int setup(void **state)
{
	(void)state;
	ms = mockserver_start();
	return ms && form_load("forms/armman_enrollment.json", &form, NULL) == ERR_OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	use(OPENAI, NULL);
	mockserver_stop(ms);
	form_free(form);
	backend_cleanup();
	return 0;
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(streamed_cases),
	  cmocka_unit_test(blocking_and_whole_body))
