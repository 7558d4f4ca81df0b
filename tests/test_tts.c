/* test_tts: the speech backends chosen by name ("espeak", "espeak:VOICE", "none") and the
 * buffer resampler. The espeak-ng Hindi voice speaks the phrases of
 * tests/data/tts_phrases.tsv (synthetic speech); each must last a plausible time, and
 * the endpointer must hear speech in it once resampled to 16 kHz. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"
#include "agent/stages/tts.h"
#include "audio/endpoint.h"
#include "audio/resample.h"
#include "tests/support/testmain.h"

static void test_lookup(void **state)
{
	struct backend b = {0};
	const char *why = NULL;
	float *s = (float *)0x1;
	size_t n = 99;
	int rate = 0;

	(void)state;
	assert_int_equal(backend_tts("none", &b, NULL), ERR_OK);
	assert_string_equal(b.name, "none");
	assert_int_equal(speak_parts(&b, "नमस्ते", &s, &n, &rate), ERR_OK);
	assert_null(s);
	assert_int_equal(n, 0);
	assert_int_equal(backend_tts("festival", &b, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "festival"));
	assert_int_equal(backend_tts("none:x", &b, NULL), ERR_NOTFOUND);
	assert_int_equal(backend_tts("espeak:no-such-voice", &b, &why), ERR_NOTFOUND);
	assert_non_null(strstr(why, "no-such-voice"));
	assert_int_equal(backend_tts(NULL, &b, NULL), ERR_OK); /* the default */
	assert_string_equal(b.name, "espeak");
	tts_cleanup();
}

static void test_phrases(void **state)
{
	FILE *f = fopen("tests/data/tts_phrases.tsv", "r");
	struct backend b;
	char line[1024];
	int rows = 0;
	size_t last_n = 0;

	(void)state;
	assert_non_null(f);
	assert_int_equal(backend_tts("espeak:hi", &b, NULL), ERR_OK);
	while (fgets(line, sizeof(line), f)) {
		char text[768];
		int min_ms, max_ms, min_turns, turns = 0, rate = 0;
		float *s = NULL, *s16 = NULL, *again = NULL;
		size_t n = 0, n16 = 0, n2 = 0;
		struct endpoint_segment *segs = NULL;
		double ms, peak = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%767[^\t]\t%d\t%d\t%d", text, &min_ms, &max_ms, &min_turns) != 4)
			fail_msg("bad row: %s", line);
		assert_int_equal(speak_parts(&b, text, &s, &n, &rate), ERR_OK);
		assert_int_equal(rate, 22050); /* espeak-ng's voices */
		ms = n * 1000.0 / rate;
		if (ms < min_ms || ms > max_ms)
			fail_msg("'%s': %.0f ms, expected %d..%d", text, ms, min_ms, max_ms);
		for (size_t i = 0; i < n; i++)
			peak = fmax(peak, fabs(s[i]));
		assert_true(peak > 0.05 && peak <= 1.0);
		/* The same words again last about as long (espeak-ng carries a little state from
		 * one utterance into the next, so not to the sample). */
		assert_int_equal(speak_parts(&b, text, &again, &n2, &rate), ERR_OK);
		if (labs((long)n2 - (long)n) > (long)n / 20)
			fail_msg("'%s': %zu samples, then %zu", text, n, n2);
		assert_int_equal(resample_buffer(s, n, rate, 16000, &s16, &n16), ERR_OK);
		assert_true(fabs((double)n16 - n * 16000.0 / rate) < 2);
		assert_int_equal(endpoint_find(s16, n16, 16000, NULL, &segs, &turns), ERR_OK);
		if (turns < min_turns)
			fail_msg("'%s': the endpointer heard %d turns", text, turns);
		free(segs);
		free(s);
		free(s16);
		free(again);
		last_n = n;
		rows++;
	}
	fclose(f);
	assert_true(rows >= 4);
	assert_true(last_n > 0);
	{
		float *s = (float *)0x1;
		size_t n = 9;
		int rate;
		assert_int_equal(speak_parts(&b, "", &s, &n, &rate), ERR_OK);
		assert_int_equal(n, 0);
		assert_null(s);
	}
	tts_cleanup();
}

/* A sine resampled keeps its frequency: count zero crossings. */
static void test_resample(void **state)
{
	const int from = 22050, to = 16000;
	size_t n = from, m = 0, cross = 0;
	float *in = malloc(n * sizeof(float)), *out = NULL, *copy = NULL;

	(void)state;
	for (size_t i = 0; i < n; i++)
		in[i] = (float)(0.5 * sin(2 * M_PI * 440.0 * i / from));
	assert_int_equal(resample_buffer(in, n, from, to, &out, &m), ERR_OK);
	assert_true(m >= (size_t)to - 2 && m <= (size_t)to + 2);
	for (size_t i = 1; i < m; i++)
		if ((out[i - 1] < 0) != (out[i] < 0))
			cross++;
	assert_true(cross >= 876 && cross <= 884); /* 440 Hz: 880 crossings in 1 s */
	assert_int_equal(resample_buffer(in, n, from, from, &copy, &m), ERR_OK);
	assert_int_equal(m, n);
	assert_memory_equal(copy, in, n * sizeof(float));
	assert_int_equal(resample_buffer(in, n, 10, to, &out, &m), ERR_INVALID);
	free(copy);
	free(out);
	free(in);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_lookup),
	  cmocka_unit_test(test_phrases),
	  cmocka_unit_test(test_resample))
