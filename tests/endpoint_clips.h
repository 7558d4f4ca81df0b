/* endpoint_clips: test audio with known speech boundaries, shared by test_endpoint.c and
 * bench_vad.c (header only: the test and bench programs link nothing else of the tests).
 *
 * Real speech: the RESPIN clips (RESPIN-S1.0, SPIRE Lab, IISc; CC-BY-4.0), found at
 * $FORMDESK_RESPIN or ../shared/corpus/respin from the repository root. Each clip is
 * trimmed to its speech by an energy reference (endpoint_extent), then clips are joined with
 * gaps of known length, silent or filled with white noise at a given level, so the true
 * speech boundaries in the joined audio are the edges of the trimmed clips. */
#ifndef FORMDESK_TESTS_ENDPOINT_CLIPS_H
#define FORMDESK_TESTS_ENDPOINT_CLIPS_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audio/audiofile.h"
#include "audio/endpoint.h"

#define CLIPS_RATE 16000
#define CLIPS_FRAME (CLIPS_RATE / 100)

/* The RESPIN folder, or NULL if absent. Static string. */
static inline const char *clips_dir(void)
{
	static char buf[4096];
	const char *env = getenv("FORMDESK_RESPIN");
	struct stat st;

	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s", env);
		return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf : NULL;
	}
	snprintf(buf, sizeof(buf), "../shared/corpus/respin");
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf : NULL;
}

/* Trims s (n samples at CLIPS_RATE) in place to its speech (endpoint_extent): moves the
 * speech to the front and returns its length in samples (0 if none). */
static inline size_t clips_trim(float *s, size_t n)
{
	size_t first, end;

	if (!endpoint_extent(s, n, CLIPS_RATE, &first, &end))
		return 0;
	memmove(s, s + first, (end - first) * sizeof(float));
	return end - first;
}

/* Deterministic white noise (a small LCG, so runs repeat) at level_db dBFS RMS. */
static inline void clips_noise(float *out, size_t n, double level_db, unsigned *seed)
{
	/* Uniform in [-a, a] has RMS a / sqrt(3). */
	double a = pow(10.0, level_db / 20.0) * sqrt(3.0);

	for (size_t i = 0; i < n; i++) {
		*seed = *seed * 1664525u + 1013904223u;
		out[i] = (float)(a * ((double)(*seed >> 8) / (double)(1u << 24) * 2.0 - 1.0));
	}
}

struct clips_joined {
	float *samples;    /* CLIPS_RATE Hz mono; free() */
	size_t n;
	long *start_ms;    /* true speech boundaries, one per clip; free() */
	long *end_ms;
	int n_clips;
};

static inline void clips_joined_free(struct clips_joined *j)
{
	free(j->samples);
	free(j->start_ms);
	free(j->end_ms);
	memset(j, 0, sizeof(*j));
}

/* Appends the trimmed clip `path` after gap_ms of gap (silence if noise_db <= -120, else
 * noise at noise_db dBFS). Returns 0, or -1 with a message on stderr. */
static inline int clips_append(struct clips_joined *j, const char *path, int gap_ms, double noise_db,
			unsigned *seed)
{
	float *s = NULL, *p;
	size_t n = 0, len, gap = (size_t)gap_ms * CLIPS_RATE / 1000;
	char *err = NULL;
	long *a, *b;

	if (audiofile_read(path, CLIPS_RATE, &s, &n, &err) != 0) {
		fprintf(stderr, "%s\n", err ? err : path);
		free(err);
		return -1;
	}
	len = clips_trim(s, n);
	p = realloc(j->samples, (j->n + gap + len + 1) * sizeof(float));
	if (p)
		j->samples = p;
	a = realloc(j->start_ms, (size_t)(j->n_clips + 1) * sizeof(long));
	if (a)
		j->start_ms = a;
	b = realloc(j->end_ms, (size_t)(j->n_clips + 1) * sizeof(long));
	if (b)
		j->end_ms = b;
	if (!p || !a || !b) {
		free(s);
		return -1;
	}
	if (noise_db > -120)
		clips_noise(p + j->n, gap, noise_db, seed);
	else
		memset(p + j->n, 0, gap * sizeof(float));
	j->n += gap;
	memcpy(p + j->n, s, len * sizeof(float));
	j->start_ms[j->n_clips] = (long)(j->n * 1000 / CLIPS_RATE);
	j->n += len;
	j->end_ms[j->n_clips] = (long)(j->n * 1000 / CLIPS_RATE);
	j->n_clips++;
	free(s);
	return 0;
}

/* Ends the joined audio with a trailing gap like the others. Returns 0 or -1. */
static inline int clips_finish(struct clips_joined *j, int gap_ms, double noise_db, unsigned *seed)
{
	size_t gap = (size_t)gap_ms * CLIPS_RATE / 1000;
	float *p = realloc(j->samples, (j->n + gap + 1) * sizeof(float));

	if (!p)
		return -1;
	j->samples = p;
	if (noise_db > -120)
		clips_noise(p + j->n, gap, noise_db, seed);
	else
		memset(p + j->n, 0, gap * sizeof(float));
	j->n += gap;
	return 0;
}

/* Chatter: caller clips at a chosen level, each after a gap filled with other speakers'
 * clips ("distant speech": muffled by a one-pole low-pass at CHATTER_LOWPASS_HZ, the way
 * a voice across a room loses its highs, and scaled to a level relative to the caller),
 * so the true turn starts are known. Levels are RMS over a trimmed clip, which is nearly
 * all speech (an approximation of the active speech level of ITU-T P.56). */
#define CHATTER_LOWPASS_HZ 1500.0

/* A clip in memory, trimmed to its speech. */
struct clips_clip {
	float *s; /* CLIPS_RATE Hz mono; free() */
	size_t n;
};

/* clips_load: reads path at CLIPS_RATE and trims it. Returns 0, or -1 with a message. */
static inline int clips_load(const char *path, struct clips_clip *c)
{
	char *err = NULL;

	c->s = NULL;
	c->n = 0;
	if (audiofile_read(path, CLIPS_RATE, &c->s, &c->n, &err) != 0) {
		fprintf(stderr, "%s\n", err ? err : path);
		free(err);
		return -1;
	}
	c->n = clips_trim(c->s, c->n);
	return c->n ? 0 : -1;
}

/* RMS level of s[0..n) in dBFS (-120 for silence). */
static inline double clips_rms_db(const float *s, size_t n)
{
	double p = 0;

	for (size_t i = 0; i < n; i++)
		p += (double)s[i] * s[i];
	return n && p > 0 ? 10 * log10(p / (double)n) : -120;
}

static inline int clips_grow(struct clips_joined *j, size_t more)
{
	float *p = realloc(j->samples, (j->n + more + 1) * sizeof(float));

	if (!p)
		return -1;
	j->samples = p;
	return 0;
}

/* clips_append_at: appends clip c scaled to level_db dBFS RMS as caller speech (its edges
 * are recorded as a turn's truth). Returns 0 or -1. */
static inline int clips_append_at(struct clips_joined *j, const struct clips_clip *c, double level_db)
{
	long *a = realloc(j->start_ms, (size_t)(j->n_clips + 1) * sizeof(long));
	long *b;
	float g;

	if (a)
		j->start_ms = a;
	b = realloc(j->end_ms, (size_t)(j->n_clips + 1) * sizeof(long));
	if (b)
		j->end_ms = b;
	if (!a || !b || clips_grow(j, c->n) != 0)
		return -1;
	g = (float)pow(10.0, (level_db - clips_rms_db(c->s, c->n)) / 20.0);
	j->start_ms[j->n_clips] = (long)(j->n * 1000 / CLIPS_RATE);
	for (size_t i = 0; i < c->n; i++)
		j->samples[j->n++] = c->s[i] * g;
	j->end_ms[j->n_clips] = (long)(j->n * 1000 / CLIPS_RATE);
	j->n_clips++;
	return 0;
}

/* clips_append_chatter: appends gap_ms of distant speech: the clips ch[*next], ch[*next + 1],
 * ... (cyclically; *next advances) back to back, low-passed, each scaled to level_db dBFS
 * RMS; level_db <= -120 appends silence. Returns 0 or -1. */
static inline int clips_append_chatter(struct clips_joined *j, const struct clips_clip *ch, int n_ch,
				       int *next, int gap_ms, double level_db)
{
	size_t gap = (size_t)gap_ms * CLIPS_RATE / 1000, done = 0;
	const double a = exp(-2.0 * M_PI * CHATTER_LOWPASS_HZ / CLIPS_RATE);

	if (clips_grow(j, gap) != 0)
		return -1;
	if (level_db <= -120 || n_ch == 0) {
		memset(j->samples + j->n, 0, gap * sizeof(float));
		j->n += gap;
		return 0;
	}
	while (done < gap) {
		const struct clips_clip *c = &ch[*next % n_ch];
		size_t len = c->n < gap - done ? c->n : gap - done;
		float *out = j->samples + j->n + done;
		double y = 0, p = 0, g;
		/* scaled by the level of the whole muffled clip, so a cut piece keeps its own */
		for (size_t i = 0; i < c->n; i++) {
			y = (1 - a) * c->s[i] + a * y;
			p += y * y;
			if (i < len)
				out[i] = (float)y;
		}
		g = pow(10.0, (level_db - 10 * log10(p / (double)c->n + 1e-20)) / 20.0);
		for (size_t i = 0; i < len; i++)
			out[i] = (float)(out[i] * g);
		done += len;
		*next = (*next + 1) % n_ch;
	}
	j->n += gap;
	return 0;
}

/* clips_heard: how many of j's caller clips overlap some turn of segs[0..n). */
static inline int clips_heard(const struct clips_joined *j, const struct endpoint_segment *segs, int n)
{
	int heard = 0;

	for (int k = 0; k < j->n_clips; k++)
		for (int i = 0; i < n; i++)
			if (segs[i].start_ms < j->end_ms[k] && segs[i].end_ms > j->start_ms[k]) {
				heard++;
				break;
			}
	return heard;
}

/* clips_starts_found: how many of j's true turn starts have a turn in segs[0..n) starting
 * within tol_ms of them; *extra (if not NULL): turns that start near no true start. */
static inline int clips_starts_found(const struct clips_joined *j, const struct endpoint_segment *segs,
				     int n, long tol_ms, int *extra)
{
	int found = 0, x = 0;

	for (int k = 0; k < j->n_clips; k++)
		for (int i = 0; i < n; i++)
			if (labs(segs[i].start_ms - j->start_ms[k]) <= tol_ms) {
				found++;
				break;
			}
	for (int i = 0; i < n; i++) {
		bool near = false;
		for (int k = 0; k < j->n_clips; k++)
			near |= labs(segs[i].start_ms - j->start_ms[k]) <= tol_ms;
		x += !near;
	}
	if (extra)
		*extra = x;
	return found;
}

#endif
