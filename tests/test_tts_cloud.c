/* The hosted TTS voices against a local server that checks each request as the provider
 * documents it (tests/data/tts_<provider>/expect: endpoint, auth header, JSON fields or
 * SSML, voice, language hi-IN, sample rate, output format) and answers the way the
 * provider does (raw 16-bit PCM, a WAV file, or a WAV file in base64 inside JSON); the
 * audio is decoded and resampled to the engine's 16 kHz. Also: a streamed answer handed
 * over before it has ended, the price per character from the config, errors, and the
 * "tts" entries of the config file. */
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

#include "agent/stages/backend.h"
#include "agent/stages/http.h"
#include "agent/stages/provider.h"
#include "agent/stages/tts_cloud.h"
#include "audio/resample.h"
#include "tests/support/envclear.h"
#include "tests/support/loopwait.h"
#include "tests/support/reqcheck.h"
#include "tests/support/mockserver.h"
#include "tests/support/svcacct.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

static struct mockserver *ms;
static EVP_PKEY *google_key;
static char cred_path[64];

static const char *const ENV_VARS[] = {
	"ELEVENLABS_BASE_URL", "ELEVENLABS_API_KEY", "SARVAM_BASE_URL", "SARVAM_API_KEY",
	"OPENAI_BASE_URL", "OPENAI_API_KEY", "GOOGLE_TTS_BASE_URL", "GOOGLE_APPLICATION_CREDENTIALS",
	"AZURE_SPEECH_BASE_URL", "AZURE_SPEECH_KEY", "AZURE_SPEECH_REGION", "FORMDESK_CONFIG", NULL,
};

static int setup(void **state)
{
	(void)state;
	return svcacct_open(ENV_VARS, &ms, cred_path, sizeof(cred_path), &google_key);
}

/* The audio a fake provider answers with: a quarter second of 330 Hz at rate Hz, as
 * 16-bit little-endian PCM (n samples into pcm, 2n bytes). */
static size_t tone(int rate, unsigned char *pcm)
{
	size_t n = (size_t)rate / 4;
	for (size_t i = 0; i < n; i++) {
		int16_t v = (int16_t)lrintf(12000.0f * sinf(2.0f * 3.14159265f * 330.0f * (float)i / (float)rate));
		pcm[2 * i] = (unsigned char)(v & 0xff);
		pcm[2 * i + 1] = (unsigned char)((uint16_t)v >> 8);
	}
	return n;
}

static void le(unsigned char *p, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A WAV file of n samples (pcm) at rate into out; its length. */
static size_t wav_file(const unsigned char *pcm, size_t n, int rate, unsigned char *out)
{
	memcpy(out, "RIFF", 4);
	le(out + 4, (uint32_t)(36 + 2 * n), 4);
	memcpy(out + 8, "WAVEfmt ", 8);
	le(out + 16, 16, 4);
	le(out + 20, 1, 2);
	le(out + 22, 1, 2);
	le(out + 24, (uint32_t)rate, 4);
	le(out + 28, (uint32_t)rate * 2, 4);
	le(out + 32, 2, 2);
	le(out + 34, 16, 2);
	memcpy(out + 36, "data", 4);
	le(out + 40, (uint32_t)(2 * n), 4);
	memcpy(out + 44, pcm, 2 * n);
	return 44 + 2 * n;
}

static int tts_verb(const char *verb, const char *arg, const char *rest, const struct mock_request *q,
		    const cJSON *body)
{
	(void)body;
	if (strcmp(verb, "body_has") != 0)
		return -1;
	char want[512];
	snprintf(want, sizeof(want), "%s%s%s", arg, rest ? " " : "", rest ? rest : "");
	return mock_body_has(q, want);
}

/* One provider: its answer's form ("pcm", "wav", or a JSON key holding base64 WAV), its
 * rate and the text said. */
struct row {
	const char *name, *answer, *content_type;
	int rate;
	const char *text;
};

static const struct row rows[] = {
	{"sarvam", "audios", NULL, 16000, "नमस्ते जी"},
	{"elevenlabs", "pcm", "audio/pcm", 16000, "नमस्ते जी"},
	{"google", "audioContent", NULL, 24000, "नमस्ते जी"},
	{"openai", "pcm", "audio/pcm", 24000, "नमस्ते जी"},
	{"azure", "wav", "audio/x-wav", 24000, "नमस्ते जी & <परिवार>"},
};

static void test_providers(void **state)
{
	(void)state;
	static unsigned char pcm[2 * 48000], file[44 + 2 * 48000];
	static char b64[4 * (sizeof(file) + 2) / 3 + 1], json[sizeof(b64) + 100];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		char dir[64];
		snprintf(dir, sizeof(dir), "tts_%s", r->name);
		const char *spec = reqcheck_case(dir, ENV_VARS, ms, tts_verb, NULL);
		mockserver_clear(ms);
		size_t n = tone(r->rate, pcm);
		struct mock_reply ans = {200, r->content_type, (const char *)pcm, NULL, 0};
		size_t len = 2 * n;
		if (strcmp(r->answer, "wav") == 0) {
			ans.body = (const char *)file;
			len = wav_file(pcm, n, r->rate, file);
		} else if (strcmp(r->answer, "pcm") != 0) {
			EVP_EncodeBlock((unsigned char *)b64, file, (int)wav_file(pcm, n, r->rate, file));
			if (strcmp(r->answer, "audios") == 0)
				snprintf(json, sizeof(json), "{\"request_id\":\"20261201_a1\",\"audios\":[\"%s\"]}", b64);
			else
				snprintf(json, sizeof(json), "{\"%s\":\"%s\"}", r->answer, b64);
			ans.body = json;
			len = strlen(json);
		}
		bool google = strcmp(r->name, "google") == 0;
		if (google)
			svcacct_serve(json, 0);
		else
			mockserver_push_bytes(ms, ans, len);
		struct backend be;
		const char *why = NULL;
		if (backend_tts(spec, &be, &why) != ERR_OK)
			fail_msg("%s: %s", spec, why);
		assert_true(backend_is_network(&be));
		struct tts_audio a = {0};
		if (backend_speak(&be, r->text, &a) != ERR_OK) {
			struct backend_usage u;
			backend_last_usage(&be, &u);
			fail_msg("%s: %s", spec, u.error);
		}
		const struct mock_request *q = mockserver_request(ms, google ? 1 : 0);
		assert_non_null(q);
		reqcheck_case_request(dir, ms, q, tts_verb);
		if (google) /* the token came by a valid JWT bearer grant, as for STT */
			assert_int_equal(svcacct_grant_ok(), 1);
		/* decoded: the very samples sent, at the provider's rate */
		assert_int_equal(a.rate, r->rate);
		assert_int_equal(a.n, n);
		for (size_t k = 0; k < n; k++) {
			int16_t v = (int16_t)(uint16_t)(pcm[2 * k] | pcm[2 * k + 1] << 8);
			if (fabsf(a.samples[k] - (float)v / 32768.0f) > 1e-6f)
				fail_msg("%s: sample %zu is %f, not %f", r->name, k, a.samples[k], v / 32768.0);
		}
		/* resampled to the engine's rate: as long, as loud */
		float *at16 = NULL;
		size_t m = 0;
		assert_int_equal(resample_buffer(a.samples, a.n, a.rate, 16000, &at16, &m), ERR_OK);
		assert_true(m >= 3990 && m <= 4010);
		double e1 = 0, e2 = 0;
		for (size_t k = 0; k < n; k++)
			e1 += (double)a.samples[k] * a.samples[k];
		for (size_t k = 0; k < m; k++)
			e2 += (double)at16[k] * at16[k];
		assert_true(fabs(sqrt(e2 / (double)m) / sqrt(e1 / (double)n) - 1) < 0.1);
		free(at16);
		free(a.samples);
		struct backend_usage u;
		assert_true(backend_last_usage(&be, &u));
		assert_int_equal(u.http_status, 200);
		assert_true(fabs(u.audio_s - 0.25) < 1e-9);
		assert_string_equal(u.provider, r->name);
		if (google)
			mockserver_set_handler(ms, NULL, NULL);
	}
	envclear(ENV_VARS);
}

/* Pieces of a streamed answer, and whether the first came before the server let the
 * last one go. */
struct pieces {
	int n;
	size_t samples;
	double first_ms;
	bool early;
};

static void on_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	struct pieces *p = ud;
	(void)s;
	assert_int_equal(rate, 24000);
	if (p->n++ == 0) {
		p->first_ms = at_ms;
		p->early = true; /* the server holds the last piece until released here */
		mockserver_release(ms);
	}
	p->samples += n;
}

static struct backend openai_backend(const char *config)
{
	envclear(ENV_VARS);
	provider_config_free();
	setenv("OPENAI_BASE_URL", mockserver_url(ms), 1);
	setenv("OPENAI_API_KEY", "sk-tts-key", 1);
	if (config) {
		static char path[] = "/tmp/formdesk-tts-XXXXXX";
		strcpy(path, "/tmp/formdesk-tts-XXXXXX");
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, config, strlen(config)), (ssize_t)strlen(config));
		close(fd);
		char why[200];
		assert_int_equal(provider_config_load(path, why, sizeof(why)), ERR_OK);
		unlink(path);
	}
	struct backend be;
	assert_int_equal(backend_tts("openai", &be, NULL), ERR_OK);
	return be;
}

/* Google's TTS row fetches its access token without blocking the loop, as the STT row
 * does: with a token endpoint that answers after 1.5 s, starting the request returns at
 * once (fetched blocking, the start took the whole 1.5 s), the loop polling every 10 ms
 * never waits long, and the synthesis goes out after the token, carrying it. */
static void test_token_nonblocking(void **state)
{
	(void)state;
	static unsigned char pcm[2 * 48000], file[44 + 2 * 48000];
	static char b64[4 * (sizeof(file) + 2) / 3 + 1], json[sizeof(b64) + 100];
	backend_cleanup(); /* no token kept from an earlier test */
	const char *spec = reqcheck_case("tts_google", ENV_VARS, ms, tts_verb, NULL);
	size_t n = tone(24000, pcm);
	EVP_EncodeBlock((unsigned char *)b64, file, (int)wav_file(pcm, n, 24000, file));
	snprintf(json, sizeof(json), "{\"audioContent\":\"%s\"}", b64);
	struct backend be;
	struct backend_usage u;
	struct http_result *res = svcacct_slow_token(backend_tts, spec, json, "नमस्ते जी", &be, &u);
	struct tts_audio a = {0};
	assert_int_equal(backend_finish(&be, "नमस्ते जी", res, &a, &u), ERR_OK);
	assert_int_equal(a.rate, 24000);
	assert_int_equal(a.n, n);
	free(a.samples);
	http_result_free(res);
	assert_int_equal(mockserver_count(ms), 2);
	assert_string_equal(mockserver_request(ms, 0)->path, "/token");
	mockserver_set_handler(ms, NULL, NULL);
	envclear(ENV_VARS);
	provider_config_free();
	backend_cleanup();
}

static void test_stream(void **state)
{
	(void)state;
	static unsigned char pcm[2 * 6000];
	size_t n = tone(24000, pcm);
	struct backend be = openai_backend(NULL);
	mockserver_clear(ms);
	/* odd cuts: a sample split between two pieces is put together again */
	size_t cuts[] = {1001, 4000, 8001};
	mockserver_push_pieces_bytes(ms, (struct mock_reply){200, "audio/pcm", (const char *)pcm, NULL, 0},
				     2 * n, cuts, 3, true, false);
	struct pieces p = {0};
	struct tts_audio a = {0};
	assert_int_equal(tts_cloud_speak_stream(be.ctx, "नमस्ते जी", on_piece, &p, &a), ERR_OK);
	assert_true(p.early);
	assert_true(p.n >= 2);
	assert_int_equal(p.samples, n);
	assert_int_equal(a.n, n);
	struct backend_usage u;
	assert_true(backend_last_usage(&be, &u));
	assert_true(u.ttfb_ms <= u.total_ms);
	free(a.samples);
}

static void test_price_voice_errors(void **state)
{
	(void)state;
	static unsigned char pcm[2 * 6000];
	size_t n = tone(24000, pcm);
	struct backend be = openai_backend(
		"{\"tts\":{\"openai\":{\"voice\":\"nova\",\"usd_per_million_characters\":15}}}");
	mockserver_clear(ms);
	mockserver_push_bytes(ms, (struct mock_reply){200, "audio/pcm", (const char *)pcm, NULL, 0}, 2 * n);
	struct tts_audio a = {0};
	assert_int_equal(backend_speak(&be, "नमस्ते जी", &a), ERR_OK);
	free(a.samples);
	const struct mock_request *q = mockserver_request(ms, 0);
	cJSON *body = cJSON_Parse(q->body);
	assert_true(reqcheck_value_is(reqcheck_jpath(body, "voice"), "nova"));
	cJSON_Delete(body);
	struct backend_usage u;
	assert_true(backend_last_usage(&be, &u));
	assert_true(fabs(u.cost_usd - 9 * 15 / 1e6) < 1e-12); /* 9 code points */
	char id[200];
	assert_string_equal(backend_tts_voice(&be, id, sizeof(id)), "openai|gpt-4o-mini-tts|nova|24000");

	/* empty text: no request, no audio */
	mockserver_clear(ms);
	assert_int_equal(backend_speak(&be, "", &a), ERR_OK);
	assert_int_equal(a.n, 0);
	assert_int_equal(mockserver_count(ms), 0);

	/* a refusal: the provider's words, never the key */
	mockserver_push(ms, (struct mock_reply){401, NULL,
		"{\"error\":{\"message\":\"Incorrect API key provided: sk-tts-key\",\"type\":\"invalid_request_error\"}}",
		NULL, 0});
	assert_int_equal(backend_speak(&be, "नमस्ते", &a), ERR_BACKEND);
	assert_true(backend_last_usage(&be, &u));
	assert_int_equal(u.http_status, 401);
	assert_null(strstr(u.error, "sk-tts-key"));

	/* an answer without audio */
	mockserver_clear(ms);
	setenv("SARVAM_BASE_URL", mockserver_url(ms), 1);
	setenv("SARVAM_API_KEY", "sv-tts-key", 1);
	assert_int_equal(backend_tts("sarvam", &be, NULL), ERR_OK);
	mockserver_push(ms, (struct mock_reply){200, NULL, "{\"request_id\":\"x\",\"audios\":[]}", NULL, 0});
	assert_int_equal(backend_speak(&be, "नमस्ते", &a), ERR_BACKEND);
	assert_true(backend_last_usage(&be, &u));
	assert_non_null(strstr(u.error, "no audio"));

	/* a key that is not set names its variable */
	unsetenv("AZURE_SPEECH_KEY");
	const char *why = NULL;
	assert_int_equal(backend_tts("azure", &be, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "AZURE_SPEECH_KEY"));
	/* an unknown TTS provider lists the known ones */
	assert_int_equal(backend_tts("festival", &be, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "sarvam, elevenlabs, google, openai, azure"));
	provider_config_free();
	envclear(ENV_VARS);
}

/* A provider that quotes the key back in an error, whole or cut, leaves no trace of it in
 * what formdesk keeps or shows: each voice's key is registered with the scrub
 * (agent/stages/secret.h) when it is read from its environment variable. */
static void test_keys_scrubbed(void **state)
{
	(void)state;
	int n;
	const struct provider_info *t = provider_table(PROVIDER_TTS, &n);
	int tried = 0;
	for (int i = 0; i < n; i++) {
		if (t[i].oauth)
			continue; /* Google's token: test_secret's service-account checks */
		char key[64], body[300];
		snprintf(key, sizeof(key), "tts-secret-%s-0123456789", t[i].name);
		envclear(ENV_VARS);
		provider_config_free();
		setenv(t[i].base_env, mockserver_url(ms), 1);
		setenv(t[i].key_env, key, 1);
		struct backend be;
		assert_int_equal(backend_tts(t[i].name, &be, NULL), ERR_OK);
		for (int cut = 0; cut < 2; cut++) {
			mockserver_clear(ms);
			snprintf(body, sizeof(body), "{\"error\":{\"message\":\"invalid key %.*s\"}}",
				 cut ? 12 : (int)strlen(key), key + (cut ? 5 : 0));
			mockserver_push(ms, (struct mock_reply){400, NULL, body, NULL, 0});
			struct tts_audio a = {0};
			assert_int_equal(backend_speak(&be, "नमस्ते", &a), ERR_BACKEND);
			struct backend_usage u;
			assert_true(backend_last_usage(&be, &u));
			if (!strstr(u.error, "invalid key"))
				fail_msg("%s: the provider's words are lost: \"%s\"", t[i].name, u.error);
			if (strstr(u.error, key + 5) || strstr(u.error, "secret-"))
				fail_msg("%s: the key shows in \"%s\"", t[i].name, u.error);
		}
		tried++;
	}
	assert_int_equal(tried, 4);
	envclear(ENV_VARS);
}

/* config row: TEXT SAYS (tests/data/tts_config_errors.tsv): a config file holding TEXT is
 * refused, its message saying SAYS. */
static void config_row(struct table_row *r, const void *ud)
{
	char path[] = "/tmp/formdesk-ttsconf-XXXXXX", why[300];
	int fd = mkstemp(path);
	size_t len = strlen(r->col[0]);
	(void)ud;
	assert_int_equal(write(fd, r->col[0], len), (ssize_t)len);
	close(fd);
	assert_int_not_equal(provider_config_load(path, why, sizeof(why)), ERR_OK);
	if (!strstr(why, r->col[1]))
		fail_msg("%s: \"%s\" does not say \"%s\"", r->name, why, r->col[1]);
	unlink(path);
}

/* The config file's "tts" entries are checked as the "providers" ones are. */
static void test_config(void **state)
{
	(void)state;
	table_each("tests/data/tts_config_errors.tsv", 2, 2, 0, config_row, NULL);
	provider_config_free();
}

TESTMAIN(setup, svcacct_teardown,
	  cmocka_unit_test(test_providers),
	  cmocka_unit_test(test_stream),
	  cmocka_unit_test(test_token_nonblocking),
	  cmocka_unit_test(test_price_voice_errors),
	  cmocka_unit_test(test_config),
	  cmocka_unit_test(test_keys_scrubbed))
