/* Keys never leak: the scrub itself (agent/stages/secret.h), then every provider against a local
 * server that quotes the caller's key at every offset from 0 to 400 bytes into its error
 * message, and into its successful answers (an acknowledgement, a transcript), as it is
 * and escaped as JSON or a URL would (ESCAPES): neither
 * the key nor any 8 bytes of it in a row may appear in what formdesk keeps (the stage's
 * error, the extraction, the transcript). Google speech: the access token and the service
 * account's private key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "agent/rules/extraction.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"
#include "agent/stages/secret.h"
#include "tests/support/envclear.h"
#include "tests/support/mockserver.h"
#include "tests/support/svcacct.h"
#include "tests/support/testmain.h"

#define MAX_OFFSET 400

static struct mockserver *ms;
static struct form *form;
static char cred_path[64];
static char *pem;

/* What the server does: quote `quote` after `off` bytes of filler, in an error (status
 * 400) or in a successful answer built from `ok_shape` (a printf format with one %s). */
static struct {
	const char *quote;
	int off;
	int status;
	const char *ok_shape;
	const char *token; /* Google: the access token the token endpoint gives */
	int escape;        /* how the quote is written (ESCAPES) */
	char body[4096];
} srv;

/* How a server may write the key it quotes: as it is; every byte as JSON's \u00XX; every
 * other byte so; '/', '+' and '-' escaped (\/ as JSON encoders write a slash, \u002b,
 * \u002d); every other byte escaped twice (\\u00XX: a JSON string inside a JSON string,
 * as a model's answer in a chat-completions body is), as URLs' %XX. */
enum { ESC_NONE, ESC_ALL, ESC_HALF, ESC_PUNCT, ESC_TWICE, ESC_URL, ESCAPES };

/* quote: srv.quote written as srv.escape says, into out (size n). */
static void quote(char *out, size_t n)
{
	size_t o = 0;
	for (const char *p = srv.quote; *p && o + 16 < n; p++) {
		unsigned char c = (unsigned char)*p;
		bool odd = (p - srv.quote) % 2;
		if (srv.escape == ESC_ALL || (srv.escape == ESC_HALF && odd))
			o += (size_t)snprintf(out + o, n - o, "\\u%04x", c);
		else if (srv.escape == ESC_PUNCT && c == '/')
			o += (size_t)snprintf(out + o, n - o, "\\/");
		else if (srv.escape == ESC_PUNCT && (c == '+' || c == '-'))
			o += (size_t)snprintf(out + o, n - o, "\\u%04X", c);
		else if (srv.escape == ESC_TWICE && odd)
			o += (size_t)snprintf(out + o, n - o, "\\\\u%04x", c);
		else if (srv.escape == ESC_URL && odd)
			o += (size_t)snprintf(out + o, n - o, "%%%02X", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

static void handler(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	(void)ud;
	if (strcmp(req->path, "/token") == 0) {
		snprintf(srv.body, sizeof(srv.body),
			 "{\"access_token\":\"%s\",\"expires_in\":3599,\"token_type\":\"Bearer\"}", srv.token);
		*out = (struct mock_reply){200, NULL, srv.body, NULL, 0};
		return;
	}
	char said[1200], q[700];
	quote(q, sizeof(q));
	snprintf(said, sizeof(said), "%*s%s is not valid", srv.off, "", q);
	for (int i = 0; i < srv.off; i++)
		said[i] = (char)('a' + i % 26);
	if (srv.status == 200)
		snprintf(srv.body, sizeof(srv.body), srv.ok_shape, said);
	else
		snprintf(srv.body, sizeof(srv.body), "{\"error\":{\"message\":\"%s\",\"type\":\"invalid_request_error\"}}",
			 said);
	*out = (struct mock_reply){srv.status, NULL, srv.body, NULL, 0};
}

/* Whether s shows 8 bytes of key in a row (or the whole of a shorter key). */
static bool shows(const char *s, const char *key)
{
	size_t k = strlen(key), w = k < 8 ? k : 8;
	if (!s)
		return false;
	for (size_t i = 0; i + w <= k; i++) {
		char part[16];
		memcpy(part, key + i, w);
		part[w] = '\0';
		if (strstr(s, part))
			return true;
	}
	return false;
}

static void test_scrub(void **state)
{
	(void)state;
	secret_forget_all();
	assert_int_equal(secret_add("sk-live-0123456789abcdefXYZ"), ERR_OK);
	assert_int_equal(secret_add("k9Qz"), ERR_OK);
	assert_int_equal(secret_add("AbCd/EfGh+IjKl/MnOp"), ERR_OK); /* a private key's line */
	assert_int_equal(secret_add("ab"), ERR_OK); /* too short to be told from text */
	static const char *const cases[][2] = {
		{"key sk-live-0123456789abcdefXYZ refused", "key *** refused"},
		{"sk-live-0123456789abcdefXYZsk-live-0123456789abcdefXYZ", "***"},
		{"cut: sk-live-012", "cut: ***"},         /* the provider cut the key short */
		{"tail 456789abcdefXYZ.", "tail ***."},  /* or quoted its end */
		{"seven 0123456 ok", "seven 0123456 ok"}, /* 7 bytes: not enough to say */
		{"short k9Qz here", "short *** here"},
		{"ab stays", "ab stays"},
		{"", ""},
		/* escaped: JSON's \uXXXX, \/ and the rest, URLs' %XX, two levels deep */
		{"key \\u0073k-live-0123456789abcdefXYZ!", "key ***!"},
		{"\\u0073\\u006b\\u002d\\u006c\\u0069\\u0076\\u0065\\u002d\\u0030\\u0031\\u0032",
		 "***"},
		{"\"sk-live-0123456789abcdef\\u0058\\u0059\\u005A\" no", "\"***\" no"},
		{"p AbCd\\/EfGh+IjKl\\/MnOp q", "p *** q"},
		{"in a string in a string: sk-live-\\\\u00301234 .", "in a string in a string: *** ."},
		{"url sk-live-01234567%38%39abcdef", "url ***"},
		{"k9\\u0051z", "***"},
		{"text \\u0041\\n\\/ 100%41 \\uZZZZ \\", "text \\u0041\\n\\/ 100%41 \\uZZZZ \\"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		snprintf(buf, sizeof(buf), "%s", cases[i][0]);
		secret_scrub_str(buf);
		assert_string_equal(buf, cases[i][1]);
	}
	/* a body that is not a string: the length comes back */
	char body[] = "{\"k\":\"sk-live-0123456789abcdefXYZ\"}";
	size_t n = secret_scrub(body, sizeof(body) - 1);
	assert_int_equal(n, strlen("{\"k\":\"***\"}"));
	assert_string_equal(body, "{\"k\":\"***\"}");
	secret_forget_all();
	char plain[] = "sk-live-0123456789abcdefXYZ";
	secret_scrub_str(plain);
	assert_string_equal(plain, "sk-live-0123456789abcdefXYZ");
}

static const char *const ENV_VARS[] = {
	"OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY",
	"GEMINI_BASE_URL", "GEMINI_API_KEY", "MISTRAL_BASE_URL", "MISTRAL_API_KEY", "GROQ_BASE_URL",
	"GROQ_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "LOCAL_BASE_URL", "LOCAL_API_KEY",
	"ELEVENLABS_BASE_URL", "ELEVENLABS_API_KEY", "SARVAM_BASE_URL", "SARVAM_API_KEY",
	"DEEPGRAM_BASE_URL", "DEEPGRAM_API_KEY", "GOOGLE_SPEECH_BASE_URL",
	"GOOGLE_APPLICATION_CREDENTIALS", "WHISPERCPP_BASE_URL", "FORMDESK_CONFIG", NULL,
};

/* A key for provider i: long, random-looking, unlike any other, as real keys are. */
static void make_key(char *key, size_t n, int i)
{
	snprintf(key, n, "sk-%02d-Zq8Xv3Lm7Pw2Rt9Yb4Nc6Hd1Jf5Kg0", i);
}

static struct extract_request extract_req(void)
{
	return (struct extract_request){.form = form, .asked = form_find(form, "district"),
					.transcript = "गया", .today = {2026, 3, 15}};
}

/* Everything formdesk keeps of an EXTRACT call. */
static void check_extract(const struct backend *be, const char *key, const char *what)
{
	struct extract_request rq = extract_req();
	struct extraction *ex = NULL;
	backend_extract_fields(be, &rq, &ex);
	struct backend_usage u;
	assert_true(backend_last_usage(be, &u));
	char *js = NULL;
	if (ex) {
		cJSON *j = extraction_to_json(ex);
		js = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
	}
	if (shows(u.error, key) || shows(js, key) || (ex && (shows(ex->ack, key) || shows(ex->fault, key))))
		fail_msg("%s at offset %d (escape %d): the key shows: error \"%s\" extraction %s", what, srv.off,
			 srv.escape, u.error, js ? js : "(none)");
	cJSON_free(js);
	extraction_free(ex);
}

static void test_llm_providers(void **state)
{
	(void)state;
	int n;
	const struct provider_info *t = provider_table(PROVIDER_LLM, &n);
	int tried = 0;
	for (int i = 0; i < n; i++) {
		char key[96];
		make_key(key, sizeof(key), i);
		envclear(ENV_VARS);
		backend_cleanup();
		setenv(t[i].base_env, mockserver_url(ms), 1);
		setenv(t[i].key_env ? t[i].key_env : "LOCAL_API_KEY", key, 1);
		struct backend be;
		const char *why = NULL;
		if (backend_extract(t[i].name, &be, &why) != ERR_OK)
			fail_msg("%s: %s", t[i].name, why ? why : "");
		srv.quote = key;
		srv.ok_shape = t[i].protocol == PROTO_ANTHROPIC
				       ? "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}],"
					 "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}"
				       : "{\"choices\":[{\"message\":{\"content\":\"{\\\"ack\\\":\\\"%s\\\",\\\"fields\\\":[]}\"},"
					 "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}";
		for (srv.escape = 0; srv.escape < ESCAPES; srv.escape++)
			for (srv.off = 0; srv.off <= MAX_OFFSET; srv.off++) {
				srv.status = 400;
				check_extract(&be, key, t[i].name);
				srv.status = 200;
				check_extract(&be, key, t[i].name);
			}
		tried++;
	}
	assert_int_equal(tried, 7);
	envclear(ENV_VARS);
	backend_cleanup();
}

static const struct stt_request REQ = {(const float[160]){0}, 160, 16000, NULL, "hi"};

/* The successful answer of each speech provider, with the transcript as %s. */
static const char *stt_shape(const char *name)
{
	if (strcmp(name, "deepgram") == 0)
		return "{\"results\":{\"channels\":[{\"alternatives\":[{\"transcript\":\"%s\"}]}]}}";
	if (strcmp(name, "sarvam") == 0)
		return "{\"transcript\":\"%s\"}";
	if (strcmp(name, "google") == 0)
		return "{\"results\":[{\"alternatives\":[{\"transcript\":\"%s\"}]}]}";
	return "{\"text\":\"%s\"}";
}

static void check_stt(const struct backend *be, const char *key, const char *what)
{
	char *text = NULL;
	backend_transcribe(be, &REQ, &text);
	struct backend_usage u;
	assert_true(backend_last_usage(be, &u));
	if (shows(u.error, key) || shows(text, key))
		fail_msg("%s at offset %d (status %d, escape %d): the key shows: error \"%s\" text \"%s\"", what, srv.off,
			 srv.status, srv.escape, u.error, text ? text : "(none)");
	free(text);
}

/* A fresh RSA key in a service-account file naming the test server's token endpoint. */
static int write_credentials(void)
{
	EVP_PKEY *k = NULL;
	if (svcacct_write(ms, cred_path, sizeof(cred_path), &k, &pem) != 0)
		return -1;
	EVP_PKEY_free(k);
	return 0;
}

static void test_stt_providers(void **state)
{
	(void)state;
	int n;
	const struct provider_info *t = provider_table(PROVIDER_STT, &n);
	int tried = 0;
	/* a line from the middle of the private key, as a server might quote it */
	char pem_line[65];
	const char *nl = strchr(pem, '\n');
	snprintf(pem_line, sizeof(pem_line), "%.64s", nl ? nl + 1 : pem);
	for (int i = 0; i < n; i++) {
		if (!t[i].key_env)
			continue; /* whisper.cpp on this machine takes no key */
		bool google = t[i].oauth;
		char key[96];
		make_key(key, sizeof(key), i);
		envclear(ENV_VARS);
		backend_cleanup();
		setenv(t[i].base_env, mockserver_url(ms), 1);
		srv.token = key;
		setenv(t[i].key_env, google ? cred_path : key, 1);
		struct backend be;
		const char *why = NULL;
		if (backend_stt(t[i].name, &be, &why) != ERR_OK)
			fail_msg("%s: %s", t[i].name, why ? why : "");
		srv.ok_shape = stt_shape(t[i].name);
		for (int q = 0; q < (google ? 2 : 1); q++) {
			srv.quote = q ? pem_line : key;
			for (srv.escape = 0; srv.escape < ESCAPES; srv.escape++)
				for (srv.off = 0; srv.off <= MAX_OFFSET; srv.off++) {
					srv.status = 400;
					check_stt(&be, srv.quote, t[i].name);
					srv.status = 200;
					check_stt(&be, srv.quote, t[i].name);
				}
		}
		tried++;
	}
	assert_int_equal(tried, 6);
	envclear(ENV_VARS);
	backend_cleanup();
}

static int setup(void **state)
{
	(void)state;
	envclear(ENV_VARS);
	ms = mockserver_start();
	if (!ms || form_load("forms/armman_enrollment.json", &form, NULL) != ERR_OK ||
	    write_credentials() != 0)
		return -1;
	mockserver_record(ms, false);
	mockserver_set_handler(ms, handler, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mockserver_stop(ms);
	form_free(form);
	backend_cleanup();
	secret_forget_all();
	unlink(cred_path);
	free(pem);
	envclear(ENV_VARS);
	return 0;
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_scrub),
	  cmocka_unit_test(test_llm_providers),
	  cmocka_unit_test(test_stt_providers))
