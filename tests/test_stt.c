/* The speech-to-text backends against a local server that checks each request as the
 * provider documents it (tests/data/stt_<provider>/expect: endpoint, auth header,
 * multipart parts or raw body, the language in the provider's form, a 16 kHz mono 16-bit
 * WAV) and answers with the documented response; Google's service-account token (a JWT
 * signed RS256, verified here with the public key); errors and usage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "agent/stages/backend.h"
#include "agent/stages/http.h"
#include "agent/stages/secret.h"
#include "agent/stages/provider.h"
#include "agent/stages/stt_wav.h"
#include "tests/support/envclear.h"
#include "tests/support/loopwait.h"
#include "tests/support/reqcheck.h"
#include "tests/support/mockserver.h"
#include "tests/support/svcacct.h"
#include "tests/support/testmain.h"

#define N_SAMPLES 8000 /* 0.5 s at 16 kHz */

static struct mockserver *ms;
static float samples[N_SAMPLES];
static EVP_PKEY *google_key;
static char cred_path[64];

static const char *const ENV_VARS[] = {
	"ELEVENLABS_BASE_URL", "ELEVENLABS_API_KEY", "SARVAM_BASE_URL", "SARVAM_API_KEY",
	"DEEPGRAM_BASE_URL", "DEEPGRAM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GROQ_BASE_URL",
	"GROQ_API_KEY", "GOOGLE_SPEECH_BASE_URL", "GOOGLE_APPLICATION_CREDENTIALS",
	"WHISPERCPP_BASE_URL", "FORMDESK_CONFIG", NULL,
};

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < N_SAMPLES; i++)
		samples[i] = 0.3f * sinf(2.0f * 3.14159265f * 220.0f * (float)i / 16000.0f);
	return svcacct_open(ENV_VARS, &ms, cred_path, sizeof(cred_path), &google_key);
}

/* the bytes are a WAV file: mono, 16 kHz, 16-bit, N_SAMPLES samples */
static bool is_wav16k(const unsigned char *d, size_t len)
{
	return len == 44 + 2 * N_SAMPLES && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WAVE", 4) == 0 &&
	       d[22] == 1 && d[23] == 0 && (d[24] | d[25] << 8 | d[26] << 16) == 16000 && d[34] == 16;
}

static bool check_wav(const struct mock_request *q, const cJSON *body, const char *where)
{
	if (strcmp(where, "body") == 0)
		return is_wav16k((const unsigned char *)q->body, q->body_len);
	if (strncmp(where, "part:", 5) == 0) {
		const struct mock_part *p = mock_part_named(q, where + 5);
		return p && p->filename && p->type && strcmp(p->type, "audio/wav") == 0 &&
		       is_wav16k((const unsigned char *)p->data, p->len);
	}
	if (strncmp(where, "json:", 5) == 0) {
		const cJSON *v = reqcheck_jpath(body, where + 5);
		if (!cJSON_IsString(v))
			return false;
		size_t n = strlen(v->valuestring);
		unsigned char *d = malloc(n);
		int len = EVP_DecodeBlock(d, (const unsigned char *)v->valuestring, (int)n);
		size_t pad = (n && v->valuestring[n - 1] == '=') + (n > 1 && v->valuestring[n - 2] == '=');
		bool ok = len > 0 && is_wav16k(d, (size_t)len - pad);
		free(d);
		return ok;
	}
	return false;
}

/* The expect files' own verb: wav WHERE, the audio sent (check_wav). */
static int stt_verb(const char *verb, const char *arg, const char *rest, const struct mock_request *q,
		    const cJSON *body)
{
	(void)rest;
	return strcmp(verb, "wav") == 0 ? check_wav(q, body, arg) : -1;
}

static const struct stt_request REQ = {samples, N_SAMPLES, 16000, NULL, "hi"};

static void test_providers(void **state)
{
	(void)state;
	/* one folder per provider under tests/data: expect, response.json */
	static const char *const dirs[] = {"stt_elevenlabs", "stt_sarvam", "stt_deepgram", "stt_openai",
					   "stt_groq", "stt_whispercpp", "stt_google"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *body = NULL;
		const char *spec = reqcheck_case(dirs[i], ENV_VARS, ms, stt_verb, &body);
		mockserver_clear(ms);
		bool google = strcmp(dirs[i], "stt_google") == 0;
		if (google)
			svcacct_serve(body, 0);
		else
			mockserver_push(ms, (struct mock_reply){200, NULL, body, NULL, 0});
		struct backend be;
		const char *why = NULL;
		if (backend_stt(spec, &be, &why) != ERR_OK)
			fail_msg("%s: %s", spec, why);
		char *text = NULL;
		if (backend_transcribe(&be, &REQ, &text) != ERR_OK) {
			struct backend_usage u;
			backend_last_usage(&be, &u);
			fail_msg("%s: %s", spec, u.error);
		}
		assert_string_equal(text, "मेरा नाम सुनीता देवी है");
		free(text);
		const struct mock_request *q = mockserver_request(ms, google ? 1 : 0);
		assert_non_null(q);
		reqcheck_case_request(dirs[i], ms, q, stt_verb);
		struct backend_usage u;
		assert_true(backend_last_usage(&be, &u));
		assert_true(fabs(u.audio_s - 0.5) < 1e-9);
		assert_int_equal(u.http_status, 200);
		if (google) {
			assert_int_equal(svcacct_grant_ok(), 1);
			/* the token is kept: a second call asks only for the transcript */
			assert_int_equal(backend_transcribe(&be, &REQ, &text), ERR_OK);
			free(text);
			assert_int_equal(mockserver_count(ms), 3);
			mockserver_set_handler(ms, NULL, NULL);
		}
		free(body);
	}
	envclear(ENV_VARS);
}

/* elevenlabs: ElevenLabs' STT row on the mock server (cleared) with the API key key. */
static struct backend elevenlabs(const char *key)
{
	struct backend be;
	setenv("ELEVENLABS_BASE_URL", mockserver_url(ms), 1);
	setenv("ELEVENLABS_API_KEY", key, 1);
	assert_int_equal(backend_stt("elevenlabs", &be, NULL), ERR_OK);
	mockserver_clear(ms);
	return be;
}

static void test_errors(void **state)
{
	(void)state;
	envclear(ENV_VARS);
	provider_config_free();
	char cfg[] = "/tmp/formdesk-stt-XXXXXX";
	int fd = mkstemp(cfg);
	const char text[] = "{\"providers\":{\"elevenlabs\":{\"usd_per_audio_minute\":0.4,\"retries\":1}}}";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	setenv("FORMDESK_CONFIG", cfg, 1);
	struct backend be = elevenlabs("el-secret-9");
	char *out = NULL;
	struct backend_usage u;
	mockserver_push(ms, (struct mock_reply){401, NULL, "{\"detail\":{\"status\":\"invalid_api_key\",\"message\":\"Invalid API key: el-secret-9\"}}", NULL, 0});
	assert_int_equal(backend_transcribe(&be, &REQ, &out), ERR_BACKEND);
	assert_true(backend_last_usage(&be, &u));
	assert_non_null(strstr(u.error, "HTTP 401"));
	assert_null(strstr(u.error, "el-secret-9"));

	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){429, NULL, "{}", "Retry-After: 0", 0});
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"text\":\"हाँ\"}", NULL, 0});
	assert_int_equal(backend_transcribe(&be, &REQ, &out), ERR_OK);
	assert_string_equal(out, "हाँ");
	free(out);
	assert_true(backend_last_usage(&be, &u));
	assert_int_equal(u.attempts, 2);
	/* 0.5 s at $0.4 a minute */
	assert_true(fabs(u.cost_usd - 0.5 / 60.0 * 0.4) < 1e-12);

	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"language_code\":\"hin\"}", NULL, 0});
	assert_int_equal(backend_transcribe(&be, &REQ, &out), ERR_BACKEND);
	assert_true(backend_last_usage(&be, &u));
	assert_non_null(strstr(u.error, "no transcript"));

	/* no audio: nothing is sent */
	mockserver_clear(ms);
	struct stt_request none = {NULL, 0, 16000, "ref", "hi"};
	assert_int_equal(backend_transcribe(&be, &none, &out), ERR_INVALID);
	assert_int_equal(mockserver_count(ms), 0);

	/* missing key and missing credentials are named */
	unsetenv("DEEPGRAM_API_KEY");
	const char *why = NULL;
	assert_int_equal(backend_stt("deepgram", &be, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "DEEPGRAM_API_KEY"));
	setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json", 1);
	assert_int_equal(backend_stt("google", &be, &why), ERR_IO);
	assert_non_null(strstr(why, "credentials"));
	unlink(cfg);
	envclear(ENV_VARS);
	provider_config_free();
}

/* Google's access token is fetched without blocking the loop: with a token endpoint that
 * answers after 1.5 s, starting the request returns at once and the loop, polling every
 * 10 ms, never waits long between ticks; the transcript request goes out after the token
 * arrives, carrying it. (Fetched blocking, the start took the whole 1.5 s.) */
static void test_token_nonblocking(void **state)
{
	(void)state;
	backend_cleanup(); /* no token kept from an earlier test */
	char *body = NULL;
	const char *spec = reqcheck_case("stt_google", ENV_VARS, ms, stt_verb, &body);
	struct backend be;
	struct backend_usage u;
	struct http_result *res = svcacct_slow_token(backend_stt, spec, body, &REQ, &be, &u);
	char *text = NULL;
	assert_int_equal(backend_finish(&be, &REQ, res, &text, &u), ERR_OK);
	assert_string_equal(text, "मेरा नाम सुनीता देवी है");
	free(text);
	http_result_free(res);
	assert_int_equal(mockserver_count(ms), 2);
	assert_string_equal(mockserver_request(ms, 0)->path, "/token");
	char want[] = "Bearer ya29.test-token";
	secret_scrub_str(want); /* what the server saw is recorded as any text is: scrubbed */
	assert_string_equal(mock_header(mockserver_request(ms, 1), "authorization"), want);

	/* a token endpoint that fails ends the transcript's transfer with its reason */
	backend_cleanup();
	assert_int_equal(backend_stt(spec, &be, NULL), ERR_OK);
	mockserver_set_handler(ms, NULL, NULL);
	mockserver_clear(ms);
	struct http_client *c;
	assert_int_equal(http_client_new(&c), ERR_OK);
	mockserver_set_default(ms, (struct mock_reply){403, NULL, "{}", NULL, 0});
	res = loopwait_backend(c, &be, &REQ, &u, NULL);
	assert_int_equal(backend_finish(&be, &REQ, res, &text, &u), ERR_BACKEND);
	assert_non_null(strstr(u.error, "google token: HTTP 403"));
	assert_int_equal(mockserver_count(ms), 1);
	http_result_free(res);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, "{}", NULL, 0});
	http_client_free(c);
	free(body);
	envclear(ENV_VARS);
	provider_config_free();
}

/* The time to first byte is the server's answer, not curl's interim "100 Continue" nor
 * the upload: a server that answers after 1 s has a time to first byte of about 1 s
 * (it was stored as 0-2 ms). */
static void test_ttfb_delayed(void **state)
{
	(void)state;
	envclear(ENV_VARS);
	provider_config_free();
	struct backend be = elevenlabs("el-key");
	char *out = NULL;
	struct backend_usage u;
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"text\":\"हाँ\"}", NULL, 1000});
	assert_int_equal(backend_transcribe(&be, &REQ, &out), ERR_OK);
	free(out);
	assert_true(backend_last_usage(&be, &u));
	assert_true(u.ttfb_ms >= 950);
	assert_true(u.total_ms >= u.ttfb_ms);
	/* and no second's wait for a "100 Continue" the server never sends first */
	assert_true(u.total_ms < 1900);
	envclear(ENV_VARS);
	provider_config_free();
}

static void test_wav(void **state)
{
	(void)state;
	unsigned char *wav = NULL;
	size_t len = 0;
	assert_int_equal(stt_wav_encode(samples, N_SAMPLES, 16000, &wav, &len), ERR_OK);
	assert_true(is_wav16k(wav, len));
	free(wav);
	assert_int_equal(stt_wav_encode(samples, 10, 0, &wav, &len), ERR_INVALID);
}

TESTMAIN(setup, svcacct_teardown,
	  cmocka_unit_test(test_wav),
	  cmocka_unit_test(test_providers),
	  cmocka_unit_test(test_errors),
	  cmocka_unit_test(test_ttfb_delayed),
	  cmocka_unit_test(test_token_nonblocking))
