/* annotate: the labelling screen (annotate.h). */
#include "annotate.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>
#include <curses.h>
#include <cjson/cJSON.h>

#include "agent/rules/decision.h"
#include "agent/hindi/namematch.h"
#include "annotations/queue.h"
#include "audio/audiofile.h"
#include "audio/sink.h"
#include "annotations/task.h"
#include "term.h"
#include "voice.h"
#include "width.h"
#include "base/vec.h"

enum action {
#define X(name, key, shown, hint, help, tasks) ACT_##name,
	ANNOTATE_KEYS(X)
#undef X
	ACT_NONE
};

static const struct keydef {
	int key;
	const char *shown, *hint, *help;
	char tasks;
} keydefs[] = {
#define X(name, key, shown, hint, help, tasks) {key, shown, hint, help, tasks},
	ANNOTATE_KEYS(X)
#undef X
};

struct step {        /* one entry of the undo history */
	long long *ids;  /* the entry's items (a group labelled at once) */
	int n;
	bool labelled;   /* false: a skip */
	char *prev, *prev_note; /* the label and note it replaced, NULL when none */
};

/* Who the entries shown are limited to, beside the view's field, call and run. */
enum who { WHO_ALL, WHO_UNLABELLED, WHO_MINE, WHO_FLAGGED };
static const char *const who_name[] = {"all", "unlabelled", "mine", "flagged"};

/* What the line at the foot of the screen is typing. */
enum prompt { PROMPT_NONE, PROMPT_NOTE, PROMPT_JUMP, PROMPT_FILTER, PROMPT_SEARCH };

struct ui {
	struct labels *l;
	enum labels_task task;
	const struct task_ops *ops; /* what the task shows and accepts */
	const char *annotator;
	struct labels_item *items;  /* every stored item of the task */
	int n_items;
	struct queue_view view;     /* field, call, run: owned copies below */
	char *v_field, *v_call;
	enum who who;
	char *search;
	struct queue_group *groups; /* the entries under view */
	int n_groups;
	char **g_mine, **g_note;    /* this annotator's label and note per entry */
	bool *g_flag;
	int *vis;                   /* entries shown (who, search), indices into groups */
	int n;
	int done;                   /* shown entries with this annotator's label */
	int cur;                    /* index into vis; n: past the end */
	struct step *hist;
	int n_hist, cap_hist;
	char status[600];
	bool help;
	enum prompt editing;        /* typing a note, a number, a filter, a search */
	bool adding;                /* + pressed: the next tag key adds or removes a tag */
	wchar_t note[256];
	int note_len;
	char *pending_note;       /* note typed before the item was tagged */
	pid_t player;          /* $FORMDESK_PLAYER running, 0 when none */
	struct sink *sink;     /* the sound device, opened at the first p */
	bool sink_busy;        /* an utterance is playing on it */
	char player_file[512];
	struct voice *voice;   /* the agent's voice (v), NULL when none */
	char voice_file[64];   /* the last words it said, as a WAV file; "" when none */
	char player_cmd[256];
	bool quit;
};

/* The entry at the cursor: its group and its first item; NULL past the end. */
static struct queue_group *cur_group(const struct ui *u)
{
	return u->cur < u->n ? &u->groups[u->vis[u->cur]] : NULL;
}

static const struct labels_item *cur_item(const struct ui *u)
{
	const struct queue_group *g = cur_group(u);
	return g ? &u->items[g->members[0]] : NULL;
}

static char *cur_mine(const struct ui *u)
{
	return u->cur < u->n ? u->g_mine[u->vis[u->cur]] : NULL;
}

static char *cur_note(const struct ui *u)
{
	return u->cur < u->n ? u->g_note[u->vis[u->cur]] : NULL;
}

static bool for_task(char tasks, const struct task_ops *ops)
{
	return tasks == '*' || (tasks == 't' && ops->tags);
}

static enum action action_of(int key, const struct task_ops *ops)
{
	if (key == 127 || key == 8)
		key = KEY_BACKSPACE;
	else if (key == '>')
		key = KEY_RIGHT;
	else if (key == '<')
		key = KEY_LEFT;
	for (int i = 0; i < ACT_NONE; i++)
		if (keydefs[i].key == key && for_task(keydefs[i].tasks, ops))
			return (enum action)i;
	return ACT_NONE;
}

/* bounded: snprintf where cutting the text to fit is what is wanted. */
static void bounded(char *d, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d, n, fmt, ap);
	va_end(ap);
}

/* ---- drawing ---- */

/* clean: s with control characters as spaces (new string, NULL on no memory). */
static char *clean(const char *s)
{
	char *d = strdup(s ? s : "");
	for (char *p = d; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	return d;
}

/* put: s at (y, x), cut to the columns left on the line. Returns the columns used. */
static int put(int y, int x, const char *s, attr_t a)
{
	int cols = COLS - x, used = 0;
	char *c = clean(s);
	if (!c || cols <= 0 || y < 0 || y >= LINES) {
		free(c);
		return 0;
	}
	size_t len = width_cut(c, cols, &used);
	attron(a);
	mvaddnstr(y, x, c, (int)len);
	attroff(a);
	free(c);
	return used;
}

/* wrap: s from (y, x) wrapped at the screen's right edge, at most max lines. Returns the
 * lines used. */
static int wrap(int y, int x, const char *s, int max, attr_t a)
{
	char *c = clean(s);
	int lines = 0;
	size_t off = 0, total;

	if (!c)
		return 0;
	total = strlen(c);
	if (total == 0) {
		free(c);
		return 1;
	}
	while (off < total && lines < max && y + lines < LINES) {
		size_t next;
		size_t len = width_wrap(c + off, COLS - x, &next);
		attron(a);
		mvaddnstr(y + lines, x, c + off, (int)len);
		attroff(a);
		lines++;
		off += next;
	}
	free(c);
	return lines;
}

static void field_row(int *y, const char *name, const char *value, attr_t a)
{
	put(*y, 2, name, A_DIM);
	*y += wrap(*y, 16, value && value[0] ? value : "(none)", 4, a);
}

/* json_line: v printed on one line (new string). */
static char *json_line(const cJSON *v)
{
	if (!v || cJSON_IsNull(v))
		return strdup("(none)");
	if (cJSON_IsString(v))
		return strdup(v->valuestring);
	return cJSON_PrintUnformatted(v);
}

static void draw_stages(struct ui *u, const struct labels_item *it, int *y, int bottom)
{
	cJSON *ctx = it->context ? cJSON_Parse(it->context) : NULL;
	const cJSON *v, *e;
	char buf[1024];

	if (!ctx) {
		field_row(y, "stages", "(no stage records)", 0);
		return;
	}
	/* what the caller was answering: the field, the agent's words, the call so far */
	const cJSON *asked = cJSON_GetObjectItemCaseSensitive(ctx, "asked");
	const cJSON *lab = cJSON_GetObjectItemCaseSensitive(ctx, "asked_label");
	if (cJSON_IsString(asked)) {
		snprintf(buf, sizeof buf, "%s%s%s%s", asked->valuestring,
			 cJSON_IsString(lab) ? " (" : "", cJSON_IsString(lab) ? lab->valuestring : "",
			 cJSON_IsString(lab) ? ")" : "");
		field_row(y, "field asked", buf, A_BOLD);
	}
	v = cJSON_GetObjectItemCaseSensitive(ctx, "question");
	if (cJSON_IsString(v)) {
		put(*y, 2, "agent asked", A_DIM);
		*y += wrap(*y, 16, v->valuestring, 2, 0);
	}
	v = cJSON_GetObjectItemCaseSensitive(ctx, "before");
	int nb = cJSON_GetArraySize(v), shown = 0;
	if (nb > 0) {
		put(*y, 2, "call so far", A_DIM);
		/* the last three exchanges; older ones are counted */
		if (nb > 3) {
			snprintf(buf, sizeof buf, "(%d earlier turns)", nb - 3);
			*y += wrap(*y, 16, buf, 1, A_DIM);
		}
		cJSON_ArrayForEach(e, v) {
			if (shown++ < nb - 3)
				continue;
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "agent");
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "caller");
			snprintf(buf, sizeof buf, "%d. agent: %s · caller: %s", shown,
				 cJSON_IsString(a) ? a->valuestring : "-",
				 cJSON_IsString(c) ? c->valuestring : "(silence)");
			*y += wrap(*y, 16, buf, 1, A_DIM);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(ctx, "extraction");
	char *s = json_line(v);
	put(*y, 2, "extraction", A_DIM);
	*y += wrap(*y, 16, s ? s : "", 3, 0);
	free(s);
	put(*y, 2, "captured", A_DIM);
	v = cJSON_GetObjectItemCaseSensitive(ctx, "captures");
	if (cJSON_GetArraySize(v) == 0)
		*y += wrap(*y, 16, "(nothing)", 1, 0);
	cJSON_ArrayForEach(e, v) {
		if (*y >= bottom)
			break;
		char *val = json_line(cJSON_GetObjectItemCaseSensitive(e, "value"));
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "field");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, "status");
		snprintf(buf, sizeof buf, "%s = %s (%s)", cJSON_IsString(f) ? f->valuestring : "?",
			 val ? val : "", cJSON_IsString(st) ? st->valuestring : "?");
		free(val);
		*y += wrap(*y, 16, buf, 2, 0);
	}
	put(*y, 2, "verdicts", A_DIM);
	v = cJSON_GetObjectItemCaseSensitive(ctx, "verdicts");
	if (cJSON_GetArraySize(v) == 0)
		*y += wrap(*y, 16, "(none ran)", 1, 0);
	cJSON_ArrayForEach(e, v) {
		if (*y >= bottom)
			break;
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "field");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "rule");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
		bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ok"));
		snprintf(buf, sizeof buf, "%s %s %s%s%s", cJSON_IsString(f) ? f->valuestring : "?",
			 cJSON_IsString(r) ? r->valuestring : "?", ok ? "ok" : "FAILED",
			 cJSON_IsString(m) ? ": " : "", cJSON_IsString(m) ? m->valuestring : "");
		*y += wrap(*y, 16, buf, 2, ok ? 0 : A_BOLD);
	}
	struct decision *dec = NULL; /* the turn's stored record, read by its one decoder */
	if (decision_from_json(cJSON_GetObjectItemCaseSensitive(ctx, "decision"), &dec) != ERR_OK)
		dec = NULL;
	field_row(y, "decision", dec && dec->reason ? dec->reason : "(none)", 0);
	decision_free(dec);
	v = cJSON_GetObjectItemCaseSensitive(ctx, "reply");
	field_row(y, "agent said", cJSON_IsString(v) ? v->valuestring : NULL, 0);
	v = cJSON_GetObjectItemCaseSensitive(ctx, "error");
	if (v && !cJSON_IsNull(v)) {
		s = json_line(v);
		field_row(y, "error", s, A_BOLD);
		free(s);
	}
	v = cJSON_GetObjectItemCaseSensitive(ctx, "call_status");
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(ctx, "call_reason");
	snprintf(buf, sizeof buf, "%s%s%s", cJSON_IsString(v) ? v->valuestring : "?",
		 cJSON_IsString(reason) ? ": " : "",
		 cJSON_IsString(reason) ? reason->valuestring : "");
	field_row(y, "call ended", buf, 0);
	(void)u;
	cJSON_Delete(ctx);
}

static void draw_tags(struct ui *u, int *y)
{
	const char *mine = cur_mine(u);
	int colw = COLS / 2 > 30 ? COLS / 2 : 30;
	(*y)++;
	put((*y)++, 2, u->adding ? "add or take off a tag: press its key" : "tag the stage that failed:",
	    u->adding ? A_BOLD : A_DIM);
	for (int i = 0; i < u->ops->n_labels; i++) {
		char buf[96];
		int row = *y + i / 2, x = 2 + (i % 2) * colw;
		bool on = labels_has_tag(mine, u->ops->labels[i]);
		snprintf(buf, sizeof buf, "[%c] %s", u->ops->keys[i], u->ops->shown[i]);
		put(row, x, buf, on ? A_REVERSE : 0);
	}
	*y += (u->ops->n_labels + 1) / 2;
}

/* help_labels: the task's answers and their keys, from line *y on. */
static void help_labels(const struct ui *u, int *y)
{
	for (int i = 0; i < u->ops->n_labels; i++) {
		char k[2] = {u->ops->keys[i], 0};
		put(*y, 2, k, A_BOLD);
		put((*y)++, 14, u->ops->help[i], 0);
	}
}

static void draw_help(struct ui *u)
{
	int y = 2;
	erase();
	put(0, 0, "formdesk annotate: keys", A_BOLD);
	if (!u->ops->tags) /* a choice is made first; tags come after the other keys */
		help_labels(u, &y);
	for (int i = 0; i < ACT_NONE; i++) {
		if (!for_task(keydefs[i].tasks, u->ops))
			continue;
		put(y, 2, keydefs[i].shown, A_BOLD);
		put(y++, 14, keydefs[i].help, 0);
	}
	if (u->ops->tags)
		help_labels(u, &y);
	y++;
	put(y++, 2, "Nobody sees another annotator's labels here. Quit any time: every label is",
	    0);
	put(y++, 2, "saved when you press its key, and the next start resumes where you stopped.",
	    0);
	put(y++, 2, "Identical items are one entry: its label is saved on each of them.", 0);
	put(LINES - 1, 0, "? or q closes this help", A_DIM);
}

/* other_script: name in the other script (Devanagari for Latin letters, Latin for the
 * rest), from the name judge's transliteration (agent/hindi/namematch.h). */
static void other_script(const char *name, char *buf, size_t size)
{
	bool latin = true;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p >= 0x80)
			latin = false;
	if (latin)
		namematch_devanagari(name, buf, size);
	else
		namematch_latin(name, buf, size);
}

/* filter_words: the filters in force, "" when none. */
static void filter_words(const struct ui *u, char *buf, size_t size)
{
	char run[32] = "";
	if (u->view.run)
		snprintf(run, sizeof run, " run %lld", u->view.run);
	bounded(buf, size, "%s%s%s%s%s%s%s%s%s", u->v_field ? " field " : "",
		u->v_field ? u->v_field : "", u->v_call ? " call " : "", u->v_call ? u->v_call : "",
		run, u->who != WHO_ALL ? " " : "", u->who != WHO_ALL ? who_name[u->who] : "",
		u->search ? " /" : "", u->search ? u->search : "");
}

static void draw(struct ui *u)
{
	char buf[1024], filt[400];
	int y;

	if (u->help) {
		draw_help(u);
		refresh();
		return;
	}
	erase();
	filter_words(u, filt, sizeof filt);
	snprintf(buf, sizeof buf, "formdesk annotate · %s · %s%s%s", labels_task_name(u->task),
		 u->annotator, filt[0] ? " · filter:" : "", filt);
	put(0, 0, buf, A_BOLD);
	snprintf(buf, sizeof buf, "%d/%d done", u->done, u->n);
	put(0, COLS - width_cols(buf) > 0 ? COLS - width_cols(buf) : 0, buf, A_BOLD);
	y = 2;
	if (u->cur >= u->n) {
		if (u->n == 0)
			snprintf(buf, sizeof buf, "No item is left under the filter%s.", filt);
		else
			snprintf(buf, sizeof buf, "End of the queue: %d of %d labelled.", u->done, u->n);
		put(y++, 2, buf, A_BOLD);
		if (u->n > 0)
			put(y++, 2, u->done < u->n ? "Skipped items come back when you start again."
						   : "Every item has your label.", 0);
		put(y++, 2, "backspace: go back · ←: previous · f: filter · q: quit", A_DIM);
	} else {
		const struct labels_item *it = cur_item(u);
		const struct queue_group *g = cur_group(u);
		const char *mine = cur_mine(u);
		char count[96] = "";
		if (g->n > 1)
			snprintf(count, sizeof count, " · ×%d identical items, labelled together", g->n);
		snprintf(buf, sizeof buf, "item %d of %d · call %s%s%lld%s · turn %d%s%s%s%s", u->cur + 1,
			 u->n, it->corpus_call_id ? it->corpus_call_id : "",
			 it->corpus_call_id ? " (#" : "#", it->call_id, it->corpus_call_id ? ")" : "",
			 it->turn, it->field ? " · field " : "", it->field ? it->field : "", count,
			 u->g_flag[u->vis[u->cur]] ? " · FLAGGED for review" : "");
		put(y, 0, buf, A_DIM);
		snprintf(buf, sizeof buf, "your label: %s", mine ? mine : "-");
		put(y++, COLS - width_cols(buf) > 0 ? COLS - width_cols(buf) : 0, buf,
		    mine ? A_BOLD : A_DIM);
		y++;
		for (int r = 0; r < u->ops->n_rows; r++) {
			const struct task_row *row = &u->ops->rows[r];
			if (!row->caption) {
				y++;
				continue;
			}
			const char *raw = *(char *const *)((const char *)it + row->offset), *val = raw;
			/* a live call has nothing expected: say so rather than leave a hole */
			if (!val && row->offset == offsetof(struct labels_item, expected))
				val = it->corpus ? "(not known)" : "(none: a live call, no corpus)";
			field_row(&y, row->caption, val, row->bold ? A_BOLD : 0);
			if (row->scripts && raw && raw[0]) {
				char other[512];
				other_script(raw, other, sizeof other);
				if (other[0])
					y += wrap(y, 16, other, 1, A_DIM);
			}
		}
		if (u->ops->question)
			put(y++, 2, u->ops->question, A_DIM);
		if (u->ops->stages)
			draw_stages(u, it, &y, LINES - 10);
		if (u->ops->tags) {
			draw_tags(u, &y);
			const char *nt = cur_note(u) ? cur_note(u) : u->pending_note;
			if (nt && !u->editing)
				field_row(&y, "note", nt, 0);
		}
		field_row(&y, "audio", it->audio ? it->audio : "(none recorded)", A_DIM);
	}
	if (u->editing) {
		static const char *const what[] = {"", "note", "go to item", "filter", "search"};
		char line[1200], mb[1100];
		if (wcstombs(mb, u->note, sizeof mb) == (size_t)-1)
			mb[0] = '\0';
		mb[sizeof mb - 1] = '\0';
		bounded(line, sizeof line, "%s: %s", what[u->editing], mb);
		move(LINES - 2, 0);
		clrtoeol();
		put(LINES - 2, 0, line, A_BOLD);
	} else {
		put(LINES - 2, 0, u->status, 0);
	}
	/* key hints, from the one list of actions */
	int x = 0;
	for (int i = 0; !u->ops->tags && i < u->ops->n_labels && x < COLS; i++) {
		char word[64];
		bounded(word, sizeof word, "%c %s  ", u->ops->keys[i], u->ops->shown[i]);
		x += put(LINES - 1, x, word, A_DIM);
	}
	for (int i = 0; i < ACT_NONE && x < COLS; i++) {
		if (!for_task(keydefs[i].tasks, u->ops))
			continue;
		char word[64];
		bounded(word, sizeof word, "%s %s  ", keydefs[i].shown, keydefs[i].hint);
		x += put(LINES - 1, x, word, A_DIM);
	}
	refresh();
}

/* ---- the entries: groups under the view, then who and search ---- */

/* set_status: the status line; a and b (may be NULL) fill the fmt's %s. Cut to fit. */
static void set_status(struct ui *u, const char *fmt, const char *a, const char *b)
{
	bounded(u->status, sizeof u->status, fmt, a ? a : "", b ? b : "");
}

static void groups_clear(struct ui *u)
{
	for (int i = 0; i < u->n_groups; i++) {
		if (u->g_mine)
			free(u->g_mine[i]);
		if (u->g_note)
			free(u->g_note[i]);
	}
	free(u->g_mine);
	free(u->g_note);
	free(u->g_flag);
	free(u->vis);
	queue_groups_free(u->groups, u->n_groups);
	u->g_mine = u->g_note = NULL;
	u->g_flag = NULL;
	u->vis = NULL;
	u->groups = NULL;
	u->n_groups = u->n = u->done = 0;
}

/* shown: whether entry gi passes who and search. */
static bool shown(const struct ui *u, int gi)
{
	const struct queue_group *g = &u->groups[gi];
	bool any = false;
	switch (u->who) {
	case WHO_UNLABELLED:
		if (u->g_mine[gi])
			return false;
		break;
	case WHO_MINE:
		if (!u->g_mine[gi])
			return false;
		break;
	case WHO_FLAGGED:
		if (!u->g_flag[gi])
			return false;
		break;
	case WHO_ALL:
		break;
	}
	for (int m = 0; m < g->n && !any; m++)
		any = queue_item_has(&u->items[g->members[m]], u->search);
	return any;
}

/* revisible: the shown entries and the count done among them. */
static void revisible(struct ui *u)
{
	u->n = u->done = 0;
	for (int i = 0; i < u->n_groups; i++)
		if (shown(u, i)) {
			u->vis[u->n++] = i;
			u->done += u->g_mine[i] != NULL;
		}
}

/* load_groups: the entries under the view, each with this annotator's label, note and
 * flag (an entry's first item speaks for it: its items are labelled together). */
static enum err load_groups(struct ui *u)
{
	enum err e;
	groups_clear(u);
	if ((e = queue_groups(u->l, u->items, u->n_items, &u->view, &u->groups, &u->n_groups)) !=
	    ERR_OK)
		return e;
	if (!(u->g_mine = calloc((size_t)u->n_groups + 1, sizeof *u->g_mine)) ||
	    !(u->g_note = calloc((size_t)u->n_groups + 1, sizeof *u->g_note)) ||
	    !(u->g_flag = calloc((size_t)u->n_groups + 1, sizeof *u->g_flag)) ||
	    !(u->vis = calloc((size_t)u->n_groups + 1, sizeof *u->vis)))
		return ERR_NOMEM;
	for (int i = 0; i < u->n_groups; i++) {
		long long id = u->items[u->groups[i].members[0]].id;
		e = labels_get(u->l, id, u->annotator, &u->g_mine[i], &u->g_note[i]);
		if (e != ERR_OK && e != ERR_NOTFOUND)
			return e;
		if ((e = labels_flagged(u->l, id, u->annotator, &u->g_flag[i])) != ERR_OK)
			return e;
	}
	revisible(u);
	return ERR_OK;
}

/* find_entry: the shown index of the entry holding item id; -1 when not shown. */
static int find_entry(const struct ui *u, long long id)
{
	for (int v = 0; v < u->n; v++) {
		const struct queue_group *g = &u->groups[u->vis[v]];
		for (int m = 0; m < g->n; m++)
			if (u->items[g->members[m]].id == id)
				return v;
	}
	return -1;
}

/* ---- actions ---- */

static enum err push(struct ui *u, bool labelled)
{
	const struct queue_group *g = cur_group(u);
	struct step *v = vec_grow(u->hist, u->n_hist, &u->cap_hist, sizeof *v, 32);
	if (!v)
		return ERR_NOMEM;
	u->hist = v;
	struct step *s = &u->hist[u->n_hist];
	if (!(s->ids = malloc((size_t)g->n * sizeof *s->ids)))
		return ERR_NOMEM;
	for (int m = 0; m < g->n; m++)
		s->ids[s->n++] = u->items[g->members[m]].id;
	s->labelled = labelled;
	s->prev = cur_mine(u) ? strdup(cur_mine(u)) : NULL;
	s->prev_note = cur_note(u) ? strdup(cur_note(u)) : NULL;
	u->n_hist++;
	return ERR_OK;
}

/* advance: the next shown entry after from without this annotator's label, or n. */
static int advance(struct ui *u, int from)
{
	for (int i = from + 1; i < u->n; i++)
		if (!u->g_mine[u->vis[i]])
			return i;
	return u->n;
}

/* put_group: label (NULL: remove) and note on every item of the entry at the cursor;
 * kept in memory too. */
static enum err put_group(struct ui *u, const char *lb, const char *note)
{
	const struct queue_group *g = cur_group(u);
	int gi = u->vis[u->cur];
	long long *ids = malloc((size_t)g->n * sizeof *ids);
	char *dl = NULL, *dn = NULL;
	enum err e = ERR_NOMEM;

	if (!ids)
		return ERR_NOMEM;
	for (int m = 0; m < g->n; m++)
		ids[m] = u->items[g->members[m]].id;
	if ((lb && !(dl = strdup(lb))) || (note && !(dn = strdup(note))))
		goto out;
	if (lb) {
		e = labels_put_many(u->l, ids, g->n, u->annotator, lb, note);
	} else {
		e = ERR_OK;
		for (int m = 0; m < g->n && e == ERR_OK; m++)
			e = labels_remove(u->l, ids[m], u->annotator);
	}
	if (e != ERR_OK)
		goto out;
	u->done += (lb != NULL) - (u->g_mine[gi] != NULL);
	free(u->g_mine[gi]);
	free(u->g_note[gi]);
	u->g_mine[gi] = dl;
	u->g_note[gi] = lb ? dn : NULL;
	dl = NULL;
	if (lb)
		dn = NULL;
out:
	free(ids);
	free(dl);
	free(dn);
	return e;
}

static enum err label(struct ui *u, const char *lb)
{
	const char *note = cur_note(u) ? cur_note(u) : u->pending_note;
	const struct queue_group *g = cur_group(u);
	char *keep = NULL;
	enum err e;

	if (!g)
		return ERR_OK;
	if ((e = push(u, true)) != ERR_OK)
		return e;
	if (note && !(keep = strdup(note)))
		return ERR_NOMEM;
	e = put_group(u, lb, keep);
	free(keep);
	if (e != ERR_OK) {
		u->n_hist--;
		free(u->hist[u->n_hist].ids);
		free(u->hist[u->n_hist].prev);
		free(u->hist[u->n_hist].prev_note);
		return e;
	}
	free(u->pending_note);
	u->pending_note = NULL;
	if (g->n > 1) {
		char n[32];
		snprintf(n, sizeof n, "%d", g->n);
		set_status(u, "saved %s on %s identical items", lb, n);
	} else {
		set_status(u, "saved item %s: %s", cur_item(u)->key, lb);
	}
	u->cur = advance(u, u->cur);
	return ERR_OK;
}

/* add_tag: tag added to (or taken off) the entry's tags; it stays on screen. */
static enum err add_tag(struct ui *u, const char *tag)
{
	char *now = labels_tag_toggle(u->task, cur_mine(u), tag), *keep = NULL;
	const char *note = cur_note(u) ? cur_note(u) : u->pending_note;
	enum err e;

	u->adding = false;
	if (!now)
		return ERR_NOMEM;
	if ((e = push(u, true)) != ERR_OK || (note && !(keep = strdup(note)))) {
		free(now);
		return e != ERR_OK ? e : ERR_NOMEM;
	}
	e = put_group(u, now[0] ? now : NULL, keep);
	if (e == ERR_OK)
		set_status(u, "tags now: %s", now[0] ? now : "(none)", NULL);
	free(now);
	free(keep);
	return e;
}

static enum err undo(struct ui *u)
{
	struct step *s;
	enum err e = ERR_OK;
	int v;

	if (u->n_hist == 0) {
		set_status(u, "nothing to undo", NULL, NULL);
		return ERR_OK;
	}
	s = &u->hist[u->n_hist - 1];
	v = find_entry(u, s->ids[0]);
	if (s->labelled) {
		if (s->prev)
			e = labels_put_many(u->l, s->ids, s->n, u->annotator, s->prev, s->prev_note);
		for (int m = 0; !s->prev && m < s->n && e == ERR_OK; m++)
			e = labels_remove(u->l, s->ids[m], u->annotator);
		if (e != ERR_OK)
			return e;
		for (int gi = 0; gi < u->n_groups; gi++)
			if (u->items[u->groups[gi].members[0]].id == s->ids[0]) {
				u->done += (s->prev != NULL) - (u->g_mine[gi] != NULL);
				free(u->g_mine[gi]);
				free(u->g_note[gi]);
				u->g_mine[gi] = s->prev;
				u->g_note[gi] = s->prev_note;
				s->prev = s->prev_note = NULL;
			}
		const char *key = "";
		for (int i = 0; i < u->n_items; i++)
			if (u->items[i].id == s->ids[0])
				key = u->items[i].key;
		set_status(u, "undone: the label on %s is %s", key,
			   v >= 0 && u->g_mine[u->vis[v]] ? u->g_mine[u->vis[v]] : "removed");
	} else {
		set_status(u, "back to the item you skipped", NULL, NULL);
	}
	free(s->ids);
	free(s->prev);
	free(s->prev_note);
	if (v >= 0)
		u->cur = v;
	u->n_hist--;
	return ERR_OK;
}

static void skip(struct ui *u)
{
	if (u->cur >= u->n)
		return;
	if (push(u, false) != ERR_OK)
		return;
	free(u->pending_note);
	u->pending_note = NULL;
	set_status(u, "skipped %s", cur_item(u)->key, NULL);
	/* skipping moves on by one, even past labelled items, so a relabel is possible */
	u->cur = advance(u, u->cur);
}

/* step_to: the cursor to shown entry v (clamped), forgetting a note typed for another. */
static void step_to(struct ui *u, int v)
{
	if (v < 0)
		v = 0;
	if (v > u->n)
		v = u->n;
	if (v != u->cur) {
		free(u->pending_note);
		u->pending_note = NULL;
	}
	u->cur = v;
}

static enum err flag(struct ui *u)
{
	const struct queue_group *g = cur_group(u);
	enum err e = ERR_OK;
	bool on;

	if (!g)
		return ERR_OK;
	on = !u->g_flag[u->vis[u->cur]];
	for (int m = 0; m < g->n && e == ERR_OK; m++)
		e = labels_flag(u->l, u->items[g->members[m]].id, u->annotator, on, NULL);
	if (e != ERR_OK)
		return e;
	u->g_flag[u->vis[u->cur]] = on;
	set_status(u, on ? "flagged %s for review" : "flag taken off %s", cur_item(u)->key, NULL);
	return ERR_OK;
}

/* refilter: the entries again after the view, who or search changed, the cursor on the
 * entry it was on when that is still shown, else at the first unlabelled one. */
static enum err refilter(struct ui *u, bool regroup)
{
	long long at = cur_item(u) ? cur_item(u)->id : 0;
	enum err e;
	int v;

	if (regroup) {
		if ((e = load_groups(u)) != ERR_OK)
			return e;
	} else {
		revisible(u);
	}
	v = at ? find_entry(u, at) : -1;
	step_to(u, v >= 0 ? v : advance(u, -1));
	return ERR_OK;
}

/* filter_apply: one filter as typed: "field NAME", "call ID", "run N", "mine",
 * "unlabelled", "flagged", "all" (every filter off). */
static enum err filter_apply(struct ui *u, const char *text)
{
	char word[32] = "", arg[256] = "";
	bool regroup = false;
	char *d = NULL;

	if (sscanf(text, " %31s %255[^\n]", word, arg) < 1)
		strcpy(word, "all");
	if (strcmp(word, "field") == 0 || strcmp(word, "call") == 0) {
		if (arg[0] && !(d = strdup(arg)))
			return ERR_NOMEM;
		char **slot = word[0] == 'f' ? &u->v_field : &u->v_call;
		free(*slot);
		*slot = d;
		u->view.field = u->v_field;
		u->view.call = u->v_call;
		regroup = true;
	} else if (strcmp(word, "run") == 0) {
		char *end;
		long long r = strtoll(arg, &end, 10);
		if (arg[0] && (*end || r < 0)) {
			set_status(u, "filter: run '%s' is not a run number", arg, NULL);
			return ERR_OK;
		}
		u->view.run = arg[0] ? r : 0;
		regroup = true;
	} else if (strcmp(word, "all") == 0) {
		free(u->v_field);
		free(u->v_call);
		free(u->search);
		u->v_field = u->v_call = u->search = NULL;
		u->view.field = u->view.call = NULL;
		u->view.run = 0;
		u->who = WHO_ALL;
		regroup = true;
	} else {
		int w = -1;
		for (int i = 0; i < (int)(sizeof who_name / sizeof who_name[0]); i++)
			if (strcmp(word, who_name[i]) == 0)
				w = i;
		if (w < 0) {
			set_status(u, "filter: '%s' is not a filter (field NAME, call ID, run N, mine, "
				      "unlabelled, flagged, all)",
				   word, NULL);
			return ERR_OK;
		}
		u->who = (enum who)w;
	}
	enum err e = refilter(u, regroup);
	if (e == ERR_OK) {
		char n[32];
		snprintf(n, sizeof n, "%d", u->n);
		set_status(u, "filter %s: %s items shown", text[0] ? text : "all", n);
	}
	return e;
}

static enum err jump(struct ui *u, const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (!text[0] || *end || v < 1 || v > u->n) {
		char n[32];
		snprintf(n, sizeof n, "%d", u->n);
		set_status(u, "go to: '%s' is not an item number from 1 to %s", text, n);
		return ERR_OK;
	}
	step_to(u, (int)v - 1);
	set_status(u, "item %s", text, NULL);
	return ERR_OK;
}

/* Recordings are played at the rate the pipeline works at. */
#define PLAY_RATE 16000

static void stop_player(struct ui *u)
{
	if (u->player > 0) {
		kill(u->player, SIGTERM);
		waitpid(u->player, NULL, 0);
		u->player = 0;
	}
	if (u->sink && u->sink_busy)
		sink_stop(u->sink, NULL);
	u->sink_busy = false;
}

/* play_command: play file through the command in $FORMDESK_PLAYER, in the background. */
static void play_command(struct ui *u, const char *cmd, const char *file)
{
	pid_t pid = fork();
	if (pid < 0) {
		set_status(u, "cannot play: %s", strerror(errno), NULL);
		return;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp(cmd, cmd, file, (char *)NULL);
		_exit(127);
	}
	u->player = pid;
	bounded(u->player_cmd, sizeof u->player_cmd, "%s", cmd);
	set_status(u, "playing %s (%s)", file, cmd);
}

/* play_sink: play file on the sound device (audio/sink.h), opened the first time. */
static void play_sink(struct ui *u, const char *file)
{
	char *msg = NULL;
	float *samples = NULL;
	size_t n = 0;

	if (!u->sink && sink_open_device(NULL, PLAY_RATE, &u->sink, &msg) != ERR_OK) {
		set_status(u, "cannot play: no sound device (%s)", msg ? msg : "none found", NULL);
		free(msg);
		return;
	}
	if (audiofile_read(file, sink_rate(u->sink), &samples, &n, &msg) != ERR_OK) {
		set_status(u, "cannot play: %s", msg ? msg : file, NULL);
		free(msg);
		return;
	}
	if (sink_play(u->sink, samples, n) != ERR_OK) {
		set_status(u, "cannot play %s on %s", file, sink_device_name(u->sink));
	} else {
		u->sink_busy = true;
		set_status(u, "playing %s on %s", file, sink_device_name(u->sink));
	}
	free(samples);
}

/* play_file: play file through $FORMDESK_PLAYER when it is set, else the sound device. */
static void play_file(struct ui *u, const char *file)
{
	const char *cmd = getenv("FORMDESK_PLAYER");
	stop_player(u);
	bounded(u->player_file, sizeof u->player_file, "%s", file);
	if (cmd && cmd[0])
		play_command(u, cmd, file);
	else
		play_sink(u, file);
}

static void play(struct ui *u)
{
	const struct labels_item *it = cur_item(u);
	struct stat sb;

	if (!it)
		return;
	if (u->voice) /* the words v asked for would play over the recording */
		voice_stop(u->voice);
	if (!it->audio || !it->audio[0]) {
		set_status(u, "no audio recorded for this turn", NULL, NULL);
		return;
	}
	if (stat(it->audio, &sb) != 0) {
		set_status(u, "no audio: the file %s is missing", it->audio, NULL);
		return;
	}
	play_file(u, it->audio);
}

/* voice_ready: the words v asked for, once synthesized, played as p plays a recording
 * (the audio goes through a WAV file, which a player command can take). Nothing while
 * the voice is still working. */
static void voice_ready(struct ui *u)
{
	struct tts_audio a = {0};
	enum err e;

	if (!voice_done(u->voice, &e, &a))
		return;
	if (e != ERR_OK || !a.n) {
		set_status(u, "the voice %s said nothing", voice_name(u->voice), NULL);
		goto out;
	}
	snprintf(u->voice_file, sizeof u->voice_file, "/tmp/formdesk-voice-%ld.wav", (long)getpid());
	if (audiofile_write(u->voice_file, a.samples, a.n, a.rate, NULL) != ERR_OK) {
		set_status(u, "cannot write %s", u->voice_file, NULL);
		goto out;
	}
	play_file(u, u->voice_file);
out:
	free(a.samples);
}

/* play_voice: what the agent said in the turn, in the chosen voice. The synthesis runs
 * while the screen goes on (the loop waits on it, voice_pollfds); its audio plays when it
 * is done (voice_ready). */
static void play_voice(struct ui *u)
{
	const struct labels_item *it = cur_item(u);
	cJSON *ctx;
	const cJSON *reply;

	if (!it)
		return;
	ctx = it->context ? cJSON_Parse(it->context) : NULL;
	reply = cJSON_GetObjectItemCaseSensitive(ctx, "reply");
	if (!u->voice || !cJSON_IsString(reply) || !reply->valuestring[0]) {
		set_status(u, u->voice ? "the agent said nothing in this turn" : "no voice", NULL, NULL);
		goto out;
	}
	voice_say(u->voice, reply->valuestring);
	if (voice_busy(u->voice))
		set_status(u, "synthesizing the agent's words of %s in %s ...", it->key,
			   voice_name(u->voice));
	else /* at hand at once (the TTS cache) */
		voice_ready(u);
out:
	cJSON_Delete(ctx);
}

/* reap: report how the player ended. */
static void reap(struct ui *u)
{
	int st;
	if (u->sink_busy && !sink_playing(u->sink)) {
		u->sink_busy = false;
		set_status(u, "played %s", u->player_file, NULL);
	}
	if (u->player <= 0 || waitpid(u->player, &st, WNOHANG) != u->player)
		return;
	u->player = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		set_status(u, "played %s", u->player_file, NULL);
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		set_status(u, "cannot play: %s could not be run", u->player_cmd, NULL);
	else
		set_status(u, "cannot play %s: %s failed", u->player_file, u->player_cmd);
}

/* note_done: the note typed, kept with the tag (stored at once when tagged already). */
static enum err note_done(struct ui *u, const char *buf)
{
	if (cur_mine(u)) {
		/* already tagged: store the note with the tag at once */
		char *lb = strdup(cur_mine(u));
		enum err e = lb ? put_group(u, lb, buf[0] ? buf : NULL) : ERR_NOMEM;
		free(lb);
		if (e != ERR_OK)
			return e;
		set_status(u, "note saved", NULL, NULL);
	} else {
		free(u->pending_note);
		u->pending_note = buf[0] ? strdup(buf) : NULL;
		set_status(u, "note kept: it is saved with the tag you choose", NULL, NULL);
	}
	return ERR_OK;
}

static enum err prompt_key(struct ui *u, wint_t ch, bool fkey)
{
	if (!fkey && ch == 27) { /* Esc */
		set_status(u, u->editing == PROMPT_NOTE ? "note dropped" : "nothing changed", NULL,
			   NULL);
		u->editing = PROMPT_NONE;
		return ERR_OK;
	}
	if (!fkey && (ch == '\r' || ch == '\n')) {
		char buf[1024];
		enum prompt p = u->editing;
		u->editing = PROMPT_NONE;
		if (wcstombs(buf, u->note, sizeof buf) == (size_t)-1)
			buf[0] = '\0';
		buf[sizeof buf - 1] = '\0';
		switch (p) {
		case PROMPT_NOTE:
			return note_done(u, buf);
		case PROMPT_JUMP:
			return jump(u, buf);
		case PROMPT_FILTER:
			return filter_apply(u, buf);
		case PROMPT_SEARCH: {
			char *d = buf[0] ? strdup(buf) : NULL;
			if (buf[0] && !d)
				return ERR_NOMEM;
			free(u->search);
			u->search = d;
			enum err e = refilter(u, false);
			char n[32];
			snprintf(n, sizeof n, "%d", u->n);
			set_status(u, buf[0] ? "search '%s': %s items hold it" : "search off%s: %s items",
				   buf, n);
			return e;
		}
		case PROMPT_NONE:
			break;
		}
		return ERR_OK;
	}
	if ((fkey && ch == KEY_BACKSPACE) || (!fkey && (ch == 127 || ch == 8))) {
		if (u->note_len > 0)
			u->note[--u->note_len] = 0;
		return ERR_OK;
	}
	if (!fkey && ch >= 0x20 && u->note_len + 1 < (int)(sizeof u->note / sizeof u->note[0])) {
		u->note[u->note_len++] = (wchar_t)ch;
		u->note[u->note_len] = 0;
	}
	return ERR_OK;
}

/* start_prompt: the foot line types p, starting from old (may be NULL). */
static void start_prompt(struct ui *u, enum prompt p, const char *old)
{
	u->note_len = 0;
	u->note[0] = 0;
	if (old) {
		size_t m = mbstowcs(u->note, old, sizeof u->note / sizeof u->note[0] - 1);
		u->note_len = m == (size_t)-1 ? 0 : (int)m;
		u->note[u->note_len] = 0;
	}
	u->editing = p;
}

static enum err key(struct ui *u, wint_t ch, bool fkey)
{
	if (u->editing)
		return prompt_key(u, ch, fkey);
	if (u->help) {
		if (!fkey && (ch == '?' || ch == 'q' || ch == 27))
			u->help = false;
		return ERR_OK;
	}
	if (!fkey) { /* an answer's key; past the end of the queue label() does nothing */
		const char *k = ch < 0x80 && ch ? strchr(u->ops->keys, (int)ch) : NULL;
		if (k && u->adding && cur_group(u))
			return add_tag(u, u->ops->labels[k - u->ops->keys]);
		if (k)
			return label(u, u->ops->labels[k - u->ops->keys]);
	}
	u->adding = false;
	switch (action_of((int)ch, u->ops)) {
	case ACT_note:
		if (u->cur < u->n)
			start_prompt(u, PROMPT_NOTE, cur_note(u) ? cur_note(u) : u->pending_note);
		return ERR_OK;
	case ACT_addtag:
		if (u->cur < u->n) {
			u->adding = true;
			set_status(u, "+: press a tag's key to add it, or to take it off", NULL, NULL);
		}
		return ERR_OK;
	case ACT_skip:
		skip(u);
		return ERR_OK;
	case ACT_undo:
		return undo(u);
	case ACT_play:
		play(u);
		return ERR_OK;
	case ACT_next:
		step_to(u, u->cur + 1);
		return ERR_OK;
	case ACT_prev:
		step_to(u, u->cur - 1);
		return ERR_OK;
	case ACT_jump:
		start_prompt(u, PROMPT_JUMP, NULL);
		return ERR_OK;
	case ACT_filter:
		start_prompt(u, PROMPT_FILTER, NULL);
		return ERR_OK;
	case ACT_search:
		start_prompt(u, PROMPT_SEARCH, u->search);
		return ERR_OK;
	case ACT_flag:
		return flag(u);
	case ACT_voice:
		play_voice(u);
		return ERR_OK;
	case ACT_help:
		u->help = true;
		return ERR_OK;
	case ACT_quit:
		u->quit = true;
		return ERR_OK;
	case ACT_NONE:
		break;
	}
	if (!fkey && ch != KEY_RESIZE)
		set_status(u, "that key does nothing here: ? shows the keys", NULL, NULL);
	return ERR_OK;
}

static void ui_free(struct ui *u)
{
	voice_free(u->voice);
	groups_clear(u);
	for (int i = 0; i < u->n_hist; i++) {
		free(u->hist[i].ids);
		free(u->hist[i].prev);
		free(u->hist[i].prev_note);
	}
	free(u->hist);
	free(u->pending_note);
	free(u->v_field);
	free(u->v_call);
	free(u->search);
	labels_items_free(u->items, u->n_items);
}

enum err annotate_run(struct labels *l, enum labels_task t, const char *annotator,
		      const struct queue_view *view, const struct backend *voice, char **errmsg)
{
	struct ui u = {.l = l, .task = t, .ops = task_ops(t), .annotator = annotator};
	const char *why = NULL;
	enum err e;

	if (errmsg)
		*errmsg = NULL;
	if (!u.ops)
		return ERR_INVALID;
	if (view)
		u.view = *view;
	u.v_field = u.view.field ? strdup(u.view.field) : NULL;
	u.v_call = u.view.call ? strdup(u.view.call) : NULL;
	u.view.field = u.v_field;
	u.view.call = u.v_call;
	if ((e = labels_items(l, t, &u.items, &u.n_items)) != ERR_OK ||
	    (e = load_groups(&u)) != ERR_OK) {
		if (errmsg)
			*errmsg = strdup(e == ERR_NOMEM ? err_str(e) : labels_error(l));
		ui_free(&u);
		return e;
	}
	u.cur = advance(&u, -1);
	if (voice && (e = voice_new(voice, PLAY_RATE, &u.voice)) != ERR_OK) {
		if (errmsg)
			*errmsg = strdup(err_str(e));
		ui_free(&u);
		return e;
	}
	if ((e = term_open(NULL, TERM_CHILD, &why)) != ERR_OK) {
		if (errmsg)
			*errmsg = strdup(e == ERR_IO ? "the labelling screen needs a terminal (is TERM set?)"
					   : why);
		ui_free(&u);
		return e;
	}
	if (u.done)
		bounded(u.status, sizeof u.status, "resuming: %d of %d already have your label",
			u.done, u.n);
	else
		set_status(&u, u.ops->start_hint, NULL, NULL);
	draw(&u);
	while (!u.quit && !term_signal()) {
		struct pollfd pf[2 + VOICE_MAX_FDS] = {{.fd = STDIN_FILENO, .events = POLLIN},
						       {.fd = term_wake_fd(), .events = POLLIN}};
		bool dirty = false;
		int wait_ms = -1;
		if (u.sink_busy) { /* wake when the utterance ends, to say so */
			wait_ms = sink_remaining_ms(u.sink);
			wait_ms = wait_ms < 20 ? 20 : wait_ms;
		}
		/* the voice's request or synthesizer, while v's words are being made */
		unsigned nv = voice_pollfds(u.voice, pf + 2, VOICE_MAX_FDS, &wait_ms);
		if (poll(pf, 2 + nv, wait_ms) < 0 && errno != EINTR)
			break;
		if (voice_busy(u.voice)) {
			voice_tick(u.voice);
			if (!voice_busy(u.voice)) {
				voice_ready(&u);
				dirty = true;
			}
		}
		if (pf[0].revents & (POLLHUP | POLLERR))
			break;
		unsigned ev = term_pending();
		if (ev & TERM_QUIT)
			break;
		if ((ev & TERM_CHILD_EXITED) || u.sink_busy) {
			reap(&u);
			dirty = true;
		}
		if (ev & TERM_RESIZE)
			dirty = true;
		wint_t ch;
		int r;
		while (!u.quit && (r = get_wch(&ch)) != ERR) {
			if ((e = key(&u, ch, r == KEY_CODE_YES)) != ERR_OK)
				goto out;
			dirty = true;
		}
		if (dirty)
			draw(&u);
	}
	e = ERR_OK;
out:
	stop_player(&u);
	sink_free(u.sink);
	if (u.voice_file[0])
		unlink(u.voice_file);
	term_close();
	if (e != ERR_OK && errmsg)
		*errmsg = strdup(e == ERR_NOMEM ? err_str(e) : labels_error(l));
	else if (e == ERR_OK)
		printf("%s: %d of %d %s items labelled by %s\n", labels_path(l), u.done, u.n,
		       labels_task_name(t), annotator);
	ui_free(&u);
	return e;
}
