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

#include "agent/decision.h"
#include "audio/audiofile.h"
#include "audio/sink.h"
#include "annotations/task.h"
#include "tui/term.h"
#include "tui/width.h"

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
	int idx;
	bool labelled;   /* false: a skip */
	char *prev, *prev_note; /* the label and note it replaced, NULL when none */
};

struct ui {
	struct labels *l;
	enum labels_task task;
	const struct task_ops *ops; /* what the task shows and accepts */
	const char *annotator;
	struct labels_item *items;
	int n;
	char **mine, **mine_note; /* this annotator's label and note per item */
	int done;
	int cur;                  /* n: past the end */
	struct step *hist;
	int n_hist, cap_hist;
	char status[600];
	bool help;
	bool editing;             /* typing a note */
	wchar_t note[256];
	int note_len;
	char *pending_note;       /* note typed before the item was tagged */
	pid_t player;          /* $FORMDESK_PLAYER running, 0 when none */
	struct sink *sink;     /* the sound device, opened at the first p */
	bool sink_busy;        /* an utterance is playing on it */
	char player_file[512];
	char player_cmd[256];
	bool quit;
};

static bool for_task(char tasks, const struct task_ops *ops)
{
	return tasks == '*' || (tasks == 't' && ops->tags);
}

static enum action action_of(int key, const struct task_ops *ops)
{
	if (key == 127 || key == 8)
		key = KEY_BACKSPACE;
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
	const char *mine = u->cur < u->n ? u->mine[u->cur] : NULL;
	int colw = COLS / 2 > 30 ? COLS / 2 : 30;
	(*y)++;
	put((*y)++, 2, "tag the stage that failed:", A_DIM);
	for (int i = 0; i < u->ops->n_labels; i++) {
		char buf[96];
		int row = *y + i / 2, x = 2 + (i % 2) * colw;
		bool on = mine && strcmp(mine, u->ops->labels[i]) == 0;
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
	put(LINES - 1, 0, "? or q closes this help", A_DIM);
}

static void draw(struct ui *u)
{
	char buf[1024];
	int y;

	if (u->help) {
		draw_help(u);
		refresh();
		return;
	}
	erase();
	snprintf(buf, sizeof buf, "formdesk annotate · %s · %s", labels_task_name(u->task),
		 u->annotator);
	put(0, 0, buf, A_BOLD);
	snprintf(buf, sizeof buf, "%d/%d done", u->done, u->n);
	put(0, COLS - width_cols(buf) > 0 ? COLS - width_cols(buf) : 0, buf, A_BOLD);
	y = 2;
	if (u->cur >= u->n) {
		snprintf(buf, sizeof buf, "End of the queue: %d of %d labelled.", u->done, u->n);
		put(y++, 2, buf, A_BOLD);
		put(y++, 2, u->done < u->n ? "Skipped items come back when you start again."
					   : "Every item has your label.", 0);
		put(y++, 2, "backspace: go back · q: quit", A_DIM);
	} else {
		const struct labels_item *it = &u->items[u->cur];
		const char *mine = u->mine[u->cur];
		snprintf(buf, sizeof buf, "item %d of %d · call %s%s%lld%s · turn %d%s%s", u->cur + 1,
			 u->n, it->corpus_call_id ? it->corpus_call_id : "",
			 it->corpus_call_id ? " (#" : "#", it->call_id, it->corpus_call_id ? ")" : "",
			 it->turn, it->field ? " · field " : "", it->field ? it->field : "");
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
			field_row(&y, row->caption, *(char *const *)((const char *)it + row->offset),
				  row->bold ? A_BOLD : 0);
		}
		if (u->ops->question)
			put(y++, 2, u->ops->question, A_DIM);
		if (u->ops->stages)
			draw_stages(u, it, &y, LINES - 10);
		if (u->ops->tags) {
			draw_tags(u, &y);
			const char *nt = u->mine_note[u->cur] ? u->mine_note[u->cur] : u->pending_note;
			if (nt && !u->editing)
				field_row(&y, "note", nt, 0);
		}
		field_row(&y, "audio", it->audio ? it->audio : "(none recorded)", A_DIM);
	}
	if (u->editing) {
		char line[1200], mb[1100];
		if (wcstombs(mb, u->note, sizeof mb) == (size_t)-1)
			mb[0] = '\0';
		mb[sizeof mb - 1] = '\0';
		bounded(line, sizeof line, "note: %s", mb);
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

/* ---- actions ---- */

/* set_status: the status line; a and b (may be NULL) fill the fmt's %s. Cut to fit. */
static void set_status(struct ui *u, const char *fmt, const char *a, const char *b)
{
	bounded(u->status, sizeof u->status, fmt, a ? a : "", b ? b : "");
}

static enum err push(struct ui *u, int idx, bool labelled)
{
	if (u->n_hist == u->cap_hist) {
		int nc = u->cap_hist ? u->cap_hist * 2 : 32;
		struct step *v = realloc(u->hist, (size_t)nc * sizeof *v);
		if (!v)
			return ERR_NOMEM;
		u->hist = v;
		u->cap_hist = nc;
	}
	struct step *s = &u->hist[u->n_hist++];
	s->idx = idx;
	s->labelled = labelled;
	s->prev = u->mine[idx] ? strdup(u->mine[idx]) : NULL;
	s->prev_note = u->mine_note[idx] ? strdup(u->mine_note[idx]) : NULL;
	return ERR_OK;
}

/* advance: the next item after from without this annotator's label, or n. */
static int advance(struct ui *u, int from)
{
	for (int i = from + 1; i < u->n; i++)
		if (!u->mine[i])
			return i;
	return u->n;
}

static enum err label(struct ui *u, const char *lb)
{
	const char *note = u->mine_note[u->cur] ? u->mine_note[u->cur] : u->pending_note;
	enum err e;
	char *dl, *dn = NULL;

	if (u->cur >= u->n)
		return ERR_OK;
	if ((e = labels_put(u->l, u->items[u->cur].id, u->annotator, lb, note)) != ERR_OK)
		return e;
	if (!(dl = strdup(lb)) || (note && !(dn = strdup(note)))) {
		free(dl);
		return ERR_NOMEM;
	}
	if ((e = push(u, u->cur, true)) != ERR_OK) {
		free(dl);
		free(dn);
		return e;
	}
	if (!u->mine[u->cur])
		u->done++;
	free(u->mine[u->cur]);
	free(u->mine_note[u->cur]);
	u->mine[u->cur] = dl;
	u->mine_note[u->cur] = dn;
	free(u->pending_note);
	u->pending_note = NULL;
	set_status(u, "saved item %s: %s", u->items[u->cur].key, lb);
	u->cur = advance(u, u->cur);
	return ERR_OK;
}

static enum err undo(struct ui *u)
{
	struct step *s;
	enum err e = ERR_OK;

	if (u->n_hist == 0) {
		set_status(u, "nothing to undo", NULL, NULL);
		return ERR_OK;
	}
	s = &u->hist[u->n_hist - 1];
	if (s->labelled) {
		long long id = u->items[s->idx].id;
		e = s->prev ? labels_put(u->l, id, u->annotator, s->prev, s->prev_note)
			    : labels_remove(u->l, id, u->annotator);
		if (e != ERR_OK)
			return e;
		if (!s->prev)
			u->done--;
		free(u->mine[s->idx]);
		free(u->mine_note[s->idx]);
		u->mine[s->idx] = s->prev;
		u->mine_note[s->idx] = s->prev_note;
		set_status(u, "undone: the label on %s is %s", u->items[s->idx].key,
			   s->prev ? s->prev : "removed");
	} else {
		free(s->prev);
		free(s->prev_note);
		set_status(u, "back to the item you skipped", NULL, NULL);
	}
	u->cur = s->idx;
	u->n_hist--;
	return ERR_OK;
}

static void skip(struct ui *u)
{
	if (u->cur >= u->n)
		return;
	if (push(u, u->cur, false) != ERR_OK)
		return;
	free(u->pending_note);
	u->pending_note = NULL;
	set_status(u, "skipped %s", u->items[u->cur].key, NULL);
	/* skipping moves on by one, even past labelled items, so a relabel is possible */
	u->cur = advance(u, u->cur);
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

static void play(struct ui *u)
{
	const struct labels_item *it;
	const char *cmd = getenv("FORMDESK_PLAYER");
	struct stat sb;

	if (u->cur >= u->n)
		return;
	it = &u->items[u->cur];
	if (!it->audio || !it->audio[0]) {
		set_status(u, "no audio recorded for this turn", NULL, NULL);
		return;
	}
	if (stat(it->audio, &sb) != 0) {
		set_status(u, "no audio: the file %s is missing", it->audio, NULL);
		return;
	}
	stop_player(u);
	bounded(u->player_file, sizeof u->player_file, "%s", it->audio);
	if (cmd && cmd[0])
		play_command(u, cmd, it->audio);
	else
		play_sink(u, it->audio);
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

static enum err note_key(struct ui *u, wint_t ch, bool fkey)
{
	if (!fkey && ch == 27) { /* Esc */
		u->editing = false;
		set_status(u, "note dropped", NULL, NULL);
		return ERR_OK;
	}
	if (!fkey && (ch == '\r' || ch == '\n')) {
		char buf[1024];
		u->editing = false;
		if (wcstombs(buf, u->note, sizeof buf) == (size_t)-1)
			buf[0] = '\0';
		buf[sizeof buf - 1] = '\0';
		if (u->mine[u->cur]) {
			/* already tagged: store the note with the tag at once */
			enum err e = labels_put(u->l, u->items[u->cur].id, u->annotator,
						u->mine[u->cur], buf);
			if (e != ERR_OK)
				return e;
			free(u->mine_note[u->cur]);
			u->mine_note[u->cur] = buf[0] ? strdup(buf) : NULL;
			set_status(u, "note saved", NULL, NULL);
		} else {
			free(u->pending_note);
			u->pending_note = buf[0] ? strdup(buf) : NULL;
			set_status(u, "note kept: it is saved with the tag you choose", NULL, NULL);
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

static enum err key(struct ui *u, wint_t ch, bool fkey)
{
	if (u->editing)
		return note_key(u, ch, fkey);
	if (u->help) {
		if (!fkey && (ch == '?' || ch == 'q' || ch == 27))
			u->help = false;
		return ERR_OK;
	}
	if (!fkey) { /* an answer's key; past the end of the queue label() does nothing */
		const char *k = ch < 0x80 && ch ? strchr(u->ops->keys, (int)ch) : NULL;
		if (k)
			return label(u, u->ops->labels[k - u->ops->keys]);
	}
	switch (action_of((int)ch, u->ops)) {
	case ACT_note:
		if (u->cur < u->n) {
			const char *old = u->mine_note[u->cur] ? u->mine_note[u->cur]
								: u->pending_note;
			u->note_len = 0;
			u->note[0] = 0;
			if (old) {
				size_t m = mbstowcs(u->note, old, sizeof u->note / sizeof u->note[0] - 1);
				u->note_len = m == (size_t)-1 ? 0 : (int)m;
				u->note[u->note_len] = 0;
			}
			u->editing = true;
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

static enum err load_mine(struct ui *u)
{
	if (!(u->mine = calloc((size_t)u->n + 1, sizeof *u->mine)) ||
	    !(u->mine_note = calloc((size_t)u->n + 1, sizeof *u->mine_note)))
		return ERR_NOMEM;
	for (int i = 0; i < u->n; i++) {
		enum err e = labels_get(u->l, u->items[i].id, u->annotator, &u->mine[i],
					&u->mine_note[i]);
		if (e == ERR_OK)
			u->done++;
		else if (e != ERR_NOTFOUND)
			return e;
	}
	u->cur = advance(u, -1);
	return ERR_OK;
}

static void ui_free(struct ui *u)
{
	for (int i = 0; u->mine && i < u->n; i++) {
		free(u->mine[i]);
		free(u->mine_note[i]);
	}
	free(u->mine);
	free(u->mine_note);
	for (int i = 0; i < u->n_hist; i++) {
		free(u->hist[i].prev);
		free(u->hist[i].prev_note);
	}
	free(u->hist);
	free(u->pending_note);
	labels_items_free(u->items, u->n);
}

enum err annotate_run(struct labels *l, enum labels_task t, const char *annotator,
		      char **errmsg)
{
	struct ui u = {.l = l, .task = t, .ops = task_ops(t), .annotator = annotator};
	const char *why = NULL;
	enum err e;

	if (errmsg)
		*errmsg = NULL;
	if (!u.ops)
		return ERR_INVALID;
	if ((e = labels_items(l, t, &u.items, &u.n)) != ERR_OK ||
	    (e = load_mine(&u)) != ERR_OK) {
		if (errmsg)
			*errmsg = strdup(e == ERR_NOMEM ? err_str(e) : labels_error(l));
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
		struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
				       {.fd = term_wake_fd(), .events = POLLIN}};
		bool dirty = false;
		int wait_ms = -1;
		if (u.sink_busy) { /* wake when the utterance ends, to say so */
			wait_ms = sink_remaining_ms(u.sink);
			wait_ms = wait_ms < 20 ? 20 : wait_ms;
		}
		if (poll(pf, 2, wait_ms) < 0 && errno != EINTR)
			break;
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
	term_close();
	if (e != ERR_OK && errmsg)
		*errmsg = strdup(e == ERR_NOMEM ? err_str(e) : labels_error(l));
	else if (e == ERR_OK)
		printf("%s: %d of %d %s items labelled by %s\n", labels_path(l), u.done, u.n,
		       labels_task_name(t), annotator);
	ui_free(&u);
	return e;
}
