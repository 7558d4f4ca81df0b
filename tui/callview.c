/* callview: the simulator's panes as data, fed by the engine's events (see callview.h). */
#include "callview.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/rules/form.h"
#include "sessions/corpus/corpus.h"

/* The conversation keeps this many lines; older ones scroll away for good. */
#define CONV_KEEP 500

/* One turn of the call on screen as it was shown (turn 0: the opening): the verdicts and
 * decision panes, the form after it, and how many conversation lines there were by the
 * time its reply was said, so a paused call can be stepped back through. */
struct hist {
	int turn;
	struct callview_lines verdicts, decision;
	struct callview_snap *snap;
	int conv_end;
};

struct callview {
	const struct form *form;
	char *corpus;
	int n_calls;
	int index;          /* current call, -1 before the first */
	char *call_id, *caller, *path;
	char *live;         /* the live call's kind ("typed", "microphone"), NULL in playback */
	int n_turns;        /* the corpus call's caller turns */
	int turn;           /* caller turns so far in this call */
	struct callview_lines conv, verdicts, decision, summary;
	struct callview_snap *snap;
	cJSON *extraction;  /* the last turn's EXTRACT output */
	char title[640];
	char timings[480];   /* the last turn's */
	char waiting[128];   /* what is being waited for, "" when nothing */
	char status[1200];    /* waiting, then timings: what the status bar shows */
	enum callview_mode mode;
	unsigned dirty;
	int ended[4];       /* calls ended, by enum call_status */
	/* the turns of the call on screen so far, and which is shown (-1: the newest, as it
	 * happens); conv_upto the conversation lines shown (-1: all, following the newest) */
	struct hist *hist;
	int n_hist, view, conv_upto;
	bool hist_closed;   /* the next caller's words have come: the last turn's lines end */
	int turns_total;
	/* the corpus call a live call interrupted, put back when the live call is left */
	struct {
		bool held;
		int index, n_turns, turn;
		char *call_id, *caller, *path;
		struct callview_lines conv, verdicts, decision;
		struct callview_snap *snap;
		cJSON *extraction;
		struct hist *hist;
		int n_hist, view, conv_upto;
		bool hist_closed;
	} corpus_call;
};

static char *dupstr(const char *s)
{
	return strdup(s ? s : "");
}

/* Control characters would move the cursor: show them as spaces. */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static void lines_clear(struct callview_lines *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->v[i].prefix);
		free(l->v[i].text);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void lines_drop_first(struct callview_lines *l, int k)
{
	for (int i = 0; i < k; i++) {
		free(l->v[i].prefix);
		free(l->v[i].text);
	}
	memmove(l->v, l->v + k, (size_t)(l->n - k) * sizeof(*l->v));
	l->n -= k;
}

/* lines_add: append a line; prefix may be NULL. Errors: ERR_NOMEM. */
static enum err lines_add(struct callview_lines *l, enum callview_style st, const char *prefix,
			  const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (r < 0)
		return ERR_NOMEM;
	char *p = dupstr(prefix);
	struct callview_line *nv = realloc(l->v, (size_t)(l->n + 1) * sizeof(*nv));
	if (!p || !nv) {
		free(text);
		free(p);
		if (nv)
			l->v = nv;
		return ERR_NOMEM;
	}
	clean(text);
	clean(p);
	l->v = nv;
	l->v[l->n++] = (struct callview_line){st, p, text};
	return ERR_OK;
}

/* lines_copy: dst (empty) as a copy of src. Errors: ERR_NOMEM (dst holds what was
 * copied). */
static enum err lines_copy(struct callview_lines *dst, const struct callview_lines *src)
{
	for (int i = 0; i < src->n; i++)
		if (lines_add(dst, src->v[i].style, src->v[i].prefix, "%s", src->v[i].text) != ERR_OK)
			return ERR_NOMEM;
	return ERR_OK;
}

static struct callview_snap *snap_dup(const struct callview_snap *s)
{
	struct callview_snap *d = s ? calloc(1, sizeof(*d)) : NULL;
	if (!d)
		return NULL;
	d->call_status = s->call_status;
	if (!(d->f = calloc(s->n > 0 ? (size_t)s->n : 1, sizeof(*d->f))))
		goto fail;
	for (int i = 0; i < s->n; i++, d->n++) {
		d->f[i] = s->f[i];
		d->f[i].name = strdup(s->f[i].name);
		d->f[i].value = strdup(s->f[i].value);
		if (!d->f[i].name || !d->f[i].value) {
			d->n++;
			goto fail;
		}
	}
	return d;
fail:
	callview_snap_free(d);
	return NULL;
}

static void hist_clear(struct hist **h, int *n)
{
	for (int i = 0; i < *n; i++) {
		lines_clear(&(*h)[i].verdicts);
		lines_clear(&(*h)[i].decision);
		callview_snap_free((*h)[i].snap);
	}
	free(*h);
	*h = NULL;
	*n = 0;
}

/* hist_push: the turn whose decision was just shown, as the panes show it now. */
static void hist_push(struct callview *v, int turn)
{
	struct hist *nh = realloc(v->hist, (size_t)(v->n_hist + 1) * sizeof(*nh));
	if (!nh)
		return; /* the turn is not kept for stepping back; the call goes on */
	v->hist = nh;
	nh = &v->hist[v->n_hist++];
	memset(nh, 0, sizeof(*nh));
	nh->turn = turn;
	nh->conv_end = v->conv.n;
	lines_copy(&nh->verdicts, &v->verdicts);
	lines_copy(&nh->decision, &v->decision);
	nh->snap = snap_dup(v->snap);
	v->hist_closed = false;
}

/* A stored answer as text: strings as they are, booleans true/false, numbers plainly,
 * null as "". Output: new string (caller frees), NULL when out of memory. */
static char *value_text(const cJSON *v)
{
	if (!v || cJSON_IsNull(v))
		return strdup("");
	if (cJSON_IsString(v))
		return strdup(v->valuestring);
	if (cJSON_IsBool(v))
		return strdup(cJSON_IsTrue(v) ? "true" : "false");
	if (cJSON_IsNumber(v)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.15g", v->valuedouble);
		return strdup(buf);
	}
	return cJSON_PrintUnformatted(v);
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void title_update(struct callview *v)
{
	/* The mode comes first so a narrow terminal still shows it. */
	const char *mode = v->mode == CALLVIEW_PAUSED ? "[PAUSED] "
			   : v->mode == CALLVIEW_FINISHED ? "[all calls played] " : "";
	int n;
	if (v->live) {
		snprintf(v->title, sizeof(v->title), "formdesk · live call (%s) %d · call %s · turn %d",
			 v->live, v->index + 1, v->call_id ? v->call_id : "not started", v->turn);
		clean(v->title);
		v->dirty |= CALLVIEW_TITLE;
		return;
	}
	n = snprintf(v->title, sizeof(v->title), "%sformdesk simulator · corpus %s", mode,
		     v->corpus);
	if (v->index >= 0 && n >= 0 && (size_t)n < sizeof(v->title))
		n += snprintf(v->title + n, sizeof(v->title) - (size_t)n,
			      " · call %s %d/%d · turn %d/%d", v->call_id ? v->call_id : "?",
			      v->index + 1, v->n_calls, v->turn, v->n_turns);
	if (v->caller && *v->caller && n >= 0 && (size_t)n < sizeof(v->title))
		n += snprintf(v->title + n, sizeof(v->title) - (size_t)n, " · caller %s", v->caller);
	if (v->view >= 0 && n >= 0 && (size_t)n < sizeof(v->title))
		n += snprintf(v->title + n, sizeof(v->title) - (size_t)n,
			      " · showing turn %d (, . step)", v->hist[v->view].turn);
	if (v->path && *v->path && n >= 0 && (size_t)n < sizeof(v->title))
		snprintf(v->title + n, sizeof(v->title) - (size_t)n, " · %s", v->path);
	clean(v->title);
	v->dirty |= CALLVIEW_TITLE;
}

struct callview *callview_new(const struct form *form, const char *corpus_name, int n_calls)
{
	struct callview *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->form = form;
	v->n_calls = n_calls;
	v->index = -1;
	v->view = v->conv_upto = v->corpus_call.view = v->corpus_call.conv_upto = -1;
	v->corpus = dupstr(corpus_name);
	v->snap = callview_snap_new(form, NULL);
	if (!v->corpus || !v->snap) {
		callview_free(v);
		return NULL;
	}
	title_update(v);
	v->dirty = CALLVIEW_ALL;
	return v;
}

void callview_free(struct callview *v)
{
	if (!v)
		return;
	free(v->corpus);
	free(v->call_id);
	free(v->caller);
	free(v->path);
	free(v->live);
	lines_clear(&v->conv);
	lines_clear(&v->verdicts);
	lines_clear(&v->decision);
	lines_clear(&v->summary);
	callview_snap_free(v->snap);
	cJSON_Delete(v->extraction);
	free(v->corpus_call.call_id);
	free(v->corpus_call.caller);
	free(v->corpus_call.path);
	lines_clear(&v->corpus_call.conv);
	lines_clear(&v->corpus_call.verdicts);
	lines_clear(&v->corpus_call.decision);
	callview_snap_free(v->corpus_call.snap);
	cJSON_Delete(v->corpus_call.extraction);
	hist_clear(&v->hist, &v->n_hist);
	hist_clear(&v->corpus_call.hist, &v->corpus_call.n_hist);
	free(v);
}

static enum err set_str(char **slot, const char *s)
{
	char *d = NULL;
	if (s && !(d = strdup(s)))
		return ERR_NOMEM;
	free(*slot);
	*slot = d;
	return ERR_OK;
}

/* hold_corpus_call: move the corpus call on screen aside (held) or back (!held), so a live
 * call can use the panes and leave them as they were. */
static void hold_corpus_call(struct callview *v, bool held)
{
	struct callview_lines empty = {0};
#define SWAP(a, b)                  \
	do {                        \
		__typeof__(a) t_ = (a); \
		(a) = (b);          \
		(b) = t_;           \
	} while (0)
	SWAP(v->index, v->corpus_call.index);
	SWAP(v->n_turns, v->corpus_call.n_turns);
	SWAP(v->turn, v->corpus_call.turn);
	SWAP(v->call_id, v->corpus_call.call_id);
	SWAP(v->caller, v->corpus_call.caller);
	SWAP(v->path, v->corpus_call.path);
	SWAP(v->conv, v->corpus_call.conv);
	SWAP(v->verdicts, v->corpus_call.verdicts);
	SWAP(v->decision, v->corpus_call.decision);
	SWAP(v->snap, v->corpus_call.snap);
	SWAP(v->extraction, v->corpus_call.extraction);
	SWAP(v->hist, v->corpus_call.hist);
	SWAP(v->n_hist, v->corpus_call.n_hist);
	SWAP(v->view, v->corpus_call.view);
	SWAP(v->conv_upto, v->corpus_call.conv_upto);
	SWAP(v->hist_closed, v->corpus_call.hist_closed);
#undef SWAP
	v->corpus_call.held = held;
	if (!held) { /* what the live call left behind goes */
		free(v->corpus_call.call_id);
		free(v->corpus_call.caller);
		free(v->corpus_call.path);
		v->corpus_call.call_id = v->corpus_call.caller = v->corpus_call.path = NULL;
		lines_clear(&v->corpus_call.conv);
		lines_clear(&v->corpus_call.verdicts);
		lines_clear(&v->corpus_call.decision);
		v->corpus_call.conv = v->corpus_call.verdicts = v->corpus_call.decision = empty;
		callview_snap_free(v->corpus_call.snap);
		v->corpus_call.snap = NULL;
		cJSON_Delete(v->corpus_call.extraction);
		v->corpus_call.extraction = NULL;
		hist_clear(&v->corpus_call.hist, &v->corpus_call.n_hist);
		v->corpus_call.view = v->corpus_call.conv_upto = -1;
	}
	v->dirty = CALLVIEW_ALL;
}

enum err callview_live(struct callview *v, int index, const char *kind)
{
	enum err e = set_str(&v->live, kind);
	if (e)
		return e;
	if (!kind) { /* back to the corpus: its call, panes, title and mode */
		if (v->corpus_call.held)
			hold_corpus_call(v, false);
		title_update(v);
		return ERR_OK;
	}
	if (!v->corpus_call.held)
		hold_corpus_call(v, true);
	struct corpus_call call = {.id = NULL};
	e = callview_call(v, index, &call);
	if (e)
		return e;
	if (v->mode == CALLVIEW_FINISHED) /* the summary does not cover a live call */
		v->mode = CALLVIEW_PLAYING;
	title_update(v);
	return ERR_OK;
}

enum err callview_call(struct callview *v, int index, const struct corpus_call *call)
{
	enum err e = ERR_OK;
	v->index = index;
	v->turn = 0;
	v->n_turns = call ? call->n_turns : 0;
	if ((e = set_str(&v->call_id, call ? call->id : NULL)) ||
	    (e = set_str(&v->caller, call ? call->caller : NULL)) ||
	    (e = set_str(&v->path, call ? call->path : NULL)))
		return e;
	lines_clear(&v->conv);
	lines_clear(&v->verdicts);
	lines_clear(&v->decision);
	cJSON_Delete(v->extraction);
	v->extraction = NULL;
	hist_clear(&v->hist, &v->n_hist);
	v->view = v->conv_upto = -1;
	callview_set_form(v, callview_snap_new(v->form, NULL));
	lines_add(&v->verdicts, CV_NOTE, NULL, "waiting for the caller's first answer");
	lines_add(&v->decision, CV_NOTE, NULL, "waiting for the first decision");
	title_update(v);
	v->dirty |= CALLVIEW_CONV | CALLVIEW_VERDICTS | CALLVIEW_DECISION;
	return ERR_OK;
}

/* The verdicts pane for decision d: what was captured, each validator, the faults. */
static void show_verdicts(struct callview *v, const struct decision *d)
{
	struct callview_lines *l = &v->verdicts;
	lines_clear(l);
	lines_add(l, CV_HEAD, NULL, "turn %d · asked %s", d->turn, d->asked ? d->asked : "nothing");

	lines_add(l, CV_HEAD, NULL, "captured");
	if (d->n_captured == 0)
		lines_add(l, CV_NOTE, "  ", "nothing captured");
	for (int i = 0; i < d->n_captured; i++) {
		const struct decision_capture *c = &d->captured[i];
		const char *status = decision_capture_status_name(c->status);
		const char *reason = c->reason;
		char *raw = value_text(c->raw);
		char *val = value_text(c->value);
		enum callview_style st = c->status == DECISION_ANSWERED ? CV_OK
			: c->status == DECISION_INVALID ? CV_FAIL
			: c->status == DECISION_IGNORED || c->status == DECISION_DROPPED ? CV_DIM
			: CV_NOTE;
		char prefix[128];
		snprintf(prefix, sizeof(prefix), "  %s: ", c->field ? c->field : "(no field)");
		if (raw && val && strcmp(raw, val) != 0 && *raw)
			lines_add(l, st, prefix, "\"%s\" → %s  %s%s%s", raw, *val ? val : "-", status,
				  reason ? ", " : "", reason ? reason : "");
		else
			lines_add(l, st, prefix, "%s  %s%s%s", val && *val ? val : "-", status,
				  reason ? ", " : "", reason ? reason : "");
		free(raw);
		free(val);
	}

	lines_add(l, CV_HEAD, NULL, "validators");
	if (d->n_verdicts == 0)
		lines_add(l, CV_NOTE, "  ", "none ran");
	for (int i = 0; i < d->n_verdicts; i++) {
		const struct decision_verdict *c = &d->verdicts[i];
		const char *msg = c->message;
		lines_add(l, c->ok ? CV_OK : CV_FAIL, c->ok ? "  ok   " : "  FAIL ", "%s %s%s%s",
			  c->field ? c->field : "?", c->rule ? c->rule : "?", msg && *msg ? ": " : "",
			  msg && *msg ? msg : "");
	}

	for (int i = 0; i < d->n_skipped; i++)
		lines_add(l, CV_NOTE, "  skipped: ", "%s", d->skipped[i]);
	for (int i = 0; i < d->n_faults; i++)
		lines_add(l, CV_FAIL, "fault: ", "%s", d->faults[i]);
	const char *xfault = jstr(v->extraction, "fault");
	if (xfault)
		lines_add(l, CV_FAIL, "EXTRACT fault: ", "%s", xfault);
	const char *ack = jstr(v->extraction, "ack");
	if (ack)
		lines_add(l, CV_NOTE, "ack: ", "%s", ack);
	v->dirty |= CALLVIEW_VERDICTS;
}

/* The decision pane for decision d: branches, then the next question or the end. */
static void show_decision(struct callview *v, const struct decision *d)
{
	struct callview_lines *l = &v->decision;
	lines_clear(l);
	lines_add(l, CV_HEAD, NULL, "branches");
	if (d->n_branches == 0)
		lines_add(l, CV_NOTE, "  ", "none");
	for (int i = 0; i < d->n_branches; i++) {
		const struct decision_branch *b = &d->branches[i];
		lines_add(l, b->active ? CV_OK : CV_DIM, b->active ? "  active   " : "  inactive ",
			  "%s: %s", b->id ? b->id : "?", b->condition ? b->condition : "?");
	}

	if (d->has_retries) {
		const struct decision_retries *r = &d->retries;
		const char *field = r->field ? r->field : "?";
		if (r->until_answered)
			lines_add(l, CV_NOTE, "retries ", "%s: used %d, until answered", field, r->used);
		else if (r->used > r->max) /* the last failed answer ends it */
			lines_add(l, CV_NOTE, "retries ", "%s: all %d re-asks used, no answer", field,
				  r->max);
		else
			lines_add(l, CV_NOTE, "retries ", "%s: used %d of %d, %d left", field, r->used,
				  r->max, r->left);
	}

	if (d->tool == DECISION_ASK_QUESTION) {
		const struct decision_ask *a = &d->ask;
		lines_add(l, CV_HEAD, NULL, "next question");
		lines_add(l, CV_PLAIN, "  ask ", "%s%s%s%s", a->field ? a->field : "?",
			  a->label ? " (" : "", a->label ? a->label : "", a->label ? ")" : "");
		if (a->retry > 0)
			lines_add(l, CV_FAIL, "  retry ", "%d", a->retry);
		if (a->error)
			lines_add(l, CV_FAIL, "  error: ", "%s", a->error);
		if (a->progress)
			lines_add(l, CV_NOTE, "  progress: ", "%s", a->progress);
		if (a->script)
			lines_add(l, CV_AGENT, "  script: ", "%s", a->script);
	} else {
		const struct decision_end *en = &d->end;
		lines_add(l, CV_HEAD, NULL, "end of call");
		lines_add(l, en->status == CALL_COMPLETE ? CV_OK : CV_FAIL, "  END ", "%s",
			  call_status_name(en->status));
		if (en->reason)
			lines_add(l, CV_PLAIN, "  reason: ", "%s", en->reason);
		if (en->script)
			lines_add(l, CV_AGENT, "  script: ", "%s", en->script);
	}
	if (d->reason)
		lines_add(l, CV_NOTE, "why: ", "%s", d->reason);
	v->dirty |= CALLVIEW_DECISION;
}

static void conv_add_done(struct callview *v)
{
	if (v->conv.n > CONV_KEEP) {
		int k = v->conv.n - CONV_KEEP;
		lines_drop_first(&v->conv, k);
		for (int i = 0; i < v->n_hist; i++)
			v->hist[i].conv_end = v->hist[i].conv_end > k ? v->hist[i].conv_end - k : 0;
		if (v->conv_upto >= 0)
			v->conv_upto = v->conv_upto > k + 1 ? v->conv_upto - k : 1;
	}
	if (v->n_hist && !v->hist_closed) /* the last turn's lines, up to its reply and end */
		v->hist[v->n_hist - 1].conv_end = v->conv.n;
	v->dirty |= CALLVIEW_CONV;
}

static void summary_update(struct callview *v)
{
	lines_clear(&v->summary);
	int calls = 0;
	for (int i = 0; i < 4; i++)
		calls += v->ended[i];
	lines_add(&v->summary, CV_HEAD, NULL, "All %d calls of corpus %s played", v->n_calls, v->corpus);
	lines_add(&v->summary, CV_PLAIN, NULL, "%d calls ended, %d caller turns", calls, v->turns_total);
	lines_add(&v->summary, CV_OK, "  complete      ", "%d", v->ended[CALL_COMPLETE]);
	lines_add(&v->summary, CV_PLAIN, "  screened_out  ", "%d", v->ended[CALL_SCREENED_OUT]);
	lines_add(&v->summary, CV_FAIL, "  failed        ", "%d", v->ended[CALL_FAILED]);
	if (v->ended[CALL_IN_PROGRESS])
		lines_add(&v->summary, CV_NOTE, "  unfinished    ", "%d", v->ended[CALL_IN_PROGRESS]);
	lines_add(&v->summary, CV_NOTE, NULL, "Press q to quit.");
}

enum err callview_event(struct callview *v, const struct engine_event *ev)
{
	enum err e = ERR_OK;
	const char *text = ev->text ? ev->text : "";
	switch (ev->kind) {
	case ENGINE_CALL_START:
		if (ev->call_id && (!v->call_id || strcmp(v->call_id, ev->call_id) != 0))
			e = set_str(&v->call_id, ev->call_id);
		lines_add(&v->conv, CV_NOTE, NULL, "── call %s ──", ev->call_id ? ev->call_id : text);
		conv_add_done(v);
		title_update(v);
		break;
	case ENGINE_AGENT_SAYS:
		e = lines_add(&v->conv, CV_AGENT, "agent: ", "%s", text);
		conv_add_done(v);
		break;
	case ENGINE_ACK: /* said at once, before the extraction and the reply */
		e = lines_add(&v->conv, CV_AGENT, "agent (ack): ", "%s", text);
		conv_add_done(v);
		break;
	case ENGINE_REPLY_SENTENCE: /* shown whole with ENGINE_AGENT_SAYS */
		break;
	case ENGINE_CALLER_SAYS: {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "caller %d: ", ev->turn);
		v->hist_closed = true;
		e = lines_add(&v->conv, CV_CALLER, prefix, "%s", *text ? text : "(nothing heard)");
		const char *cond = jstr(ev->json, "condition");
		const char *input = jstr(ev->json, "input");
		const cJSON *barge = cJSON_GetObjectItemCaseSensitive(ev->json, "barge_in");
		const cJSON *at = cJSON_GetObjectItemCaseSensitive(barge, "at_ms");
		char extra[96] = "";
		int segs = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ev->json, "segments"));
		if (cJSON_IsNumber(at))
			snprintf(extra, sizeof(extra), " · barge-in %.0f ms into the agent's %s",
				 at->valuedouble, jstr(barge, "during") && !strcmp(jstr(barge, "during"), "thinking")
						 ? "thinking" : "words");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev->json, "silence")))
			lines_add(&v->conv, CV_NOTE, "  ", "[silence%s]", extra);
		else if (input && strcmp(input, "typed") == 0)
			lines_add(&v->conv, CV_NOTE, "  ", "[typed%s]", extra);
		else if (ev->json)
			lines_add(&v->conv, CV_NOTE, "  ", "[%s%s%d speech segment%s%s]", cond ? cond : "",
				  cond ? ", " : "", segs, segs == 1 ? "" : "s", extra);
		v->turn = ev->turn;
		v->turns_total++;
		conv_add_done(v);
		title_update(v);
		break;
	}
	case ENGINE_EXTRACTED:
		cJSON_Delete(v->extraction);
		v->extraction = ev->json ? cJSON_Duplicate(ev->json, 1) : NULL;
		break;
	case ENGINE_DECISION:
		if (ev->decision) {
			/* The opening decision has no caller turn behind it: no verdicts yet. */
			if (ev->decision->turn > 0)
				show_verdicts(v, ev->decision);
			show_decision(v, ev->decision);
			hist_push(v, ev->decision->turn);
		}
		break;
	case ENGINE_TURN_DONE:
		if (ev->timings) {
			const struct engine_timings *t = ev->timings;
			bool net = false;
			for (int i = 0; i < ENGINE_STAGES; i++)
				net |= t->has_usage[i];
			int n = snprintf(v->timings, sizeof(v->timings),
					 "turn %d ms: audio %.1f  VAD %.1f  STT %.1f  EXTRACT %.1f  "
					 "rules %.1f  REPLY %.1f  total %.1f", ev->turn, t->audio_ms,
					 t->vad_ms, t->stt_ms, t->extract_ms, t->rules_ms, t->reply_ms,
					 t->total_ms);
			if (net && n >= 0 && (size_t)n < sizeof(v->timings))
				n += snprintf(v->timings + n, sizeof(v->timings) - (size_t)n,
					      "  cost $%.6f", t->cost_usd);
			/* the end of speech to the first words, short: the parts are in review */
			if (t->latency.known && n >= 0 && (size_t)n < sizeof(v->timings))
				n += snprintf(v->timings + n, sizeof(v->timings) - (size_t)n,
					      "  to words %.1f (formdesk %.1f)", t->latency.total_ms,
					      t->latency.ms[LATENCY_FORMDESK]);
			if (t->cancelled && n >= 0 && (size_t)n < sizeof(v->timings))
				n += snprintf(v->timings + n, sizeof(v->timings) - (size_t)n, "  (cancelled)");
			/* the turn's registered columns that are shown, as the engine gives them */
			if (*text && n >= 0 && (size_t)n < sizeof(v->timings))
				snprintf(v->timings + n, sizeof(v->timings) - (size_t)n, "  %s", text);
			v->dirty |= CALLVIEW_STATUS;
		}
		break;
	case ENGINE_CALL_END: {
		int s = ev->status >= CALL_IN_PROGRESS && ev->status <= CALL_FAILED ? (int)ev->status
										  : CALL_FAILED;
		v->ended[s]++;
		if (v->snap) { /* the engine's word is final (a caller who hung up fails the call) */
			v->snap->call_status = call_status_name((enum call_status)s);
			for (int i = 0; i < v->snap->n; i++)
				v->snap->f[i].current = false;
			v->dirty |= CALLVIEW_FORM;
		}
		if (ev->text && *ev->text)
			lines_add(&v->conv, ev->status == CALL_COMPLETE ? CV_OK : CV_FAIL, NULL,
				  "── call ended: %s (%s) ──", call_status_name(ev->status), ev->text);
		else
			lines_add(&v->conv, ev->status == CALL_COMPLETE ? CV_OK : CV_FAIL, NULL,
				  "── call ended: %s ──", call_status_name(ev->status));
		conv_add_done(v);
		summary_update(v);
		break;
	}
	case ENGINE_ERROR:
		callview_error(v, text);
		break;
	}
	return e;
}

struct callview_snap *callview_snap_new(const struct form *form, const struct flow *fl)
{
	struct callview_snap *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->call_status = fl ? call_status_name(flow_status(fl)) : "not started";
	s->f = calloc(form && form->n_questions > 0 ? (size_t)form->n_questions : 1, sizeof(*s->f));
	if (!s->f)
		goto fail;
	const cJSON *data = fl ? flow_form_data(fl) : NULL;
	int cur = fl ? flow_current(fl) : -1;
	for (int i = 0; form && i < form->n_questions; i++) {
		const struct form_question *q = &form->questions[i];
		struct callview_field *f = &s->f[i];
		s->n++;
		f->name = strdup(q->name ? q->name : "?");
		f->value = value_text(data ? cJSON_GetObjectItemCaseSensitive(data, q->name) : NULL);
		if (!f->name || !f->value)
			goto fail;
		clean(f->value);
		if (fl) {
			f->status = field_status_name(flow_field_status(fl, i));
			f->used = flow_retries_used(fl, i);
			f->limit = flow_retry_limit(fl, i);
			f->current = cur == i;
			f->inactive = q->branch >= 0 && !flow_branch_active(fl, q->branch);
			const cJSON *held = flow_held(fl, i, NULL);
			if (held) {
				/* said before its branch was decided: shown with what it waits for */
				char *hv = value_text(held);
				size_t n = (hv ? strlen(hv) : 0) + strlen(q->branch_id ? q->branch_id : "") + 32;
				char *txt = hv ? malloc(n) : NULL;
				if (txt)
					snprintf(txt, n, "%s (waits for %s)", hv, q->branch_id ? q->branch_id : "?");
				free(hv);
				if (!txt)
					goto fail;
				clean(txt);
				free(f->value);
				f->value = txt;
				f->status = "held";
			}
		} else {
			f->status = "empty";
			f->limit = form_retry_limit(q);
		}
	}
	return s;
fail:
	callview_snap_free(s);
	return NULL;
}

void callview_snap_free(struct callview_snap *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		free(s->f[i].name);
		free(s->f[i].value);
	}
	free(s->f);
	free(s);
}

void callview_set_form(struct callview *v, struct callview_snap *s)
{
	if (!s)
		return;
	callview_snap_free(v->snap);
	v->snap = s;
	if (v->n_hist) { /* the form the last decision left */
		struct callview_snap *d = snap_dup(s);
		if (d) {
			callview_snap_free(v->hist[v->n_hist - 1].snap);
			v->hist[v->n_hist - 1].snap = d;
		}
	}
	v->dirty |= CALLVIEW_FORM;
}

bool callview_step(struct callview *v, int delta)
{
	int cur = v->view >= 0 ? v->view : v->n_hist - 1, to = cur + delta;

	if (v->n_hist == 0 || to < 0 || to > v->n_hist - 1 || delta == 0)
		return false;
	v->view = to == v->n_hist - 1 ? -1 : to;
	v->conv_upto = v->view >= 0 ? v->hist[to].conv_end : -1;
	title_update(v);
	v->dirty = CALLVIEW_ALL;
	return true;
}

bool callview_history(const struct callview *v)
{
	return v->view >= 0;
}

void callview_scroll(struct callview *v, int lines)
{
	int upto = (v->conv_upto >= 0 ? v->conv_upto : v->conv.n) - lines;

	if (upto < 1)
		upto = v->conv.n ? 1 : 0;
	v->conv_upto = upto >= v->conv.n ? -1 : upto;
	v->dirty |= CALLVIEW_CONV;
}

int callview_conv_shown(const struct callview *v)
{
	return v->conv_upto >= 0 && v->conv_upto < v->conv.n ? v->conv_upto : v->conv.n;
}

void callview_error(struct callview *v, const char *text)
{
	lines_add(&v->conv, CV_FAIL, "error: ", "%s", text ? text : "");
	conv_add_done(v);
}

void callview_set_mode(struct callview *v, enum callview_mode m)
{
	if (v->mode == m)
		return;
	v->mode = m;
	if (m == CALLVIEW_PLAYING) { /* playing again: back to the newest, following it */
		v->view = v->conv_upto = -1;
		v->dirty = CALLVIEW_ALL;
	}
	if (m == CALLVIEW_FINISHED)
		summary_update(v);
	title_update(v);
}

const struct callview_lines *callview_conv(const struct callview *v) { return &v->conv; }
const struct callview_lines *callview_verdicts(const struct callview *v)
{
	return v->view >= 0 ? &v->hist[v->view].verdicts : &v->verdicts;
}
const struct callview_lines *callview_decision(const struct callview *v)
{
	return v->view >= 0 ? &v->hist[v->view].decision : &v->decision;
}
const struct callview_snap *callview_form(const struct callview *v)
{
	return v->view >= 0 && v->hist[v->view].snap ? v->hist[v->view].snap : v->snap;
}
const struct callview_lines *callview_summary(const struct callview *v) { return &v->summary; }
const char *callview_title(const struct callview *v) { return v->title; }
const char *callview_timings(const struct callview *v)
{
	struct callview *w = (struct callview *)v; /* the joined text is a cache */
	if (!v->waiting[0])
		return v->timings;
	snprintf(w->status, sizeof(w->status), "%s%s%s", v->waiting, v->timings[0] ? "  ·  " : "",
		 v->timings);
	return w->status;
}

void callview_set_waiting(struct callview *v, const char *text)
{
	const char *t = text ? text : "";
	if (strcmp(v->waiting, t) == 0)
		return;
	snprintf(v->waiting, sizeof(v->waiting), "%s", t);
	clean(v->waiting);
	v->dirty |= CALLVIEW_STATUS;
}
enum callview_mode callview_mode(const struct callview *v) { return v->mode; }

unsigned callview_take_dirty(struct callview *v)
{
	unsigned d = v->dirty;
	v->dirty = 0;
	return d;
}

void callview_touch(struct callview *v, unsigned panes)
{
	v->dirty |= panes;
}
