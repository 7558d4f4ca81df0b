/* The TTS cache: sentences of the agent's words synthesized once by a hosted voice (a
 * local server standing in for Sarvam, counting its requests) and then read from
 * DB.tts/ with no request, also by a later process; a form's fixed scripts pre-built
 * (ttscache_warm) so its opening is spoken with no request at all; files written whole
 * (no temporary file left); the sentence cutter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"
#include "sessions/calls/ttscache.h"
#include "tests/support/mockdir.h"
#include "tests/support/mockserver.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

static struct mockserver *ms;
static char dir[128], db[192];
static char answer[200000];

/* Sarvam's answer: {"request_id", "audios": [base64 WAV]}, a tenth of a second at 22050 Hz
 * whose pitch follows the length of the text asked (so sentences differ). */
static void sarvam_handler(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	static unsigned char wav[44 + 2 * 2205];
	(void)ud;
	size_t n = 2205;
	memcpy(wav, "RIFF", 4);
	uint32_t v[] = {(uint32_t)(36 + 2 * n), 16, 22050, 44100, (uint32_t)(2 * n)};
	memcpy(wav + 4, &v[0], 4);
	memcpy(wav + 8, "WAVEfmt ", 8);
	memcpy(wav + 16, &v[1], 4);
	wav[20] = 1, wav[21] = 0, wav[22] = 1, wav[23] = 0;
	memcpy(wav + 24, &v[2], 4);
	memcpy(wav + 28, &v[3], 4);
	wav[32] = 2, wav[33] = 0, wav[34] = 16, wav[35] = 0;
	memcpy(wav + 36, "data", 4);
	memcpy(wav + 40, &v[4], 4);
	for (size_t i = 0; i < n; i++) {
		int16_t s = (int16_t)(8000 * sin(2 * 3.14159265 * (200.0 + (double)req->body_len) * (double)i / 22050));
		memcpy(wav + 44 + 2 * i, &s, 2);
	}
	int k = snprintf(answer, sizeof(answer), "{\"request_id\":\"t\",\"audios\":[\"");
	k += EVP_EncodeBlock((unsigned char *)answer + k, wav, (int)sizeof(wav));
	snprintf(answer + k, sizeof(answer) - (size_t)k, "\"]}");
	*out = (struct mock_reply){200, NULL, answer, NULL, 0};
}

static int setup(void **state)
{
	(void)state;
	if (mockdir_open(dir, sizeof(dir), "ttscache", mockserver_start, &ms) != 0)
		return -1;
	snprintf(db, sizeof(db), "%s/calls.db", dir);
	mockserver_set_handler(ms, sarvam_handler, NULL);
	mockdir_provider("SARVAM", "sv-cache-key");
	return 0;
}

static struct ttscache *cache_for(struct backend *b)
{
	struct ttscache *c = NULL;
	assert_int_equal(backend_tts("sarvam", b, NULL), ERR_OK);
	assert_int_equal(ttscache_wrap(db, b, &c), ERR_OK);
	assert_non_null(c);
	return c;
}

static void test_once(void **state)
{
	(void)state;
	static const char text[] = "आपका नाम क्या है? कृपया पूरा नाम बताइए।";
	struct backend b;
	struct ttscache *c = cache_for(&b);
	struct tts_audio a1 = {0}, a2 = {0}, a3 = {0};
	mockserver_clear(ms);
	assert_int_equal(backend_speak(&b, text, &a1), ERR_OK);
	assert_int_equal(mockserver_count(ms), 2); /* one request a sentence */
	assert_int_equal(a1.rate, TTSCACHE_RATE);
	assert_true(a1.n >= 2 * 1600 - 4 && a1.n <= 2 * 1600 + 4);
	/* said again: from the cache, no request, the same audio */
	assert_int_equal(backend_speak(&b, text, &a2), ERR_OK);
	assert_int_equal(mockserver_count(ms), 2);
	assert_int_equal(a2.n, a1.n);
	for (size_t i = 0; i < a1.n; i++)
		assert_true(fabsf(a1.samples[i] - a2.samples[i]) < 1.0f / 16384);
	long hits, misses;
	ttscache_counts(c, &hits, &misses);
	assert_int_equal(hits, 2);
	assert_int_equal(misses, 2);
	ttscache_free(c);
	/* a later process: the files are still there */
	c = cache_for(&b);
	assert_int_equal(backend_speak(&b, "कृपया पूरा नाम बताइए।", &a3), ERR_OK);
	assert_int_equal(mockserver_count(ms), 2);
	/* whole files only, named by their hash: no temporary file left */
	char path[256];
	DIR *d = opendir(ttscache_dir(db, path, sizeof(path)));
	assert_non_null(d);
	int files = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		files++;
		assert_int_equal(strlen(e->d_name), 64 + 4);
		assert_non_null(strstr(e->d_name, ".wav"));
	}
	closedir(d);
	assert_int_equal(files, 2);
	ttscache_free(c);
	free(a1.samples);
	free(a2.samples);
	free(a3.samples);
}

static void test_warm(void **state)
{
	(void)state;
	struct form *f = NULL;
	assert_int_equal(form_load("forms/armman_enrollment.json", &f, NULL), ERR_OK);
	struct backend b;
	struct ttscache *c = cache_for(&b);
	mockserver_clear(ms);
	int made = 0, had = 0;
	char why[300];
	assert_int_equal(ttscache_warm(c, f, &made, &had, why, sizeof(why)), ERR_OK);
	assert_true(made > 20);
	assert_int_equal(mockserver_count(ms), made);
	/* warm again: nothing to make */
	int made2 = 0, had2 = 0;
	assert_int_equal(ttscache_warm(c, f, &made2, &had2, why, sizeof(why)), ERR_OK);
	assert_int_equal(made2, 0);
	assert_int_equal(had2, made + had);
	assert_int_equal(mockserver_count(ms), made);
	/* the opening as the script replier says it (intro, then the first question): no request */
	char opening[4096];
	snprintf(opening, sizeof(opening), "%s %s", f->intro, f->questions[0].script);
	struct tts_audio a = {0};
	assert_int_equal(backend_speak(&b, opening, &a), ERR_OK);
	assert_int_equal(mockserver_count(ms), made);
	assert_true(a.n > 0);
	free(a.samples);
	ttscache_free(c);
	form_free(f);
}

static enum err collect(void *ud, const char *s, size_t len)
{
	char *out = ud;
	strncat(out, s, len);
	strcat(out, "|");
	return ERR_OK;
}

/* sentence row: TEXT SENTENCES (tests/data/ttscache_sentences.tsv): the sentences
 * ttscache_sentences cuts TEXT into, each followed by "|". */
static void sentence_row(struct table_row *r, const void *ud)
{
	char out[512] = "";
	(void)ud;
	assert_int_equal(ttscache_sentences(r->col[0], collect, out), ERR_OK);
	if (strcmp(out, r->col[1]))
		fail_msg("%s: got \"%s\", want \"%s\"", r->name, out, r->col[1]);
}

static void test_sentences(void **state)
{
	(void)state;
	table_each("tests/data/ttscache_sentences.tsv", 2, 2, TABLE_UNESCAPE, sentence_row, NULL);
}

/* Offline voices are not cached. */
static void test_offline(void **state)
{
	(void)state;
	struct backend b;
	struct ttscache *c = (struct ttscache *)1;
	assert_int_equal(backend_tts("none", &b, NULL), ERR_OK);
	assert_int_equal(ttscache_wrap(db, &b, &c), ERR_OK);
	assert_null(c);
	assert_string_equal(b.name, "none");
}

TESTMAIN(setup, mockdir_teardown,
	  cmocka_unit_test(test_once),
	  cmocka_unit_test(test_warm),
	  cmocka_unit_test(test_sentences),
	  cmocka_unit_test(test_offline))
