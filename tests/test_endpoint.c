/* test_endpoint: endpointing on real speech with known pauses, table-driven from
 * tests/data/endpoint_*.tsv (format in the files' header), plus the streaming interface,
 * options and errors. The RESPIN clips are found at $FORMDESK_RESPIN or
 * ../shared/corpus/respin; tests that need them are skipped, saying so, when absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <samplerate.h>

#include "audio/endpoint.h"
#include "audio/vad.h"
#include "endpoint_clips.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

#define MAX_FIELDS 11
#define MAX_CLIPS 16

struct row {
	const char *file;
	int line;
	char *name;
	int rate;
	struct endpoint_options opt;
	double noise_db;
	int gaps[MAX_CLIPS + 1];
	int n_gaps;
	char *clips[MAX_CLIPS];
	int n_clips;
	int turn_first[MAX_CLIPS], turn_last[MAX_CLIPS]; /* 0-based clip numbers */
	int n_turns;
	int tolerance_ms;
};

/* Splits s at sep in place; returns the field count (at most max). */
static int split(char *s, char sep, char **out, int max)
{
	int n = 0;

	while (n < max) {
		out[n++] = s;
		s = strchr(s, sep);
		if (!s)
			break;
		*s++ = '\0';
	}
	return n;
}

static int parse_int(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end)
		return -1;
	*out = (int)v;
	return 0;
}

/* Parses one table row into r, which points into t's columns (some split in place).
 * Returns 0, or -1 after printing file:line: field: why. */
static int parse_row(const struct table_row *t, struct row *r)
{
	char **f = t->col, *parts[MAX_CLIPS + 2];
	const char *file = t->file;
	int n = t->ncol, lineno = t->line, k;
	static const char *const opt_names[] = {"start_ms", "stop_ms", "turn_wait_ms"};
	int *opts[3];

	memset(r, 0, sizeof(*r));
	r->file = file;
	r->line = lineno;
#define BAD(field, ...) \
	do { \
		fprintf(stderr, "%s:%d: %s: ", file, lineno, field); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		return -1; \
	} while (0)
	if (n != MAX_FIELDS)
		BAD("line", "%d tab-separated fields, expected %d", n, MAX_FIELDS);
	r->name = f[0];
	if (parse_int(f[1], &r->rate) || (r->rate != 8000 && r->rate != 16000))
		BAD("rate", "'%s' is not 8000 or 16000", f[1]);
	r->opt = endpoint_defaults();
	if (vad_kind_parse(f[2], &r->opt.vad) != ERR_OK)
		BAD("vad", "unknown VAD '%s'", f[2]);
	opts[0] = &r->opt.start_ms;
	opts[1] = &r->opt.stop_ms;
	opts[2] = &r->opt.turn_wait_ms;
	for (int i = 0; i < 3; i++)
		if (strcmp(f[3 + i], "-") != 0 && parse_int(f[3 + i], opts[i]))
			BAD(opt_names[i], "'%s' is not a number or -", f[3 + i]);
	{
		char *end;
		r->noise_db = strtod(f[6], &end);
		if (end == f[6] || *end)
			BAD("noise_db", "'%s' is not a number", f[6]);
	}
	k = split(f[8], ',', parts, MAX_CLIPS + 1);
	if (k > MAX_CLIPS)
		BAD("clips", "more than %d clips", MAX_CLIPS);
	for (int i = 0; i < k; i++)
		r->clips[i] = parts[i];
	r->n_clips = k;
	k = split(f[7], ',', parts, MAX_CLIPS + 2);
	if (k != r->n_clips + 1)
		BAD("gaps_ms", "%d gaps for %d clips, expected %d", k, r->n_clips, r->n_clips + 1);
	for (int i = 0; i < k; i++)
		if (parse_int(parts[i], &r->gaps[i]) || r->gaps[i] < 0)
			BAD("gaps_ms", "'%s' is not a length in ms", parts[i]);
	r->n_gaps = k;
	if (strcmp(f[9], "-") != 0) {
		k = split(f[9], '|', parts, MAX_CLIPS + 1);
		for (int i = 0; i < k; i++) {
			char *dash = strchr(parts[i], '-');
			int a, b;
			if (dash)
				*dash = '\0';
			if (parse_int(parts[i], &a) || (dash ? parse_int(dash + 1, &b) : (b = a, 0)) ||
			    a < 1 || b < a || b > r->n_clips)
				BAD("turns", "group %d is not N or N-M within 1..%d", i + 1, r->n_clips);
			r->turn_first[i] = a - 1;
			r->turn_last[i] = b - 1;
		}
		r->n_turns = k;
	}
	if (parse_int(f[10], &r->tolerance_ms) || r->tolerance_ms < 0)
		BAD("tolerance_ms", "'%s' is not a length in ms", f[10]);
#undef BAD
	return 0;
}

/* Resamples 16 kHz audio to 8 kHz with libsamplerate. Output: *out (free()), *n_out. */
static int to_8k(const float *in, size_t n, float **out, size_t *n_out)
{
	SRC_DATA d;
	float *buf = malloc((n / 2 + 64) * sizeof(float));

	if (!buf)
		return -1;
	memset(&d, 0, sizeof(d));
	d.data_in = in;
	d.input_frames = (long)n;
	d.data_out = buf;
	d.output_frames = (long)(n / 2 + 64);
	d.src_ratio = 0.5;
	d.end_of_input = 1;
	if (src_simple(&d, SRC_SINC_MEDIUM_QUALITY, 1) != 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	*n_out = (size_t)d.output_frames_gen;
	return 0;
}

/* Runs one row; returns the number of failed checks (each printed with file:line). */
static int run_row(const struct row *r, const char *dir)
{
	struct clips_joined j = {0};
	struct endpoint_segment *segs = NULL;
	float *audio8 = NULL;
	int n = 0, failed = 0;
	unsigned seed = 12345;
	enum err e;

	for (int i = 0; i < r->n_clips; i++) {
		char path[4600];
		snprintf(path, sizeof(path), "%s/%s", dir, r->clips[i]);
		if (clips_append(&j, path, r->gaps[i], r->noise_db, &seed) != 0) {
			fprintf(stderr, "%s:%d: clips: cannot load %s\n", r->file, r->line, path);
			clips_joined_free(&j);
			return 1;
		}
	}
	if (clips_finish(&j, r->gaps[r->n_clips], r->noise_db, &seed) != 0) {
		clips_joined_free(&j);
		return 1;
	}
	if (r->rate == 8000) {
		size_t n8;
		if (to_8k(j.samples, j.n, &audio8, &n8) != 0) {
			clips_joined_free(&j);
			return 1;
		}
		e = endpoint_find(audio8, n8, 8000, &r->opt, &segs, &n);
	} else {
		e = endpoint_find(j.samples, j.n, 16000, &r->opt, &segs, &n);
	}
	if (e != ERR_OK) {
		fprintf(stderr, "%s:%d: %s: endpoint_find failed: %s\n", r->file, r->line, r->name, err_str(e));
		failed++;
	} else if (n != r->n_turns) {
		fprintf(stderr, "%s:%d: %s: %d turns, expected %d:", r->file, r->line, r->name, n, r->n_turns);
		for (int i = 0; i < n; i++)
			fprintf(stderr, " [%ld, %ld]", segs[i].start_ms, segs[i].end_ms);
		fprintf(stderr, "; truth:");
		for (int i = 0; i < j.n_clips; i++)
			fprintf(stderr, " [%ld, %ld]", j.start_ms[i], j.end_ms[i]);
		fprintf(stderr, "\n");
		failed++;
	} else {
		for (int i = 0; i < n; i++) {
			long ts = j.start_ms[r->turn_first[i]], te = j.end_ms[r->turn_last[i]];
			if (labs(segs[i].start_ms - ts) > r->tolerance_ms ||
			    labs(segs[i].end_ms - te) > r->tolerance_ms) {
				fprintf(stderr, "%s:%d: %s: turn %d is [%ld, %ld] ms, truth [%ld, %ld] ms "
						"(tolerance %d ms)\n", r->file, r->line, r->name, i + 1,
					segs[i].start_ms, segs[i].end_ms, ts, te, r->tolerance_ms);
				failed++;
			}
		}
	}
	if (!failed)
		printf("ok: %s (%d turns)\n", r->name, n);
	free(segs);
	free(audio8);
	clips_joined_free(&j);
	return failed;
}

static void test_tables(void **state)
{
	const char *dir = clips_dir();
	glob_t g;
	int failed = 0, rows = 0;

	(void)state;
	if (!dir) {
		printf("skipped: no RESPIN clips at $FORMDESK_RESPIN or ../shared/corpus/respin\n");
		skip();
	}
	assert_int_equal(glob("tests/data/endpoint_*.tsv", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		struct table_row *v;
		int nv;
		table_load(g.gl_pathv[f], 0, 0, 0, &v, &nv);
		for (int i = 0; i < nv; i++) {
			struct row r;
			rows++;
			if (parse_row(&v[i], &r) != 0) {
				failed++;
				continue;
			}
			failed += run_row(&r, dir);
		}
		table_free(v, nv);
	}
	globfree(&g);
	assert_true(rows > 0);
	assert_int_equal(failed, 0);
}

/* Two clips (without long pauses inside) with 1 s gaps, for the streaming tests. Skips
 * when the clips are absent. */
static void two_clips(struct clips_joined *j)
{
	static const char *const clips[] = {
		"mr/IISc_RESPIN_mr_D4_70131_440030_M_BANK_723875_70379918.mp3",
		"mt/IISc_RESPIN_mt_D3_80025_846004_M_AGRI_812818_80032630.mp3",
	};
	const char *dir = clips_dir();
	unsigned seed = 3;

	if (!dir) {
		printf("skipped: no RESPIN clips at $FORMDESK_RESPIN or ../shared/corpus/respin\n");
		skip();
	}
	for (int i = 0; i < 2; i++) {
		char path[4600];
		snprintf(path, sizeof(path), "%s/%s", dir, clips[i]);
		assert_int_equal(clips_append(j, path, 1000, -60, &seed), 0);
	}
	assert_int_equal(clips_finish(j, 1000, -60, &seed), 0);
}

/* The streaming endpointer fed in odd-sized pieces reports the same turns as
 * endpoint_find, with events in order and decided no earlier than the rules allow. */
static void test_streaming(void **state)
{
	struct clips_joined j = {0};
	struct endpoint_options o = endpoint_defaults();
	struct endpoint_segment *segs = NULL;
	struct endpoint *ep = NULL;
	struct endpoint_event ev;
	int n = 0, turns = 0, starts = 0, ends = 0;
	long last_start = -1;
	bool saw_speaking = false;

	(void)state;
	two_clips(&j);
	assert_int_equal(endpoint_find(j.samples, j.n, CLIPS_RATE, &o, &segs, &n), ERR_OK);
	assert_int_equal(endpoint_new(CLIPS_RATE, &o, &ep), ERR_OK);
	for (size_t i = 0; i < j.n; i += 37) {
		size_t len = j.n - i < 37 ? j.n - i : 37;
		assert_int_equal(endpoint_feed(ep, j.samples + i, len), ERR_OK);
		saw_speaking |= endpoint_speaking(ep);
		while (endpoint_next(ep, &ev)) {
			switch (ev.kind) {
			case ENDPOINT_SPEECH_START:
				starts++;
				last_start = ev.start_ms;
				/* confirmed only after start_ms of speech */
				assert_true(ev.decided_ms >= ev.start_ms + o.start_ms - 10);
				break;
			case ENDPOINT_SPEECH_END:
				ends++;
				assert_int_equal(ev.start_ms, last_start);
				assert_true(ev.end_ms > ev.start_ms);
				assert_true(ev.decided_ms >= ev.end_ms + o.stop_ms - 10);
				break;
			case ENDPOINT_TURN_END:
				assert_true(turns < n);
				assert_int_equal(ev.start_ms, segs[turns].start_ms);
				assert_int_equal(ev.end_ms, segs[turns].end_ms);
				assert_true(ev.decided_ms >= ev.end_ms + o.stop_ms + o.turn_wait_ms - 10);
				turns++;
				break;
			}
		}
	}
	assert_int_equal(endpoint_finish(ep), ERR_OK);
	while (endpoint_next(ep, &ev))
		turns += ev.kind == ENDPOINT_TURN_END;
	assert_true(saw_speaking);
	assert_int_equal(turns, n);
	assert_int_equal(n, 2);
	assert_int_equal(starts, ends);
	assert_true(endpoint_level_db(ep) < -40); /* it ended on low noise */
	endpoint_free(ep);
	free(segs);
	clips_joined_free(&j);
}

/* Audio that stops mid-speech: endpoint_finish closes the turn at the last speech. */
static void test_finish_mid_speech(void **state)
{
	struct clips_joined j = {0};
	struct endpoint_segment *segs = NULL;
	int n = 0;

	(void)state;
	two_clips(&j);
	/* cut 0.5 s before the end of the second clip's speech */
	size_t cut = (size_t)(j.end_ms[1] - 500) * CLIPS_RATE / 1000;
	assert_int_equal(endpoint_find(j.samples, cut, CLIPS_RATE, NULL, &segs, &n), ERR_OK);
	assert_int_equal(n, 2);
	assert_true(labs(segs[1].start_ms - j.start_ms[1]) <= 30);
	assert_true(segs[1].end_ms <= (long)(cut * 1000 / CLIPS_RATE));
	assert_true(segs[1].end_ms > j.end_ms[1] - 700);
	free(segs);
	clips_joined_free(&j);
}

/* Silence and quiet noise are no speech; needs no clips. */
static void test_silence(void **state)
{
	size_t n = CLIPS_RATE * 3;
	float *s = calloc(n, sizeof(float));
	struct endpoint_segment *segs = (void *)1;
	int n_segs = -1;
	unsigned seed = 9;
	enum vad_kind kinds[] = {VAD_WEBRTC, VAD_SPEEX};

	(void)state;
	assert_non_null(s);
	for (int k = 0; k < 2; k++) {
		struct endpoint_options o = endpoint_defaults();
		o.vad = kinds[k];
		assert_int_equal(endpoint_find(s, n, CLIPS_RATE, &o, &segs, &n_segs), ERR_OK);
		assert_int_equal(n_segs, 0);
		assert_null(segs);
		clips_noise(s, n, -65, &seed); /* below the -50 dBFS minimum loudness */
		assert_int_equal(endpoint_find(s, n, CLIPS_RATE, &o, &segs, &n_segs), ERR_OK);
		assert_int_equal(n_segs, 0);
		free(segs);
		memset(s, 0, n * sizeof(float));
	}
	free(s);
}

/* Speech quieter than the minimum loudness is silence. */
static void test_min_loudness(void **state)
{
	struct clips_joined j = {0};
	struct endpoint_options o = endpoint_defaults();
	struct endpoint_segment *segs = NULL;
	int n = 0;

	(void)state;
	two_clips(&j);
	/* scale so that the loudest 10 ms frame is at -55 dBFS, below the -50 default */
	double peak = 0;
	for (size_t f = 0; (f + 1) * CLIPS_FRAME <= j.n; f++) {
		double p = 0;
		for (size_t k = 0; k < CLIPS_FRAME; k++)
			p += (double)j.samples[f * CLIPS_FRAME + k] * j.samples[f * CLIPS_FRAME + k];
		if (p / CLIPS_FRAME > peak)
			peak = p / CLIPS_FRAME;
	}
	float gain = (float)(pow(10.0, -55.0 / 20.0) / sqrt(peak));
	for (size_t i = 0; i < j.n; i++)
		j.samples[i] *= gain;
	assert_int_equal(endpoint_find(j.samples, j.n, CLIPS_RATE, &o, &segs, &n), ERR_OK);
	assert_int_equal(n, 0);
	free(segs);
	o.min_loudness_db = -100;
	assert_int_equal(endpoint_find(j.samples, j.n, CLIPS_RATE, &o, &segs, &n), ERR_OK);
	/* Both clips are heard again (the VAD may split such quiet speech at a pause). */
	assert_true(n >= 2);
	assert_true(segs[0].start_ms < j.end_ms[0]);
	assert_true(segs[n - 1].end_ms > j.start_ms[1]);
	free(segs);
	clips_joined_free(&j);
}

/* The chatter table (tests/data/chatter_respin.tsv, format in its header): callers with
 * speech from other clips in the gaps between their turns; at least min_found of the
 * callers' turn starts found, at most max_extra turns that start at none of them, at
 * least min_heard callers heard at all. */
#define CHATTER_COLS 10
#define CHATTER_GAP_MS 1500
#define CHATTER_TOL_MS 200
#define CHATTER_MAX 16

/* Loads the clips matching dir/pattern (sorted, at most max) into c. Returns the count. */
static int load_glob(const char *dir, const char *pattern, struct clips_clip *c, int max)
{
	char pat[4600];
	glob_t g;
	int n = 0;

	snprintf(pat, sizeof(pat), "%s/%s", dir, pattern);
	if (glob(pat, 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && n < max; i++)
		n += clips_load(g.gl_pathv[i], &c[n]) == 0;
	globfree(&g);
	return n;
}

/* Runs one chatter row; returns the number of failed checks (each printed). */
static int chatter_row(const struct table_row *t, const char *dir)
{
	char **f = t->col, *levels[CHATTER_MAX], lv[256];
	struct clips_clip callers[CHATTER_MAX], chat[CHATTER_MAX];
	struct clips_joined j = {0};
	struct endpoint_options o = endpoint_defaults();
	struct endpoint_segment *segs = NULL;
	int n_levels, n_callers, n_chat, next = 0, n = 0, extra = 0, found, heard, failed = 0;
	double rel = atof(f[2]);
	int max_callers = atoi(f[5]), min_found = atoi(f[7]), max_extra = atoi(f[8]), min_heard = atoi(f[9]);

	snprintf(lv, sizeof(lv), "%s", f[1]);
	n_levels = split(lv, ',', levels, CHATTER_MAX);
	if (strcmp(f[3], "-") != 0)
		o.caller_gate_db = atof(f[3]);
	n_callers = load_glob(dir, f[4], callers, max_callers < CHATTER_MAX ? max_callers : CHATTER_MAX);
	n_chat = load_glob(dir, f[6], chat, CHATTER_MAX);
	if (n_callers == 0 || (rel > -120 && n_chat == 0)) {
		fprintf(stderr, "%s:%d: %s: no clips match '%s' or '%s'\n", t->file, t->line, f[0], f[4], f[6]);
		return 1;
	}
	for (int k = 0; k < n_callers; k++) {
		double level = atof(levels[k % n_levels]);
		assert_int_equal(clips_append_chatter(&j, chat, n_chat, &next, CHATTER_GAP_MS,
						      rel > -120 ? level + rel : -200), 0);
		assert_int_equal(clips_append_at(&j, &callers[k], level), 0);
	}
	assert_int_equal(clips_append_chatter(&j, chat, n_chat, &next, CHATTER_GAP_MS, -200), 0);
	assert_int_equal(endpoint_find(j.samples, j.n, CLIPS_RATE, &o, &segs, &n), ERR_OK);
	found = clips_starts_found(&j, segs, n, CHATTER_TOL_MS, &extra);
	heard = clips_heard(&j, segs, n);
	if (found < min_found || extra > max_extra || heard < min_heard) {
		fprintf(stderr, "%s:%d: %s: %d of %d turn starts found (at least %d wanted), %d extra turns "
				"(at most %d), %d callers heard (at least %d)\n", t->file, t->line, f[0], found,
			n_callers, min_found, extra, max_extra, heard, min_heard);
		failed++;
	} else {
		printf("ok: %s: %d of %d starts found, %d extra turns, %d heard\n", f[0], found, n_callers,
		       extra, heard);
	}
	for (int k = 0; k < n_callers; k++)
		free(callers[k].s);
	for (int k = 0; k < n_chat; k++)
		free(chat[k].s);
	free(segs);
	clips_joined_free(&j);
	return failed;
}

static void test_chatter(void **state)
{
	const char *dir = clips_dir();
	struct table_row *v;
	int nv, failed = 0;

	(void)state;
	if (!dir) {
		printf("skipped: no RESPIN clips at $FORMDESK_RESPIN or ../shared/corpus/respin\n");
		skip();
	}
	table_load("tests/data/chatter_respin.tsv", CHATTER_COLS, CHATTER_COLS, 0, &v, &nv);
	for (int i = 0; i < nv; i++)
		failed += chatter_row(&v[i], dir);
	table_free(v, nv);
	assert_true(nv > 0);
	assert_int_equal(failed, 0);
}

/* Runs a whole recording through a streaming endpointer; returns its first turn in *first
 * (start -1 if none) and the caller level it ended with. */
static double stream_first_turn(const struct clips_joined *j, const struct endpoint_options *o,
				struct endpoint_segment *first)
{
	struct endpoint *ep = NULL;
	struct endpoint_event ev;
	double level;

	first->start_ms = first->end_ms = -1;
	assert_int_equal(endpoint_new(CLIPS_RATE, o, &ep), ERR_OK);
	assert_true(endpoint_caller_level_db(ep) == o->caller_level_db); /* 0: not known yet */
	assert_int_equal(endpoint_feed(ep, j->samples, j->n), ERR_OK);
	assert_int_equal(endpoint_finish(ep), ERR_OK);
	while (endpoint_next(ep, &ev))
		if (ev.kind == ENDPOINT_TURN_END && first->start_ms < 0)
			*first = (struct endpoint_segment){ev.start_ms, ev.end_ms};
	level = endpoint_caller_level_db(ep);
	endpoint_free(ep);
	return level;
}

/* One caller's clip and the chatter clips of the tests below (at most CHATTER_MAX), in
 * memory; returns the chatter count. Skips when the clips are absent. */
static int caller_and_chatter(struct clips_clip *caller, struct clips_clip *chat)
{
	const char *dir = clips_dir();
	char path[4600];
	int n;

	if (!dir) {
		printf("skipped: no RESPIN clips at $FORMDESK_RESPIN or ../shared/corpus/respin\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/%s", dir, "ch/IISc_RESPIN_ch_D1_30014_495113_F_BANK_302760_30539500.mp3");
	assert_int_equal(clips_load(path, caller), 0);
	n = load_glob(dir, "mr/*_D2_*.mp3", chat, CHATTER_MAX);
	assert_true(n > 0);
	return n;
}

/* The caller's level carries from one endpointer to the next (a live call makes one per
 * question): seeded with it, chatter before her first words no longer starts her turn. */
static void test_caller_level_carried(void **state)
{
	struct clips_clip caller, chat[CHATTER_MAX];
	struct clips_joined j = {0};
	struct endpoint_options o = endpoint_defaults();
	struct endpoint_segment first;
	int n_chat = caller_and_chatter(&caller, chat), next = 0;
	double level;

	(void)state;
	/* her answer alone: the level she is heard at (80th-percentile frame of speech at
	 * -20 dBFS RMS) */
	assert_int_equal(clips_append_chatter(&j, chat, 0, &next, 500, -200), 0);
	assert_int_equal(clips_append_at(&j, &caller, -20), 0);
	assert_int_equal(clips_append_chatter(&j, chat, 0, &next, 1000, -200), 0);
	level = stream_first_turn(&j, &o, &first);
	assert_true(level > -24 && level < -10);
	clips_joined_free(&j);
	/* the next question: chatter 25 dB below her, then her answer */
	assert_int_equal(clips_append_chatter(&j, chat, n_chat, &next, 1500, -20 - 25), 0);
	assert_int_equal(clips_append_at(&j, &caller, -20), 0);
	assert_int_equal(clips_append_chatter(&j, chat, n_chat, &next, 1000, -200), 0);
	stream_first_turn(&j, &o, &first);
	assert_true(first.start_ms < j.start_ms[0] - CHATTER_TOL_MS); /* not known: chatter starts it */
	o.caller_level_db = level;
	stream_first_turn(&j, &o, &first);
	assert_true(labs(first.start_ms - j.start_ms[0]) <= CHATTER_TOL_MS);
	assert_true(labs(first.end_ms - j.end_ms[0]) <= CHATTER_TOL_MS);
	for (int k = 0; k < n_chat; k++)
		free(chat[k].s);
	free(caller.s);
	clips_joined_free(&j);
}

/* Even with no start delay (start_ms 0) an utterance needs frames that pass the caller
 * gate: chatter 35 dB below her after her answer starts no turn and does not join hers.
 * (With start_ms under 30 ms the gate once asked for no such frame at all.) */
static void test_gate_without_start_delay(void **state)
{
	struct clips_clip caller, chat[CHATTER_MAX];
	struct clips_joined j = {0};
	struct endpoint_options o = endpoint_defaults();
	struct endpoint_segment *segs = NULL;
	int n_chat = caller_and_chatter(&caller, chat), next = 0, n = 0;

	(void)state;
	assert_int_equal(clips_append_chatter(&j, chat, 0, &next, 500, -200), 0);
	assert_int_equal(clips_append_at(&j, &caller, -20), 0);
	assert_int_equal(clips_append_chatter(&j, chat, n_chat, &next, 4000, -20 - 35), 0);
	o.start_ms = 0;
	assert_int_equal(endpoint_find(j.samples, j.n, CLIPS_RATE, &o, &segs, &n), ERR_OK);
	assert_int_equal(n, 1);
	assert_true(labs(segs[0].start_ms - j.start_ms[0]) <= CHATTER_TOL_MS);
	assert_true(segs[0].end_ms < j.end_ms[0] + 500);
	for (int k = 0; k < n_chat; k++)
		free(chat[k].s);
	free(caller.s);
	free(segs);
	clips_joined_free(&j);
}

static void test_defaults_and_errors(void **state)
{
	struct endpoint_options o = endpoint_defaults();
	struct endpoint *ep = (void *)1;
	struct endpoint_segment *segs = NULL;
	int n = 0;
	float x[160] = {0};
	enum vad_kind k = VAD_SPEEX;

	(void)state;
	/* FormBharo pilot settings */
	assert_int_equal(o.start_ms, 100);
	assert_int_equal(o.stop_ms, 200);
	assert_int_equal(o.turn_wait_ms, 400);
	assert_int_equal(o.vad, VAD_WEBRTC);
	assert_int_equal(endpoint_new(44100, &o, &ep), ERR_INVALID);
	assert_ptr_equal(ep, (void *)1); /* untouched on failure */
	o.stop_ms = -1;
	assert_int_equal(endpoint_new(16000, &o, &ep), ERR_INVALID);
	assert_int_equal(endpoint_find(x, 160, 22050, NULL, &segs, &n), ERR_INVALID);
	endpoint_free(NULL);
	vad_free(NULL);
	assert_int_equal(vad_kind_parse("webrtc", &k), ERR_OK);
	assert_int_equal(k, VAD_WEBRTC);
	assert_int_equal(vad_kind_parse("silero", &k), ERR_NOTFOUND);
	assert_int_equal(k, VAD_WEBRTC);
	assert_string_equal(vad_kind_name(VAD_SPEEX), "speex");
	/* empty audio */
	assert_int_equal(endpoint_find(x, 0, 8000, NULL, &segs, &n), ERR_OK);
	assert_int_equal(n, 0);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_defaults_and_errors),
	  cmocka_unit_test(test_silence),
	  cmocka_unit_test(test_tables),
	  cmocka_unit_test(test_streaming),
	  cmocka_unit_test(test_finish_mid_speech),
	  cmocka_unit_test(test_min_loudness),
	  cmocka_unit_test(test_chatter),
	  cmocka_unit_test(test_caller_level_carried),
	  cmocka_unit_test(test_gate_without_start_delay))
