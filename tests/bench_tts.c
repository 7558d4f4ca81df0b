/* The agent's hosted voice, measured (printed, never asserted) against local servers:
 * 1. the TTS cache: every fixed script of the enrollment form spoken once through a
 *    Sarvam-like server that takes 150 ms an answer, then a second time: requests made and
 *    wall time of each pass (the second must make none);
 * 2. streaming: an OpenAI-like server sends the first pieces of raw PCM at once (after
 *    100 ms) and the rest 400 ms later, as a provider does while it synthesizes a long
 *    sentence; when the first audio is in hand against when the whole answer is, and the
 *    time saved by playing it as it arrives. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/stages/tts_cloud.h"
#include "sessions/calls/ttscache.h"
#include "tests/support/mockserver.h"
#include "tests/support/tmpdir.h"

#define SYNTH_MS 150
#define FIRST_MS 100
#define REST_MS 400

static char answer[100000];
static struct mockserver *ms;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A tenth of a second of tone at 16 kHz as Sarvam answers it, after SYNTH_MS. */
static void sarvam(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	(void)ud, (void)req;
	*out = (struct mock_reply){200, NULL, answer, NULL, SYNTH_MS};
}

static void make_answer(void)
{
	static unsigned char wav[44 + 3200];
	uint32_t v[] = {36 + 3200, 16, 16000, 32000, 3200};
	memcpy(wav, "RIFF", 4);
	memcpy(wav + 4, &v[0], 4);
	memcpy(wav + 8, "WAVEfmt ", 8);
	memcpy(wav + 16, &v[1], 4);
	wav[20] = 1, wav[22] = 1;
	memcpy(wav + 24, &v[2], 4);
	memcpy(wav + 28, &v[3], 4);
	wav[32] = 2, wav[34] = 16;
	memcpy(wav + 36, "data", 4);
	memcpy(wav + 40, &v[4], 4);
	for (int i = 0; i < 1600; i++) {
		int16_t s = (int16_t)(6000 * sin(2 * 3.14159265 * 300 * i / 16000.0));
		memcpy(wav + 44 + 2 * i, &s, 2);
	}
	int k = snprintf(answer, sizeof(answer), "{\"request_id\":\"b\",\"audios\":[\"");
	k += EVP_EncodeBlock((unsigned char *)answer + k, wav, (int)sizeof(wav));
	snprintf(answer + k, sizeof(answer) - (size_t)k, "\"]}");
}

/* Every fixed script of f spoken once through cache c: wall ms into *ms_out. */
static int say_all(struct backend *b, const struct form *f, double *ms_out)
{
	double t0 = now_ms();
	const char *fixed[] = {f->intro, f->outro, f->outro_incomplete};
	for (int i = -3; i < f->n_questions; i++) {
		const char *text = i < 0 ? fixed[i + 3] : f->questions[i].script ? f->questions[i].script
										    : f->questions[i].label;
		struct tts_audio a = {0};
		if (text && backend_speak(b, text, &a) != ERR_OK)
			return -1;
		free(a.samples);
	}
	*ms_out = now_ms() - t0;
	return 0;
}

static void *release_later(void *ud)
{
	(void)ud;
	usleep(REST_MS * 1000);
	mockserver_release(ms);
	return NULL;
}

static double first_at = -1;

static void on_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	(void)ud, (void)s, (void)n, (void)rate;
	if (first_at < 0)
		first_at = at_ms;
}

int main(void)
{
	char dir[128], db[192];
	struct form *f = NULL;
	make_answer();
	if (tmpdir_make(dir, sizeof(dir), "bench-tts") != 0 || form_load("forms/armman_enrollment.json", &f, NULL) != ERR_OK ||
	    !(ms = mockserver_start())) {
		fprintf(stderr, "bench_tts: cannot set up (form, temporary folder or local server)\n");
		return 1;
	}
	snprintf(db, sizeof(db), "%s/calls.db", dir);
	setenv("SARVAM_BASE_URL", mockserver_url(ms), 1);
	setenv("SARVAM_API_KEY", "sv-bench-key", 1);
	setenv("OPENAI_BASE_URL", mockserver_url(ms), 1);
	setenv("OPENAI_API_KEY", "sk-bench-key", 1);
	mockserver_set_handler(ms, sarvam, NULL);

	struct backend b;
	struct ttscache *c = NULL;
	const char *why = NULL;
	double first = 0, second = 0;
	if (backend_tts("sarvam", &b, &why) != ERR_OK || ttscache_wrap(db, &b, &c) != ERR_OK || !c ||
	    say_all(&b, f, &first) != 0) {
		fprintf(stderr, "bench_tts: the first pass failed\n");
		return 1;
	}
	int asked_first = mockserver_count(ms);
	if (say_all(&b, f, &second) != 0) {
		fprintf(stderr, "bench_tts: the second pass failed\n");
		return 1;
	}
	int asked_second = mockserver_count(ms) - asked_first;
	printf("TTS cache, the enrollment form's %d fixed scripts (server %d ms an answer): first "
	       "pass %d requests, %.0f ms; second pass %d requests, %.1f ms\n",
	       3 + f->n_questions, SYNTH_MS, asked_first, first, asked_second, second);
	ttscache_free(c);

	/* streaming: 1.5 s of 24 kHz PCM, the first pieces at once, the last after REST_MS */
	size_t n = 36000;
	unsigned char *pcm = malloc(2 * n);
	for (size_t i = 0; i < n; i++) {
		int16_t s = (int16_t)(6000 * sin(2 * 3.14159265 * 250 * (double)i / 24000));
		memcpy(pcm + 2 * i, &s, 2);
	}
	mockserver_set_handler(ms, NULL, NULL);
	mockserver_clear(ms);
	size_t cuts[] = {4800, 9600, 48000};
	mockserver_push_pieces_bytes(ms, (struct mock_reply){200, "audio/pcm", (const char *)pcm, NULL, FIRST_MS},
				     2 * n, cuts, 3, true, false);
	pthread_t th;
	struct backend o;
	struct tts_audio a = {0};
	if (backend_tts("openai", &o, &why) != ERR_OK) {
		fprintf(stderr, "bench_tts: %s\n", why);
		return 1;
	}
	pthread_create(&th, NULL, release_later, NULL);
	if (tts_cloud_speak_stream(o.ctx, "एक लंबा वाक्य जिसे बोलने में समय लगता है।", on_piece, NULL, &a) !=
	    ERR_OK) {
		fprintf(stderr, "bench_tts: the streamed request failed\n");
		return 1;
	}
	pthread_join(th, NULL);
	struct backend_usage u;
	backend_last_usage(&o, &u);
	printf("streamed TTS (OpenAI pcm, %.2f s of audio): first audio after %.0f ms, whole answer "
	       "after %.0f ms: %.0f ms saved by playing it as it arrives\n",
	       (double)a.n / a.rate, first_at, u.total_ms, u.total_ms - first_at);
	free(a.samples);
	free(pcm);
	form_free(f);
	mockserver_stop(ms);
	backend_cleanup();
	return tmpdir_remove(dir) == 0 ? 0 : 1;
}
