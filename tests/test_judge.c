/* The benchmark's LLM judge (sessions/eval/benchjudge.c, agent/stages/judge_llm.c) against a local
 * chat-completions server, on the bench fixture (tests/data/bench_form.json and
 * bench_corpus) with fake backends whose outputs the offline judges cannot all decide:
 *   STT   "mera naam Sunita hai" -> "mera kaam Sunita hai"  (naam/kaam: judge says similar)
 *         "haan" -> "haan ji"                                (inserted ji: equivalent)
 *         "nahi" -> "sahi"                                   (different)
 *         "paanch mahine" -> "5 mahine"                      (offline: the same number)
 *   Words 4 + 1 + 1 + 2 = 8, word errors 4; offline genuine 3 (LLM-WER 3/8); with the
 *   judge genuine 1 (LLM-WER 1/8).
 *   EXTRACT "Sunita Devi" for the expected "Sunita": the name judge is unsure, the LLM
 *   judge says same, so the name test passes (3 of 4 -> 4 of 4).
 *   REPLY asks the pregnancy question in other words ("क्या आपके पेट में बच्चा है?"):
 *   word overlap inconclusive, the judge says yes.
 * Then: the requests as the chat-completions documentation describes them, the verdicts
 * cached (a second run asks nothing), and a failing judge (HTTP 500) leaving every
 * deterministic verdict and recording the failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_backend.h"
#include "agent/stages/judge_llm.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/provider.h"
#include "agent/stages/reply_script.h"
#include "sessions/eval/bench.h"
#include "sessions/store/benchdb.h"
#include "sessions/eval/benchreport.h"
#include "sessions/corpus/corpus.h"
#include "tests/support/benchfix.h"
#include "tests/support/mockserver.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

static const char *const STT[][2] = {
	{"mera naam Sunita hai", "mera kaam Sunita hai"},
	{"haan", "haan ji"},
	{"nahi", "sahi"},
	{"paanch mahine", "5 mahine"},
};
static const char REWORDED[] = "क्या आपके पेट में बच्चा है?";

static enum err fake_stt(void *ctx, const struct stt_request *req, char **text)
{
	for (size_t i = 0; i < sizeof STT / sizeof *STT; i++)
		if (req->reference && !strcmp(STT[i][0], req->reference))
			return (*text = strdup(STT[i][1])) ? ERR_OK : ERR_NOMEM;
	return ERR_BACKEND;
}

static enum err fake_extract(void *ctx, const struct extract_request *req, struct extraction **out)
{
	struct extraction *ex = extraction_new();
	const char *t = req->transcript;
	if (!strcmp(t, "mera naam Sunita hai"))
		extraction_add(ex, "name", cJSON_CreateString("Sunita Devi"), false, NULL, t);
	else if (!strcmp(t, "haan"))
		extraction_add(ex, "pregnant", cJSON_CreateTrue(), false, NULL, t);
	else if (!strcmp(t, "nahi"))
		extraction_add(ex, "pregnant", cJSON_CreateFalse(), false, NULL, t);
	else if (!strcmp(t, "paanch mahine"))
		extraction_add(ex, "months", cJSON_CreateNumber(5), false, NULL, t);
	*out = ex;
	return ERR_OK;
}

static enum err fake_reply(void *ctx, const struct reply_request *req, char **text)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(req->decision,
										  "tool_call"),
						 "arguments"),
		"field");
	if (cJSON_IsString(f) && !strcmp(f->valuestring, "pregnant"))
		return (*text = strdup(REWORDED)) ? ERR_OK : ERR_NOMEM;
	return reply_script_reply(ctx, req, text);
}

FAKE_OPS(fake_stt_ops, BACKEND_STT, fake_stt);
FAKE_OPS(fake_extract_ops, BACKEND_EXTRACT, fake_extract);
FAKE_OPS(fake_reply_ops, BACKEND_REPLY, fake_reply);

/* The judge's answer: decided by what it was asked. */
static void judge_handler(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	static const char *const answers[] = {
		"{\"verdict\":\"similar\"}", "{\"verdict\":\"equivalent\"}", "{\"verdict\":\"different\"}",
		"{\"verdict\":\"same\"}", "{\"verdict\":\"yes\"}",
	};
	static char bodies[5][512];
	int k;
	if (mock_body_has(req, "System words here: kaam"))
		k = 0;
	else if (mock_body_has(req, "System words here: ji"))
		k = 1;
	else if (mock_body_has(req, "System words here:"))
		k = 2;
	else if (mock_body_has(req, "Captured:"))
		k = 3;
	else
		k = 4;
	cJSON *root = cJSON_Parse("{\"id\":\"chatcmpl-j\",\"object\":\"chat.completion\",\"choices\":"
				  "[{\"index\":0,\"message\":{\"role\":\"assistant\"},\"finish_reason\":"
				  "\"stop\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":10}}");
	cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "choices"),
								       0),
						    "message"),
				"content", answers[k]);
	char *s = cJSON_PrintUnformatted(root);
	snprintf(bodies[k], sizeof bodies[k], "%s", s);
	free(s);
	cJSON_Delete(root);
	*out = (struct mock_reply){200, NULL, bodies[k], NULL, 0};
}

struct fixture {
	struct benchfix b; /* the bench form and corpus, the words, the configuration */
	struct mockserver *ms;
	struct backend judge;
	char conf[64];
};

static struct backend judge_on(struct fixture *fx, const char *spec)
{
	struct backend b = {0};
	const char *why = NULL;
	provider_config_free();
	if (backend_judge(spec, &b, &why) != ERR_OK)
		fail_msg("%s: %s", spec, why ? why : "");
	return b;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	char base[128];
	assert_non_null(fx);
	assert_non_null(fx->ms = mockserver_start());
	snprintf(base, sizeof base, "%s/v1", mockserver_url(fx->ms));
	setenv("OPENAI_BASE_URL", base, 1);
	setenv("OPENAI_API_KEY", "sk-test-judge-31", 1);
	snprintf(fx->conf, sizeof fx->conf, "/tmp/test_judge_%d.json", (int)getpid());
	tmpdir_write(fx->conf, "{\"providers\":{\"openai\":{\"model\":\"judge-model\",\"reasoning\":false,"
			       "\"retries\":0,\"usd_per_million_input_tokens\":2.0,"
			       "\"usd_per_million_output_tokens\":10.0}}}");
	setenv("FORMDESK_CONFIG", fx->conf, 1);
	struct bench_config opts = {
		.stt_spec = "fake", .extract_spec = "fake", .reply_spec = "fake",
		.stt = {"fake", &fake_stt_ops, NULL}, .extract = {"fake", &fake_extract_ops, NULL},
		.reply = {"fake", &fake_reply_ops, NULL}, .concurrency = 3,
		.stages = BENCH_STT | BENCH_EXTRACT | BENCH_REPLY};
	benchfix_open(&fx->b, "judge", opts);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	unlink(fx->conf);
	if (benchfix_close(&fx->b) != 0)
		return 1;
	mockserver_stop(fx->ms);
	backend_cleanup(); /* the judge's ctx */
	provider_config_free();
	unsetenv("FORMDESK_CONFIG");
	unsetenv("OPENAI_BASE_URL");
	unsetenv("OPENAI_API_KEY");
	free(fx);
	return 0;
}

/* judged_run: the bench run with the OpenAI judge on the fixture's server, into a new
 * database (caller closes with benchdb_close). Output: the counts in *c; *msg as bench_run
 * leaves it (caller frees). */
static struct benchdb *judged_run(struct fixture *fx, struct bench_counts *c, char **msg)
{
	struct benchdb *db = NULL;
	fx->judge = judge_on(fx, "openai");
	fx->b.cfg.judge = &fx->judge;
	assert_int_equal(benchdb_open(fx->b.db, &db, msg), ERR_OK);
	if (bench_run(&fx->b.cfg, db, c, msg) != ERR_OK)
		fail_msg("bench_run: %s", *msg);
	return db;
}

/* Sums over the stored rows. */
struct sums {
	long words, word_errors, word_genuine, word_offline, pass, pass_rules, asks;
	char name_judge[32], asks_judge[32];
};

static int sum_row(void *ud, const char *spec, const char *key, const char *data)
{
	struct sums *s = ud;
	cJSON *o = cJSON_Parse(data);
	const cJSON *c, *v;
	s->words += benchfix_num(o, "words");
	s->word_errors += benchfix_num(o, "word_errors");
	s->word_genuine += benchfix_num(o, "word_genuine");
	s->word_offline += cJSON_GetObjectItem(o, "word_genuine_offline")
				   ? benchfix_num(o, "word_genuine_offline")
				   : benchfix_num(o, "word_genuine");
	s->pass += cJSON_IsTrue(cJSON_GetObjectItem(o, "pass"));
	v = cJSON_GetObjectItem(o, "pass_rules");
	s->pass_rules += v ? cJSON_IsTrue(v) : cJSON_IsTrue(cJSON_GetObjectItem(o, "pass"));
	s->asks += cJSON_IsTrue(cJSON_GetObjectItem(o, "asks"));
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(o, "checks"))
		if ((v = cJSON_GetObjectItem(c, "llm_judge")))
			snprintf(s->name_judge, sizeof s->name_judge, "%s", v->valuestring);
	if ((v = cJSON_GetObjectItem(o, "asks_judge")))
		snprintf(s->asks_judge, sizeof s->asks_judge, "%s", v->valuestring);
	cJSON_Delete(o);
	return 0;
}

static struct sums sums(struct benchdb *db, const char *scope, const char *stage)
{
	struct sums s = {0};
	assert_int_equal(benchdb_each(db, stage, scope, "fake", sum_row, &s), ERR_OK);
	return s;
}

static const cJSON *at(const cJSON *o, const char *a, const char *b)
{
	return cJSON_GetObjectItemCaseSensitive(b ? cJSON_GetObjectItemCaseSensitive(o, a) : o,
						b ? b : a);
}

/* The request about naam/kaam, as platform.openai.com/docs/api-reference/chat/create
 * describes it: POST /v1/chat/completions, Bearer key, the model, temperature 0, a strict
 * JSON schema with the verdicts, the system prompt and the question. */
static void check_request(struct mockserver *ms)
{
	const struct mock_request *q = NULL;
	for (int i = 0; (q = mockserver_request(ms, i)); i++)
		if (mock_body_has(q, "System words here: kaam"))
			break;
	assert_non_null(q);
	assert_string_equal(q->method, "POST");
	assert_string_equal(q->path, "/v1/chat/completions");
	assert_string_equal(mock_header(q, "authorization"), "Bearer sk-test-judge-31");
	assert_string_equal(mock_header(q, "content-type"), "application/json");
	cJSON *b = cJSON_Parse(q->body);
	assert_string_equal(at(b, "model", NULL)->valuestring, "judge-model");
	assert_true(cJSON_IsNumber(at(b, "temperature", NULL)) && at(b, "temperature", NULL)->valuedouble == 0);
	assert_null(at(b, "stream", NULL));
	const cJSON *rf = at(b, "response_format", NULL);
	assert_string_equal(at(rf, "type", NULL)->valuestring, "json_schema");
	const cJSON *js = at(rf, "json_schema", NULL);
	assert_string_equal(at(js, "name", NULL)->valuestring, "wer_verdict");
	assert_true(cJSON_IsTrue(at(js, "strict", NULL)));
	const cJSON *en = at(at(at(js, "schema", "properties"), "verdict", NULL), "enum", NULL);
	assert_int_equal(cJSON_GetArraySize(en), 3);
	assert_string_equal(cJSON_GetArrayItem(en, 0)->valuestring, "equivalent");
	assert_string_equal(cJSON_GetArrayItem(en, 1)->valuestring, "similar");
	const cJSON *msgs = at(b, "messages", NULL);
	assert_int_equal(cJSON_GetArraySize(msgs), 2);
	assert_string_equal(at(cJSON_GetArrayItem(msgs, 0), "role", NULL)->valuestring, "system");
	assert_non_null(strstr(at(cJSON_GetArrayItem(msgs, 0), "content", NULL)->valuestring,
			       "phonetically similar"));
	assert_string_equal(at(cJSON_GetArrayItem(msgs, 1), "role", NULL)->valuestring, "user");
	assert_string_equal(at(cJSON_GetArrayItem(msgs, 1), "content", NULL)->valuestring,
			    "Reference transcript: mera naam sunita hai\nSystem transcript: mera kaam "
			    "sunita hai\nReference words here: naam\nSystem words here: kaam");
	cJSON_Delete(b);
}

static bool file_has(const char *path, const char *s)
{
	FILE *f = fopen(path, "r");
	char buf[65536];
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return strstr(buf, s) != NULL;
}

/* The judge is a row of the backend table (agent/stages/backend.h, stage JUDGE): found by name
 * among the language-model providers, no offline one; asked through the table's blocking
 * call, with its usage and model. */
static void judge_backend_row(void **state)
{
	struct fixture *fx = *state;
	struct backend b = {0};
	const char *why = NULL;
	char known[256];
	mockserver_set_handler(fx->ms, judge_handler, NULL);
	assert_string_equal(backend_stage_name(BACKEND_JUDGE), "JUDGE");
	assert_null(backend_default(BACKEND_JUDGE));
	backend_known(BACKEND_JUDGE, known, sizeof known);
	assert_non_null(strstr(known, "openai"));
	assert_null(strstr(known, "rules"));
	assert_int_equal(backend_judge("rules", &b, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "unknown JUDGE provider \"rules\""));
	b = judge_on(fx, "openai");
	assert_string_equal(b.name, "openai");
	assert_string_equal(backend_model(&b), "judge-model");
	struct judge_llm_item q = {JUDGE_LLM_NAME, "Sunita Devi", "sunita devi", NULL, NULL};
	struct judge_answer a = {NULL, NULL};
	assert_int_equal(backend_ask_judge(&b, &q, &a), ERR_OK);
	assert_string_equal(a.verdict, "same");
	assert_non_null(strstr(a.raw, "same"));
	free(a.raw);
	struct backend_usage u;
	assert_true(backend_last_usage(&b, &u));
	assert_string_equal(u.model, "judge-model");
	assert_int_equal(u.tokens_in, 100);
	/* a judge is not another stage's backend */
	char *text = NULL;
	assert_int_equal(backend_transcribe(&b, &(struct stt_request){0}, &text), ERR_INVALID);
}

static void judged_and_cached(void **state)
{
	struct fixture *fx = *state;
	struct benchdb *db = NULL;
	struct bench_counts c = {0};
	char *msg = NULL, *scope = bench_scope(&fx->b.cfg), path[128];

	mockserver_set_handler(fx->ms, judge_handler, NULL);
	db = judged_run(fx, &c, &msg);
	/* 3 segments (naam/kaam, ji, nahi/sahi; 5 mahine is forgiven offline), 1 name, 1 reply */
	assert_int_equal(c.judge.items, 5);
	assert_int_equal(c.judge.by_kind[JUDGE_LLM_WER], 3);
	assert_int_equal(c.judge.by_kind[JUDGE_LLM_NAME], 1);
	assert_int_equal(c.judge.by_kind[JUDGE_LLM_ASKS], 1);
	assert_int_equal(c.judge.asked, 5);
	assert_int_equal(c.judge.cached, 0);
	assert_int_equal(c.judge.failed, 0);
	assert_int_equal(c.judge.forgiven, 4);
	assert_int_equal(mockserver_count(fx->ms), 5);
	/* 5 calls x (100 tokens in at $2/M + 10 out at $10/M) */
	assert_true(c.judge.cost_usd > 0.001499 && c.judge.cost_usd < 0.001501);
	check_request(fx->ms);

	struct sums s = sums(db, scope, "stt");
	assert_int_equal(s.words, 8);
	assert_int_equal(s.word_errors, 4);
	assert_int_equal(s.word_offline, 3); /* LLM-WER offline 3/8 */
	assert_int_equal(s.word_genuine, 1); /* with the judge 1/8 */
	struct sums x = sums(db, scope, "extract");
	assert_int_equal(x.pass_rules, 3);
	assert_int_equal(x.pass, 4);
	assert_string_equal(x.name_judge, "same");
	struct sums r = sums(db, scope, "reply");
	assert_int_equal(r.pass_rules, 3);
	assert_int_equal(r.pass, 4);
	assert_string_equal(r.asks_judge, "yes");

	assert_int_equal(benchreport_write(db, scope, &fx->b.cfg, &c, fx->b.out, &msg), ERR_OK);
	snprintf(path, sizeof path, "%s/report.md", fx->b.out);
	assert_true(file_has(path, "LLM judge: `llm:openai:judge-model`"));
	assert_true(file_has(path, "| STT differing segments (LLM-WER) | offline: name judge, numbers | 4 | 1 forgiven | |"));
	assert_true(file_has(path, "| | LLM `wer-v1` | 3 | 2 forgiven | 0 |"));
	assert_true(file_has(path, "| | LLM `name-v1` (name judge unsure) | 1 | 1 same | 0 |"));
	assert_true(file_has(path, "| | LLM `asks-v1` (words inconclusive) | 1 | 1 yes | 0 |"));

	/* The cache: a second run asks nothing and comes to the same verdicts. */
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	assert_int_equal(mockserver_count(fx->ms), 5);
	assert_int_equal(c.judge.asked, 0);
	assert_int_equal(c.judge.cached, 5);
	assert_true(c.judge.cost_usd == 0);
	s = sums(db, scope, "stt");
	assert_int_equal(s.word_genuine, 1);
	assert_int_equal(s.word_offline, 3);
	assert_int_equal(sums(db, scope, "extract").pass, 4);
	assert_int_equal(sums(db, scope, "reply").pass, 4);
	free(scope);
	benchdb_close(db);
}

static void failing_judge(void **state)
{
	struct fixture *fx = *state;
	struct benchdb *db = NULL;
	struct bench_counts c = {0};
	char *msg = NULL, *scope = bench_scope(&fx->b.cfg), *d = NULL;

	mockserver_set_default(fx->ms, (struct mock_reply){500, NULL,
		"{\"error\":{\"message\":\"the judge is down\"}}", NULL, 0});
	db = judged_run(fx, &c, &msg);
	assert_int_equal(c.judge.items, 5);
	assert_int_equal(c.judge.asked, 5);
	assert_int_equal(c.judge.failed, 5);
	/* the deterministic verdicts stand */
	struct sums s = sums(db, scope, "stt");
	assert_int_equal(s.word_genuine, 3);
	struct sums x = sums(db, scope, "extract");
	assert_int_equal(x.pass, 3);
	assert_string_equal(x.name_judge, "failed");
	struct sums r = sums(db, scope, "reply");
	assert_int_equal(r.pass, 3);
	assert_int_equal(r.asks, 1); /* only the script's wording is settled by its words */
	assert_string_equal(r.asks_judge, "failed");
	/* a failure is recorded, not cached as a verdict: the next run asks again */
	assert_int_equal(benchdb_judgement_get(db, "llm:openai:judge-model", JUDGE_LLM_NAME_VERSION,
					       "[\"name\",\"Sunita\",\"Sunita Devi\",\"\",\"\"]", &d, NULL),
			 ERR_NOTFOUND);
	assert_int_equal(benchreport_write(db, scope, &fx->b.cfg, &c, fx->b.out, &msg), ERR_OK);
	char path[128];
	snprintf(path, sizeof path, "%s/report.md", fx->b.out);
	assert_true(file_has(path, "| | LLM `wer-v1` | 0 | 0 forgiven | 3 |"));
	assert_true(file_has(path, "5 asked now, 5 failed"));

	mockserver_set_handler(fx->ms, judge_handler, NULL);
	int before = mockserver_count(fx->ms);
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	assert_int_equal(mockserver_count(fx->ms) - before, 5);
	assert_int_equal(c.judge.failed, 0);
	assert_int_equal(sums(db, scope, "stt").word_genuine, 1);
	assert_int_equal(sums(db, scope, "extract").pass, 4);
	free(scope);
	benchdb_close(db);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(judge_backend_row, setup, teardown),
	  cmocka_unit_test_setup_teardown(judged_and_cached, setup, teardown),
	  cmocka_unit_test_setup_teardown(failing_judge, setup, teardown))
