/* The language-model backends against a local server that checks each request as the
 * provider documents it (tests/data/llm_<provider>/expect) and answers with documented
 * responses; the EXTRACT fault cases (tests/data/llm_faults/cases.json); errors, retries,
 * timeouts and malformed answers; REPLY's injected decision; the config file. No key
 * ever appears in an error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "agent/stages/extract_llm.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"
#include "tests/support/envclear.h"
#include "tests/support/reqcheck.h"
#include "tests/support/mockserver.h"
#include "tests/support/testmain.h"

static struct mockserver *ms;
static struct form *form;
static cJSON *history;

static const char *const ENV_VARS[] = {
	"OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY",
	"GEMINI_BASE_URL", "GEMINI_API_KEY", "MISTRAL_BASE_URL", "MISTRAL_API_KEY", "GROQ_BASE_URL",
	"GROQ_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "LOCAL_BASE_URL", "LOCAL_API_KEY",
	"FORMDESK_CONFIG", NULL,
};

static int setup(void **state)
{
	(void)state;
	envclear(ENV_VARS);
	ms = mockserver_start();
	char *h = reqcheck_file_text("tests/data/llm_reply/history.json");
	history = h ? cJSON_Parse(h) : NULL;
	free(h);
	if (!ms || !history || form_load("forms/armman_enrollment.json", &form, NULL) != ERR_OK)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mockserver_stop(ms);
	form_free(form);
	cJSON_Delete(history);
	backend_cleanup();
	envclear(ENV_VARS);
	return 0;
}

static struct extract_request extract_req(const char *transcript)
{
	return (struct extract_request){
		.form = form,
		.lex = NULL,
		.asked = form_find(form, "district"),
		.transcript = transcript,
		.history = history,
		.today = {2026, 3, 15},
	};
}

/* One directory per provider (and model family) under tests/data: expect (the request as
 * documented, and the environment that points the provider at the test server) and
 * response.json (a documented answer). */
static const char *const dirs[] = {"llm_openai", "llm_openrouter", "llm_gemini", "llm_mistral",
				   "llm_groq", "llm_groq_qwen", "llm_groq_oss", "llm_local",
				   "llm_anthropic"};
#define N_DIRS (sizeof(dirs) / sizeof(dirs[0]))

static void test_protocols(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_DIRS; i++) {
		char *body = NULL;
		const char *spec = reqcheck_case(dirs[i], ENV_VARS, ms, NULL, &body);
		mockserver_answer(ms, body);
		free(body);
		struct backend be;
		const char *why = NULL;
		assert_int_equal(backend_extract(spec, &be, &why), ERR_OK);
		struct extract_request rq = extract_req("मैं गया से हूँ");
		struct extraction *ex = NULL;
		assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
		const struct mock_request *q = mockserver_request(ms, 0);
		assert_non_null(q);
		reqcheck_case_request(dirs[i], ms, q, NULL);
		assert_null(ex->fault);
		assert_int_equal(ex->n, 1);
		assert_string_equal(ex->items[0].field, "district");
		assert_true(cJSON_IsNumber(ex->items[0].value) && ex->items[0].value->valueint == 1);
		assert_string_equal(ex->ack, "ठीक है");
		struct backend_usage u;
		assert_true(backend_last_usage(&be, &u));
		assert_int_equal(u.tokens_in, 812);
		assert_int_equal(u.tokens_out, 31);
		assert_int_equal(u.http_status, 200);
		assert_int_equal(u.attempts, 1);
		assert_true(u.cost_usd < 0); /* no price configured */
		assert_string_equal(u.error, "");
		extraction_free(ex);
	}
	envclear(ENV_VARS);
}

/* the chat-completions answer wrapping one message */
static char *completion(const cJSON *content, const cJSON *refusal)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "id", "chatcmpl-2");
	cJSON_AddStringToObject(root, "object", "chat.completion");
	cJSON *choices = cJSON_AddArrayToObject(root, "choices");
	cJSON *c = cJSON_CreateObject();
	cJSON_AddItemToArray(choices, c);
	cJSON_AddNumberToObject(c, "index", 0);
	cJSON *m = cJSON_AddObjectToObject(c, "message");
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON_AddItemToObject(m, "content", cJSON_IsString(content) ? cJSON_Duplicate(content, 0) : cJSON_CreateNull());
	cJSON_AddItemToObject(m, "refusal", cJSON_IsString(refusal) ? cJSON_Duplicate(refusal, 0) : cJSON_CreateNull());
	cJSON_AddStringToObject(c, "finish_reason", "stop");
	cJSON *u = cJSON_AddObjectToObject(root, "usage");
	cJSON_AddNumberToObject(u, "prompt_tokens", 100);
	cJSON_AddNumberToObject(u, "completion_tokens", 10);
	char *s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

/* the server's next answer: a chat completion whose message is the text content */
static void answer_text(const char *content)
{
	cJSON *c = cJSON_CreateString(content);
	char *body = completion(c, NULL);
	cJSON_Delete(c);
	mockserver_answer(ms, body);
	cJSON_free(body);
}

/* use_env: a clean environment, then base_env = the server's URL + path and key_env = key. */
static void use_env(const char *base_env, const char *path, const char *key_env, const char *key)
{
	envclear(ENV_VARS);
	provider_config_free();
	char base[160];
	snprintf(base, sizeof(base), "%s%s", mockserver_url(ms), path);
	setenv(base_env, base, 1);
	setenv(key_env, key, 1);
}

static void use_openai(void)
{
	use_env("OPENAI_BASE_URL", "/v1", "OPENAI_API_KEY", "sk-test-secret-4242");
}

static void test_faults(void **state)
{
	(void)state;
	use_openai();
	char *text = reqcheck_file_text("tests/data/llm_faults/cases.json");
	assert_non_null(text);
	cJSON *root = cJSON_Parse(text);
	free(text);
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
	assert_true(cJSON_GetArraySize(cases) >= 10);
	struct backend be;
	assert_int_equal(backend_extract("openai", &be, NULL), ERR_OK);
	const cJSON *c;
	cJSON_ArrayForEach(c, cases) {
		const char *name = cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring;
		char *body = completion(cJSON_GetObjectItemCaseSensitive(c, "content"),
					cJSON_GetObjectItemCaseSensitive(c, "refusal"));
		mockserver_answer(ms, body);
		cJSON_free(body);
		struct extract_request rq =
			extract_req(cJSON_GetObjectItemCaseSensitive(c, "transcript")->valuestring);
		struct extraction *ex = NULL;
		assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
		/* the transcript went to the model as data, quoted in the last user message */
		const struct mock_request *q = mockserver_request(ms, 0);
		cJSON *sent = cJSON_Parse(q->body);
		cJSON *tr = cJSON_CreateString(rq.transcript);
		char *quoted = cJSON_PrintUnformatted(tr);
		const cJSON *last = reqcheck_jpath(sent, "messages[-1].content");
		if (!cJSON_IsString(last) || !strstr(last->valuestring, quoted))
			fail_msg("%s: transcript not sent as data", name);
		cJSON_free(quoted);
		cJSON_Delete(tr);
		cJSON_Delete(sent);

		const cJSON *fault = cJSON_GetObjectItemCaseSensitive(c, "fault");
		if (cJSON_IsString(fault)) {
			if (!ex->fault || strcmp(ex->fault, fault->valuestring) != 0)
				fail_msg("%s: fault \"%s\", expected \"%s\"", name, ex->fault ? ex->fault : "(none)",
					 fault->valuestring);
		} else if (ex->fault) {
			fail_msg("%s: unexpected fault \"%s\"", name, ex->fault);
		}
		const cJSON *ack = cJSON_GetObjectItemCaseSensitive(c, "ack");
		if (cJSON_IsString(ack) && (!ex->ack || strcmp(ex->ack, ack->valuestring) != 0))
			fail_msg("%s: ack", name);
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(c, "items");
		if (ex->n != cJSON_GetArraySize(items))
			fail_msg("%s: %d items, expected %d", name, ex->n, cJSON_GetArraySize(items));
		for (int i = 0; i < ex->n; i++) {
			const cJSON *want = cJSON_GetArrayItem(items, i);
			const struct extraction_item *it = &ex->items[i];
			const cJSON *wv = cJSON_GetObjectItemCaseSensitive(want, "value");
			if (strcmp(it->field, cJSON_GetObjectItemCaseSensitive(want, "field")->valuestring) != 0)
				fail_msg("%s: item %d field %s", name, i, it->field);
			if (cJSON_IsNull(wv) ? it->value != NULL : !cJSON_Compare(it->value, wv, 1))
				fail_msg("%s: item %d value", name, i);
			if (it->skip != cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(want, "skip")))
				fail_msg("%s: item %d skip", name, i);
			const cJSON *wr = cJSON_GetObjectItemCaseSensitive(want, "reason");
			if (cJSON_IsString(wr) && (!it->reason || strcmp(it->reason, wr->valuestring) != 0))
				fail_msg("%s: item %d reason", name, i);
		}
		extraction_free(ex);
	}
	cJSON_Delete(root);
}

/* A failure gives ERR_BACKEND and a reason, and never shows the key. */
static void expect_failure(const struct backend *be, const char *want)
{
	struct extract_request rq = extract_req("गया");
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(be, &rq, &ex), ERR_BACKEND);
	assert_null(ex);
	struct backend_usage u;
	assert_true(backend_last_usage(be, &u));
	if (!strstr(u.error, want))
		fail_msg("error \"%s\" does not say \"%s\"", u.error, want);
	assert_null(strstr(u.error, "sk-test-secret-4242"));
}

/* What the model got wrong cannot reach the form: through the rule layer an index out of
 * range is invalid, a skip on a required field is not a skip, a number sent as a string
 * is normalized, and "mark the form complete" leaves the call in progress. */
static struct extraction *extract_with(const struct backend *be, const char *content)
{
	answer_text(content);
	struct extract_request rq = extract_req("...");
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(be, &rq, &ex), ERR_OK);
	return ex;
}

static const char *status_of(const cJSON *checked, const char *field)
{
	const cJSON *st = reqcheck_jpath(cJSON_GetObjectItemCaseSensitive(checked, field), "status");
	return cJSON_IsString(st) ? st->valuestring : "(none)";
}

static void test_faults_through_rules(void **state)
{
	(void)state;
	use_openai();
	struct backend be;
	assert_int_equal(backend_extract("openai", &be, NULL), ERR_OK);
	struct ymd today = {2026, 3, 15};
	int district = form_find(form, "district");
	cJSON *out = NULL;

	struct extraction *ex = extract_with(&be, "{\"ack\":\"\",\"fields\":[{\"field\":\"district\","
		"\"value\":7,\"skip\":false,\"reason\":\"none\"}]}");
	assert_non_null(ex->fault);
	assert_int_equal(flow_check(form, NULL, today, district, ex, &out), ERR_OK);
	assert_string_equal(status_of(out, "district"), "invalid");
	cJSON_Delete(out);
	extraction_free(ex);

	ex = extract_with(&be, "{\"ack\":\"\",\"fields\":[{\"field\":\"gestational_age\","
		"\"value\":\"6\",\"skip\":false,\"reason\":\"none\"}]}");
	assert_int_equal(flow_check(form, NULL, today, form_find(form, "gestational_age"), ex, &out), ERR_OK);
	assert_string_equal(status_of(out, "gestational_age"), "answered");
	assert_true(reqcheck_value_is(reqcheck_jpath(out, "gestational_age.value"), "6"));
	cJSON_Delete(out);
	extraction_free(ex);

	/* a call: the injected "complete" changes nothing, a required field is not skipped */
	struct flow *fl = NULL;
	assert_int_equal(flow_new(form, NULL, today, &fl), ERR_OK);
	struct decision *dec = NULL;
	assert_int_equal(flow_start(fl, &dec), ERR_OK);
	decision_free(dec);
	ex = extract_with(&be, "{\"ack\":\"\",\"fields\":[{\"field\":\"name\",\"value\":\"सुनीता देवी\","
		"\"skip\":false,\"reason\":\"none\"}],\"form_complete\":true,\"call_status\":\"complete\","
		"\"end_call\":true}");
	assert_non_null(strstr(ex->fault, "form_complete"));
	assert_int_equal(flow_turn(fl, ex, &dec), ERR_OK);
	out = decision_to_json(dec);
	decision_free(dec);
	assert_int_equal(flow_status(fl), CALL_IN_PROGRESS);
	assert_true(reqcheck_value_is(reqcheck_jpath(out, "call_status"), "in_progress"));
	for (int i = 0; i < form->n_questions; i++)
		if (i != form_find(form, "name"))
			assert_int_equal(flow_field_status(fl, i), FIELD_EMPTY);
	cJSON_Delete(out);
	extraction_free(ex);
	assert_int_equal(flow_current(fl), district);
	ex = extract_with(&be, "{\"ack\":\"\",\"fields\":[{\"field\":\"district\",\"value\":null,"
		"\"skip\":true,\"reason\":\"declined\"}]}");
	assert_int_equal(flow_turn(fl, ex, &dec), ERR_OK);
	assert_int_equal(flow_field_status(fl, district), FIELD_EMPTY);
	assert_int_equal(flow_status(fl), CALL_IN_PROGRESS);
	decision_free(dec);
	extraction_free(ex);
	flow_free(fl);
}

static void test_errors(void **state)
{
	(void)state;
	use_openai();
	struct backend be;
	assert_int_equal(backend_extract("openai", &be, NULL), ERR_OK);
	cJSON *ok_content = cJSON_CreateString("{\"ack\":\"\",\"fields\":[]}");
	char *ok = completion(ok_content, NULL);
	cJSON_Delete(ok_content);

	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){401, NULL,
		"{\"error\":{\"message\":\"Incorrect API key provided: sk-test-secret-4242\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}", NULL, 0});
	expect_failure(&be, "HTTP 401: the key was refused (check OPENAI_API_KEY)");
	assert_int_equal(mockserver_count(ms), 1);

	/* a provider quoting the key back in another error is scrubbed */
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){400, NULL,
		"{\"error\":{\"message\":\"bad request for key sk-test-secret-4242\"}}", NULL, 0});
	expect_failure(&be, "HTTP 400: bad request for key ***");

	/* 429 with Retry-After, then success */
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){429, NULL, "{\"error\":{\"message\":\"Rate limit reached\"}}",
						"Retry-After: 1", 0});
	mockserver_push(ms, (struct mock_reply){200, NULL, ok, NULL, 0});
	struct extract_request rq = extract_req("गया");
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
	extraction_free(ex);
	struct backend_usage u;
	assert_true(backend_last_usage(&be, &u));
	assert_int_equal(u.attempts, 2);
	assert_true(u.total_ms >= 950);

	/* 500, 500, then success: two retries by default */
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){500, NULL, "{\"error\":{\"message\":\"server error\"}}", NULL, 0});
	mockserver_push(ms, (struct mock_reply){502, NULL, "bad gateway", "Retry-After: 0", 0});
	mockserver_push(ms, (struct mock_reply){200, NULL, ok, NULL, 0});
	assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
	extraction_free(ex);
	assert_true(backend_last_usage(&be, &u));
	assert_int_equal(u.attempts, 3);

	/* 5xx every time: the turn fails after the retries */
	mockserver_clear(ms);
	mockserver_set_default(ms, (struct mock_reply){503, NULL, "{\"error\":{\"message\":\"overloaded\"}}", NULL, 0});
	expect_failure(&be, "HTTP 503 after 3 attempts: overloaded");
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 0});

	/* a 200 that is not JSON, and one without choices */
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, "text/html", "<html>gateway</html>", NULL, 0});
	expect_failure(&be, "not JSON");
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"object\":\"chat.completion\",\"choices\":[]}", NULL, 0});
	expect_failure(&be, "no choices[0].message");
	/* OpenRouter-style error object inside a 200 */
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"error\":{\"code\":502,\"message\":\"upstream failed\"}}", NULL, 0});
	expect_failure(&be, "provider error: upstream failed");
	cJSON_free(ok);
}

/* write_temp: text into a new file made from path (a mkstemp template, filled in). */
static void write_temp(char *path, const char *text)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_timeout(void **state)
{
	(void)state;
	use_openai();
	char path[] = "/tmp/formdesk-test-XXXXXX";
	write_temp(path, "{\"providers\":{\"openai\":{\"timeout_ms\":300,\"retries\":0}}}");
	assert_int_equal(provider_config_load(path, NULL, 0), ERR_OK);
	struct backend be;
	assert_int_equal(backend_extract("openai", &be, NULL), ERR_OK);
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, "{}", NULL, 3000});
	expect_failure(&be, "timed out after 300 ms");
	provider_config_free();
	unlink(path);
}

static void test_config(void **state)
{
	(void)state;
	use_openai();
	char path[] = "/tmp/formdesk-test-XXXXXX";
	char cfg[512];
	snprintf(cfg, sizeof(cfg),
		 "{\"providers\":{\"openrouter\":{\"base_url\":\"%s/or/v1/\",\"model\":\"vendor/model-x\","
		 "\"usd_per_million_input_tokens\":2.0,\"usd_per_million_output_tokens\":10.0,"
		 "\"reasoning\":false}},\"extract\":{\"history_turns\":1}}",
		 mockserver_url(ms));
	write_temp(path, cfg);
	setenv("FORMDESK_CONFIG", path, 1);
	provider_config_free();

	/* the key is still needed from the environment */
	struct backend be;
	const char *why = NULL;
	assert_int_equal(backend_extract("openrouter", &be, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "OPENROUTER_API_KEY is not set"));
	setenv("OPENROUTER_API_KEY", "sk-or-secret-77", 1);
	assert_int_equal(backend_extract("openrouter", &be, &why), ERR_OK);
	answer_text("{\"ack\":\"\",\"fields\":[]}");
	struct extract_request rq = extract_req("गया");
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
	extraction_free(ex);
	const struct mock_request *q = mockserver_request(ms, 0);
	assert_string_equal(q->path, "/or/v1/chat/completions");
	cJSON *sent = cJSON_Parse(q->body);
	assert_true(reqcheck_value_is(reqcheck_jpath(sent, "model"), "vendor/model-x"));
	assert_true(reqcheck_value_is(reqcheck_jpath(sent, "temperature"), "0")); /* "reasoning": false */
	/* history_turns 1: system, the last history entry, the turn */
	assert_int_equal(cJSON_GetArraySize(reqcheck_jpath(sent, "messages")), 3);
	cJSON_Delete(sent);
	struct backend_usage u;
	assert_true(backend_last_usage(&be, &u));
	/* 100 tokens in at $2/M + 10 out at $10/M */
	assert_true(u.cost_usd > 0.000299 && u.cost_usd < 0.000301);
	assert_string_equal(u.provider, "openrouter");
	assert_string_equal(u.model, "vendor/model-x");

	/* a key in the config file is refused */
	int fd = open(path, O_WRONLY | O_TRUNC);
	const char bad[] = "{\"providers\":{\"openai\":{\"api_key\":\"sk-no\"}}}";
	assert_int_equal(write(fd, bad, sizeof(bad) - 1), (ssize_t)(sizeof(bad) - 1));
	close(fd);
	provider_config_free();
	assert_int_equal(backend_extract("openai", &be, &why), ERR_INVALID);
	assert_non_null(strstr(why, "environment only"));
	assert_null(strstr(why, "sk-no"));

	/* unknown providers are named */
	provider_config_free();
	unsetenv("FORMDESK_CONFIG");
	assert_int_equal(backend_extract("nosuch", &be, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "unknown EXTRACT provider"));
	unlink(path);
}

static cJSON *load_json(const char *path)
{
	char *t = reqcheck_file_text(path);
	assert_non_null(t);
	cJSON *j = cJSON_Parse(t);
	free(t);
	assert_non_null(j);
	return j;
}

static void test_reply(void **state)
{
	(void)state;
	use_openai();
	cJSON *ask = load_json("tests/data/llm_reply/decision_ask.json");
	cJSON *end = load_json("tests/data/llm_reply/decision_end.json");
	struct backend rb;
	assert_int_equal(backend_reply("openai:gpt-5.4-mini", &rb, NULL), ERR_OK);
	struct reply_request rq = {form, ask, history, NULL};

	answer_text("आप किस ज़िले में रहती हैं?\n");
	char *text = NULL;
	assert_int_equal(backend_say(&rb, &rq, &text), ERR_OK);
	assert_string_equal(text, "आप किस ज़िले में रहती हैं?");
	free(text);
	/* history, then the decision as an assistant tool call and its result */
	reqcheck_run("tests/data/llm_reply/openai_tool_call.expect", ms, mockserver_request(ms, 0), false,
		     NULL);

	/* the model ends the call although the rules asked a question: refused */
	const char *end_call = "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
		"\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\","
		"\"type\":\"function\",\"function\":{\"name\":\"end_call\",\"arguments\":"
		"\"{\\\"message\\\":\\\"धन्यवाद, नमस्ते!\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}],"
		"\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":12}}";
	mockserver_answer(ms, end_call);
	text = NULL;
	assert_int_equal(backend_say(&rb, &rq, &text), ERR_BACKEND);
	assert_null(text);
	struct backend_usage u;
	assert_true(backend_last_usage(&rb, &u));
	assert_non_null(strstr(u.error, "tried to end the call"));

	/* when the rules end the call, the end_call tool call gives the closing words */
	rq.decision = end;
	mockserver_answer(ms, end_call);
	assert_int_equal(backend_say(&rb, &rq, &text), ERR_OK);
	assert_string_equal(text, "धन्यवाद, नमस्ते!");
	free(text);

	/* a decision without tool_call is refused before anything is sent */
	cJSON *none = cJSON_CreateObject();
	rq.decision = none;
	mockserver_clear(ms);
	assert_int_equal(backend_say(&rb, &rq, &text), ERR_INVALID);
	assert_int_equal(mockserver_count(ms), 0);
	cJSON_Delete(none);

	/* Anthropic: the decision as tool_use, its result as tool_result */
	char base[128];
	snprintf(base, sizeof(base), "%s", mockserver_url(ms));
	setenv("ANTHROPIC_BASE_URL", base, 1);
	setenv("ANTHROPIC_API_KEY", "sk-ant-secret", 1);
	struct backend ab;
	assert_int_equal(backend_reply("anthropic", &ab, NULL), ERR_OK);
	rq.decision = ask;
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL,
		"{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
		"\"text\":\"आप किस ज़िले में रहती हैं?\"}],\"stop_reason\":\"end_turn\",\"usage\":"
		"{\"input_tokens\":300,\"output_tokens\":20}}", NULL, 0});
	assert_int_equal(backend_say(&ab, &rq, &text), ERR_OK);
	assert_string_equal(text, "आप किस ज़िले में रहती हैं?");
	free(text);
	reqcheck_run("tests/data/llm_reply/anthropic_tool_use.expect", ms, mockserver_request(ms, 0), false,
		     NULL);
	cJSON_Delete(ask);
	cJSON_Delete(end);
}

/* Groq's streamed answer carries its usage in the last chunk's x_groq.usage, not in a
 * usage chunk asked for by stream_options (groq-python, chat_completion_chunk.py). */
static void test_groq_stream_usage(void **state)
{
	(void)state;
	use_env("GROQ_BASE_URL", "/openai/v1", "GROQ_API_KEY", "gq-test");
	char *body = reqcheck_file_text("tests/data/llm_groq/stream.sse");
	assert_non_null(body);
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, "text/event-stream", body, NULL, 0});
	free(body);
	struct backend be;
	assert_int_equal(backend_extract("groq", &be, NULL), ERR_OK);
	struct extract_request rq = extract_req("मैं गया से हूँ");
	struct extraction *ex = NULL;
	assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
	assert_int_equal(ex->n, 1);
	extraction_free(ex);
	struct backend_usage u;
	assert_true(backend_last_usage(&be, &u));
	assert_int_equal(u.tokens_in, 812);
	assert_int_equal(u.tokens_out, 31);
	envclear(ENV_VARS);
}

/* An answer stopped at the token limit is reported as cut off on each protocol: chat
 * completions' finish_reason "length" (platform.openai.com/docs/api-reference/chat/object)
 * and Anthropic's stop_reason "max_tokens" (docs.anthropic.com/en/api/messages). EXTRACT
 * records a fault; REPLY does not speak half a line. */
static void test_cut_off(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *base_env, *path, *key_env, *body;
	} cases[] = {
		{"openai", "OPENAI_BASE_URL", "/v1", "OPENAI_API_KEY",
		 "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
		 "{\"role\":\"assistant\",\"content\":\"{\\\"ack\\\":\\\"जी\\\",\\\"fields\\\":[]}\"},"
		 "\"finish_reason\":\"length\"}]}"},
		{"anthropic", "ANTHROPIC_BASE_URL", "", "ANTHROPIC_API_KEY",
		 "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
		 "\"tool_use\",\"id\":\"toolu_01\",\"name\":\"record_extraction\",\"input\":{\"ack\":"
		 "\"जी\",\"fields\":[]}}],\"stop_reason\":\"max_tokens\",\"usage\":{\"input_tokens\":9,"
		 "\"output_tokens\":1024}}"},
	};
	static const char *const say[] = {
		"{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
		"{\"role\":\"assistant\",\"content\":\"आप किस ज़िले\"},\"finish_reason\":\"length\"}]}",
		"{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
		"\"text\",\"text\":\"आप किस ज़िले\"}],\"stop_reason\":\"max_tokens\"}",
	};
	cJSON *ask = load_json("tests/data/llm_reply/decision_ask.json");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		use_env(cases[i].base_env, cases[i].path, cases[i].key_env, "test-key-1234");
		struct backend be, rb;
		assert_int_equal(backend_extract(cases[i].spec, &be, NULL), ERR_OK);
		mockserver_clear(ms);
		mockserver_push(ms, (struct mock_reply){200, NULL, cases[i].body, NULL, 0});
		struct extract_request rq = extract_req("गया");
		struct extraction *ex = NULL;
		assert_int_equal(backend_extract_fields(&be, &rq, &ex), ERR_OK);
		if (!ex->fault || !strstr(ex->fault, "cut off at the token limit"))
			fail_msg("%s: fault \"%s\"", cases[i].spec, ex->fault ? ex->fault : "(none)");
		extraction_free(ex);

		assert_int_equal(backend_reply(cases[i].spec, &rb, NULL), ERR_OK);
		mockserver_clear(ms);
		mockserver_push(ms, (struct mock_reply){200, NULL, say[i], NULL, 0});
		struct reply_request rr = {form, ask, history, NULL};
		char *text = NULL;
		assert_int_equal(backend_say(&rb, &rr, &text), ERR_BACKEND);
		assert_null(text);
		struct backend_usage u;
		assert_true(backend_last_usage(&rb, &u));
		if (!strstr(u.error, "cut off at the token limit"))
			fail_msg("%s: REPLY error \"%s\"", cases[i].spec, u.error);
	}
	cJSON_Delete(ask);
	envclear(ENV_VARS);
}

/* ---- REPLY's injected decision fits its declared tool (decision.h) ---- */

/* schema_check: whether v fits schema s, in the subset REPLY's tools use: "type",
 * "properties" (every key of v declared, each value checked), "required", "enum". why
 * (size n) says what does not fit. */
static bool schema_check(const cJSON *s, const cJSON *v, const char *at, char *why, size_t n)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
	if (cJSON_IsString(type)) {
		const char *t = type->valuestring;
		bool ok = strcmp(t, "object") == 0    ? cJSON_IsObject(v)
			  : strcmp(t, "string") == 0  ? cJSON_IsString(v)
			  : strcmp(t, "boolean") == 0 ? cJSON_IsBool(v)
			  : strcmp(t, "integer") == 0 ? cJSON_IsNumber(v) && v->valuedouble == (double)(long)v->valuedouble
			  : strcmp(t, "number") == 0  ? cJSON_IsNumber(v)
			  : strcmp(t, "array") == 0   ? cJSON_IsArray(v)
			  : strcmp(t, "null") == 0    ? cJSON_IsNull(v) : false;
		if (!ok) {
			snprintf(why, n, "%s: not of type %s", at, t);
			return false;
		}
	}
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum"), *it;
	if (cJSON_IsArray(en)) {
		bool found = false;
		cJSON_ArrayForEach(it, en)
			found |= cJSON_Compare(it, v, 1);
		if (!found) {
			snprintf(why, n, "%s: not one of the enum", at);
			return false;
		}
	}
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "required")) {
		if (!cJSON_GetObjectItemCaseSensitive(v, it->valuestring)) {
			snprintf(why, n, "%s: required \"%s\" missing", at, it->valuestring);
			return false;
		}
	}
	if (cJSON_IsObject(props) && cJSON_IsObject(v)) {
		cJSON_ArrayForEach(it, v) {
			const cJSON *ps = cJSON_GetObjectItemCaseSensitive(props, it->string);
			char sub[128];
			snprintf(sub, sizeof(sub), "%s.%s", at, it->string);
			if (!ps) {
				snprintf(why, n, "%s: not declared", sub);
				return false;
			}
			if (!schema_check(ps, it, sub, why, n))
				return false;
		}
	}
	return true;
}

/* id_ok: whether id is exactly 9 characters a-z A-Z 0-9 (mistral-common's validator),
 * which also fits Anthropic's ^[a-zA-Z0-9_-]+$. */
static bool id_ok(const cJSON *id)
{
	if (!cJSON_IsString(id) || strlen(id->valuestring) != 9)
		return false;
	for (const char *c = id->valuestring; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return false;
	return true;
}

/* check_injected: the REPLY request q (chat completions, or Anthropic's Messages when
 * anthropic) uses the protocol's roles, and injects a call whose id is valid everywhere
 * and whose arguments fit the tool of that name declared in the same request. */
static void check_injected(const struct mock_request *q, bool anthropic, const char *what)
{
	cJSON *sent = cJSON_Parse(q->body);
	assert_non_null(sent);
	const cJSON *call, *id, *name, *args, *result_id;
	cJSON *parsed = NULL;
	if (anthropic) {
		call = reqcheck_jpath(sent, "messages[-2].content[-1]");
		id = cJSON_GetObjectItemCaseSensitive(call, "id");
		name = cJSON_GetObjectItemCaseSensitive(call, "name");
		args = cJSON_GetObjectItemCaseSensitive(call, "input");
		result_id = reqcheck_jpath(sent, "messages[-1].content[0].tool_use_id");
	} else {
		call = reqcheck_jpath(sent, "messages[-2].tool_calls[0]");
		id = cJSON_GetObjectItemCaseSensitive(call, "id");
		name = reqcheck_jpath(call, "function.name");
		const cJSON *a = reqcheck_jpath(call, "function.arguments");
		args = parsed = cJSON_IsString(a) ? cJSON_Parse(a->valuestring) : NULL;
		result_id = reqcheck_jpath(sent, "messages[-1].tool_call_id");
	}
	/* roles: chat completions' system/user/assistant/tool
	 * (platform.openai.com/docs/api-reference/chat/create); the Messages API's user and
	 * assistant, alternating from user (docs.anthropic.com/en/api/messages) */
	const cJSON *m;
	const char *prev = NULL;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(sent, "messages")) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
		const char *r = cJSON_IsString(role) ? role->valuestring : "";
		bool ok = anthropic ? (strcmp(r, "user") == 0 || strcmp(r, "assistant") == 0) &&
					      (prev ? strcmp(prev, r) != 0 : strcmp(r, "user") == 0)
				    : strcmp(r, "system") == 0 || strcmp(r, "user") == 0 ||
					      strcmp(r, "assistant") == 0 || strcmp(r, "tool") == 0;
		if (!ok)
			fail_msg("%s: message role \"%s\" out of place", what, r);
		prev = r;
	}
	/* Groq's qwen3 models take reasoning_effort none/default only (groq-python,
	 * completion_create_params.py) */
	const cJSON *model = cJSON_GetObjectItemCaseSensitive(sent, "model");
	const cJSON *effort = cJSON_GetObjectItemCaseSensitive(sent, "reasoning_effort");
	if (cJSON_IsString(model) && strstr(model->valuestring, "qwen3") && effort &&
	    !reqcheck_value_is(effort, "none") && !reqcheck_value_is(effort, "default"))
		fail_msg("%s: reasoning_effort %s on qwen3", what, cJSON_PrintUnformatted(effort));
	if (!id_ok(id) || !cJSON_Compare(id, result_id, 1))
		fail_msg("%s: tool call id %s is not 9 letters or digits, or its result names another",
			 what, cJSON_IsString(id) ? id->valuestring : "(none)");
	assert_true(cJSON_IsString(name));
	const cJSON *schema = NULL, *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(sent, "tools")) {
		const cJSON *tn = anthropic ? cJSON_GetObjectItemCaseSensitive(t, "name")
					    : reqcheck_jpath(t, "function.name");
		if (cJSON_IsString(tn) && strcmp(tn->valuestring, name->valuestring) == 0)
			schema = anthropic ? cJSON_GetObjectItemCaseSensitive(t, "input_schema")
					   : reqcheck_jpath(t, "function.parameters");
	}
	if (!schema)
		fail_msg("%s: no tool \"%s\" declared", what, name->valuestring);
	char why[256] = "";
	if (!schema_check(schema, args, name->valuestring, why, sizeof(why)))
		fail_msg("%s: injected %s does not fit its schema: %s", what, name->valuestring, why);
	cJSON_Delete(parsed);
	cJSON_Delete(sent);
}

static void test_reply_fits_tools(void **state)
{
	(void)state;
	/* every decision of the 48-path walk (test_flow.c writes them), a re-ask, and the
	 * REPLY test inputs */
	cJSON *decisions = cJSON_CreateArray();
	FILE *f = fopen("tests/data/flow_48_decisions.jsonl", "r");
	assert_non_null(f);
	char line[65536];
	while (fgets(line, sizeof(line), f))
		if (line[0] == '{')
			cJSON_AddItemToArray(decisions, cJSON_Parse(line));
	fclose(f);
	assert_true(cJSON_GetArraySize(decisions) >= 48);
	cJSON *reask = cJSON_Duplicate(cJSON_GetArrayItem(decisions, 1), 1);
	cJSON *ra = (cJSON *)reqcheck_jpath(reask, "tool_call.arguments");
	cJSON_ReplaceItemInObject(ra, "retry", cJSON_CreateNumber(1));
	cJSON_AddStringToObject(ra, "error", "ज़िले का नाम सूची में नहीं है");
	cJSON_AddItemToArray(decisions, reask);
	cJSON_AddItemToArray(decisions, load_json("tests/data/llm_reply/decision_ask.json"));
	cJSON_AddItemToArray(decisions, load_json("tests/data/llm_reply/decision_end.json"));

	const char *openai_text = "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
		"\"message\":{\"role\":\"assistant\",\"content\":\"जी\"},\"finish_reason\":\"stop\"}]}";
	const char *anthropic_text = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
		"\"content\":[{\"type\":\"text\",\"text\":\"जी\"}],\"stop_reason\":\"end_turn\"}";
	for (size_t i = 0; i < N_DIRS; i++) {
		const char *spec = reqcheck_case(dirs[i], ENV_VARS, ms, NULL, NULL);
		bool anthropic = strcmp(dirs[i], "llm_anthropic") == 0;
		struct backend rb;
		assert_int_equal(backend_reply(spec, &rb, NULL), ERR_OK);
		mockserver_clear(ms);
		mockserver_set_default(ms, (struct mock_reply){200, NULL,
			anthropic ? anthropic_text : openai_text, NULL, 0});
		int k = 0;
		const cJSON *d;
		cJSON_ArrayForEach(d, decisions) {
			struct reply_request rq = {form, d, history, NULL};
			char *text = NULL;
			assert_int_equal(backend_say(&rb, &rq, &text), ERR_OK);
			free(text);
			char what[64];
			snprintf(what, sizeof(what), "%s decision %d", spec, k);
			check_injected(mockserver_request(ms, k), anthropic, what);
			k++;
		}
	}
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 0});
	cJSON_Delete(decisions);
	envclear(ENV_VARS);
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_protocols),
	  cmocka_unit_test(test_faults),
	  cmocka_unit_test(test_faults_through_rules),
	  cmocka_unit_test(test_errors),
	  cmocka_unit_test(test_timeout),
	  cmocka_unit_test(test_config),
	  cmocka_unit_test(test_reply),
	  cmocka_unit_test(test_reply_fits_tools),
	  cmocka_unit_test(test_groq_stream_usage),
	  cmocka_unit_test(test_cut_off))
