/* callview: what the simulator's panes show, as data (no terminal here): the
 * conversation, a snapshot of the form, the last turn's verdicts, the last decision, the
 * title, the last turn's stage timings and the end-of-run summary; and the history of
 * the call on screen, turn by turn, to step back through while it is paused. It is fed the call
 * engine's events (sessions/calls/engine.h) and form snapshots; tui/screen.c draws it. Each
 * change marks the panes it touches dirty, so the screen redraws only those. */
#ifndef FORMDESK_CALLVIEW_H
#define FORMDESK_CALLVIEW_H

#include <stdbool.h>
#include "base/err.h"
#include "agent/rules/flow.h"
#include "sessions/calls/engine.h"

struct form;
struct corpus_call;

/* How a line is drawn; the screen maps each to colours and attributes. */
enum callview_style {
	CV_PLAIN,
	CV_AGENT,   /* the agent's words */
	CV_CALLER,  /* the caller's words */
	CV_NOTE,    /* secondary information */
	CV_HEAD,    /* a section heading */
	CV_OK,      /* a passing verdict, an active branch, a complete call */
	CV_FAIL,    /* a failing verdict, a fault, an error, a failed call */
	CV_DIM,     /* inactive */
};

/* One line of a text pane: prefix (drawn bold, may be "") then text, wrapped by the screen
 * with continuation lines indented by the prefix's width. */
struct callview_line {
	enum callview_style style;
	char *prefix;
	char *text;
};

struct callview_lines {
	struct callview_line *v;
	int n;
};

/* One row of the form pane. */
struct callview_field {
	char *name;
	char *value;        /* as stored, "" when none */
	const char *status; /* "answered", "skipped", "empty", or "held" for a value kept
			     * until its branch is decided (agent/rules/flow.h); static */
	int used;           /* retries used */
	int limit;          /* retry limit, -1 for until_answered */
	bool current;       /* the field being asked */
	bool inactive;      /* in a branch whose condition does not hold */
};

/* The form pane's content at one moment. */
struct callview_snap {
	struct callview_field *f;
	int n;
	const char *call_status; /* static */
};

enum callview_pane {
	CALLVIEW_TITLE = 1 << 0,
	CALLVIEW_CONV = 1 << 1,
	CALLVIEW_FORM = 1 << 2,
	CALLVIEW_VERDICTS = 1 << 3,
	CALLVIEW_DECISION = 1 << 4,
	CALLVIEW_STATUS = 1 << 5,
	CALLVIEW_ALL = (1 << 6) - 1,
};

enum callview_mode {
	CALLVIEW_PLAYING,
	CALLVIEW_PAUSED,
	CALLVIEW_FINISHED, /* every call played: the summary shows */
};

struct callview;

/* callview_new: an empty view. Inputs: form (borrowed, must outlive the view; gives the
 * form pane's fields before a call starts), corpus_name (copied), n_calls. Output: new
 * view (caller frees with callview_free), NULL when out of memory. */
struct callview *callview_new(const struct form *form, const char *corpus_name, int n_calls);
void callview_free(struct callview *v);

/* callview_call: a new call (index 0-based of n_calls) is about to begin: clears the
 * conversation, verdicts and decision; the title shows its id, caller and path. call is
 * read now, not kept. Errors: ERR_NOMEM. */
enum err callview_call(struct callview *v, int index, const struct corpus_call *call);

/* callview_live: a live call (index 0-based, of this session's live calls) of kind
 * ("typed", "microphone"; copied) is about to begin: panes cleared as by callview_call,
 * the title says it is live. kind NULL returns the title to the corpus playback.
 * Errors: ERR_NOMEM. */
enum err callview_live(struct callview *v, int index, const char *kind);

/* callview_event: show one engine event (ENGINE_ACK as the agent's words in the
 * conversation, "agent (ack): ..."). ev and what it points to are read now, not kept.
 * Errors: ERR_NOMEM (the view stays usable). */
enum err callview_event(struct callview *v, const struct engine_event *ev);

/* callview_snap_new: the form pane's content now. Inputs: form, and fl (the engine's
 * flow, may be NULL: every field empty); both read now. Output: new snapshot (caller
 * frees with callview_snap_free, or hands it to callview_set_form), NULL when out of
 * memory. */
struct callview_snap *callview_snap_new(const struct form *form, const struct flow *fl);
void callview_snap_free(struct callview_snap *s);
/* callview_set_form: show snapshot s in the form pane; takes s over (NULL is ignored). */
void callview_set_form(struct callview *v, struct callview_snap *s);

/* callview_error: add an error line to the conversation (text copied). */
void callview_error(struct callview *v, const char *text);
/* callview_set_waiting: what the agent is waiting for now (text copied, e.g. "waiting
 * for EXTRACT (openai) 1.2 s"), NULL or "" for nothing. Marks the status bar dirty only
 * when the text changes. */
void callview_set_waiting(struct callview *v, const char *text);
/* callview_set_mode: playing, paused or finished (title and summary). */
void callview_set_mode(struct callview *v, enum callview_mode m);

/* Read access for the screen. Everything returned belongs to the view and stays valid
 * until the next change. */
const struct callview_lines *callview_conv(const struct callview *v);
const struct callview_lines *callview_verdicts(const struct callview *v);
const struct callview_lines *callview_decision(const struct callview *v);
const struct callview_snap *callview_form(const struct callview *v);
const struct callview_lines *callview_summary(const struct callview *v);
/* callview_title: the title line's text; callview_timings: the status bar's text: what
 * is being waited for (callview_set_waiting), then the last turn's stage timings in ms
 * and, when a network request was made, its cost in USD ("" before the first turn). */
const char *callview_title(const struct callview *v);
const char *callview_timings(const struct callview *v);
enum callview_mode callview_mode(const struct callview *v);

/* History: the view keeps each turn of the call on screen (turn 0, the opening, and
 * every caller turn) as its panes showed it once its decision was in: the verdicts, the
 * decision, the form after it, and the conversation up to its reply.
 * callview_step: show the turn delta turns before (< 0) or after (> 0) the one shown; the
 * newest shows the panes as they go on. false when there is no such turn (nothing
 * changes). Playing again (callview_set_mode CALLVIEW_PLAYING) or a new call returns to
 * the newest. callview_history: an older turn is shown. */
bool callview_step(struct callview *v, int delta);
bool callview_history(const struct callview *v);
/* callview_scroll: scroll the conversation back by lines (> 0) or forward (< 0); at the
 * end it follows the newest line again. callview_conv_shown: how many of the
 * conversation's first lines the pane shows (all but those scrolled past). */
void callview_scroll(struct callview *v, int lines);
int callview_conv_shown(const struct callview *v);

/* callview_take_dirty: the panes changed since the last call (CALLVIEW_* bits); clears
 * them. callview_touch marks panes dirty (after a resize or an overlay). */
unsigned callview_take_dirty(struct callview *v);
void callview_touch(struct callview *v, unsigned panes);

#endif
