/* test_capture: capture, sink and device lookup through ALSA's file plugin, no hardware.
 * The test makes its own ALSA configuration (ALSA_CONFIG_PATH, for this process only; it
 * replaces the system's, so no card or plugin module is probed) with two PCMs PortAudio
 * lists as devices:
 *   fdcap  - type file, slave null, infile: capture reads a raw file the test wrote
 *            (float32 little-endian mono: PortAudio asks for float and the file plugin
 *            reads its infile in the stream's format);
 *   fdplay - type file, slave null: playback is written to a raw file;
 * and a "default" PCM of type null.
 * The null slave has no clock, so these devices run as fast as the CPU allows; the
 * tests check what arrives and in which order, never how fast. The file sink runs on a
 * clock the test moves by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "audio/capture.h"
#include "audio/padev.h"
#include "audio/sink.h"
#include "tests/support/testmain.h"

static char tmpdir[64];
static char inpath[128], outpath[128];

#define RATE 16000
#define N_IN (RATE * 2)

/* A signal that is never periodic, so a skipped or repeated block shows: a counting ramp
 * with a slow sine on top; every value is exact in float32. */
static float signal_at(size_t i)
{
	return (float)((double)(i % 20000) / 40000.0 + 0.25 * sin(i * 0.001)) ;
}

static int setup(void **state)
{
	char path[192];
	FILE *f;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/formdesk-test-capture-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(inpath, sizeof(inpath), "%s/in.f32", tmpdir);
	snprintf(outpath, sizeof(outpath), "%s/out.f32", tmpdir);
	f = fopen(inpath, "wb");
	if (!f)
		return -1;
	for (size_t i = 0; i < N_IN; i++) {
		float v = signal_at(i);
		fwrite(&v, sizeof(v), 1, f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/asound.conf", tmpdir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	/* PortAudio 19.6 asserts that at least one PCM named in the configuration is not an
	 * ordinary device (its BuildDeviceList checks devIdx < numDeviceNames after the first
	 * pass, which skips "default" and "dmix"), so a "default" is defined too. */
	fprintf(f, "pcm.default {\n type null\n}\n"
		   "pcm.fdcap {\n type file\n slave.pcm { type null }\n file \"/dev/null\"\n"
		   " infile \"%s\"\n format \"raw\"\n}\n"
		   "pcm.fdplay {\n type file\n slave.pcm { type null }\n file \"%s\"\n format \"raw\"\n}\n",
		inpath, outpath);
	fclose(f);
	setenv("ALSA_CONFIG_PATH", path, 1);
	return padev_init(NULL) == ERR_OK ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	padev_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *devs_name(int idx)
{
	static struct padev_info *devs;
	static char name[160];
	int n = 0;

	assert_int_equal(padev_list(&devs, &n), ERR_OK);
	assert_true(idx >= 0 && idx < n);
	snprintf(name, sizeof(name), "%s", devs[idx].name);
	free(devs);
	return name;
}

static void test_list_and_find(void **state)
{
	struct padev_info *devs = NULL;
	int n = 0, idx = -1, cap = -1, play = -1;
	char *msg = NULL;

	(void)state;
	assert_int_equal(padev_list(&devs, &n), ERR_OK);
	for (int i = 0; i < n; i++) {
		if (strcmp(devs[i].name, "fdcap") == 0)
			cap = i;
		if (strcmp(devs[i].name, "fdplay") == 0)
			play = i;
	}
	assert_true(cap >= 0);
	assert_true(play >= 0);
	assert_true(devs[cap].max_in > 0);
	assert_true(devs[play].max_out > 0);
	assert_string_equal(devs[cap].api, "ALSA");
	free(devs);

	assert_int_equal(padev_find("fdcap", true, &idx, NULL), ERR_OK);
	assert_int_equal(idx, cap);
	assert_int_equal(padev_find("FDPL", false, &idx, NULL), ERR_OK); /* unique substring */
	assert_int_equal(padev_find("fdcap", true, &idx, NULL), ERR_OK);
	{
		char num[16];
		snprintf(num, sizeof(num), "%d", play);
		assert_int_equal(padev_find(num, false, &idx, NULL), ERR_OK);
		assert_int_equal(idx, play);
	}
	assert_int_equal(padev_find(NULL, false, &idx, NULL), ERR_OK); /* ALSA's "default" */
	assert_string_equal(devs_name(idx), "default");
	assert_int_equal(padev_find("fd", false, &idx, &msg), ERR_NOTFOUND); /* both match */
	assert_non_null(strstr(msg, "several"));
	free(msg);
	msg = NULL;
	assert_int_equal(padev_find("no-such-device", true, &idx, &msg), ERR_NOTFOUND);
	assert_non_null(strstr(msg, "no-such-device"));
	free(msg);
	msg = NULL;
	assert_int_equal(padev_find("999", true, &idx, &msg), ERR_NOTFOUND);
	free(msg);
}

/* Reads what the capture delivers until n samples or the source runs dry. */
static size_t drain(struct capture *c, float *buf, size_t n)
{
	size_t got = 0;
	int idle = 0;

	while (got < n && idle < 2000) {
		size_t k = capture_read(c, buf + got, n - got);
		got += k;
		if (k)
			idle = 0;
		else {
			idle++;
			usleep(1000);
		}
	}
	return got;
}

static void test_capture_file(void **state)
{
	struct capture *c = NULL;
	char *msg = NULL;
	float *buf = calloc(N_IN, sizeof(float));
	size_t got;

	(void)state;
	assert_non_null(buf);
	if (capture_open("fdcap", RATE, 4000, &c, &msg) != ERR_OK)
		fail_msg("capture_open: %s", msg ? msg : "?");
	assert_string_equal(capture_device_name(c), "fdcap");
	assert_int_equal(capture_device_rate(c), RATE);
	assert_int_equal(capture_start(c), ERR_OK);
	got = drain(c, buf, N_IN);
	assert_int_equal(capture_stop(c), ERR_OK);
	/* A 4 s ring and a reader that keeps up: everything arrives, in order. Past the end of
	 * the infile the plugin hands on whatever the null slave had. */
	assert_int_equal(got, N_IN);
	for (size_t i = 0; i < N_IN; i++)
		if (buf[i] != signal_at(i))
			fail_msg("sample %zu: %g, expected %g", i, buf[i], signal_at(i));
	capture_free(c);
	free(buf);
}

static void test_capture_overrun(void **state)
{
	struct capture *c = NULL;
	float buf[512];

	(void)state;
	/* A 20 ms ring that nobody reads while the device runs flat out must overflow. */
	assert_int_equal(capture_open("fdcap", RATE, 20, &c, NULL), ERR_OK);
	assert_int_equal(capture_start(c), ERR_OK);
	for (int i = 0; i < 2000 && capture_overruns(c) == 0; i++)
		usleep(1000);
	assert_int_equal(capture_stop(c), ERR_OK);
	assert_true(capture_overruns(c) > 0);
	assert_true(capture_read(c, buf, 512) > 0);
	capture_free(c);
}

/* Reads the raw float32 output file. Output: samples (caller frees), *n. */
static float *read_out(size_t *n)
{
	FILE *f = fopen(outpath, "rb");
	struct stat st;
	float *v;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	*n = (size_t)st.st_size / sizeof(float);
	v = malloc((*n + 1) * sizeof(float));
	assert_non_null(v);
	assert_int_equal(fread(v, sizeof(float), *n, f), *n);
	fclose(f);
	return v;
}

static void test_sink_device_plays_all(void **state)
{
	struct sink *s = NULL;
	float *in = malloc(N_IN * sizeof(float)), *got;
	size_t n, played = 0, start;
	char *msg = NULL;

	(void)state;
	for (size_t i = 0; i < N_IN; i++)
		in[i] = signal_at(i);
	if (sink_open_device("fdplay", RATE, &s, &msg) != ERR_OK)
		fail_msg("sink_open_device: %s", msg ? msg : "?");
	assert_int_equal(sink_rate(s), RATE);
	assert_int_equal(sink_play(s, in, N_IN), ERR_OK);
	for (int i = 0; i < 5000 && sink_playing(s); i++)
		usleep(1000);
	assert_false(sink_playing(s));
	assert_int_equal(sink_remaining_ms(s), 0);
	assert_int_equal(sink_stop(s, &played), ERR_OK);
	assert_int_equal(played, N_IN);
	sink_free(s);
	/* The file holds the utterance whole and in order (after any silence PortAudio put
	 * in front while the stream started). */
	got = read_out(&n);
	for (start = 0; start < n && got[start] == 0.0f; start++)
		;
	if (signal_at(0) == 0.0f && start > 0)
		start--;
	assert_true(n - start >= N_IN);
	for (size_t i = 0; i < N_IN; i++)
		if (got[start + i] != in[i])
			fail_msg("played sample %zu: %g, expected %g", i, got[start + i], in[i]);
	free(got);
	free(in);
}

static void test_sink_device_stop(void **state)
{
	struct sink *s = NULL;
	size_t n = (size_t)RATE * 600, played = 0, size1, size2;
	float *in = malloc(n * sizeof(float)), *got;

	(void)state;
	assert_non_null(in);
	for (size_t i = 0; i < n; i++)
		in[i] = 0.5f;
	assert_int_equal(sink_open_device("fdplay", RATE, &s, NULL), ERR_OK);
	assert_int_equal(sink_play(s, in, n), ERR_OK);
	assert_true(sink_playing(s));
	assert_int_equal(sink_stop(s, &played), ERR_OK);
	assert_false(sink_playing(s));
	assert_true(played < n); /* ten minutes cannot have played */
	got = read_out(&size1);
	free(got);
	usleep(100000);
	got = read_out(&size2);
	free(got);
	/* Once stop returns, nothing more comes out. */
	assert_int_equal(size1, size2);
	/* A stopped sink plays the next utterance from its start. */
	assert_int_equal(sink_play(s, in, 1600), ERR_OK);
	for (int i = 0; i < 5000 && sink_playing(s); i++)
		usleep(1000);
	assert_int_equal(sink_stop(s, &played), ERR_OK);
	assert_int_equal(played, 1600);
	sink_free(s);
	free(in);
}

static double fake_ms;
static double fake_clock(void *ud)
{
	(void)ud;
	return fake_ms;
}

static void test_sink_file(void **state)
{
	char path[160];
	struct sink *s = NULL;
	float in[RATE];
	size_t played = 0;
	SF_INFO info = {0};
	SNDFILE *f;
	float back[RATE * 2];

	(void)state;
	for (size_t i = 0; i < RATE; i++)
		in[i] = (float)((int)(i % 200) - 100) / 128.0f;
	snprintf(path, sizeof(path), "%s/agent.wav", tmpdir);
	fake_ms = 1000;
	assert_int_equal(sink_open_file(path, RATE, fake_clock, NULL, &s, NULL), ERR_OK);
	assert_string_equal(sink_device_name(s), path);
	assert_int_equal(sink_play(s, in, RATE), ERR_OK);
	assert_true(sink_playing(s));
	assert_int_equal(sink_remaining_ms(s), 1000);
	fake_ms += 250;
	assert_int_equal(sink_remaining_ms(s), 750);
	assert_int_equal(sink_stop(s, &played), ERR_OK);
	assert_int_equal(played, RATE / 4);
	assert_false(sink_playing(s));
	/* A second utterance plays out by itself. */
	assert_int_equal(sink_play(s, in, RATE / 2), ERR_OK);
	fake_ms += 499;
	assert_true(sink_playing(s));
	fake_ms += 2;
	assert_false(sink_playing(s));
	sink_free(s);

	f = sf_open(path, SFM_READ, &info);
	assert_non_null(f);
	assert_int_equal(info.samplerate, RATE);
	assert_int_equal(info.frames, RATE / 4 + RATE / 2);
	assert_int_equal(sf_read_float(f, back, RATE * 2), RATE / 4 + RATE / 2);
	sf_close(f);
	for (size_t i = 0; i < RATE / 4; i++)
		assert_true(fabsf(back[i] - in[i]) < 1.0f / 32768 + 1e-6f);
	for (size_t i = 0; i < RATE / 2; i++)
		assert_true(fabsf(back[RATE / 4 + i] - in[i]) < 1.0f / 32768 + 1e-6f);
}

static void test_errors(void **state)
{
	struct sink *s = (struct sink *)0x1;
	struct capture *c = (struct capture *)0x1;
	char *msg = NULL;

	(void)state;
	assert_int_equal(sink_open_file("/nonexistent-dir/x.wav", RATE, NULL, NULL, &s, &msg), ERR_IO);
	assert_non_null(strstr(msg, "/nonexistent-dir/x.wav"));
	free(msg);
	msg = NULL;
	assert_int_equal(sink_open_file("x.wav", 100, NULL, NULL, &s, NULL), ERR_INVALID);
	assert_int_equal(sink_open_device("no-such-device", RATE, &s, &msg), ERR_NOTFOUND);
	free(msg);
	msg = NULL;
	assert_int_equal(capture_open("fdplay-nope", RATE, 100, &c, &msg), ERR_NOTFOUND);
	free(msg);
	assert_int_equal(capture_open("fdcap", RATE, 5, &c, NULL), ERR_INVALID);
	assert_ptr_equal(s, (struct sink *)0x1);
	assert_ptr_equal(c, (struct capture *)0x1);
	sink_free(NULL);
	capture_free(NULL);
}

TESTMAIN(setup, teardown,
	  cmocka_unit_test(test_list_and_find),
	  cmocka_unit_test(test_capture_file),
	  cmocka_unit_test(test_capture_overrun),
	  cmocka_unit_test(test_sink_device_plays_all),
	  cmocka_unit_test(test_sink_device_stop),
	  cmocka_unit_test(test_sink_file),
	  cmocka_unit_test(test_errors))
