/* screen: the simulator's terminal (see screen.h). The only file of the simulator that
 * calls curses. */
#include "screen.h"

#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>
#include <wchar.h>

#include "callview.h"
#include "keys.h"
#include "term.h"
#include "width.h"
#include "base/vec.h"

enum { P_AGENT = 1, P_CALLER, P_OK, P_FAIL, P_NOTE, P_HEAD, P_BAR, P_CURRENT, P_BORDER };

/* From this width on the four panes stand side by side in three columns. */
#define WIDE_COLS 120

enum { W_TITLE, W_CONV, W_FORM, W_VERD, W_DEC, W_STATUS, W_INPUT, W_N };

struct screen {
	SCREEN *term;
	WINDOW *w[W_N];
	WINDOW *overlay;
	bool small;       /* too small for the layout: a message instead */
	bool help;
	bool relayout;    /* windows must be rebuilt and everything redrawn */
	bool live;        /* a live call: its keys (LIVE_KEYS) in the hints and the help */
	bool editing;     /* the line editor's row is shown above the status bar */
	bool input_dirty;
	char prompt[64];
	char input[2048];
};

/* One screen exists at a time (the terminal is tui/term.c's). */
static struct screen *g_open;

static void windows_free(struct screen *s)
{
	for (int i = 0; i < W_N; i++) {
		if (s->w[i])
			delwin(s->w[i]);
		s->w[i] = NULL;
	}
	if (s->overlay)
		delwin(s->overlay);
	s->overlay = NULL;
}

/* Rebuild the windows for the terminal's size now. */
static void layout(struct screen *s)
{
	windows_free(s);
	int rows = LINES, cols = COLS;
	s->small = rows < SCREEN_MIN_ROWS || cols < SCREEN_MIN_COLS;
	werase(stdscr);
	wnoutrefresh(stdscr);
	if (s->small)
		return;
	int ph = rows - 2 - (s->editing ? 1 : 0); /* pane height between title and status bar */
	s->w[W_TITLE] = newwin(1, cols, 0, 0);
	if (cols >= WIDE_COLS) {
		/* Conversation | Form | Verdicts over Decision */
		int wc = cols * 34 / 100, wf = (cols - wc) / 2, wr = cols - wc - wf, hv = ph / 2;
		s->w[W_CONV] = newwin(ph, wc, 1, 0);
		s->w[W_FORM] = newwin(ph, wf, 1, wc);
		s->w[W_VERD] = newwin(hv, wr, 1, wc + wf);
		s->w[W_DEC] = newwin(ph - hv, wr, 1 + hv, wc + wf);
	} else {
		/* Too narrow for three columns: Conversation over Verdicts | Form over Decision */
		int wl = cols / 2, wr = cols - wl, hc = ph * 3 / 5;
		s->w[W_CONV] = newwin(hc, wl, 1, 0);
		s->w[W_VERD] = newwin(ph - hc, wl, 1 + hc, 0);
		s->w[W_FORM] = newwin(hc, wr, 1, wl);
		s->w[W_DEC] = newwin(ph - hc, wr, 1 + hc, wl);
	}
	s->w[W_STATUS] = newwin(1, cols, rows - 1, 0);
	if (s->editing)
		s->w[W_INPUT] = newwin(1, cols, rows - 2, 0);
	s->input_dirty = true;
	for (int i = 0; i < W_N; i++)
		if (!s->w[i] && (i != W_INPUT || s->editing))
			s->small = true; /* out of memory: show the message rather than crash */
}

enum err screen_open(const char *log_path, struct screen **out, const char **errmsg)
{
	enum err e;
	if (g_open) {
		*errmsg = "the screen is already open";
		return ERR_INVALID;
	}
	struct screen *s = calloc(1, sizeof(*s));
	if (!s) {
		*errmsg = "out of memory";
		return ERR_NOMEM;
	}
	if ((e = term_open(log_path, 0, errmsg)) != ERR_OK) {
		free(s);
		return e;
	}
	g_open = s;
	if (term_colours()) {
		init_pair(P_AGENT, COLOR_CYAN, -1);
		init_pair(P_CALLER, COLOR_YELLOW, -1);
		init_pair(P_OK, COLOR_GREEN, -1);
		init_pair(P_FAIL, COLOR_RED, -1);
		init_pair(P_NOTE, COLOR_BLUE, -1);
		init_pair(P_HEAD, COLOR_MAGENTA, -1);
		init_pair(P_BAR, COLOR_BLACK, COLOR_CYAN);
		init_pair(P_CURRENT, COLOR_BLACK, COLOR_YELLOW);
		init_pair(P_BORDER, COLOR_WHITE, -1);
	}
	layout(s);
	*out = s;
	return ERR_OK;
}

void screen_close(struct screen *s)
{
	if (!s)
		return;
	windows_free(s);
	term_close();
	g_open = NULL;
	free(s);
}

static int plain_poll(void *ud, struct pollfd *fds, int n, int timeout_ms)
{
	(void)ud;
	return poll(fds, (nfds_t)n, timeout_ms);
}

unsigned screen_wait(struct screen *s, int timeout_ms)
{
	return screen_wait_in(s, timeout_ms, plain_poll, NULL);
}

unsigned screen_wait_in(struct screen *s, int timeout_ms, screen_waiter wait, void *ud)
{
	struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
			       {.fd = term_wake_fd(), .events = POLLIN}};
	unsigned r = 0, t = term_pending();
	if (!(t & (TERM_QUIT | TERM_RESIZE))) {
		int n = wait(ud, pf, 2, timeout_ms);
		if (n > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			r |= SCREEN_INPUT;
		if (pf[0].revents & (POLLHUP | POLLERR))
			term_quit_on(SIGHUP); /* the terminal went away */
		t |= term_pending();
	}
	if (t & TERM_RESIZE) {
		s->relayout = true;
		r |= SCREEN_RESIZE;
	}
	if (t & TERM_QUIT)
		r |= SCREEN_QUIT;
	return r;
}

int screen_signal(const struct screen *s)
{
	(void)s;
	return term_signal();
}

int screen_key(struct screen *s)
{
	wint_t ch;
	int r = wget_wch(stdscr, &ch);
	if (r == ERR)
		return -1;
	if (r == KEY_CODE_YES && (int)ch == KEY_RESIZE) {
		s->relayout = true;
		return -1;
	}
	if (r == KEY_CODE_YES) /* function keys, kept apart from the characters they overlap */
		return (int)ch == KEY_ENTER ? '\r' : (int)ch == KEY_BACKSPACE ? 127 : SCREEN_FKEY;
	if (ch == '\n')
		return '\r';
	if (ch == 8) /* Ctrl-H: some terminals' Backspace */
		return 127;
	return (int)ch;
}

void screen_help(struct screen *s, bool on)
{
	if (s->help != on)
		s->relayout = true; /* the overlay covers the panes: redraw them all */
	s->help = on;
}

bool screen_help_shown(const struct screen *s)
{
	return s->help;
}

/* ---- drawing ---- */

static attr_t style_attr(enum callview_style st)
{
	switch (st) {
	case CV_AGENT: return COLOR_PAIR(P_AGENT);
	case CV_CALLER: return COLOR_PAIR(P_CALLER) | A_BOLD;
	case CV_NOTE: return COLOR_PAIR(P_NOTE);
	case CV_HEAD: return COLOR_PAIR(P_HEAD) | A_BOLD;
	case CV_OK: return COLOR_PAIR(P_OK);
	case CV_FAIL: return COLOR_PAIR(P_FAIL) | A_BOLD;
	case CV_DIM: return A_DIM;
	case CV_PLAIN: break;
	}
	return A_NORMAL;
}

/* Draw len bytes of UTF-8 at the cursor with attr, as wide characters; the caller has
 * already cut them to fit. */
static void put(WINDOW *w, const char *s, size_t len, attr_t attr)
{
	wchar_t buf[512];
	size_t i = 0;
	wattr_set(w, attr, PAIR_NUMBER(attr), NULL);
	while (i < len) {
		int n = 0;
		while (i < len && n < (int)(sizeof(buf) / sizeof(buf[0])) - 1) {
			utf8proc_int32_t cp;
			utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
							      (utf8proc_ssize_t)(len - i), &cp);
			if (k <= 0 || cp < 0) {
				cp = 0xFFFD;
				k = 1;
			} else if (utf8proc_category(cp) == UTF8PROC_CATEGORY_CC) {
				cp = 0xFFFD; /* an escape in a form's text must not reach the terminal */
			}
			buf[n++] = (wchar_t)cp;
			i += (size_t)k;
		}
		buf[n] = 0;
		waddnwstr(w, buf, n);
	}
	wattr_set(w, A_NORMAL, 0, NULL);
}

/* Draw s at (y, x) cut to cols columns; returns the columns used. */
static int put_cut(WINDOW *w, int y, int x, const char *s, int cols, attr_t attr)
{
	int used = 0;
	size_t n = width_cut(s, cols, &used);
	wmove(w, y, x);
	put(w, s, n, attr);
	return used;
}

static void frame(WINDOW *w, const char *title)
{
	werase(w);
	wattr_set(w, COLOR_PAIR(P_BORDER), P_BORDER, NULL);
	box(w, 0, 0);
	wattr_set(w, A_NORMAL, 0, NULL);
	int cols = getmaxx(w);
	mvwaddstr(w, 0, 2, " ");
	int used = put_cut(w, 0, 3, title, cols - 6, A_BOLD);
	mvwaddstr(w, 0, 3 + used, " ");
}

/* One display row of a wrapped text pane. */
struct row {
	int line;      /* index into the lines */
	bool first;    /* the line's first row: the prefix is drawn */
	size_t off, len;
};

/* Wrap lines to width cols. Output: *rows (caller frees), their count returned. */
static int wrap_rows(const struct callview_lines *l, int cols, struct row **rows)
{
	int n = 0, cap = 0;
	struct row *r = NULL;
	for (int i = 0; i < l->n; i++) {
		const char *t = l->v[i].text;
		int pw = width_cols(l->v[i].prefix);
		if (pw > cols / 2)
			pw = cols / 2;
		int tw = cols - pw > 1 ? cols - pw : 1;
		size_t off = 0, len = strlen(t);
		bool first = true;
		do {
			size_t next;
			size_t k = width_wrap(t + off, tw, &next);
			struct row *nr = vec_grow(r, n, &cap, sizeof *nr, 64);
			if (!nr)
				goto out;
			r = nr;
			r[n++] = (struct row){i, first, off, k};
			first = false;
			off += next ? next : len - off;
		} while (off < len);
	}
out:
	*rows = r;
	return n;
}

/* A framed pane of wrapped lines: the first rows, or the last when bottom is set (the
 * conversation: newest at the bottom). */
static void draw_lines(WINDOW *w, const char *title, const struct callview_lines *l, bool bottom)
{
	frame(w, title);
	int h = getmaxy(w) - 2, cols = getmaxx(w) - 4;
	if (h <= 0 || cols <= 0)
		return;
	struct row *rows = NULL;
	int n = wrap_rows(l, cols, &rows);
	int start = bottom && n > h ? n - h : 0;
	for (int k = start, y = 1; k < n && y <= h; k++, y++) {
		const struct callview_line *ln = &l->v[rows[k].line];
		attr_t a = style_attr(ln->style);
		int pw = width_cols(ln->prefix);
		if (pw > cols / 2)
			pw = cols / 2;
		if (rows[k].first && *ln->prefix)
			put_cut(w, y, 2, ln->prefix, pw, a | A_BOLD);
		if (!bottom && y == h && k < n - 1) {
			put_cut(w, y, 2 + pw, "…", cols - pw, A_DIM);
			break;
		}
		wmove(w, y, 2 + pw);
		put(w, ln->text + rows[k].off, rows[k].len, a);
	}
	free(rows);
}

static void draw_form(WINDOW *w, const struct callview_snap *snap)
{
	frame(w, "Form");
	int h = getmaxy(w) - 2, cols = getmaxx(w) - 4;
	if (h <= 1 || cols <= 0 || !snap)
		return;
	char head[96];
	snprintf(head, sizeof(head), "call status: %s", snap->call_status);
	put_cut(w, 1, 2, head, cols, style_attr(CV_NOTE));

	/* marker, name, value, status, retries; the name and the value share what is left */
	const int statw = 8, retw = 5;
	int rest = cols - 2 - 3 - statw - retw;
	int namew = 4;
	for (int i = 0; i < snap->n; i++)
		if (width_cols(snap->f[i].name) > namew)
			namew = width_cols(snap->f[i].name);
	if (namew > rest / 2)
		namew = rest / 2;
	int valw = rest - namew;
	if (namew < 1 || valw < 1)
		return;

	int first = 0, avail = h - 2; /* the heading and the column names */
	for (int i = 0; i < snap->n; i++)
		if (snap->f[i].current && i >= first + avail)
			first = i - avail + 1;
	int y = 2;
	put_cut(w, y, 4, "field", namew, A_UNDERLINE);
	put_cut(w, y, 4 + namew + 1, "value", valw, A_UNDERLINE);
	put_cut(w, y, 4 + namew + 1 + valw + 1, "status", statw, A_UNDERLINE);
	put_cut(w, y, 4 + namew + 1 + valw + 1 + statw + 1, "retry", retw, A_UNDERLINE);
	for (int i = first; i < snap->n && ++y <= h; i++) {
		const struct callview_field *f = &snap->f[i];
		attr_t a = A_NORMAL;
		if (f->inactive)
			a = A_DIM;
		else if (!strcmp(f->status, "answered"))
			a = COLOR_PAIR(P_OK);
		else if (!strcmp(f->status, "skipped"))
			a = COLOR_PAIR(P_NOTE);
		if (f->current) {
			a = COLOR_PAIR(P_CURRENT) | A_BOLD;
			wattr_set(w, a, P_CURRENT, NULL);
			mvwhline(w, y, 2, ' ', cols);
		}
		int x = 2;
		put_cut(w, y, x, f->current ? "▶" : " ", 1, a);
		x += 2;
		put_cut(w, y, x, f->name, namew, a);
		x += namew + 1;
		int used = 0;
		size_t nb = width_cut(f->value, valw, &used);
		wmove(w, y, x);
		if (nb < strlen(f->value)) {
			nb = width_cut(f->value, valw - 1, &used);
			put(w, f->value, nb, a);
			put(w, "…", strlen("…"), a);
		} else {
			put(w, f->value, nb, a);
		}
		x += valw + 1;
		put_cut(w, y, x, f->status, statw, a);
		x += statw + 1;
		char rt[16];
		if (f->limit < 0)
			snprintf(rt, sizeof(rt), "%d/∞", f->used);
		else
			/* re-asks made of those allowed: the failed answer after the last re-ask
			 * ends the field, it is not one more re-ask */
			snprintf(rt, sizeof(rt), "%d/%d", f->used < f->limit ? f->used : f->limit, f->limit);
		put_cut(w, y, x, rt, retw, a);
	}
}

static void draw_bar(WINDOW *w, const char *left, bool hints, bool live)
{
	int cols = getmaxx(w);
	wbkgdset(w, ' ' | COLOR_PAIR(P_BAR));
	werase(w);
	attr_t a = COLOR_PAIR(P_BAR) | (has_colors() ? 0 : A_REVERSE);
	wattr_set(w, a, P_BAR, NULL);
	mvwhline(w, 0, 0, ' ', cols);
	char keys[256] = "";
#define X(action, key, label, help, hint) \
		if (hint) \
			snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s %s", \
				 keys[0] ? "  " : "", label, #action);
	if (hints && live) {
		LIVE_KEYS(X)
	} else if (hints) {
		KEYS(X)
	}
#undef X
	int kw = width_cols(keys);
	if (kw > cols - 2)
		kw = 0;
	/* The timings, cut between two of them rather than inside a number. */
	int room = cols - 2 - (kw ? kw + 2 : 0);
	size_t n = width_cut(left, room, NULL);
	if (n < strlen(left)) {
		size_t k = n;
		while (k > 1 && !(left[k - 1] == ' ' && left[k - 2] == ' '))
			k--;
		n = k > 1 ? k - 2 : n;
	}
	wmove(w, 0, 1);
	put(w, left, n, a);
	if (kw)
		put_cut(w, 0, cols - 1 - kw, keys, kw, a | A_BOLD);
}

/* A centred framed window over the panes. */
static WINDOW *overlay_win(struct screen *s, int h, int w, const char *title)
{
	if (s->overlay)
		delwin(s->overlay);
	if (h > LINES - 2)
		h = LINES - 2;
	if (w > COLS - 2)
		w = COLS - 2;
	s->overlay = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
	if (s->overlay)
		frame(s->overlay, title);
	return s->overlay;
}

static void draw_help(struct screen *s)
{
	int n = 0, w = 30;
#define X(action, key, label, help, hint) \
	n++; \
	if (width_cols(label) + width_cols(help) + 10 > w) \
		w = width_cols(label) + width_cols(help) + 10;
	if (s->live) {
		LIVE_KEYS(X)
	} else {
		KEYS(X)
	}
#undef X
	WINDOW *o = overlay_win(s, n + 4, w, "Keys");
	if (!o)
		return;
	int y = 1;
#define X(action, key, label, help, hint) \
	put_cut(o, y, 2, label, 6, A_BOLD); \
	put_cut(o, y, 9, help, getmaxx(o) - 11, A_NORMAL); \
	y++;
	if (s->live) {
		LIVE_KEYS(X)
	} else {
		KEYS(X)
	}
#undef X
	put_cut(o, y + 1, 2, "any key closes this help", getmaxx(o) - 4, A_DIM);
	wnoutrefresh(o);
}

static void draw_summary(struct screen *s, const struct callview_lines *l)
{
	int w = 40;
	for (int i = 0; i < l->n; i++) {
		int lw = width_cols(l->v[i].prefix) + width_cols(l->v[i].text) + 6;
		if (lw > w)
			w = lw;
	}
	WINDOW *o = overlay_win(s, l->n + 2, w, "Summary");
	if (!o)
		return;
	for (int i = 0; i < l->n && i + 1 < getmaxy(o) - 1; i++) {
		attr_t a = style_attr(l->v[i].style);
		int used = put_cut(o, i + 1, 2, l->v[i].prefix, getmaxx(o) - 4, a | A_BOLD);
		put_cut(o, i + 1, 2 + used, l->v[i].text, getmaxx(o) - 4 - used, a);
	}
	wnoutrefresh(o);
}

/* The line editor's row: the prompt, then as much of the end of the line as fits (cut
 * between grapheme clusters), the cursor after it. */
static void draw_input(struct screen *s)
{
	WINDOW *w = s->w[W_INPUT];
	int cols = getmaxx(w);
	werase(w);
	int used = put_cut(w, 0, 0, s->prompt, cols / 2, A_BOLD);
	int room = cols - used - 1;
	const char *t = s->input;
	int tw = width_cols(t);
	if (tw > room && room > 0) {
		/* Skip whole clusters from the start until the rest fits. */
		int skip = tw - room, got = 0;
		size_t off = 0;
		for (int k = skip; got < skip && k <= tw; k++)
			off = width_cut(t, k, &got);
		t += off;
	}
	int x = used + put_cut(w, 0, used, t, room, style_attr(CV_CALLER));
	wmove(w, 0, x < cols ? x : cols - 1);
	wnoutrefresh(w);
	s->input_dirty = false;
}

void screen_live(struct screen *s, bool live, bool editing)
{
	if (s->live == live && s->editing == editing)
		return;
	s->live = live;
	s->editing = editing;
	s->relayout = true;
	curs_set(editing ? 1 : 0);
}

void screen_input(struct screen *s, const char *prompt, const char *text)
{
	snprintf(s->prompt, sizeof(s->prompt), "%s", prompt ? prompt : "");
	snprintf(s->input, sizeof(s->input), "%s", text ? text : "");
	for (char *p = s->input; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	s->input_dirty = true;
}

void screen_redraw(struct screen *s)
{
	s->relayout = true;
}

void screen_draw(struct screen *s, struct callview *v)
{
	if (s->relayout) {
		s->relayout = false;
		layout(s);
		clearok(curscr, TRUE);
		callview_touch(v, CALLVIEW_ALL);
	}
	unsigned d = callview_take_dirty(v);
	if (!d && !(s->editing && s->input_dirty))
		return;
	if (s->small) {
		char msg[160];
		werase(stdscr);
		snprintf(msg, sizeof(msg), "formdesk needs a terminal of at least %dx%d (this one is %dx%d).",
			 SCREEN_MIN_COLS, SCREEN_MIN_ROWS, COLS, LINES);
		put_cut(stdscr, 0, 0, msg, COLS, A_BOLD);
		put_cut(stdscr, LINES > 1 ? 1 : 0, 0, "Make it larger, or press q to quit.", COLS, A_NORMAL);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}
	if (d & CALLVIEW_TITLE) {
		WINDOW *w = s->w[W_TITLE];
		werase(w);
		wattr_set(w, A_REVERSE | A_BOLD, 0, NULL);
		mvwhline(w, 0, 0, ' ', COLS);
		put_cut(w, 0, 1, callview_title(v), COLS - 2, A_REVERSE | A_BOLD);
		wnoutrefresh(w);
	}
	if (d & CALLVIEW_CONV) {
		/* scrolled back (callview_scroll, or a turn of the history): the lines up to it */
		struct callview_lines shown = *callview_conv(v);
		bool back = callview_conv_shown(v) < shown.n;
		shown.n = callview_conv_shown(v);
		draw_lines(s->w[W_CONV], back ? "Conversation (scrolled back: ] forward)" : "Conversation",
			   &shown, true);
		wnoutrefresh(s->w[W_CONV]);
	}
	if (d & CALLVIEW_FORM) {
		draw_form(s->w[W_FORM], callview_form(v));
		wnoutrefresh(s->w[W_FORM]);
	}
	if (d & CALLVIEW_VERDICTS) {
		draw_lines(s->w[W_VERD], "Verdicts", callview_verdicts(v), false);
		wnoutrefresh(s->w[W_VERD]);
	}
	if (d & CALLVIEW_DECISION) {
		draw_lines(s->w[W_DEC], "Decision", callview_decision(v), false);
		wnoutrefresh(s->w[W_DEC]);
	}
	if (d & CALLVIEW_STATUS) {
		const char *t = callview_timings(v);
		draw_bar(s->w[W_STATUS], *t ? t : "no turn yet", true, s->live);
		wnoutrefresh(s->w[W_STATUS]);
	}
	if (s->help)
		draw_help(s);
	else if (callview_mode(v) == CALLVIEW_FINISHED)
		draw_summary(s, callview_summary(v));
	if (s->editing && s->w[W_INPUT])
		draw_input(s); /* last: the terminal's cursor stays in the line */
	doupdate();
}
