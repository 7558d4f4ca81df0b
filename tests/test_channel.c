/* test_channel: the telephone channel and the acoustic variants. Tables in
 * tests/data/channel_tones.tsv (what the band limit passes, measured per tone) and
 * tests/data/channel_mulaw.tsv (mu-law round-trip error bounds); the mix's SNR within
 * 0.5 dB of the request for generated noise and for a real recording as chatter (a RESPIN
 * clip, when present); tempo changes duration by the factor and keeps the pitch; the far
 * microphone is quieter and duller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio/audiofile.h"
#include "audio/channel.h"
#include "endpoint_clips.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

#define RATE 16000

/* Amplitude of the freq Hz component of x[from..to) (one DFT bin, Goertzel). */
static double tone_amp(const float *x, size_t from, size_t to, double freq, int rate)
{
	double w = 2 * M_PI * freq / rate, c = 2 * cos(w), s1 = 0, s2 = 0;

	for (size_t i = from; i < to; i++) {
		double s = x[i] + c * s1 - s2;
		s2 = s1;
		s1 = s;
	}
	return 2 * sqrt(s1 * s1 + s2 * s2 - c * s1 * s2) / (double)(to - from);
}

static float *sine(size_t n, double freq, double amp, int rate)
{
	float *x = malloc(n * sizeof(float));

	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(amp * sin(2 * M_PI * freq * i / rate));
	return x;
}

/* tone row: FREQ MIN_DB MAX_DB (tests/data/channel_tones.tsv). */
static void tone_row(struct table_row *r, const void *ud)
{
	(void)ud;
	double freq = table_num(r, 0), lo = table_num(r, 1), hi = table_num(r, 2);
	double a_in, a_out, db;
	size_t n = RATE, m = 0;
	float *x, *y = NULL;
	char *msg = NULL;

	x = sine(n, freq, 0.3, RATE);
	if (channel_telephone(x, n, RATE, &y, &m, &msg) != ERR_OK)
		fail_msg("telephone channel: %s", msg ? msg : "?");
	assert_true(m > n - n / 100 && m < n + n / 100); /* same duration */
	/* The middle half: clear of the filters' start and end. */
	a_in = tone_amp(x, n / 4, 3 * n / 4, freq, RATE);
	a_out = tone_amp(y, n / 4, 3 * n / 4, freq, RATE);
	db = 20 * log10(fmax(a_out, 1e-12) / a_in);
	if (db < lo || db > hi)
		fail_msg("%.0f Hz: %.1f dB, expected %.0f..%.0f", freq, db, lo, hi);
	free(x);
	free(y);
}

static void test_band_limit(void **state)
{
	(void)state;
	assert_true(table_each("tests/data/channel_tones.tsv", 3, 3, 0, tone_row, NULL) >= 8);
}

/* mu-law row: AMPLITUDE REL_ERROR FLOOR MIN_SNR_DB (tests/data/channel_mulaw.tsv). */
static void mulaw_row(struct table_row *r, const void *ud)
{
	(void)ud;
	double amp = table_num(r, 0), rel = table_num(r, 1), floor_ = table_num(r, 2);
	double min_snr = table_num(r, 3), snr;
	size_t n = 8000;
	float *x, *y = NULL;

	x = sine(n, 1013, amp, 8000); /* not a divisor of the rate: many sample values */
	assert_int_equal(channel_mulaw(x, n, &y, NULL), ERR_OK);
	for (size_t i = 0; i < n; i++) {
		double err = fabs((double)y[i] - x[i]);
		if (err > rel * fabs(x[i]) + floor_)
			fail_msg("amplitude %g, sample %zu: %g became %g", amp, i, x[i], y[i]);
	}
	snr = channel_snr_db(x, y, n);
	if (snr < min_snr)
		fail_msg("amplitude %g: round trip SNR %.1f dB, expected at least %.0f", amp, snr, min_snr);
	free(x);
	free(y);
}

static void test_mulaw(void **state)
{
	(void)state;
	assert_true(table_each("tests/data/channel_mulaw.tsv", 4, 4, 0, mulaw_row, NULL) >= 4);
}

/* A speech-like test signal: 0.3 s bursts of two tones with gaps. */
static float *bursts(size_t n)
{
	float *x = calloc(n, sizeof(float));

	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		if ((i / (RATE * 3 / 10)) % 2 == 0)
			x[i] = (float)(0.3 * sin(2 * M_PI * 220 * i / RATE) + 0.1 * sin(2 * M_PI * 1500 * i / RATE));
	return x;
}

static void check_snr(const float *clean, size_t n, const float *noise, size_t nn, const char *what)
{
	const double want[] = {0, 5, 10, 20, 30};

	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		float *mix = NULL, *scaled = malloc(n * sizeof(float));
		double gain = 0, got;

		assert_int_equal(channel_mix(clean, n, noise, nn, want[k], &mix, &gain), ERR_OK);
		assert_true(gain > 0 && gain <= 1);
		for (size_t i = 0; i < n; i++)
			scaled[i] = (float)(gain * clean[i]);
		got = channel_snr_db(scaled, mix, n);
		if (fabs(got - want[k]) > 0.5)
			fail_msg("%s: asked %.0f dB, got %.2f dB", what, want[k], got);
		free(mix);
		free(scaled);
	}
}

static void test_snr(void **state)
{
	const char *kinds[] = {"whitenoise", "pinknoise", "brownnoise"};
	size_t n = RATE * 2;
	float *clean = bursts(n);
	char path[4200];
	glob_t g = {0};
	const char *dir = clips_dir();

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		float *noise = NULL, *again = NULL;
		char *msg = NULL;
		if (channel_noise(n, RATE, kinds[k], &noise, &msg) != ERR_OK)
			fail_msg("%s: %s", kinds[k], msg ? msg : "?");
		/* Repeatable. */
		assert_int_equal(channel_noise(n, RATE, kinds[k], &again, NULL), ERR_OK);
		assert_memory_equal(noise, again, n * sizeof(float));
		check_snr(clean, n, noise, n, kinds[k]);
		free(noise);
		free(again);
	}
	/* Chatter: a real recording as the noise, shorter than the speech (it repeats). */
	if (dir)
		snprintf(path, sizeof(path), "%s/*/*.mp3", dir);
	if (dir && glob(path, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
		float *rec = NULL;
		size_t nr = 0;
		assert_int_equal(audiofile_read(path, RATE, &rec, &nr, NULL), ERR_OK);
		check_snr(clean, n, rec, nr > n / 3 ? n / 3 : nr, "RESPIN clip as chatter");
		free(rec);
	} else {
		print_message("RESPIN clips not found: chatter case skipped\n");
	}
	globfree(&g);
	{
		float *o = NULL, z[4] = {0};
		assert_int_equal(channel_mix(clean, n, z, 4, 10, &o, NULL), ERR_INVALID);
		assert_int_equal(channel_noise(10, RATE, "violetnoise", &o, NULL), ERR_INVALID);
	}
	free(clean);
}

static size_t crossings(const float *x, size_t from, size_t to)
{
	size_t c = 0;

	for (size_t i = from + 1; i < to; i++)
		if ((x[i - 1] < 0) != (x[i] < 0))
			c++;
	return c;
}

static void test_tempo(void **state)
{
	const double factors[] = {0.8, 1.25, 0.5, 2.0};
	size_t n = RATE * 3;
	float *x = sine(n, 440, 0.4, RATE);

	(void)state;
	for (size_t k = 0; k < 4; k++) {
		float *y = NULL;
		size_t m = 0;
		double want = n / factors[k], rate_in, rate_out;
		char *msg = NULL;

		if (channel_tempo(x, n, RATE, factors[k], &y, &m, &msg) != ERR_OK)
			fail_msg("tempo %.2f: %s", factors[k], msg ? msg : "?");
		if (fabs(m - want) > want * 0.02)
			fail_msg("tempo %.2f: %zu samples, expected %.0f", factors[k], m, want);
		/* Same pitch: zero crossings per second over the middle. */
		rate_in = crossings(x, n / 4, 3 * n / 4) / (n / 2.0);
		rate_out = crossings(y, m / 4, 3 * m / 4) / (m / 2.0);
		if (fabs(rate_out - rate_in) > rate_in * 0.03)
			fail_msg("tempo %.2f changed the pitch: %.4f vs %.4f crossings/sample", factors[k],
				 rate_out, rate_in);
		free(y);
	}
	{
		float *y = NULL;
		size_t m;
		assert_int_equal(channel_tempo(x, n, RATE, 3.0, &y, &m, NULL), ERR_INVALID);
	}
	free(x);
}

static void test_far(void **state)
{
	size_t n = RATE * 2;
	float *lo = sine(n, 500, 0.3, RATE), *hi = sine(n, 6000, 0.3, RATE), *ylo = NULL, *yhi = NULL;
	double dlo, dhi;

	(void)state;
	assert_int_equal(channel_far(lo, n, RATE, &ylo, NULL), ERR_OK);
	assert_int_equal(channel_far(hi, n, RATE, &yhi, NULL), ERR_OK);
	dlo = 20 * log10(tone_amp(ylo, n / 4, 3 * n / 4, 500, RATE) / 0.3);
	dhi = 20 * log10(fmax(tone_amp(yhi, n / 4, 3 * n / 4, 6000, RATE), 1e-12) / 0.3);
	if (dlo > -6)
		fail_msg("far microphone: a 500 Hz tone only %.1f dB quieter", -dlo);
	if (dhi > dlo - 10)
		fail_msg("far microphone: 6 kHz at %.1f dB, 500 Hz at %.1f dB: not duller", dhi, dlo);
	free(lo);
	free(hi);
	free(ylo);
	free(yhi);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_band_limit),
	  cmocka_unit_test(test_mulaw),
	  cmocka_unit_test(test_snr),
	  cmocka_unit_test(test_tempo),
	  cmocka_unit_test(test_far))
