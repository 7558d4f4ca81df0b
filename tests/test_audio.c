/* test_audio: audiofile_read / audiofile_write. Files are made in the test with
 * libsndfile (WAV, FLAC, and MP3 when this libsndfile can encode it) in a temporary
 * folder; the RESPIN clips (MP3) are read too when present. */
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
#include <unistd.h>
#include <sys/stat.h>

#include <sndfile.h>

#include "audio/audiofile.h"
#include "endpoint_clips.h"
#include "tests/support/tmpdir.h"
#include "tests/support/testmain.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	return tmpdir_make(tmpdir, sizeof(tmpdir), "audio");
}

/* Writes seconds of a channels-channel file at rate Hz: channel c holds a sine of
 * freq[c] Hz with amplitude amp[c]. Returns 0, or -1 if libsndfile cannot write format. */
static int make_file(const char *path, int format, int rate, int channels, double seconds,
		     const double *freq, const double *amp)
{
	SF_INFO info = {0};
	SNDFILE *f;
	size_t n = (size_t)(seconds * rate);
	float *buf = malloc(n * (size_t)channels * sizeof(float));

	assert_non_null(buf);
	info.samplerate = rate;
	info.channels = channels;
	info.format = format;
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < channels; c++)
			buf[i * channels + c] = (float)(amp[c] * sin(2 * M_PI * freq[c] * i / rate));
	f = sf_open(path, SFM_WRITE, &info);
	if (!f) {
		free(buf);
		return -1;
	}
	assert_int_equal(sf_writef_float(f, buf, (sf_count_t)n), (sf_count_t)n);
	sf_close(f);
	free(buf);
	return 0;
}

/* Frequency of a sine from its zero crossings, over the middle of the signal. */
static double sine_freq(const float *s, size_t n, int rate)
{
	size_t a = n / 10, b = n - n / 10, first = 0, last = 0;
	int crossings = 0;

	for (size_t i = a + 1; i < b; i++)
		if (s[i - 1] < 0 && s[i] >= 0) {
			if (!crossings)
				first = i;
			last = i;
			crossings++;
		}
	if (crossings < 2)
		return 0;
	return (double)(crossings - 1) * rate / (double)(last - first);
}

static double rms(const float *s, size_t n)
{
	double p = 0;
	for (size_t i = 0; i < n; i++)
		p += (double)s[i] * s[i];
	return n ? sqrt(p / n) : 0;
}

struct conv_case {
	const char *ext;
	int format;
	int rate_in, rate_out;
	double freq;
};

/* Read at another rate: the length scales with the rate and the sine keeps its
 * frequency. */
static void test_resample(void **state)
{
	static const struct conv_case cases[] = {
		{"wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 16000, 440},
		{"wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 48000, 16000, 1000},
		{"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 22050, 16000, 300},
		{"wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 16000, 440},
		{"flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 16000, 8000, 700},
		{"wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 16000, 440},
	};
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct conv_case *c = &cases[k];
		char path[128];
		double f = c->freq, a = 0.5;
		float *s = NULL;
		size_t n = 0;
		char *err = NULL;
		double expect_n = 2.0 * c->rate_out;

		snprintf(path, sizeof(path), "%s/sine%zu.%s", tmpdir, k, c->ext);
		assert_int_equal(make_file(path, c->format, c->rate_in, 1, 2.0, &f, &a), 0);
		assert_int_equal(audiofile_read(path, c->rate_out, &s, &n, &err), ERR_OK);
		assert_null(err);
		/* length within 0.1% */
		assert_true(fabs((double)n - expect_n) <= expect_n * 0.001);
		/* frequency within 0.5% */
		double got = sine_freq(s, n, c->rate_out);
		if (fabs(got - f) > f * 0.005)
			fail_msg("case %zu: %s %d -> %d Hz: sine at %.2f Hz, expected %.0f", k, c->ext,
				 c->rate_in, c->rate_out, got, f);
		/* amplitude kept: RMS of a 0.5 sine is 0.354 */
		assert_true(fabs(rms(s + n / 10, n - n / 5) - a / sqrt(2)) < 0.01);
		free(s);
	}
}

/* Stereo is averaged to mono: a sine on the left and its negative on the right cancel;
 * the same sine on both is kept. */
static void test_mixdown(void **state)
{
	char path[128];
	double f[2] = {440, 440}, a[2] = {0.5, -0.5}, same[2] = {0.4, 0.4};
	float *s = NULL;
	size_t n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/cancel.wav", tmpdir);
	assert_int_equal(make_file(path, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 2, 1.0, f, a), 0);
	assert_int_equal(audiofile_read(path, 16000, &s, &n, NULL), ERR_OK);
	assert_int_equal(n, 16000);
	assert_true(rms(s, n) < 1e-4);
	free(s);

	snprintf(path, sizeof(path), "%s/same.flac", tmpdir);
	assert_int_equal(make_file(path, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 44100, 2, 1.0, f, same), 0);
	assert_int_equal(audiofile_read(path, 16000, &s, &n, NULL), ERR_OK);
	assert_true(fabs(rms(s + n / 10, n - n / 5) - 0.4 / sqrt(2)) < 0.01);
	free(s);
}

/* MP3: made here if this libsndfile can encode it (LAME), and the RESPIN clips. */
static void test_mp3(void **state)
{
	char path[128];
	double f = 440, a = 0.5;
	float *s = NULL;
	size_t n = 0;
	const char *dir = clips_dir();
	int checked = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/sine.mp3", tmpdir);
	if (make_file(path, SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, 44100, 1, 2.0, &f, &a) == 0) {
		assert_int_equal(audiofile_read(path, 16000, &s, &n, NULL), ERR_OK);
		/* MP3 adds encoder delay and padding: a few frames of 1152 samples */
		assert_true(fabs((double)n - 32000) < 3 * 1152);
		assert_true(fabs(sine_freq(s, n, 16000) - f) < f * 0.005);
		free(s);
		checked++;
	} else {
		printf("note: this libsndfile cannot encode MP3; reading the RESPIN clips only\n");
	}
	if (dir) {
		char pattern[4200];
		glob_t g;
		snprintf(pattern, sizeof(pattern), "%s/*/*.mp3", dir);
		assert_int_equal(glob(pattern, 0, NULL, &g), 0);
		for (size_t i = 0; i < g.gl_pathc; i += 19) {
			assert_int_equal(audiofile_read(g.gl_pathv[i], 16000, &s, &n, NULL), ERR_OK);
			/* README: 2.0 to 10.2 s each */
			assert_true(n >= 16000 * 19 / 10 && n <= 16000 * 105 / 10);
			assert_true(rms(s, n) > 0.001);
			free(s);
			/* 8 kHz halves the length */
			size_t n16 = n;
			assert_int_equal(audiofile_read(g.gl_pathv[i], 8000, &s, &n, NULL), ERR_OK);
			assert_true(labs((long)n * 2 - (long)n16) <= 4);
			free(s);
			checked++;
		}
		globfree(&g);
	} else {
		printf("skipped RESPIN clips: none at $FORMDESK_RESPIN or ../shared/corpus/respin\n");
	}
	if (!checked)
		skip();
}

/* Missing and corrupt files: ERR_IO / ERR_AUDIO with a message naming the file. */
static void test_errors(void **state)
{
	char path[128], *err = NULL;
	float *s = (float *)1;
	size_t n = 7;
	FILE *fp;

	(void)state;
	snprintf(path, sizeof(path), "%s/missing.wav", tmpdir);
	assert_int_equal(audiofile_read(path, 16000, &s, &n, &err), ERR_IO);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "No such file"));
	free(err);
	assert_ptr_equal(s, (float *)1); /* untouched on failure */
	assert_int_equal(n, 7);

	snprintf(path, sizeof(path), "%s/corrupt.wav", tmpdir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs("RIFF\x10\x00\x00\x00WAVEthis is not audio at all", fp);
	fclose(fp);
	assert_int_equal(audiofile_read(path, 16000, &s, &n, &err), ERR_AUDIO);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	free(err);

	/* an empty file, a folder, and text named .mp3: each says what it is */
	static const struct {
		const char *name, *content;
		enum err want;
		const char *msg;
	} odd[] = {
		{"empty.wav", "", ERR_AUDIO, "cannot decode audio: the file is empty (0 bytes)"},
		{"empty.mp3", "", ERR_AUDIO, "cannot decode audio: the file is empty (0 bytes)"},
		{"folder.wav", NULL, ERR_IO, "Is a directory"},
		{"text.mp3", "hello, this is not audio\n", ERR_AUDIO,
		 "cannot decode audio: not a WAV, FLAC or MP3 stream"},
	};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, odd[i].name);
		if (odd[i].content) {
			fp = fopen(path, "wb");
			assert_non_null(fp);
			fputs(odd[i].content, fp);
			fclose(fp);
		} else {
			assert_int_equal(mkdir(path, 0700), 0);
		}
		assert_int_equal(audiofile_read(path, 16000, &s, &n, &err), odd[i].want);
		if (!err || !strstr(err, path) || !strstr(err, odd[i].msg))
			fail_msg("%s: got '%s', want '%s'", odd[i].name, err ? err : "(none)", odd[i].msg);
		free(err);
		if (odd[i].content)
			unlink(path);
		else
			rmdir(path);
	}

	/* a NULL errmsg is allowed */
	snprintf(path, sizeof(path), "%s/corrupt.wav", tmpdir);
	assert_int_equal(audiofile_read(path, 16000, &s, &n, NULL), ERR_AUDIO);
	assert_int_equal(audiofile_read(path, 0, &s, &n, NULL), ERR_INVALID);

	/* unknown extension and unwritable place */
	float x[4] = {0};
	snprintf(path, sizeof(path), "%s/out.ogg", tmpdir);
	assert_int_equal(audiofile_write(path, x, 4, 16000, &err), ERR_INVALID);
	assert_non_null(strstr(err, ".ogg") ? err : NULL);
	free(err);
	assert_int_equal(audiofile_write("/nonexistent-dir/out.wav", x, 4, 16000, &err), ERR_IO);
	assert_non_null(strstr(err, "/nonexistent-dir/out.wav"));
	free(err);
}

/* Write then read: WAV and FLAC, samples kept to 16-bit precision, loud values clipped. */
static void test_roundtrip(void **state)
{
	const char *exts[] = {"wav", "flac"};
	size_t n = 8000;
	float *x = malloc(n * sizeof(float));

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(0.7 * sin(2 * M_PI * 250 * i / 8000.0));
	x[10] = 1.5f; /* out of range: clipped, not wrapped */
	for (int k = 0; k < 2; k++) {
		char path[128];
		float *y = NULL;
		size_t m = 0;
		snprintf(path, sizeof(path), "%s/round.%s", tmpdir, exts[k]);
		assert_int_equal(audiofile_write(path, x, n, 8000, NULL), ERR_OK);
		assert_int_equal(audiofile_read(path, 8000, &y, &m, NULL), ERR_OK);
		assert_int_equal(m, n);
		assert_true(y[10] > 0.99f);
		for (size_t i = 0; i < n; i++)
			if (i != 10 && fabsf(y[i] - x[i]) > 2.0f / 32768)
				fail_msg("%s sample %zu: %f != %f", exts[k], i, y[i], x[i]);
		free(y);
	}
	free(x);
}

TESTMAIN(setup, tmpdir_teardown,
	  cmocka_unit_test(test_resample),
	  cmocka_unit_test(test_mixdown),
	  cmocka_unit_test(test_mp3),
	  cmocka_unit_test(test_errors),
	  cmocka_unit_test(test_roundtrip))
