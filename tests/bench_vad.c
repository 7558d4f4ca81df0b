/* bench_vad: figures for the VAD and the endpointer, printed, never judged.
 * 1. Accuracy of each VAD (webrtc, speex) on the RESPIN clips: each clip, trimmed to its
 *    speech, between two 1.2 s gaps that are silent, hold low white noise, or hold bursts
 *    of louder noise (300 ms on, 300 ms off), or with steady noise under everything; and on espeak-ng Hindi speech
 *    (synthetic) made at run time when espeak-ng is installed. Printed per VAD and
 *    condition: the raw VAD's frame hit rate inside speech and false-alarm rate in the
 *    gaps, then through the endpointer: clips found as exactly one turn, and the share of
 *    their boundaries within 30 ms of the truth, with the mean and largest error.
 * 2. Chatter between turns: callers (the RESPIN clips, then the espeak-ng ones) in runs of
 *    CHATTER_TURNS, each clip scaled to a caller level and put after a CHATTER_GAP_MS gap
 *    that is silent or filled with other clips as distant speech (muffled, at a level
 *    relative to the caller's; tests/endpoint_clips.h). Printed per condition, with the
 *    caller gate off (the pilot's rule: VAD, loudness and noise floor only) and on (the
 *    default): turn starts found (a turn starts within CHATTER_TOL_MS of a caller's
 *    start; in brackets without each run's first turn, which chatter may precede before
 *    her level is known), turns that start at no caller's start, callers heard at all.
 * 3. Speed: VAD plus endpointing over one hour of audio (the clips repeated in memory),
 *    as a real-time factor (processing time / audio time; the target is under 0.002). */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audio/endpoint.h"
#include "audio/vad.h"
#include "endpoint_clips.h"

#define GAP_MS 1200
#define TOL_MS 30
#define CHATTER_TURNS 12
#define CHATTER_GAP_MS 1500
#define CHATTER_TOL_MS 200

enum gap_kind { GAP_SILENT, GAP_STEADY, GAP_UNDER, GAP_BURSTS };

struct cond {
	const char *name;
	enum gap_kind kind;
	double level_db;
};

static const struct cond conds[] = {
	{"silent gaps", GAP_SILENT, -200},
	{"gap noise -60 dBFS", GAP_STEADY, -60},
	{"noise under all -45 dBFS", GAP_UNDER, -45},
	{"gap bursts -35 dBFS", GAP_BURSTS, -35},
};

struct tally {
	long speech_frames, speech_hits, gap_frames, gap_alarms;
	int clips, one_turn, bounds, within;
	double err_sum, err_max;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fills the gaps of j (everything outside the true speech) according to c. */
static void fill_gaps(struct clips_joined *j, const struct cond *c, unsigned *seed)
{
	size_t burst = CLIPS_RATE * 300 / 1000;
	size_t from = 0;

	for (int k = 0; k <= j->n_clips; k++) {
		size_t to = k < j->n_clips ? (size_t)j->start_ms[k] * CLIPS_RATE / 1000 : j->n;
		for (size_t i = from; i < to; i++)
			j->samples[i] = 0;
		if (c->kind == GAP_STEADY)
			clips_noise(j->samples + from, to - from, c->level_db, seed);
		if (c->kind == GAP_BURSTS)
			for (size_t i = from; i < to; i += 2 * burst)
				clips_noise(j->samples + i, i + burst < to ? burst : to - i, c->level_db, seed);
		if (k < j->n_clips)
			from = (size_t)j->end_ms[k] * CLIPS_RATE / 1000;
	}
	if (c->kind == GAP_UNDER) {
		/* a steady background under the speech too, as in a room */
		float buf[CLIPS_FRAME];
		for (size_t i = 0; i < j->n; i += CLIPS_FRAME) {
			size_t len = j->n - i < CLIPS_FRAME ? j->n - i : CLIPS_FRAME;
			clips_noise(buf, len, c->level_db, seed);
			for (size_t k = 0; k < len; k++)
				j->samples[i + k] += buf[k];
		}
	}
}

static void measure(const struct clips_joined *j, enum vad_kind kind, struct tally *t)
{
	struct endpoint_options o = endpoint_defaults();
	struct endpoint_segment *segs = NULL;
	struct vad *v = NULL;
	int n = 0;

	/* The raw VAD, frame by frame. */
	if (vad_new(kind, CLIPS_RATE, &v) == ERR_OK) {
		for (size_t f = 0; (f + 1) * CLIPS_FRAME <= j->n; f++) {
			bool speech = false;
			long ms = (long)(f * 10);
			bool inside = ms >= j->start_ms[0] && ms + 10 <= j->end_ms[0];
			bool outside = ms + 10 <= j->start_ms[0] || ms >= j->end_ms[0];
			vad_process(v, j->samples + f * CLIPS_FRAME, &speech);
			if (inside) {
				t->speech_frames++;
				t->speech_hits += speech;
			} else if (outside) {
				t->gap_frames++;
				t->gap_alarms += speech;
			}
		}
		vad_free(v);
	}
	/* Through the endpointer. */
	o.vad = kind;
	t->clips++;
	if (endpoint_find(j->samples, j->n, CLIPS_RATE, &o, &segs, &n) != ERR_OK || n != 1) {
		free(segs);
		return;
	}
	t->one_turn++;
	double e[2] = {fabs((double)(segs[0].start_ms - j->start_ms[0])),
		       fabs((double)(segs[0].end_ms - j->end_ms[0]))};
	for (int k = 0; k < 2; k++) {
		t->bounds++;
		t->within += e[k] <= TOL_MS;
		t->err_sum += e[k];
		if (e[k] > t->err_max)
			t->err_max = e[k];
	}
	free(segs);
}

static void print_tally(const char *vad, const char *cond, const struct tally *t)
{
	printf("%-7s %-30s frames: speech hit %5.1f%%, gap false alarm %5.1f%% | turns: one %3d/%3d, "
	       "bounds within %d ms %3d/%3d (%5.1f%%), mean err %5.1f ms, max %4.0f ms\n",
	       vad, cond, t->speech_frames ? 100.0 * t->speech_hits / t->speech_frames : 0,
	       t->gap_frames ? 100.0 * t->gap_alarms / t->gap_frames : 0, t->one_turn, t->clips,
	       TOL_MS, t->within, t->bounds, t->bounds ? 100.0 * t->within / t->bounds : 0,
	       t->bounds ? t->err_sum / t->bounds : 0, t->err_max);
}

/* Makes a few synthetic (espeak-ng, Hindi) utterances in a temporary folder; returns how
 * many paths were written to paths[], 0 if espeak-ng is missing. */
static int make_synthetic(char dir[], size_t dlen, char paths[][512], int max)
{
	static const char *const lines[] = {
		"मेरा नाम सुनीता देवी है",
		"मैं गया जिले से बोल रही हूँ",
		"हाँ, मैं पाँच महीने से गर्भवती हूँ",
		"मेरा नंबर नौ आठ सात छह पाँच चार तीन दो एक शून्य है",
		"आधार के आखिरी चार अंक चार दो सात एक हैं",
		"पता नहीं",
	};
	int n = 0;

	snprintf(dir, dlen, "/tmp/formdesk-bench-XXXXXX");
	if (!mkdtemp(dir))
		return 0;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && n < max; i++) {
		char cmd[1024];
		snprintf(paths[n], 512, "%s/synthetic_%zu.wav", dir, i);
		snprintf(cmd, sizeof(cmd), "espeak-ng -v hi -w '%s' '%s' 2>/dev/null", paths[n], lines[i]);
		if (system(cmd) == 0)
			n++;
	}
	return n;
}

static void accuracy(char **clips, int n_clips)
{
	enum vad_kind kinds[] = {VAD_WEBRTC, VAD_SPEEX};
	char dir[64], synth[8][512];
	int n_synth = make_synthetic(dir, sizeof(dir), synth, 8);

	printf("accuracy: %d RESPIN clips (real speech), %d espeak-ng clips (synthetic); each "
	       "between %d ms gaps; default endpoint options\n", n_clips, n_synth, GAP_MS);
	for (size_t c = 0; c < sizeof(conds) / sizeof(conds[0]); c++)
		for (int set = 0; set < 2; set++) {
			char **paths = clips;
			int n = n_clips;
			char *sp[8];
			char label[64];
			if (set == 1) {
				for (int i = 0; i < n_synth; i++)
					sp[i] = synth[i];
				paths = sp;
				n = n_synth;
			}
			if (n == 0)
				continue;
			snprintf(label, sizeof(label), "%s%s", set ? "synth, " : "", conds[c].name);
			for (size_t k = 0; k < 2; k++) {
				struct tally t = {0};
				for (int i = 0; i < n; i++) {
					struct clips_joined j = {0};
					unsigned seed = 7u + (unsigned)i;
					if (clips_append(&j, paths[i], GAP_MS, -200, &seed) == 0 &&
					    clips_finish(&j, GAP_MS, -200, &seed) == 0) {
						fill_gaps(&j, &conds[c], &seed);
						measure(&j, kinds[k], &t);
					}
					clips_joined_free(&j);
				}
				print_tally(vad_kind_name(kinds[k]), label, &t);
			}
		}
	for (int i = 0; i < n_synth; i++)
		unlink(synth[i]);
	if (n_synth > 0 || dir[0])
		rmdir(dir);
}

struct chatter_cond {
	const char *name;
	double caller_db; /* dBFS RMS */
	double rel_db;    /* the speech in the gaps, dB relative to the caller; -200: silent */
};

static const struct chatter_cond chatter_conds[] = {
	{"caller -26 dBFS, silent gaps", -26, -200},
	{"caller -26 dBFS, speech in gaps -35 dB", -26, -35},
	{"caller -26 dBFS, speech in gaps -25 dB", -26, -25},
	{"caller -20 dBFS, speech in gaps -25 dB", -20, -25},
	{"caller -20 dBFS, speech in gaps -15 dB", -20, -15},
	{"quiet caller -35 dBFS, silent gaps", -35, -200},
	{"quiet caller -35 dBFS, speech in gaps -25 dB", -35, -25},
};

/* Runs of CHATTER_TURNS callers over clips c[0..n) (the chatter from the other half of the
 * set), for one condition and gate; prints one line. */
static void chatter_row(const char *set, const struct clips_clip *c, int n, const struct chatter_cond *k,
			double gate_db)
{
	int runs = (n + CHATTER_TURNS - 1) / CHATTER_TURNS, found = 0, found_later = 0, extra = 0, heard = 0;

	for (int r = 0; r < runs; r++) {
		struct clips_joined j = {0};
		struct endpoint_options o = endpoint_defaults();
		struct endpoint_segment *segs = NULL;
		int next = (r * CHATTER_TURNS + n / 2) % n, n_segs = 0, x = 0;
		double gap_db = k->rel_db <= -120 ? -200 : k->caller_db + k->rel_db;
		bool ok = true;

		for (int t = 0; t < CHATTER_TURNS && ok; t++)
			ok = clips_append_chatter(&j, c, n, &next, CHATTER_GAP_MS, gap_db) == 0 &&
			     clips_append_at(&j, &c[(r * CHATTER_TURNS + t) % n], k->caller_db) == 0;
		ok = ok && clips_append_chatter(&j, c, n, &next, CHATTER_GAP_MS, gap_db) == 0;
		o.caller_gate_db = gate_db;
		if (ok && endpoint_find(j.samples, j.n, CLIPS_RATE, &o, &segs, &n_segs) == ERR_OK) {
			int f = clips_starts_found(&j, segs, n_segs, CHATTER_TOL_MS, &x);
			found += f;
			/* the run's first turn */
			found_later += f - (n_segs > 0 && labs(segs[0].start_ms - j.start_ms[0]) <= CHATTER_TOL_MS);
			extra += x;
			heard += clips_heard(&j, segs, n_segs);
		}
		free(segs);
		clips_joined_free(&j);
	}
	printf("chatter %-6s %-44s gate %-7s turn starts found %3d/%3d (%5.1f%%; after the first %3d/%3d), "
	       "extra turns %3d, callers heard %3d/%3d\n", set, k->name, gate_db > 0 ? "on" : "off", found,
	       runs * CHATTER_TURNS, 100.0 * found / (runs * CHATTER_TURNS), found_later,
	       runs * (CHATTER_TURNS - 1), extra, heard, runs * CHATTER_TURNS);
}

static void chatter(char **clips, int n_clips)
{
	struct clips_clip *c = calloc((size_t)n_clips + 8, sizeof(*c));
	char dir[64], synth[8][512];
	int n = 0, n_synth;
	double gate = endpoint_defaults().caller_gate_db;

	if (!c)
		return;
	for (int i = 0; i < n_clips; i++)
		n += clips_load(clips[i], &c[n]) == 0;
	printf("chatter: runs of %d callers, %d ms gaps (silent or speech from other clips, muffled, "
	       "dB relative to the caller); a start is found within %d ms; caller gate %.0f dB\n",
	       CHATTER_TURNS, CHATTER_GAP_MS, CHATTER_TOL_MS, gate);
	for (size_t k = 0; k < sizeof(chatter_conds) / sizeof(chatter_conds[0]); k++) {
		chatter_row("RESPIN", c, n, &chatter_conds[k], 0);
		chatter_row("RESPIN", c, n, &chatter_conds[k], gate);
	}
	for (int i = 0; i < n; i++)
		free(c[i].s);
	/* espeak-ng Hindi (synthetic), not from the RESPIN corpus */
	n_synth = make_synthetic(dir, sizeof(dir), synth, 8);
	n = 0;
	for (int i = 0; i < n_synth; i++) {
		n += clips_load(synth[i], &c[n]) == 0;
		unlink(synth[i]);
	}
	if (n_synth > 0 || dir[0])
		rmdir(dir);
	for (size_t k = 0; n > 1 && k < 3; k++) {
		chatter_row("synth", c, n, &chatter_conds[k], 0);
		chatter_row("synth", c, n, &chatter_conds[k], gate);
	}
	for (int i = 0; i < n; i++)
		free(c[i].s);
	free(c);
}

static void speed(char **clips, int n_clips)
{
	const size_t hour = (size_t)CLIPS_RATE * 3600;
	struct clips_joined one = {0};
	float *audio = malloc(hour * sizeof(float));
	unsigned seed = 1;

	if (!audio)
		return;
	for (int i = 0; i < n_clips; i++)
		clips_append(&one, clips[i], 1000, -60, &seed);
	if (one.n == 0) {
		free(audio);
		return;
	}
	for (size_t i = 0; i < hour; i += one.n)
		memcpy(audio + i, one.samples, (hour - i < one.n ? hour - i : one.n) * sizeof(float));
	for (int k = 0; k < 2; k++) {
		struct endpoint_options o = endpoint_defaults();
		struct endpoint_segment *segs = NULL;
		int n = 0;
		double t0, dt;
		o.vad = k == 0 ? VAD_WEBRTC : VAD_SPEEX;
		t0 = now_s();
		endpoint_find(audio, hour, CLIPS_RATE, &o, &segs, &n);
		dt = now_s() - t0;
		printf("speed: %-7s 1 h of 16 kHz audio in %.2f s: real-time factor %.5f (target < 0.002), "
		       "%d turns\n", vad_kind_name(o.vad), dt, dt / 3600.0, n);
		free(segs);
	}
	clips_joined_free(&one);
	free(audio);
}

int main(void)
{
	const char *dir = clips_dir();
	char pattern[4200];
	glob_t g;

	if (!dir) {
		printf("bench_vad: no RESPIN clips (set FORMDESK_RESPIN or put them in "
		       "../shared/corpus/respin); skipped\n");
		return 0;
	}
	snprintf(pattern, sizeof(pattern), "%s/*/*.mp3", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		printf("bench_vad: no clips match %s; skipped\n", pattern);
		return 0;
	}
	accuracy(g.gl_pathv, (int)g.gl_pathc);
	chatter(g.gl_pathv, (int)g.gl_pathc);
	speed(g.gl_pathv, (int)g.gl_pathc);
	globfree(&g);
	return 0;
}
