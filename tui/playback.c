/* playback: paced play of a corpus through the call engine (see playback.h). */
#include "playback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/stages/backend.h"
#include "sessions/corpus/corpus.h"
#include "callview.h"
#include "base/vec.h"

/* Pacing, as fractions of one caller turn's time on screen: the extraction and decision
 * follow the caller's words after BEAT, the agent's reply follows them after another
 * BEAT, and the next caller turn comes REST after that (BEAT + BEAT + REST = 1). After
 * the agent's opening words the first answer waits OPENING; an ended call stays up for
 * ENDED before the next begins. */
#define BEAT 0.3
#define REST 0.4
#define OPENING 1.0
#define ENDED 2.0
/* A call that never ends by itself is cut off after this many caller turns by `n`. */
#define MAX_RUSH_STEPS 1000

struct item {
	enum engine_event_kind kind;
	struct callview_snap *snap; /* a form snapshot instead of an event, when set */
	char *call_id;
	int turn;
	char *text;
	cJSON *json;
	struct decision *decision;  /* ENGINE_DECISION's, copied */
	bool has_timings;
	struct engine_timings timings;
	enum call_status status;
	double delay;               /* ms after the item before it is released */
};

struct playback {
	struct engine *eng;
	const struct form *form;
	const struct corpus *c;
	struct callview *view;
	double turn_ms;     /* one caller turn on screen */
	struct item *q;
	int head, n, cap;
	int call;           /* index of the current call, -1 before the first */
	bool open;          /* a call has begun and not ended */
	bool opening;       /* the queued batch is a call's opening */
	bool finished;
	bool paused;
	double paused_at;
	bool clock_set;
	double due;         /* when the next item is released or the engine next runs */
	double last;        /* when the last item was released */
	bool stalled;       /* everything released; waiting for the engine's next events */
	bool network;       /* a backend calls a network service (turns take their time) */
	bool in_begin;      /* the listener is receiving engine_begin's events */
	int phase;          /* in a turn's events: 1 after the caller's words, 2 after the
	                       extraction or decision, 3 after the reply */
	void (*on_agent)(void *ud, const char *text); /* the agent's words as shown, or NULL */
	void *on_agent_ud;
};

static void item_free(struct item *it)
{
	free(it->call_id);
	free(it->text);
	cJSON_Delete(it->json);
	decision_free(it->decision);
	callview_snap_free(it->snap);
	memset(it, 0, sizeof(*it));
}

/* Append an empty item. NULL when out of memory. */
static struct item *push(struct playback *p)
{
	struct item *q = vec_grow(p->q, p->n, &p->cap, sizeof *q, 32);
	if (!q)
		return NULL;
	p->q = q;
	struct item *it = &p->q[p->n++];
	return it;
}

static void listener(void *ud, const struct engine_event *ev)
{
	struct playback *p = ud;
	struct item *it = push(p);
	if (!it) {
		callview_error(p->view, "out of memory: an event of this call is not shown");
		return;
	}
	it->kind = ev->kind;
	it->turn = ev->turn;
	it->status = ev->status;
	it->call_id = ev->call_id ? strdup(ev->call_id) : NULL;
	it->text = ev->text ? strdup(ev->text) : NULL;
	it->json = ev->json ? cJSON_Duplicate(ev->json, 1) : NULL;
	it->decision = decision_dup(ev->decision);
	if (ev->decision && !it->decision)
		callview_error(p->view, "out of memory: a decision of this call is not shown");
	if (ev->timings) {
		it->has_timings = true;
		it->timings = *ev->timings;
	}
	if (ev->kind == ENGINE_CALL_START)
		p->open = true;
	else if (ev->kind == ENGINE_CALL_END)
		p->open = false;
	/* The form as the rules left it, right after their decision. */
	if (ev->kind == ENGINE_DECISION) {
		struct callview_snap *snap = callview_snap_new(p->form, engine_flow(p->eng));
		struct item *si = snap ? push(p) : NULL;
		if (si) {
			si->kind = ENGINE_DECISION;
			si->snap = snap;
		} else {
			callview_snap_free(snap);
		}
		it = &p->q[p->n - (si ? 2 : 1)]; /* push may have moved the array */
	}
	/* A beat after the caller's words for the first of the extraction and the decision
	 * (a failed EXTRACT sends no extraction), and a beat before the reply. The
	 * acknowledgement is shown at once (delay 0): it is said before the rest is known. */
	if (p->in_begin)
		return;
	if (ev->kind == ENGINE_CALLER_SAYS) {
		p->phase = 1;
	} else if ((ev->kind == ENGINE_EXTRACTED || ev->kind == ENGINE_DECISION) && p->phase == 1) {
		it->delay = BEAT * p->turn_ms;
		p->phase = 2;
	} else if (ev->kind == ENGINE_AGENT_SAYS && (p->phase == 1 || p->phase == 2)) {
		it->delay = BEAT * p->turn_ms;
		p->phase = 3;
	}
}

enum err playback_new(const struct engine_config *cfg, const struct corpus *c,
		      struct callview *view, double speed, struct playback **out)
{
	if (!(speed > 0))
		return ERR_INVALID;
	struct playback *p = calloc(1, sizeof(*p));
	if (!p)
		return ERR_NOMEM;
	p->form = cfg->form;
	p->c = c;
	p->view = view;
	p->turn_ms = PLAYBACK_TURN_MS / speed;
	p->call = -1;
	p->network = backend_is_network(&cfg->stt) || backend_is_network(&cfg->extract) ||
		     backend_is_network(&cfg->reply);
	enum err e = engine_new(cfg, listener, p, &p->eng);
	if (e) {
		free(p);
		return e;
	}
	*out = p;
	return ERR_OK;
}

void playback_free(struct playback *p)
{
	if (!p)
		return;
	engine_free(p->eng);
	for (int i = p->head; i < p->n; i++)
		item_free(&p->q[i]);
	free(p->q);
	free(p);
}

static void release(struct playback *p, struct item *it)
{
	if (it->snap) {
		callview_set_form(p->view, it->snap);
		it->snap = NULL;
	} else {
		struct engine_event ev = {
			.kind = it->kind, .call_id = it->call_id, .turn = it->turn, .text = it->text,
			.json = it->json, .decision = it->decision,
			.timings = it->has_timings ? &it->timings : NULL,
			.status = it->status,
		};
		callview_event(p->view, &ev);
		if (p->on_agent && it->text &&
		    (it->kind == ENGINE_AGENT_SAYS || it->kind == ENGINE_ACK))
			p->on_agent(p->on_agent_ud, it->text);
	}
	item_free(it);
}

void playback_on_agent(struct playback *p, void (*fn)(void *ud, const char *text), void *ud)
{
	p->on_agent = fn;
	p->on_agent_ud = ud;
}

static void say_error(struct playback *p, const char *what, enum err e)
{
	char msg[512];
	const char *id = p->call >= 0 && p->call < p->c->n_calls ? p->c->calls[p->call].id : "?";
	snprintf(msg, sizeof(msg), "%s call %s: %s", what, id ? id : "?", err_str(e));
	callview_error(p->view, msg);
}

/* Start a batch: an empty queue starts over at the front. Returns the batch's first
 * index. */
static int batch_start(struct playback *p)
{
	if (p->head == p->n)
		p->head = p->n = 0;
	return p->n;
}

/* Begin the next call, if there is one; else the playback is finished. */
static void begin_next(struct playback *p)
{
	if (p->call + 1 >= p->c->n_calls) {
		p->finished = true;
		callview_set_mode(p->view, CALLVIEW_FINISHED);
		return;
	}
	p->call++;
	callview_call(p->view, p->call, &p->c->calls[p->call]);
	batch_start(p);
	p->in_begin = true;
	p->phase = 0;
	enum err e = engine_start_call(p->eng, &p->c->calls[p->call]);
	p->in_begin = false;
	p->opening = true;
	if (e) {
		say_error(p, "cannot begin", e);
		p->open = false;
	}
}

/* Start the current call's next caller turn; its events come now (offline backends) or
 * as playback_poll delivers them. */
static void step(struct playback *p)
{
	batch_start(p);
	p->phase = 0;
	enum err e = engine_start_turn(p->eng, NULL);
	p->opening = false;
	if (e) {
		say_error(p, "engine failed in", e);
		engine_hang_up(p->eng, "abandoned: the engine failed");
		p->open = false;
	}
}

static double gap(const struct playback *p)
{
	return (!p->open ? ENDED : p->opening ? OPENING : REST) * p->turn_ms;
}

int playback_tick(struct playback *p, double now_ms)
{
	if (p->paused || p->finished)
		return -1;
	if (!p->clock_set) {
		p->clock_set = true;
		p->due = p->last = now_ms;
	}
	for (;;) {
		if (p->stalled) {
			/* Events that came while the engine worked are due a beat after the last
			 * release, or at once when the engine took longer than that. */
			if (p->head < p->n)
				p->due = p->last + p->q[p->head].delay;
			else if (!engine_busy(p->eng))
				p->due = p->last + gap(p);
			else
				return -1;
			p->stalled = false;
		}
		if (now_ms < p->due)
			break;
		if (p->head < p->n) {
			release(p, &p->q[p->head++]);
			p->last = now_ms;
			if (p->head < p->n)
				p->due = now_ms + p->q[p->head].delay;
			else if (engine_busy(p->eng))
				p->stalled = true;
			else
				p->due = now_ms + gap(p);
			continue;
		}
		if (engine_busy(p->eng)) {
			p->stalled = true;
			continue;
		}
		if (!p->open) {
			begin_next(p);
			if (p->finished)
				return -1;
			if (p->head == p->n && !engine_busy(p->eng)) /* it failed to begin: show that, then move on */
				p->due = now_ms + ENDED * p->turn_ms;
		} else {
			step(p);
		}
	}
	/* Round up: waking a little early would only spin. */
	double wait = p->due - now_ms;
	int ms = (int)wait;
	return ms < wait ? ms + 1 : ms;
}

void playback_pause(struct playback *p, bool paused, double now_ms)
{
	if (p->finished || p->paused == paused)
		return;
	p->paused = paused;
	if (paused) {
		p->paused_at = now_ms;
	} else if (p->clock_set) {
		p->due += now_ms - p->paused_at;
		p->last += now_ms - p->paused_at;
	}
	callview_set_mode(p->view, paused ? CALLVIEW_PAUSED : CALLVIEW_PLAYING);
}

bool playback_paused(const struct playback *p)
{
	return p->paused;
}

static void flush(struct playback *p)
{
	while (p->head < p->n)
		release(p, &p->q[p->head++]);
}

static void go(struct playback *p, int index, double now_ms);

void playback_next(struct playback *p, double now_ms)
{
	if (!p->finished)
		go(p, p->call + 1, now_ms); /* after the last call: finished */
}

bool playback_step(struct playback *p)
{
	if (!p->paused || p->finished)
		return false;
	if (p->head < p->n) { /* the rest of the turn on screen */
		flush(p);
		return true;
	}
	if (!p->open || engine_busy(p->eng))
		return false;
	step(p);
	flush(p);
	return true;
}

int playback_call(const struct playback *p)
{
	return p->call;
}

bool playback_goto(struct playback *p, int index, double now_ms)
{
	if (index < 0 || index >= p->c->n_calls)
		return false;
	if (p->finished) { /* every call was played: play again from index */
		p->finished = false;
		callview_set_mode(p->view, p->paused ? CALLVIEW_PAUSED : CALLVIEW_PLAYING);
	}
	go(p, index, now_ms);
	return true;
}

/* go: finish the call on screen at once (as playback_next says), then begin call index
 * (n_calls: none, the playback is finished). */
static void go(struct playback *p, int index, double now_ms)
{
	flush(p);
	if (p->network || engine_busy(p->eng)) {
		/* Turns on a network backend take their time: leave the call as it stands,
		 * abandoning what is in flight at once. */
		if (engine_call_open(p->eng) &&
		    engine_hang_up(p->eng, "abandoned: the next call was asked for") != ERR_OK)
			callview_error(p->view, "could not record the end of the call");
		p->open = false;
	}
	for (int i = 0; p->open && i < MAX_RUSH_STEPS; i++) {
		step(p);
		flush(p);
	}
	if (p->open) {
		callview_error(p->view, "the call did not end; left as it stands");
		p->open = false;
	}
	flush(p);
	p->call = index - 1;
	begin_next(p);
	flush(p);
	p->stalled = false;
	p->clock_set = true;
	p->last = now_ms;
	p->due = now_ms + OPENING * p->turn_ms;
	if (engine_busy(p->eng))
		p->stalled = true;
	if (p->paused)
		p->paused_at = now_ms;
}

enum err playback_poll(struct playback *p, int timeout_ms, struct curl_waitfd *extra,
		       unsigned n_extra)
{
	enum err e = engine_poll(p->eng, timeout_ms, extra, n_extra);
	if (e != ERR_OK && e != ERR_BACKEND)
		say_error(p, "engine failed in", e);
	return e;
}

bool playback_busy(const struct playback *p)
{
	return engine_busy(p->eng);
}

bool playback_waiting(const struct playback *p, char *buf, size_t n)
{
	enum engine_stage st;
	const char *name = NULL;
	double ms = 0;
	if (!engine_waiting(p->eng, &st, &name, &ms))
		return false;
	/* Tenths of a second: the status bar changes ten times a second, not more. */
	snprintf(buf, n, "waiting for %s (%s) %.1f s", engine_stage_name(st), name ? name : "?",
		 (double)(long)(ms / 100) / 10.0);
	return true;
}

bool playback_finished(const struct playback *p)
{
	return p->finished;
}
