/* endpoint: the endpointing state machine over a VAD's 10 ms decisions (see endpoint.h).
 *
 * Which VAD. Both candidates were run through this endpointer (default options) on the 95
 * RESPIN clips (real rural speech, MP3 16 kHz), each trimmed to its speech and put between
 * known gaps, and on 6 espeak-ng Hindi utterances (synthetic); tests/bench_vad.c prints
 * these figures (`make bench`):
 *                         raw VAD frames           endpointed: boundaries within 30 ms
 *                         speech hit / gap alarm   (clips found as exactly one turn)
 *   silent gaps      webrtc  93.8% /  4.1%         95.4% (87/95)
 *                    speex   99.3% /  7.6%         97.8% (89/95)
 *   gaps at -60 dBFS webrtc  96.3% /  8.7%         97.8% (89/95)
 *                    speex   99.2% / 90.0%         97.8% (89/95)
 *   -45 dBFS noise   webrtc  93.9% /  7.0%         89.2% (88/95)
 *   under all        speex   99.6% / 73.3%         90.2% (87/95)
 *   synthetic, -60   webrtc  99.6% / 33.3%         11/12 boundaries
 *                    speex  100.0% / 97.4%         11/12
 *   speed (1 h)      webrtc  RTF 0.0002; speex RTF 0.0010
 * The WebRTC VAD is the default. speexdsp's speech probability calls nearly every noisy
 * frame speech (73-97% false alarms; its own source calls its VAD "a hack pending a
 * complete rewrite"), so with it the turns are cut by the loudness gate below alone, and
 * any noise louder than the floor holds a turn open; WebRTC's decisions reject steady
 * noise, and it is five times faster. With steady noise the two endpoint alike because the
 * gate decides; on silent gaps WebRTC splits two more clips, at pauses of about 0.6 s
 * inside them.
 * Neither rejects short bursts of loud noise (300 ms bursts at -35 dBFS are taken as
 * speech by both): a known limit.
 *
 * Loudness gate. A frame is speech only if the VAD says so, it reaches min_loudness_db,
 * and it stands GATE_DB above the running noise floor.
 *
 * Boundary refinement. A VAD's decisions trail the speech: the WebRTC VAD adds a hangover
 * of several frames after speech, and both need a frame or more to react at an onset. So
 * once a start or an end is decided, the boundary is moved, at most REFINE_MS, to where
 * the frames' loudness crosses a threshold relative to the recent noise floor and to the
 * utterance's own peak. */
#include "endpoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_MS 10
#define SILENT_DB (-120.0)

/* How far a boundary may move from the VAD's decision (ms), and the loudness threshold of
 * the refinement: a frame counts as speech if it is FLOOR_MARGIN_DB above the noise floor
 * and no more than PEAK_RANGE_DB below the loudest frame of the utterance so far (chosen
 * on the joined RESPIN clips; see the figures above). */
#define REFINE_MS 120
#define FLOOR_MARGIN_DB 12.0
#define PEAK_RANGE_DB 35.0
/* Noise floor: the FLOOR_PERCENT percentile of the last FLOOR_FRAMES frames' loudness
 * (2 s; speech leaves gaps between words, so a low percentile sits on the noise). A frame
 * is speech only if it is GATE_DB above the floor, so steady noise the VAD mistakes for
 * speech cannot hold a turn open. */
#define FLOOR_FRAMES 200
#define FLOOR_PERCENT 10
#define GATE_DB 6.0

enum state { QUIET, STARTING, SPEAKING, STOPPING };

struct endpoint {
	struct endpoint_options opt;
	struct vad *vad;
	int frame;          /* samples per frame */
	float *pending;     /* a partial frame carried to the next feed */
	int n_pending;

	double *hist;       /* dB of the last n_hist frames, indexed by frame number % n_hist */
	long n_hist;
	long now;           /* frames processed */
	double level_db;
	double floor_db;    /* noise floor estimate, dBFS */
	double *win;        /* the last FLOOR_FRAMES frames' dB, in arrival order (ring) */
	double *sorted;     /* the same values, sorted */
	int n_win;

	enum state state;
	long run_start;     /* STARTING: first frame of the speech run */
	long last_speech;   /* SPEAKING/STOPPING: last speech frame */
	long quiet_run;     /* STOPPING: non-speech frames so far */
	long utt_start;     /* the current utterance's refined start frame */
	double utt_peak;    /* loudest frame of the current utterance, dB */
	long prev_end;      /* refined end frame (exclusive) of the last utterance; limits refinement */

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
	};
	return o;
}

static long ms_to_frames(int ms)
{
	return (ms + FRAME_MS - 1) / FRAME_MS;
}

static double hist_at(const struct endpoint *ep, long f)
{
	if (f < 0 || f >= ep->now || ep->now - f > ep->n_hist)
		return SILENT_DB;
	return ep->hist[f % ep->n_hist];
}

static bool hist_has(const struct endpoint *ep, long f)
{
	return f >= 0 && f < ep->now && ep->now - f <= ep->n_hist;
}

static double threshold(const struct endpoint *ep, double peak)
{
	double t = ep->opt.min_loudness_db;

	if (ep->floor_db + FLOOR_MARGIN_DB > t)
		t = ep->floor_db + FLOOR_MARGIN_DB;
	if (peak - PEAK_RANGE_DB > t)
		t = peak - PEAK_RANGE_DB;
	return t;
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

/* The refined first frame of speech confirmed at the current frame, whose run began at
 * run_start. */
static long refine_start(struct endpoint *ep)
{
	long max = ms_to_frames(REFINE_MS);
	long s = ep->run_start;
	double thr = threshold(ep, ep->utt_peak);

	/* Onsets the VAD caught early, on frames still at noise level. */
	while (s < ep->now - 1 && s - ep->run_start < max && hist_at(ep, s) < thr)
		s++;
	/* Onsets the VAD caught late: loud frames just before the run. */
	while (hist_has(ep, s - 1) && s - 1 >= ep->prev_end && ep->run_start - (s - 1) <= max &&
	       hist_at(ep, s - 1) >= thr)
		s--;
	return s;
}

/* The refined end (exclusive frame) of the utterance whose last speech frame by the VAD
 * is last_speech. */
static long refine_end(struct endpoint *ep)
{
	long max = ms_to_frames(REFINE_MS);
	long e = ep->last_speech;
	double thr = threshold(ep, ep->utt_peak);

	/* The VAD's hangover: trailing frames already at noise level. */
	while (e > ep->utt_start && ep->last_speech - e < max && hist_at(ep, e) < thr)
		e--;
	/* Speech the VAD let go of early. */
	while (hist_has(ep, e + 1) && (e + 1) - ep->last_speech <= max && hist_at(ep, e + 1) >= thr)
		e++;
	return e + 1;
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
	long e = refine_end(ep);
	enum err rc;

	if (e <= ep->utt_start)
		e = ep->utt_start + 1;
	ep->prev_end = e;
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
	long s = refine_start(ep);

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

/* Slides the floor window by one frame of loudness db (frame number i). */
static void update_floor(struct endpoint *ep, long i, double db)
{
	int k;

	if (ep->n_win == FLOOR_FRAMES) {
		/* drop the oldest value */
		k = lower_bound(ep->sorted, ep->n_win, ep->win[i % FLOOR_FRAMES]);
		memmove(ep->sorted + k, ep->sorted + k + 1, sizeof(double) * (size_t)(ep->n_win - k - 1));
		ep->n_win--;
	}
	ep->win[i % FLOOR_FRAMES] = db;
	k = lower_bound(ep->sorted, ep->n_win, db);
	memmove(ep->sorted + k + 1, ep->sorted + k, sizeof(double) * (size_t)(ep->n_win - k));
	ep->sorted[k] = db;
	ep->n_win++;
	ep->floor_db = ep->sorted[ep->n_win * FLOOR_PERCENT / 100];
}

/* One 10 ms frame: loudness, VAD decision, state machine. */
static enum err step(struct endpoint *ep, const float *x)
{
	double pow = 0, db;
	bool voice = false, speech;
	enum err rc = ERR_OK;
	long i = ep->now;

	for (int k = 0; k < ep->frame; k++)
		pow += (double)x[k] * x[k];
	pow /= ep->frame;
	db = pow > 1e-12 ? 10.0 * log10(pow) : SILENT_DB;
	rc = vad_process(ep->vad, x, &voice);
	if (rc != ERR_OK)
		return rc;
	update_floor(ep, i, db);
	speech = voice && db >= ep->opt.min_loudness_db && db >= ep->floor_db + GATE_DB;
	ep->hist[i % ep->n_hist] = db;
	ep->level_db = db;
	ep->now = i + 1; /* frame i is now in the history */

	switch (ep->state) {
	case QUIET:
		if (!speech)
			break;
		ep->state = STARTING;
		ep->run_start = i;
		ep->utt_peak = db;
		/* This frame may already be enough (start_ms <= 10). */
		/* fall through */
	case STARTING:
		if (!speech) {
			ep->state = QUIET;
			break;
		}
		if (db > ep->utt_peak)
			ep->utt_peak = db;
		if ((i - ep->run_start + 1) * FRAME_MS >= ep->opt.start_ms) {
			ep->last_speech = i;
			rc = confirm_start(ep);
		}
		break;
	case SPEAKING:
	case STOPPING:
		if (speech) {
			ep->state = SPEAKING;
			ep->last_speech = i;
			if (db > ep->utt_peak)
				ep->utt_peak = db;
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
	long longest;

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
	/* The history must reach back over a whole start run or stop run plus the
	 * refinement on either side of it. */
	longest = ms_to_frames(o.start_ms > o.stop_ms ? o.start_ms : o.stop_ms);
	ep->n_hist = longest + 2 * ms_to_frames(REFINE_MS) + 4;
	ep->hist = malloc(sizeof(double) * (size_t)ep->n_hist);
	ep->win = malloc(sizeof(double) * FLOOR_FRAMES);
	ep->sorted = malloc(sizeof(double) * FLOOR_FRAMES);
	if (!ep->pending || !ep->hist || !ep->win || !ep->sorted)
		goto out;
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
	free(ep->hist);
	free(ep->win);
	free(ep->sorted);
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

double endpoint_level_db(const struct endpoint *ep)
{
	return ep->level_db;
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
			if (n == cap) {
				int ncap = cap ? cap * 2 : 8;
				struct endpoint_segment *p = realloc(out, (size_t)ncap * sizeof(*p));
				if (!p) {
					rc = ERR_NOMEM;
					goto out;
				}
				out = p;
				cap = ncap;
			}
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
