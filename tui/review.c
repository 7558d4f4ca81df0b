/* review: the browser of recorded calls (see review.h). */
#include "review.h"

#include <curses.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "agent/decision.h"
#include "sessions/runs.h"
#include "sessions/store.h"
#include "tui/screen.h"
#include "tui/width.h"

static const char *const statuses[] = {NULL, "complete", "failed", "screened_out", "in_progress"};
#define N_STATUSES (int)(sizeof statuses / sizeof statuses[0])

/* One recorded call as the list shows it. */
struct item {
	const struct store_call_row *c;
	char *unanswered; /* the fields skipped or left empty, ", " joined */
	char *said;       /* every transcript, lower-cased, for the search; NULL not read */
};

struct review {
	struct store *st;
	struct store_call_row *calls;
	int n;
	struct item *items;
	int *shown, n_shown, cur, top;
	int status;        /* index into statuses */
	const char *field;
	char text[128];
	bool typing;       /* the search text is being typed */
	/* the call open, when open >= 0 */
	int open;
	struct store_turn_row *turns;
	int nt, turn, scroll;
};

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* said: the call's transcripts, read once, for the search. */
static const char *said(struct review *r, struct item *it)
{
	struct store_turn_row *t = NULL;
	int n = 0;
	size_t len = 1;

	if (it->said)
		return it->said;
	if (store_turns(r->st, it->c->id, &t, &n) != ERR_OK)
		return "";
	for (int i = 0; i < n; i++)
		len += (t[i].t.transcript ? strlen(t[i].t.transcript) : 0) + 1;
	if ((it->said = malloc(len))) {
		it->said[0] = '\0';
		for (int i = 0; i < n; i++)
			if (t[i].t.transcript) {
				strcat(it->said, t[i].t.transcript);
				strcat(it->said, "\n");
			}
		lower(it->said);
	}
	store_turns_free(t, n);
	return it->said ? it->said : "";
}

static void refilter(struct review *r)
{
	char needle[sizeof r->text];

	snprintf(needle, sizeof needle, "%s", r->text);
	lower(needle);
	r->n_shown = 0;
	for (int i = 0; i < r->n; i++) {
		struct item *it = &r->items[i];
		const char *u = it->unanswered ? it->unanswered : "";
		if (statuses[r->status] && strcmp(it->c->status, statuses[r->status]) != 0)
			continue;
		if (r->field) {
			const char *p = strstr(u, r->field);
			size_t fl = strlen(r->field);
			if (!p || (p != u && p[-1] != ' ') || (p[fl] && p[fl] != ','))
				continue;
		}
		if (needle[0] && !strstr(said(r, it), needle))
			continue;
		r->shown[r->n_shown++] = i;
	}
	if (r->cur >= r->n_shown)
		r->cur = r->n_shown ? r->n_shown - 1 : 0;
	r->top = 0;
}

/* put: text at row y from column x, cut to the screen's width (never half a letter). */
static void put(int y, int x, const char *text)
{
	int cols = COLS - x;
	if (y >= LINES || cols <= 0 || !text)
		return;
	mvaddnstr(y, x, text, (int)width_cut(text, cols, NULL));
}

/* Lines of the call view, collected then drawn from r->scroll on. */
struct lines {
	char **v;
	int n;
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
		size_t next, n = width_wrap(s + off, COLS > 4 ? COLS - 2 : 2, &next);
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
 * as the rule layer's struct (agent/decision.h). */
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
static void form_lines(struct review *r, struct lines *l)
{
	cJSON *form = cJSON_CreateObject();
	char *text;

	if (!form)
		return;
	for (int i = 0; i < r->turn && i < r->nt; i++) {
		struct decision *d = runs_decision(r->turns[i].t.decision);
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

static void call_lines(struct review *r, struct lines *l)
{
	const struct store_call_row *c = r->items[r->open].c;

	add(l, "call %lld · run %lld · %s%s%s · %s · turn %d of %d", c->id, c->info.run_id,
	    c->info.corpus ? c->info.corpus : "live", c->info.corpus ? "/" : "",
	    c->info.corpus ? c->info.corpus_call_id : "", c->status, r->turn, r->nt);
	add(l, "%s", "");
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
	const struct store_turn *t = &r->turns[r->turn - 1].t;
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
	form_lines(r, l);
	add(l, "REPLY (%.1f ms)", t->reply_ms);
	add(l, "  agent: %s", t->reply ? t->reply : "");
	if (t->error)
		add(l, "error: %s", t->error);
	add(l, "ms: audio %.1f  VAD %.1f  STT %.1f  EXTRACT %.1f  rules %.1f  REPLY %.1f  total %.1f",
	    t->audio_ms, t->vad_ms, t->stt_ms, t->extract_ms, t->rules_ms, t->reply_ms, t->total_ms);
}

static void draw(struct review *r)
{
	erase();
	if (r->open >= 0) {
		struct lines l = {0};
		call_lines(r, &l);
		if (r->scroll > l.n - 1)
			r->scroll = l.n > 0 ? l.n - 1 : 0;
		put(0, 0, l.n ? l.v[0] : "");
		for (int i = 1 + r->scroll, y = 1; i < l.n && y < LINES - 1; i++, y++)
			put(y, 0, l.v[i]);
		for (int i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		attron(A_REVERSE);
		put(LINES - 1, 0, " n next turn  p previous turn  j/k scroll  q back to the list ");
		attroff(A_REVERSE);
		refresh();
		return;
	}
	{
		char head[256];
		snprintf(head, sizeof head, "formdesk review · %d of %d calls · status %s%s%s%s%s",
			 r->n_shown, r->n, statuses[r->status] ? statuses[r->status] : "any",
			 r->field ? " · unanswered " : "", r->field ? r->field : "",
			 r->text[0] || r->typing ? " · said: " : "", r->text);
		put(0, 0, head);
	}
	attron(A_BOLD);
	put(1, 0, "  call   run  corpus call          status        turns  unanswered        reason");
	attroff(A_BOLD);
	if (r->cur < r->top)
		r->top = r->cur;
	if (r->cur >= r->top + LINES - 3)
		r->top = r->cur - (LINES - 4);
	for (int i = r->top, y = 2; i < r->n_shown && y < LINES - 1; i++, y++) {
		const struct item *it = &r->items[r->shown[i]];
		char row[1024];
		snprintf(row, sizeof row, "%c %-6lld %-4lld %-20.20s %-13s %5d  %-17.17s %s",
			 i == r->cur ? '>' : ' ', it->c->id, it->c->info.run_id,
			 it->c->info.corpus_call_id ? it->c->info.corpus_call_id : "",
			 it->c->status, it->c->turns, it->unanswered ? it->unanswered : "",
			 it->c->reason ? it->c->reason : "");
		if (i == r->cur)
			attron(A_REVERSE);
		put(y, 0, row);
		if (i == r->cur)
			attroff(A_REVERSE);
	}
	attron(A_REVERSE);
	put(LINES - 1, 0, r->typing ? " type the text to find, Enter ends it "
				    : " j/k move  Enter open  s status  / search said  q quit ");
	attroff(A_REVERSE);
	refresh();
}

static void open_call(struct review *r)
{
	if (r->n_shown == 0)
		return;
	r->open = r->shown[r->cur];
	if (store_turns(r->st, r->items[r->open].c->id, &r->turns, &r->nt) != ERR_OK) {
		r->turns = NULL;
		r->nt = 0;
	}
	r->turn = r->nt ? 1 : 0;
	r->scroll = 0;
}

static void close_call(struct review *r)
{
	store_turns_free(r->turns, r->nt);
	r->turns = NULL;
	r->nt = 0;
	r->open = -1;
}

/* key: act on one key; false to quit. */
static bool key(struct review *r, int k)
{
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
	if (r->open >= 0) {
		switch (k) {
		case 'q': case 27: close_call(r); break;
		case 'n': if (r->turn < r->nt) r->turn++, r->scroll = 0; break;
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
	case '\r': open_call(r); break;
	case 's': r->status = (r->status + 1) % N_STATUSES; refilter(r); break;
	case '/': r->typing = true; r->text[0] = '\0'; break;
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
		n = runs_printf("%s%s%s", all, all[0] ? ", " : "", it->string);
		free(all);
		all = n;
	}
	cJSON_Delete(o);
	return all;
}

int review_run(struct store *st, const struct review_filter *f)
{
	struct review r = {.st = st, .open = -1, .field = f->field};
	struct store_call_filter cf = {.run = f->run};
	struct screen *scr = NULL;
	const char *why = NULL;
	int rc = 2;

	if (store_calls(st, &cf, &r.calls, &r.n) != ERR_OK) {
		fprintf(stderr, "formdesk review: %s\n", store_error(st));
		return 2;
	}
	if ((r.n && (!(r.items = calloc((size_t)r.n, sizeof *r.items)) ||
		     !(r.shown = calloc((size_t)r.n, sizeof *r.shown)))))
		goto out;
	for (int i = 0; i < r.n; i++) {
		r.items[i].c = &r.calls[i];
		r.items[i].unanswered = unanswered(r.calls[i].form_status);
	}
	for (int i = 0; i < N_STATUSES; i++)
		if (f->status && statuses[i] && strcmp(statuses[i], f->status) == 0)
			r.status = i;
	if (f->text)
		snprintf(r.text, sizeof r.text, "%s", f->text);
	refilter(&r);
	if (screen_open(NULL, &scr, &why) != ERR_OK) {
		fprintf(stderr, "formdesk review: %s\n", why ? why : "no terminal");
		goto out;
	}
	rc = 0;
	draw(&r);
	for (;;) {
		unsigned w = screen_wait(scr, -1);
		int k;
		bool go = true;
		if (w & SCREEN_QUIT) {
			rc = 128 + screen_signal(scr);
			break;
		}
		while (go && (k = screen_key(scr)) != -1)
			go = key(&r, k);
		if (!go)
			break;
		draw(&r);
	}
out:
	screen_close(scr);
	close_call(&r);
	for (int i = 0; r.items && i < r.n; i++) {
		free(r.items[i].unanswered);
		free(r.items[i].said);
	}
	free(r.items);
	free(r.shown);
	store_calls_free(r.calls, r.n);
	return rc;
}
