/* endpoint: the endpointing state machine over a VAD's 10 ms decisions (see endpoint.h).
 *
 * Which VAD. Both candidates were run through this endpointer (default options) on the 95
 * RESPIN clips (real rural speech, MP3 16 kHz), each trimmed to its speech and put between
 * known gaps, and on 6 espeak-ng Hindi utterances (synthetic); tests/bench_vad.c prints
 * these figures (`make bench`):
 *                         raw VAD frames           endpointed: boundaries within 30 ms
 *                         speech hit / gap alarm   (clips found as exactly one turn)
 *   silent gaps      webrtc  93.8% /  4.1%         93.7% (87/95)
 *                    speex   99.3% /  7.6%         97.8% (89/95)
 *   gaps at -60 dBFS webrtc  96.3% /  8.7%         97.8% (89/95)
 *                    speex   99.2% / 90.0%         97.8% (89/95)
 *   -45 dBFS noise   webrtc  93.9% /  7.0%         95.5% (88/95)
 *   under all        speex   99.6% / 73.3%         96.0% (87/95)
 *   synthetic, -60   webrtc  99.6% / 33.3%         11/12 boundaries
 *                    speex  100.0% / 97.4%         11/12
 *   speed (1 h)      webrtc  RTF 0.0003; speex RTF 0.0012
 * The WebRTC VAD is the default. The endpointed figures are close, and speex is ahead on
 * silent gaps, but only because speexdsp's speech probability calls nearly every frame
 * with any sound in it speech (73-97% false alarms in noise; its own source calls its VAD
 * "a hack pending a complete rewrite"): with it the endpointer is the loudness gate below
 * and nothing else, and any sound 6 dB over the noise floor holds a turn open. WebRTC's
 * decisions reject steady noise (4-9% false alarms) and it is four times faster. Its
 * misses are soft onsets (speech hit 94%), which cost it the few boundaries beyond 30 ms,
 * and it splits two more clips at pauses of about 0.6 s inside them.
 * Neither VAD rejects short bursts of loud noise (300 ms bursts at -35 dBFS in the gaps are
 * taken as speech by both; bench "gap bursts"); the caller gate below now keeps those
 * after her first words out of her turns (clips as one turn 40/95 -> 87/95), but a burst
 * before them still starts the turn (boundaries within 30 ms 0% -> 24%).
 *
 * Loudness gate. A frame is speech only if the VAD says so, it reaches min_loudness_db,
 * and it stands GATE_DB above the running noise floor. The floor's window starts full of
 * a prior (min_loudness_db - GATE_DB), not empty: an empty window let speech from the first
 * sample become its own floor, and the turn's start was reported 40 ms to 1.35 s late on
 * 84 of the 95 clips (20 ms of silence first hid it; now the two give the same turns).
 * The cost: steady noise from the first sample is left to the VAD until the floor has
 * heard 1.8 s; WebRTC rejects it (noise under all -45 dBFS: boundaries 95.5% -> 97.1%),
 * speexdsp does not (96.0% -> 46.6%, its turns start at the first sample).
 *
 * Caller gate: chatter between turns. Distant speech in the gaps (another person in the
 * room, a television) is speech to the VAD and loud enough for the loudness gate, so it
 * held turns open and merged them. The gate follows two levels: hers (a high percentile
 * of her own speech frames) and the background's (a percentile of what is heard outside
 * her speech); a frame counts as hers if it reaches min(her level - caller_gate_db,
 * background + BG_MARGIN_DB), and an utterance needs START_STRONG such frames to start.
 * In a quiet room the background term is low, so soft words pass as before; with chatter
 * her level term keeps it out. Measured by bench_vad ("chatter"): runs of 12 RESPIN
 * callers (96 turns), each after 1.5 s gaps filled with other clips, muffled (one-pole
 * low-pass at 1.5 kHz), at a level relative to the caller's; a start is found when a turn
 * starts within 200 ms of hers:
 *                                      pilot rule   caller gate 15 dB
 *   caller -26 dBFS, silent gaps        93/96        93/96
 *     speech in the gaps at -35 dB      95/96        95/96
 *     speech in the gaps at -25 dB      30/96        81/96 (81/88 after a run's first turn)
 *   caller -20 dBFS, gaps at -25 dB      7/96        77/96 (77/88)
 *   caller -20 dBFS, gaps at -15 dB      3/96         5/96 (a limit: chatter that loud
 *                                                     is a second caller)
 *   quiet caller -35 dBFS, silent       82/96        82/96 (all 96 heard by both)
 *   quiet caller -35 dBFS, gaps -25 dB  84/96        84/96
 *   espeak-ng (synthetic), gaps -25 dB  7/12         12/12
 * Alternatives measured on the same runs (caller -26 dBFS / -20 dBFS, gaps at -25 dB;
 * silent gaps): her level alone, without the background term: 82/96 and 81/96 but silent
 * gaps fall to 88/96 (soft first words of a turn are cut); the gate width: 10 dB 73 / 72,
 * 12 dB 77 / 74, 15 dB 81 / 77, 18 dB 81 / 77, 20 dB 71 / 62 (15 chosen: the narrowest of
 * the plateau); the background at its 50th percentile instead of the 75th: 62 / 46;
 * a prior level for a caller not yet heard (-22 dBFS): +3 / +2 starts, but a caller 15 dB
 * below it would never be heard in a noisy room, so the gate waits for 300 ms of her
 * speech instead (caller_level_db carries her level to the next question's endpointer:
 * test_caller_level_carried); webrtc-audio-processing's noise suppression before the
 * VAD (moderate / very high): pilot rule 31 / 35 and 7 / 8, with the gate 81 / 83 and
 * 78 / 78, silent gaps 93 / 91: chatter is not the steady noise it removes, so it was
 * left out. The misses left: a run's first turn when chatter comes before her first
 * words (her level is not known yet), first words softer than the chatter, and chatter
 * peaks just before she starts. A caller who drops 18 dB between turns (alone) keeps
 * all her turns heard; one start of 12 comes later than with the pilot rule.
 *
 * Boundaries are the first and last speech frames of a turn by that rule, to the 10 ms
 * frame. (Moving them afterwards to where the loudness crosses a threshold, to undo the
 * VAD's onset delay and hangover, was tried: on silent gaps it moved webrtc from 93.7% to
 * 95.4% of boundaries within 30 ms, with noise under the speech it fell from 95.5% to
 * 89.2%; the gate already cuts the hangover, so it was left out.) */
#include "endpoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"

#define FRAME_MS 10
#define SILENT_DB (-120.0)

/* Noise floor: the FLOOR_PERCENT percentile of the last FLOOR_FRAMES frames' loudness
 * (2 s; speech leaves gaps between words, so a low percentile sits on the noise). A frame
 * is speech only if it is GATE_DB above the floor, so steady noise the VAD mistakes for
 * speech cannot hold a turn open. */
#define FLOOR_FRAMES 200
#define FLOOR_PERCENT 10
#define GATE_DB 6.0

enum state { QUIET, STARTING, SPEAKING, STOPPING };

/* A sliding window of dB values with a percentile: the values in arrival order (a ring)
 * and the same values sorted. */
struct pwin {
	double *ring, *sorted;
	int cap, n;
	long pushed;
};

/* The caller gate (see the header comment for the figures these were chosen on):
 * - her level: the LEVEL_PERCENT percentile of the frames of her last LEVEL_FRAMES (3 s)
 *   of speech; the gate is off until LEVEL_MIN_FRAMES have been heard (or caller_level_db
 *   stands in for them);
 * - the background: the BG_PERCENT percentile of the last BG_FRAMES frames heard outside
 *   her speech (the window starts full of the floor's prior, as the floor's does);
 * - a frame is hers if it is at least min(level - caller_gate_db, background + BG_MARGIN_DB)
 *   loud: in quiet rooms the background term lets soft words through, with chatter the
 *   level term keeps the chatter out;
 * - an utterance starts on a run of speech frames holding START_STRONG frames that pass
 *   the gate (whatever start_ms: one loud frame of chatter is no evidence), its start at
 *   most LEAD_FRAMES before the first of them; inside it, frames
 *   that do not pass still count as speech up to HOLD_FRAMES after the last that did
 *   (word endings are softer than the level). */
#define LEVEL_FRAMES 300
#define LEVEL_PERCENT 80
#define LEVEL_MIN_FRAMES 30
#define BG_FRAMES 200
#define BG_PERCENT 75
#define BG_MARGIN_DB 10.0
#define START_STRONG 3
#define LEAD_FRAMES 15
#define HOLD_FRAMES 20

struct endpoint {
	struct endpoint_options opt;
	struct vad *vad;
	int frame;          /* samples per frame */
	float *pending;     /* a partial frame carried to the next feed */
	int n_pending;

	long now;           /* frames processed */
	double level_db;
	double floor_db;    /* noise floor estimate, dBFS */
	struct pwin floor;  /* the last FLOOR_FRAMES frames' dB */
	struct pwin level;  /* the caller's last LEVEL_FRAMES speech frames' dB */
	struct pwin bg;     /* the last FLOOR_FRAMES frames' dB heard outside her speech */
	long last_strong;   /* last frame that passed the caller gate; -1 if none */
	int n_strong;       /* STARTING: frames of the run that passed the caller gate */
	long first_strong;  /* STARTING: the first of them; -1 if none */

	enum state state;
	long run_start;     /* STARTING: first frame of the speech run */
	long last_speech;   /* SPEAKING/STOPPING: last speech frame */
	long quiet_run;     /* STOPPING: non-speech frames so far */
	long utt_start;     /* the current utterance's first speech frame */

	bool in_turn;       /* a turn has started and not ended */
	long turn_start, turn_end; /* frames */
	long turn_deadline; /* frame at which the turn ends unless speech starts again; -1 if none */

	struct endpoint_event *queue;
	size_t q_head, q_len, q_cap;
};

struct endpoint_options endpoint_defaults(void)
{
	struct endpoint_options o = {
		.start_ms = 100,
		.stop_ms = 200,
		.turn_wait_ms = 400,
		/* The pilot's "0.6 loudness" is a normalized volume of its VAD framework, not a
		 * level; -50 dBFS keeps line noise and quiet rooms out while quiet telephone
		 * speech (about -26 dBov nominal, ITU-T P.56) passes with room to spare. */
		.min_loudness_db = -50.0,
		.vad = VAD_WEBRTC,
		.caller_gate_db = 15.0,
		.caller_level_db = 0, /* not known */
	};
	return o;
}

static long ms_to_frames(int ms)
{
	return (ms + FRAME_MS - 1) / FRAME_MS;
}

static enum err push(struct endpoint *ep, enum endpoint_event_kind kind, long start_f, long end_f)
{
	struct endpoint_event *ev;

	if (ep->q_len == ep->q_cap) {
		size_t ncap = ep->q_cap ? ep->q_cap * 2 : 8;
		struct endpoint_event *q = malloc(ncap * sizeof(*q));
		if (!q)
			return ERR_NOMEM;
		for (size_t i = 0; i < ep->q_len; i++)
			q[i] = ep->queue[(ep->q_head + i) % ep->q_cap];
		free(ep->queue);
		ep->queue = q;
		ep->q_cap = ncap;
		ep->q_head = 0;
	}
	ev = &ep->queue[(ep->q_head + ep->q_len) % ep->q_cap];
	ev->kind = kind;
	ev->start_ms = start_f * FRAME_MS;
	ev->end_ms = end_f * FRAME_MS;
	ev->decided_ms = ep->now * FRAME_MS;
	ep->q_len++;
	return ERR_OK;
}

static enum err end_turn(struct endpoint *ep)
{
	ep->in_turn = false;
	ep->turn_deadline = -1;
	return push(ep, ENDPOINT_TURN_END, ep->turn_start, ep->turn_end);
}

/* The utterance has ended (enough silence, or the end of the audio). */
static enum err end_utterance(struct endpoint *ep)
{
	long e = ep->last_speech + 1;
	enum err rc;

	ep->turn_end = e;
	ep->state = QUIET;
	rc = push(ep, ENDPOINT_SPEECH_END, ep->utt_start, e);
	if (rc != ERR_OK)
		return rc;
	ep->turn_deadline = ep->now + ms_to_frames(ep->opt.turn_wait_ms);
	if (ep->opt.turn_wait_ms <= 0)
		return end_turn(ep);
	return ERR_OK;
}

static enum err confirm_start(struct endpoint *ep)
{
	long s = ep->run_start;

	ep->state = SPEAKING;
	ep->utt_start = s;
	if (!ep->in_turn) {
		ep->in_turn = true;
		ep->turn_start = s;
	}
	ep->turn_deadline = -1;
	return push(ep, ENDPOINT_SPEECH_START, s, s);
}

/* Index of the first element of sorted[0..n) not less than x. */
static int lower_bound(const double *sorted, int n, double x)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (sorted[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int pwin_init(struct pwin *w, int cap)
{
	w->ring = malloc(sizeof(double) * (size_t)cap);
	w->sorted = malloc(sizeof(double) * (size_t)cap);
	w->cap = cap;
	w->n = 0;
	w->pushed = 0;
	return w->ring && w->sorted ? 0 : -1;
}

static void pwin_release(struct pwin *w)
{
	free(w->ring);
	free(w->sorted);
}

/* Slides window w by one value x (the oldest leaves once it is full). */
static void pwin_push(struct pwin *w, double x)
{
	int k, slot = (int)(w->pushed % w->cap);

	if (w->n == w->cap) {
		k = lower_bound(w->sorted, w->n, w->ring[slot]);
		memmove(w->sorted + k, w->sorted + k + 1, sizeof(double) * (size_t)(w->n - k - 1));
		w->n--;
	}
	w->ring[slot] = x;
	k = lower_bound(w->sorted, w->n, x);
	memmove(w->sorted + k + 1, w->sorted + k, sizeof(double) * (size_t)(w->n - k));
	w->sorted[k] = x;
	w->n++;
	w->pushed++;
}

/* The percent-th percentile of w's values (w not empty). */
static double pwin_pct(const struct pwin *w, int percent)
{
	return w->sorted[w->n * percent / 100];
}

/* The caller gate's threshold for the next frame, dBFS; -HUGE_VAL when the gate is off. */
static double gate_threshold(const struct endpoint *ep)
{
	double t, b;

	if (ep->opt.caller_gate_db <= 0 || ep->level.n < LEVEL_MIN_FRAMES)
		return -HUGE_VAL;
	t = pwin_pct(&ep->level, LEVEL_PERCENT) - ep->opt.caller_gate_db;
	b = pwin_pct(&ep->bg, BG_PERCENT) + BG_MARGIN_DB;
	return t < b ? t : b;
}

/* One 10 ms frame: loudness, VAD decision, state machine. */
static enum err step(struct endpoint *ep, const float *x)
{
	double pow = 0, db;
	bool voice = false, loose, strong, speech;
	enum err rc = ERR_OK;
	long i = ep->now;

	for (int k = 0; k < ep->frame; k++)
		pow += (double)x[k] * x[k];
	pow /= ep->frame;
	db = pow > 1e-12 ? 10.0 * log10(pow) : SILENT_DB;
	rc = vad_process(ep->vad, x, &voice);
	if (rc != ERR_OK)
		return rc;
	pwin_push(&ep->floor, db);
	ep->floor_db = pwin_pct(&ep->floor, FLOOR_PERCENT);
	loose = voice && db >= ep->opt.min_loudness_db && db >= ep->floor_db + GATE_DB;
	/* outside her speech (a start not yet confirmed included: chatter mostly ends there) */
	if (ep->state == QUIET || ep->state == STARTING)
		pwin_push(&ep->bg, db);
	strong = loose && db >= gate_threshold(ep);
	ep->level_db = db;
	ep->now = i + 1;

	switch (ep->state) {
	case QUIET:
		if (!loose)
			break;
		ep->state = STARTING;
		ep->run_start = i;
		ep->n_strong = 0;
		ep->first_strong = -1;
		/* This frame may already be enough (start_ms <= 10). */
		/* fall through */
	case STARTING:
		if (!loose) {
			ep->state = QUIET;
			break;
		}
		if (strong) {
			ep->n_strong++;
			if (ep->first_strong < 0)
				ep->first_strong = i;
			ep->last_strong = i;
		}
		if (ep->first_strong >= 0 && ep->first_strong - LEAD_FRAMES > ep->run_start)
			ep->run_start = ep->first_strong - LEAD_FRAMES;
		if ((i - ep->run_start + 1) * FRAME_MS >= ep->opt.start_ms &&
		    ep->n_strong >= START_STRONG) {
			ep->last_speech = i;
			rc = confirm_start(ep);
		}
		break;
	case SPEAKING:
	case STOPPING:
		speech = loose && (strong || i - ep->last_strong <= HOLD_FRAMES);
		if (speech) {
			ep->state = SPEAKING;
			ep->last_speech = i;
			if (strong)
				ep->last_strong = i;
			pwin_push(&ep->level, db);
			break;
		}
		ep->state = STOPPING;
		if ((i - ep->last_speech) * FRAME_MS >= ep->opt.stop_ms)
			rc = end_utterance(ep);
		break;
	}
	if (rc == ERR_OK && ep->in_turn && ep->state == QUIET && ep->turn_deadline >= 0 &&
	    ep->now >= ep->turn_deadline)
		rc = end_turn(ep);
	return rc;
}

enum err endpoint_new(int rate, const struct endpoint_options *opt, struct endpoint **out)
{
	struct endpoint *ep = NULL;
	struct endpoint_options o = opt ? *opt : endpoint_defaults();
	enum err rc;

	if (rate != 8000 && rate != 16000)
		return ERR_INVALID;
	if (o.start_ms < 0 || o.stop_ms < 0 || o.turn_wait_ms < 0)
		return ERR_INVALID;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return ERR_NOMEM;
	ep->opt = o;
	rc = vad_new(o.vad, rate, &ep->vad);
	if (rc != ERR_OK)
		goto out;
	rc = ERR_NOMEM;
	ep->frame = vad_frame_samples(ep->vad);
	ep->pending = malloc(sizeof(float) * (size_t)ep->frame);
	if (!ep->pending || pwin_init(&ep->floor, FLOOR_FRAMES) || pwin_init(&ep->level, LEVEL_FRAMES) ||
	    pwin_init(&ep->bg, BG_FRAMES))
		goto out;
	/* Before anything is heard the floor is unknown: the window starts as FLOOR_FRAMES
	 * frames at the prior, min_loudness_db - GATE_DB, so that the floor gate asks no more
	 * than the loudness minimum. (It used to start empty: speech from the first sample
	 * then made its own floor, and the start of the turn was lost, 40 ms to 1.35 s on
	 * 84 of the 95 RESPIN clips; 20 ms of silence first hid it.) */
	for (int k = 0; k < FLOOR_FRAMES; k++)
		pwin_push(&ep->floor, o.min_loudness_db - GATE_DB);
	for (int k = 0; k < BG_FRAMES; k++)
		pwin_push(&ep->bg, o.min_loudness_db - GATE_DB);
	ep->floor_db = o.min_loudness_db - GATE_DB;
	ep->last_strong = -1;
	for (int k = 0; o.caller_level_db < 0 && k < LEVEL_MIN_FRAMES; k++)
		pwin_push(&ep->level, o.caller_level_db);
	ep->state = QUIET;
	ep->turn_deadline = -1;
	ep->level_db = SILENT_DB;
	*out = ep;
	ep = NULL;
	rc = ERR_OK;
out:
	endpoint_free(ep);
	return rc;
}

void endpoint_free(struct endpoint *ep)
{
	if (!ep)
		return;
	vad_free(ep->vad);
	free(ep->pending);
	pwin_release(&ep->floor);
	pwin_release(&ep->level);
	pwin_release(&ep->bg);
	free(ep->queue);
	free(ep);
}

enum err endpoint_feed(struct endpoint *ep, const float *samples, size_t n)
{
	enum err rc;
	size_t i = 0;

	if (ep->n_pending > 0) {
		size_t take = (size_t)(ep->frame - ep->n_pending);
		if (take > n)
			take = n;
		memcpy(ep->pending + ep->n_pending, samples, take * sizeof(float));
		ep->n_pending += (int)take;
		i = take;
		if (ep->n_pending < ep->frame)
			return ERR_OK;
		ep->n_pending = 0;
		rc = step(ep, ep->pending);
		if (rc != ERR_OK)
			return rc;
	}
	for (; i + (size_t)ep->frame <= n; i += (size_t)ep->frame) {
		rc = step(ep, samples + i);
		if (rc != ERR_OK)
			return rc;
	}
	if (i < n) {
		memcpy(ep->pending, samples + i, (n - i) * sizeof(float));
		ep->n_pending = (int)(n - i);
	}
	return ERR_OK;
}

enum err endpoint_finish(struct endpoint *ep)
{
	enum err rc = ERR_OK;

	/* A run too short to start speech is dropped, as more silence would drop it. */
	if (ep->state == STARTING)
		ep->state = QUIET;
	if (ep->state == SPEAKING || ep->state == STOPPING)
		rc = end_utterance(ep);
	if (rc == ERR_OK && ep->in_turn)
		rc = end_turn(ep);
	return rc;
}

bool endpoint_next(struct endpoint *ep, struct endpoint_event *ev)
{
	if (ep->q_len == 0)
		return false;
	*ev = ep->queue[ep->q_head];
	ep->q_head = (ep->q_head + 1) % ep->q_cap;
	ep->q_len--;
	return true;
}

bool endpoint_speaking(const struct endpoint *ep)
{
	return ep->state == SPEAKING || ep->state == STOPPING;
}

double endpoint_caller_level_db(const struct endpoint *ep)
{
	return ep->level.n < LEVEL_MIN_FRAMES ? 0 : pwin_pct(&ep->level, LEVEL_PERCENT);
}

double endpoint_level_db(const struct endpoint *ep)
{
	return ep->level_db;
}

/* endpoint_extent's energy reference (see endpoint.h). */
#define EXTENT_PEAK_DB 35.0
#define EXTENT_FLOOR_DB 10.0
#define EXTENT_RUN 5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

bool endpoint_extent(const float *s, size_t n, int rate, size_t *first, size_t *end)
{
	size_t fs = (size_t)rate / 100, nf = fs ? n / fs : 0, a = nf, z = 0;
	double *db, *sorted, thr;

	if (nf == 0)
		return false;
	db = malloc(nf * sizeof(double));
	sorted = malloc(nf * sizeof(double));
	if (!db || !sorted) {
		free(db);
		free(sorted);
		return false;
	}
	for (size_t f = 0; f < nf; f++) {
		double p = 0;
		for (size_t k = 0; k < fs; k++)
			p += (double)s[f * fs + k] * s[f * fs + k];
		db[f] = 10 * log10(p / (double)fs + 1e-12);
		sorted[f] = db[f];
	}
	qsort(sorted, nf, sizeof(double), cmp_double);
	thr = sorted[nf - 1] - EXTENT_PEAK_DB;
	if (sorted[nf / 10] + EXTENT_FLOOR_DB > thr)
		thr = sorted[nf / 10] + EXTENT_FLOOR_DB;
	for (size_t f = 0, run = 0; f < nf; f++) {
		run = db[f] >= thr ? run + 1 : 0;
		if (run >= EXTENT_RUN) {
			if (a == nf)
				a = f + 1 - EXTENT_RUN;
			z = f;
		}
	}
	free(db);
	free(sorted);
	if (a == nf)
		return false;
	*first = a * fs;
	*end = (z + 1) * fs;
	return true;
}

enum err endpoint_find(const float *samples, size_t n_samples, int rate,
		       const struct endpoint_options *opt, struct endpoint_segment **segs, int *n_segs)
{
	struct endpoint *ep = NULL;
	struct endpoint_segment *out = NULL;
	struct endpoint_event ev;
	int n = 0, cap = 0;
	enum err rc;
	/* Fed in blocks so the event queue stays small. */
	const size_t block = (size_t)rate;

	rc = endpoint_new(rate, opt, &ep);
	if (rc != ERR_OK)
		return rc;
	for (size_t i = 0;; i += block) {
		bool last = i >= n_samples;
		if (!last) {
			size_t len = n_samples - i < block ? n_samples - i : block;
			rc = endpoint_feed(ep, samples + i, len);
		} else {
			rc = endpoint_finish(ep);
		}
		if (rc != ERR_OK)
			goto out;
		while (endpoint_next(ep, &ev)) {
			if (ev.kind != ENDPOINT_TURN_END)
				continue;
			struct endpoint_segment *p = vec_grow(out, n, &cap, sizeof *p, 8);
			if (!p) {
				rc = ERR_NOMEM;
				goto out;
			}
			out = p;
			out[n].start_ms = ev.start_ms;
			out[n].end_ms = ev.end_ms;
			n++;
		}
		if (last)
			break;
	}
	*segs = out;
	*n_segs = n;
	out = NULL;
	rc = ERR_OK;
out:
	free(out);
	endpoint_free(ep);
	return rc;
}
