/* review: the browser of recorded calls (see review.h). */
#include "review.h"

#include <curses.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/rules/decision.h"
#include "annotations/labels.h"
#include "annotations/task.h"
#include "audio/audiofile.h"
#include "audio/sink.h"
#include "sessions/store/latency.h"
#include "sessions/eval/rundiff.h"
#include "sessions/calls/runs.h"
#include "sessions/store/store.h"
#include "screen.h"
#include "width.h"
#include "base/str.h"

static const char *const statuses[] = {NULL, "complete", "failed", "screened_out", "in_progress"};
#define N_STATUSES (int)(sizeof statuses / sizeof statuses[0])
/* the stage faults f cycles through (store_call_query.fault) */
static const char *const faults[] = {NULL, "any", "stt", "extract", "reply", "validation"};
#define N_FAULTS (int)(sizeof faults / sizeof faults[0])

struct review {
	struct store *st;
	struct store_call_query q; /* the list's filter, as SQL */
	int total;                 /* the calls of the run (all runs: every call) */
	int n_shown, cur, top;     /* how many the filter selects; the cursor; the first row shown */
	/* the page read: rows page_off .. page_off + page_n - 1 of the list, each with the
	 * fields it left unanswered (", " joined); the list is never read whole */
	struct store_call_row *page;
	char **unans;
	int page_off, page_n;
	char fault[256];           /* the last read that failed, shown in the status bar */
	int status;                /* index into statuses */
	int fault_i;               /* index into faults */
	char text[128];
	bool typing;               /* the search text is being typed */
	/* the call open, when call is not NULL */
	struct store_call_row *call;
	struct store_turn_row *turns;
	int nt, turn, scroll;
	char note[512];            /* what the last action did, in the call's status bar */
	/* playing a turn: the sink, opened at the first a; the agent's words, played once
	 * the caller's have (NULL none) */
	const char *out_dev;
	struct sink *sink;
	float *after;
	size_t n_after;
	/* labelling a turn for the turn-errors task: the desk, opened at the first label */
	const char *annotator;
	struct labels *labels;
	bool tagging;              /* l pressed: the next key is a tag */
	/* two runs side by side: the call of run against the diff pairs with the call open
	 * (bcall NULL: none), and where the two first differ (div_turn -1: nowhere) */
	long long against;
	struct store_call_row *bcall;
	struct store_turn_row *bturns;
	int bnt, div_turn;
	const char *div_stage;
	bool typing_run;           /* c pressed: the run to compare with is being typed */
	char run_text[24];
};

#define PLAY_RATE 16000

/* ---- a turn's audio ---- */

/* clip: the samples of path (a recording of the call, or the corpus's clip) from from_ms
 * to to_ms (to_ms < 0: to its end), at PLAY_RATE. Output: *v (caller frees), *n; on
 * failure r->note names the file and what is wrong. */
static bool clip(struct review *r, const char *who, const char *path, long from_ms, long to_ms,
		 float **v, size_t *n)
{
	char *msg = NULL;
	size_t a, b;

	if (audiofile_read(path, PLAY_RATE, v, n, &msg) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "turn %d: the %s recording cannot be played: %s", r->turn,
			 who, msg ? msg : path);
		free(msg);
		return false;
	}
	a = from_ms > 0 ? (size_t)from_ms * PLAY_RATE / 1000 : 0;
	b = to_ms >= 0 ? (size_t)to_ms * PLAY_RATE / 1000 : *n;
	if (b > *n)
		b = *n;
	if (a > b)
		a = b;
	memmove(*v, *v + a, (b - a) * sizeof **v);
	*n = b - a;
	return true;
}

/* play_turn: the open turn's audio where it was recorded: the caller's words (the part
 * of the call's caller.wav the turn took, or else the turn's audio file, a corpus clip),
 * then the agent's reply (its part of agent.wav). What cannot be played is said. */
static void play_turn(struct review *r)
{
	const struct store_turn_row *t;
	const char *dir = r->call->audio_dir;
	float *caller = NULL, *agent = NULL;
	size_t nc = 0, na = 0;
	char path[4096], *msg = NULL;

	if (r->turn < 1 || r->turn > r->nt) {
		snprintf(r->note, sizeof r->note, "the opening has no caller audio: n to a turn");
		return;
	}
	t = &r->turns[r->turn - 1];
	if (dir && t->t.recorded) {
		snprintf(path, sizeof path, "%s/caller.wav", dir);
		if (!clip(r, "caller's", path, t->t.caller_audio_start_ms, t->t.caller_audio_end_ms,
			  &caller, &nc))
			return;
	} else if (t->t.audio && t->t.audio[0] &&
		   !clip(r, "caller's", t->t.audio, 0, -1, &caller, &nc)) {
		return;
	}
	if (dir && t->agent_audio_start_ms >= 0 && t->agent_audio_end_ms > t->agent_audio_start_ms) {
		snprintf(path, sizeof path, "%s/agent.wav", dir);
		if (!clip(r, "agent's", path, t->agent_audio_start_ms, t->agent_audio_end_ms, &agent,
			  &na)) {
			free(caller);
			return;
		}
	}
	if (!nc && !na) {
		snprintf(r->note, sizeof r->note, "turn %d: no audio was recorded", r->turn);
		goto out;
	}
	if (!r->sink && sink_open_device(r->out_dev, PLAY_RATE, &r->sink, &msg) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "no audio output%s%s: %s", r->out_dev ? " " : "",
			 r->out_dev ? r->out_dev : "", msg ? msg : "cannot open it");
		r->sink = NULL;
		free(msg);
		goto out;
	}
	free(r->after);
	r->after = NULL;
	r->n_after = 0;
	if (sink_play(r->sink, nc ? caller : agent, nc ? nc : na) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "turn %d: the audio output would not play", r->turn);
		goto out;
	}
	if (nc && na) {
		r->after = agent;
		r->n_after = na;
		agent = NULL;
	}
	if (nc && r->after)
		snprintf(r->note, sizeof r->note,
			 "playing turn %d: %.1f s of the caller, then %.1f s of the agent", r->turn,
			 (double)nc / PLAY_RATE, (double)na / PLAY_RATE);
	else
		snprintf(r->note, sizeof r->note, "playing turn %d: %.1f s of the %s", r->turn,
			 (double)(nc ? nc : na) / PLAY_RATE, nc ? "caller" : "agent");
out:
	free(caller);
	free(agent);
}

/* playing: whether the sink still has something to play (tidying up what has ended: the
 * agent's words follow the caller's). */
static bool playing(struct review *r)
{
	if (!r->sink)
		return false;
	if (sink_playing(r->sink))
		return true;
	if (r->after) {
		enum err e = sink_play(r->sink, r->after, r->n_after);
		free(r->after);
		r->after = NULL;
		return e == ERR_OK;
	}
	if (!strncmp(r->note, "playing ", 8)) { /* "playing turn ..." becomes "played turn ..." */
		memmove(r->note + 6, r->note + 7, strlen(r->note + 7) + 1);
		memcpy(r->note, "played", 6);
	}
	return false;
}

/* ---- labelling a turn (the turn-errors task's items and labels, annotations/) ---- */

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* label_turn: add the turn-errors tag of key k to r->annotator's label of the open turn
 * (or take it off when the label holds it: labels_tag_toggle): the turn's item (key
 * "turn T", the one the task's queue draws for it; made when missing) and the label,
 * each committed before the screen moves on. */
static void label_turn(struct review *r, int k)
{
	const struct task_ops *ops = task_ops(LABELS_TURN_ERRORS);
	const char *at = k > 0 && k < 128 ? strchr(ops->keys, k) : NULL;
	const struct store_turn *t = &r->turns[r->turn - 1].t;
	struct labels_item it = {.task = LABELS_TURN_ERRORS};
	cJSON *ctx = cJSON_CreateObject();
	char *msg = NULL, *had = NULL, *label = NULL;
	enum err e;

	if (!at) {
		snprintf(r->note, sizeof r->note, "not labelled (no tag on that key)");
		goto out;
	}
	if (!r->labels && labels_open(store_path(r->st), &r->labels, &msg) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "cannot label: %s", msg ? msg : "the labels' tables");
		r->labels = NULL;
		free(msg);
		goto out;
	}
	it.call_id = r->call->id;
	it.turn_id = r->turns[r->turn - 1].id;
	it.turn = t->index;
	if (ctx) {
		cJSON_AddStringToObject(ctx, "call_status", r->call->status ? r->call->status : "");
		if (r->call->reason)
			cJSON_AddStringToObject(ctx, "call_reason", r->call->reason);
		cJSON_AddItemToObject(ctx, "extraction", t->extraction ? cJSON_Parse(t->extraction) : NULL);
		cJSON_AddItemToObject(ctx, "decision", t->decision ? cJSON_Parse(t->decision) : NULL);
		cJSON_AddStringToObject(ctx, "reply", t->reply ? t->reply : "");
		if (t->error)
			cJSON_AddStringToObject(ctx, "error", t->error);
	}
	if (asprintf(&it.key, "turn %lld", it.turn_id) < 0)
		it.key = NULL;
	it.corpus = dup0(r->call->info.corpus);
	it.corpus_call_id = dup0(r->call->info.corpus_call_id);
	it.transcript = dup0(t->transcript);
	it.audio = dup0(t->audio);
	it.context = ctx ? cJSON_PrintUnformatted(ctx) : NULL;
	/* a turn where several stages failed carries several tags: the key adds its tag to
	 * the annotator's label, or takes it off when it is there */
	if (!it.key || (e = labels_items_add(r->labels, &it, 1)) != ERR_OK ||
	    ((e = labels_get(r->labels, it.id, r->annotator, &had, NULL)) != ERR_OK &&
	     e != ERR_NOTFOUND) ||
	    !(label = labels_tag_toggle(LABELS_TURN_ERRORS, had, ops->labels[at - ops->keys])) ||
	    (e = label[0] ? labels_put(r->labels, it.id, r->annotator, label, NULL)
			  : labels_remove(r->labels, it.id, r->annotator)) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "not labelled: %s", labels_error(r->labels));
		goto out;
	}
	if (labels_has_tag(label, ops->labels[at - ops->keys]))
		snprintf(r->note, sizeof r->note,
			 "turn %d labelled \"%s\" for the turn-errors task, as %s (label %s)", r->turn,
			 ops->shown[at - ops->keys], r->annotator, label);
	else
		snprintf(r->note, sizeof r->note, "turn %d: \"%s\" taken off %s's label (%s)", r->turn,
			 ops->shown[at - ops->keys], r->annotator, label[0] ? label : "none left");
out:
	free(had);
	free(label);
	cJSON_Delete(ctx);
	labels_item_clear(&it);
}

/* put: text at row y from column x, cut to the screen's width (never half a letter). */
static void put_in(int y, int x, int cols, const char *text)
{
	if (cols > COLS - x)
		cols = COLS - x;
	if (y >= LINES || cols <= 0 || !text)
		return;
	mvaddnstr(y, x, text, (int)width_cut(text, cols, NULL));
}

static void put(int y, int x, const char *text)
{
	put_in(y, x, COLS - x, text);
}

/* Lines of the call view, collected then drawn from r->scroll on. */
struct lines {
	char **v;
	int n;
	int width; /* wrapped to this many columns; 0: the screen's, less two */
};

static void add(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL, **v;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	/* wrapped to the screen, two columns in */
	for (size_t off = 0, len = strlen(s);;) {
		int w = l->width > 0 ? l->width : COLS > 4 ? COLS - 2 : 2;
		size_t next, n = width_wrap(s + off, w, &next);
		if (!(v = realloc(l->v, (size_t)(l->n + 1) * sizeof *v)) ||
		    !(v[l->n] = strndup(s + off, n))) {
			if (v)
				l->v = v;
			break;
		}
		l->v = v;
		l->n++;
		off += next;
		if (off >= len || next == 0)
			break;
	}
	free(s);
}

/* value_text: a captured value as JSON text (caller frees); "null" for none. */
static char *value_text(const cJSON *v)
{
	return v ? cJSON_PrintUnformatted(v) : strdup("null");
}

/* decision_lines: what the rule layer saw and decided, from its decision record read back
 * as the rule layer's struct (agent/rules/decision.h). */
static void decision_lines(struct lines *l, const char *text)
{
	struct decision *d = runs_decision(text);

	if (!d) {
		add(l, "  (no decision recorded)");
		return;
	}
	add(l, "captures");
	for (int i = 0; i < d->n_captured; i++) {
		const struct decision_capture *c = &d->captured[i];
		char *raw = value_text(c->raw), *val = value_text(c->value);
		add(l, "  %s: %s -> %s  %s%s%s", c->field ? c->field : "?", raw ? raw : "?",
		    val ? val : "?", decision_capture_status_name(c->status), c->reason ? " · " : "",
		    c->reason ? c->reason : "");
		free(raw);
		free(val);
	}
	add(l, "verdicts");
	for (int i = 0; i < d->n_verdicts; i++) {
		const struct decision_verdict *v = &d->verdicts[i];
		add(l, "  %-4s %s %s%s%s", v->ok ? "ok" : "FAIL", v->field ? v->field : "?",
		    v->rule ? v->rule : "?", v->message && v->message[0] ? ": " : "",
		    v->message ? v->message : "");
	}
	for (int i = 0; i < d->n_faults; i++)
		add(l, "  fault: %s", d->faults[i]);
	add(l, "decision");
	if (d->has_retries)
		add(l, "  retries %s: used %d of %d", d->retries.field ? d->retries.field : "?",
		    d->retries.used, d->retries.max);
	for (int i = 0; i < d->n_branches; i++)
		add(l, "  branch %s (%s): %s", d->branches[i].id ? d->branches[i].id : "?",
		    d->branches[i].field ? d->branches[i].field : "?",
		    d->branches[i].active ? "active" : "inactive");
	if (d->tool == DECISION_END_CALL)
		add(l, "  next: end the call, %s", call_status_name(d->end.status));
	else
		add(l, "  next: ask %s%s%s", d->ask.field ? d->ask.field : "?",
		    d->ask.error ? " · error: " : "", d->ask.error ? d->ask.error : "");
	add(l, "  why: %s", d->reason ? d->reason : "");
	decision_free(d);
}

/* form_lines: the form as it stood after the turn open: every answer captured and every
 * field skipped in the decisions up to it, the later one winning. */
static void form_lines(const struct store_turn_row *turns, int nt, int turn, struct lines *l)
{
	cJSON *form = cJSON_CreateObject();
	char *text;

	if (!form)
		return;
	for (int i = 0; i < turn && i < nt; i++) {
		struct decision *d = runs_decision(turns[i].t.decision);
		for (int k = 0; d && k < d->n_captured; k++) {
			const struct decision_capture *c = &d->captured[k];
			if (c->status != DECISION_ANSWERED || !c->field)
				continue;
			cJSON_DeleteItemFromObjectCaseSensitive(form, c->field);
			cJSON_AddItemToObject(form, c->field,
					      c->value ? cJSON_Duplicate(c->value, 1) : cJSON_CreateNull());
		}
		for (int k = 0; d && k < d->n_skipped; k++) {
			cJSON_DeleteItemFromObjectCaseSensitive(form, d->skipped[k]);
			cJSON_AddStringToObject(form, d->skipped[k], "(skipped)");
		}
		decision_free(d);
	}
	text = cJSON_PrintUnformatted(form);
	add(l, "form after this turn: %s", text ? text : "{}");
	free(text);
	cJSON_Delete(form);
}

/* latency_lines: the turn's end of speech to first sound, each part with what governs it. */
static void latency_lines(struct lines *l, const char *json)
{
	struct latency lat;
	char line[200];

	if (latency_from_text(json, &lat) != ERR_OK)
		return;
	latency_line(&lat, line, sizeof line);
	add(l, "latency: %s", line);
	for (int p = 0; p < LATENCY_PARTS; p++)
		add(l, "  %-20s %9.3f ms  %s", latency_part_name(p), lat.ms[p], lat.by[p]);
}

/* tag_lines: the tags and their keys, while one is being chosen. */
static void tag_lines(struct lines *l)
{
	const struct task_ops *ops = task_ops(LABELS_TURN_ERRORS);
	char all[1024] = "";
	size_t len = 0;

	for (int i = 0; i < ops->n_labels && len < sizeof all; i++)
		len += (size_t)snprintf(all + len, sizeof all - len, "%s%c %s", i ? " · " : "",
					ops->keys[i], ops->shown[i]);
	add(l, "label this turn (turn-errors): %s · Esc: no label", all);
}

static void page_drop(struct review *r)
{
	for (int i = 0; r->unans && i < r->page_n; i++)
		free(r->unans[i]);
	free(r->unans);
	store_calls_free(r->page, r->page_n);
	r->unans = NULL;
	r->page = NULL;
	r->page_n = 0;
	r->page_off = 0;
}

static void fail(struct review *r, const char *what)
{
	snprintf(r->fault, sizeof r->fault, "%s: %s", what, store_error(r->st));
}

/* refilter: the filter's counts, by SQL; the page is read again when drawn. */
static void refilter(struct review *r)
{
	struct store_call_query all = {.run = r->q.run};

	r->q.status = statuses[r->status];
	r->q.fault = faults[r->fault_i];
	r->q.said = r->text[0] ? r->text : NULL;
	page_drop(r);
	if (store_calls_count(r->st, &all, &r->total) != ERR_OK ||
	    store_calls_count(r->st, &r->q, &r->n_shown) != ERR_OK) {
		fail(r, "counting the calls");
		r->n_shown = 0;
	}
	if (r->cur >= r->n_shown)
		r->cur = r->n_shown ? r->n_shown - 1 : 0;
	r->top = 0;
}

static char *unanswered(const char *form_status);

/* page_cover: make the page hold rows from .. from + rows - 1 of the list (read around
 * them when it does not). */
static void page_cover(struct review *r, int from, int rows)
{
	int off = from > rows ? from - rows : 0;

	if (r->page && from >= r->page_off &&
	    (from + rows <= r->page_off + r->page_n || r->page_off + r->page_n >= r->n_shown))
		return;
	page_drop(r);
	if (store_calls_page(r->st, &r->q, off, 3 * (rows > 0 ? rows : 1), &r->page, &r->page_n) !=
	    ERR_OK) {
		fail(r, "reading the calls");
		r->page = NULL;
		r->page_n = 0;
		return;
	}
	r->page_off = off;
	if (r->page_n && !(r->unans = calloc((size_t)r->page_n, sizeof *r->unans)))
		return;
	for (int i = 0; i < r->page_n; i++)
		r->unans[i] = unanswered(r->page[i].form_status);
}

/* row: the list's row i when the page holds it, else NULL. */
static const struct store_call_row *row(const struct review *r, int i, const char **unans)
{
	if (!r->page || i < r->page_off || i >= r->page_off + r->page_n)
		return NULL;
	*unans = r->unans && r->unans[i - r->page_off] ? r->unans[i - r->page_off] : "";
	return &r->page[i - r->page_off];
}

/* call_lines: the lines of turn r->turn of call c (its nt turns). */
static void call_lines(struct review *r, const struct store_call_row *c,
		       const struct store_turn_row *turns, int nt, struct lines *l)
{
	add(l, "call %lld · run %lld · %s%s%s · %s · turn %d of %d", c->id, c->info.run_id,
	    c->info.corpus ? c->info.corpus : "live", c->info.corpus ? "/" : "",
	    c->info.corpus ? c->info.corpus_call_id : "", c->status, r->turn, nt);
	if (r->tagging && c == r->call)
		tag_lines(l);
	add(l, "%s", "");
	if (r->turn > nt) {
		add(l, "(this call has no turn %d: it ended after %d)", r->turn, nt);
		return;
	}
	if (r->turn == 0) {
		add(l, "opening");
		add(l, "  agent: %s", c->info.opening ? c->info.opening : "");
		decision_lines(l, c->info.opening_decision);
		add(l, "%s", "");
		add(l, "the call ended %s: %s", c->status, c->reason ? c->reason : "");
		add(l, "form_data   %s", c->form_data ? c->form_data : "{}");
		add(l, "form_status %s", c->form_status ? c->form_status : "{}");
		return;
	}
	const struct store_turn *t = &turns[r->turn - 1].t;
	add(l, "caller");
	add(l, "  input %s · condition %s%s%s%s%s", t->input ? t->input : "?",
	    t->condition ? t->condition : "-", t->silence ? " · silence" : "",
	    t->barge_in ? " · barge-in" : "", t->cancelled ? " · cancelled" : "",
	    t->error ? " · error" : "");
	if (t->audio)
		add(l, "  audio %s", t->audio);
	add(l, "  speech segments %s (%.0f ms of speech)", t->segments ? t->segments : "[]",
	    t->speech_ms);
	add(l, "STT (%.1f ms)", t->stt_ms);
	add(l, "  transcript: %s", t->transcript ? t->transcript : "(silence)");
	add(l, "EXTRACT (%.1f ms)", t->extract_ms);
	add(l, "  %s", t->extraction ? t->extraction : "(none)");
	if (t->ack)
		add(l, "  ack: %s", t->ack);
	decision_lines(l, t->decision);
	form_lines(turns, nt, r->turn, l);
	add(l, "REPLY (%.1f ms)", t->reply_ms);
	add(l, "  agent: %s", t->reply ? t->reply : "");
	if (t->error)
		add(l, "error: %s", t->error);
	add(l, "ms: audio %.1f  VAD %.1f  STT %.1f  EXTRACT %.1f  rules %.1f  REPLY %.1f  total %.1f",
	    t->audio_ms, t->vad_ms, t->stt_ms, t->extract_ms, t->rules_ms, t->reply_ms, t->total_ms);
	const struct turncol_value *lat = store_turn_col(&turns[r->turn - 1], "latency");
	latency_lines(l, lat && lat->set ? lat->s : NULL);
	/* every registered turn column with a label (sessions/store/turncol.h), as stored */
	for (int i = 0; i < turncol_count(); i++) {
		char text[256];
		if (turncol_at(i)->label)
			add(l, "%s: %s", turncol_at(i)->label,
			    turncol_format(turncol_at(i), &turns[r->turn - 1].cols[i], text, sizeof text));
	}
}

static void lines_free(struct lines *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* draw_pair: the call open (run A) on the left and the call of run B the diff pairs
 * with it on the right, at the same turn, under a line saying where they first differ. */
static void draw_pair(struct review *r)
{
	int half = (COLS - 3) / 2;
	struct lines a = {.width = half}, b = {.width = half};
	char head[512];

	call_lines(r, r->call, r->turns, r->nt, &a);
	if (r->bcall)
		call_lines(r, r->bcall, r->bturns, r->bnt, &b);
	else
		add(&b, "no call of run %lld is paired with this one", r->against);
	if (!r->bcall)
		snprintf(head, sizeof head, "run %lld against run %lld", r->call->info.run_id, r->against);
	else if (r->div_turn < 0)
		snprintf(head, sizeof head, "run %lld against run %lld · the two calls do not differ",
			 r->call->info.run_id, r->against);
	else
		snprintf(head, sizeof head,
			 "run %lld against run %lld · first divergence: turn %d, %s%s",
			 r->call->info.run_id, r->against, r->div_turn, r->div_stage,
			 r->div_turn == r->turn ? " (this turn)" : "");
	put(0, 0, head);
	if (r->scroll > (a.n > b.n ? a.n : b.n) - 1)
		r->scroll = (a.n > b.n ? a.n : b.n) > 0 ? (a.n > b.n ? a.n : b.n) - 1 : 0;
	for (int y = 1; y < LINES - 1; y++) {
		int i = y == 1 ? 0 : y - 1 + r->scroll; /* each side's own title stays */
		if (i < a.n)
			put_in(y, 0, half, a.v[i]);
		mvaddstr(y, half + 1, "│");
		if (i < b.n)
			put_in(y, half + 3, half, b.v[i]);
	}
	lines_free(&a);
	lines_free(&b);
}

static void draw(struct review *r)
{
	erase();
	if (r->call && r->against) {
		draw_pair(r);
	} else if (r->call) {
		struct lines l = {0};
		call_lines(r, r->call, r->turns, r->nt, &l);
		if (r->scroll > l.n - 1)
			r->scroll = l.n > 0 ? l.n - 1 : 0;
		put(0, 0, l.n ? l.v[0] : "");
		for (int i = 1 + r->scroll, y = 1; i < l.n && y < LINES - 1; i++, y++)
			put(y, 0, l.v[i]);
		lines_free(&l);
	}
	if (r->call) {
		attron(A_REVERSE);
		put(LINES - 1, 0, r->note[0] ? r->note
			: " n next turn  p previous turn  j/k scroll  a play  l label  q back to the list ");
		attroff(A_REVERSE);
		refresh();
		return;
	}
	{
		char head[512];
		char vs[48] = "";
		if (r->typing_run)
			snprintf(vs, sizeof vs, " · against run %s", r->run_text);
		else if (r->against)
			snprintf(vs, sizeof vs, " · against run %lld", r->against);
		snprintf(head, sizeof head,
			 "formdesk review · %d of %d calls · status %s%s%s%s%s%s%s%s%s%s",
			 r->n_shown, r->total, statuses[r->status] ? statuses[r->status] : "any",
			 r->q.unanswered ? " · unanswered " : "",
			 r->q.unanswered ? r->q.unanswered : "",
			 r->q.corpus ? " · corpus " : "", r->q.corpus ? r->q.corpus : "",
			 r->q.fault ? " · fault " : "", r->q.fault ? r->q.fault : "",
			 r->text[0] || r->typing ? " · said: " : "", r->text, vs);
		put(0, 0, head);
	}
	attron(A_BOLD);
	put(1, 0, "  call   run  corpus call          status        turns  unanswered        reason");
	attroff(A_BOLD);
	if (r->cur < r->top)
		r->top = r->cur;
	if (r->cur >= r->top + LINES - 3)
		r->top = r->cur - (LINES - 4);
	page_cover(r, r->top, LINES - 3);
	for (int i = r->top, y = 2; i < r->n_shown && y < LINES - 1; i++, y++) {
		const char *un = "";
		const struct store_call_row *c = row(r, i, &un);
		char line[1024];
		if (!c)
			break;
		snprintf(line, sizeof line, "%c %-6lld %-4lld %-20.20s %-13s %5d  %-17.17s %s",
			 i == r->cur ? '>' : ' ', c->id, c->info.run_id,
			 c->info.corpus_call_id ? c->info.corpus_call_id : "", c->status, c->turns,
			 un, c->reason ? c->reason : "");
		if (i == r->cur)
			attron(A_REVERSE);
		put(y, 0, line);
		if (i == r->cur)
			attroff(A_REVERSE);
	}
	attron(A_REVERSE);
	put(LINES - 1, 0,
	    r->fault[0] ? r->fault
	    : r->typing ? " type the text to find, Enter ends it "
	    : r->typing_run ? " type the run to compare with, Enter ends it (empty: none), Esc "
			: " j/k move  space/b page  g/G first/last  Enter open  s status  f fault  / search said  c compare  q quit ");
	attroff(A_REVERSE);
	refresh();
}

/* pair_call: the call of run r->against the diff pairs with the call open, its turns
 * and the first divergence; what goes wrong is said in the status bar. */
static void pair_call(struct review *r)
{
	struct store_call_filter one = {0};
	char *msg = NULL;
	int n = 0;

	if (rundiff_match(r->st, r->call->info.run_id, r->call->id, r->against, &one.id,
			  &r->div_turn, &r->div_stage, &msg) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "cannot compare: %s", msg ? msg : "?");
		free(msg);
		return;
	}
	if (!one.id)
		return;
	if (store_calls(r->st, &one, &r->bcall, &n) != ERR_OK || n != 1 ||
	    store_turns(r->st, r->bcall->id, &r->bturns, &r->bnt) != ERR_OK) {
		snprintf(r->note, sizeof r->note, "cannot read call %lld: %s", one.id,
			 store_error(r->st));
		store_calls_free(r->bcall, n);
		r->bcall = NULL;
		r->bturns = NULL;
		r->bnt = 0;
	}
}

static void open_call(struct review *r)
{
	struct store_call_filter one = {0};
	const char *un;
	const struct store_call_row *c = row(r, r->cur, &un);
	int n = 0;

	if (!c)
		return;
	one.id = c->id;
	if (store_calls(r->st, &one, &r->call, &n) != ERR_OK || n != 1) {
		fail(r, "reading the call");
		store_calls_free(r->call, n);
		r->call = NULL;
		return;
	}
	if (store_turns(r->st, r->call->id, &r->turns, &r->nt) != ERR_OK) {
		r->turns = NULL;
		r->nt = 0;
	}
	r->turn = r->nt ? 1 : 0;
	r->scroll = 0;
	if (r->against)
		pair_call(r);
}

static void close_call(struct review *r)
{
	store_turns_free(r->turns, r->nt);
	store_calls_free(r->call, r->call ? 1 : 0);
	store_turns_free(r->bturns, r->bnt);
	store_calls_free(r->bcall, r->bcall ? 1 : 0);
	r->turns = r->bturns = NULL;
	r->nt = r->bnt = 0;
	r->call = r->bcall = NULL;
}

/* key: act on one key; false to quit. */
static bool key(struct review *r, int k)
{
	if (r->typing_run) {
		size_t n = strlen(r->run_text);
		if (k == '\r') {
			r->typing_run = false;
			r->against = atoll(r->run_text);
		} else if (k == 27) {
			r->typing_run = false;
		} else if (k == 127 && n) {
			r->run_text[n - 1] = '\0';
		} else if (k >= '0' && k <= '9' && n + 1 < sizeof r->run_text) {
			r->run_text[n] = (char)k;
			r->run_text[n + 1] = '\0';
		}
		return true;
	}
	if (r->typing) {
		size_t n = strlen(r->text);
		if (k == '\r' || k == 27) {
			r->typing = false;
			refilter(r);
		} else if (k == 127 && n) {
			r->text[n - 1] = '\0';
		} else if (k >= 32 && k < 127 && n + 1 < sizeof r->text) {
			r->text[n] = (char)k;
			r->text[n + 1] = '\0';
		}
		return true;
	}
	if (r->call && r->tagging) {
		r->tagging = false;
		if (k == 27)
			snprintf(r->note, sizeof r->note, "not labelled");
		else
			label_turn(r, k);
		return true;
	}
	if (r->call) {
		r->note[0] = '\0';
		switch (k) {
		case 'a': play_turn(r); break;
		case 'l':
			if (r->turn >= 1 && r->turn <= r->nt)
				r->tagging = true;
			else
				snprintf(r->note, sizeof r->note, "%s",
					 r->turn ? "this call has no such turn to label"
						 : "the opening is not labelled: n to a turn");
			break;
		case 'q': case 27:
			if (r->sink)
				sink_stop(r->sink, NULL);
			free(r->after);
			r->after = NULL;
			close_call(r);
			break;
		case 'n': if (r->turn < (r->bnt > r->nt ? r->bnt : r->nt)) r->turn++, r->scroll = 0; break;
		case 'p': if (r->turn > 0) r->turn--, r->scroll = 0; break;
		case 'j': r->scroll++; break;
		case 'k': if (r->scroll > 0) r->scroll--; break;
		}
		return true;
	}
	switch (k) {
	case 'q': return false;
	case 'j': if (r->cur + 1 < r->n_shown) r->cur++; break;
	case 'k': if (r->cur > 0) r->cur--; break;
	case ' ': r->cur = r->cur + (LINES - 3) < r->n_shown ? r->cur + (LINES - 3) : r->n_shown - 1;
		  if (r->cur < 0)
			  r->cur = 0;
		  break;
	case 'b': r->cur = r->cur > LINES - 3 ? r->cur - (LINES - 3) : 0; break;
	case 'g': r->cur = 0; break;
	case 'G': r->cur = r->n_shown ? r->n_shown - 1 : 0; break;
	case '\r': open_call(r); break;
	case 's': r->status = (r->status + 1) % N_STATUSES; refilter(r); break;
	case 'f': r->fault_i = (r->fault_i + 1) % N_FAULTS; refilter(r); break;
	case '/': r->typing = true; r->text[0] = '\0'; break;
	case 'c': r->typing_run = true; r->run_text[0] = '\0'; break;
	}
	return true;
}

/* unanswered: the fields form_status names skipped or empty, ", " joined (caller frees). */
static char *unanswered(const char *form_status)
{
	cJSON *o = form_status ? cJSON_Parse(form_status) : NULL, *it;
	char *all = strdup("");
	cJSON_ArrayForEach(it, o) {
		const char *s = cJSON_GetStringValue(it);
		char *n;
		if (!all || !s || strcmp(s, "answered") == 0)
			continue;
		n = str_printf("%s%s%s", all, all[0] ? ", " : "", it->string);
		free(all);
		all = n;
	}
	cJSON_Delete(o);
	return all;
}

/* browse: the browser's loop on scr until q or a quit signal. Returns 0, or 128 + the
 * signal. */
static int browse(struct review *r, struct screen *scr)
{
	for (;;) {
		/* while a turn plays, wake to start the agent's words after the caller's
		 * and to say when it has played */
		bool busy = playing(r);
		unsigned w;
		int k;
		bool go = true;
		draw(r);
		w = screen_wait(scr, busy ? 50 : -1);
		if (w & SCREEN_QUIT)
			return 128 + screen_signal(scr);
		while (go && (k = screen_key(scr)) != -1)
			go = key(r, k);
		if (!go)
			return 0;
	}
}

/* start: the browser's state for filter f; false (a message in r->fault) when the calls
 * cannot be counted. */
static bool start(struct review *r, struct store *st, const struct review_filter *f)
{
	*r = (struct review){.st = st, .q = {.run = f->run, .unanswered = f->field, .corpus = f->corpus},
			     .out_dev = f->output_device, .against = f->against,
			     .annotator = f->annotator && f->annotator[0] ? f->annotator : "review"};
	for (int i = 0; i < N_STATUSES; i++)
		if (f->status && statuses[i] && strcmp(statuses[i], f->status) == 0)
			r->status = i;
	for (int i = 0; i < N_FAULTS; i++)
		if (f->fault && faults[i] && strcmp(faults[i], f->fault) == 0)
			r->fault_i = i;
	if (f->text)
		snprintf(r->text, sizeof r->text, "%s", f->text);
	refilter(r);
	return !r->fault[0];
}

static void finish(struct review *r)
{
	close_call(r);
	page_drop(r);
	sink_free(r->sink);
	free(r->after);
	labels_close(r->labels);
}

int review_screen(struct screen *scr, struct store *st, const struct review_filter *f)
{
	struct review r;
	int rc;

	start(&r, st, f); /* a failure shows in the status bar */
	rc = browse(&r, scr);

	finish(&r);
	return rc;
}

int review_run(struct store *st, const struct review_filter *f)
{
	struct review r;
	struct screen *scr = NULL;
	const char *why = NULL;
	int rc = 2;

	if (!start(&r, st, f)) {
		fprintf(stderr, "formdesk review: %s\n", r.fault);
		goto out;
	}
	if (screen_open(NULL, &scr, &why) != ERR_OK) {
		fprintf(stderr, "formdesk review: %s\n", why ? why : "no terminal");
		goto out;
	}
	rc = browse(&r, scr);
out:
	screen_close(scr);
	finish(&r);
	return rc;
}
