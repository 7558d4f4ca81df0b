/* adjudicate: the reviewer's screen (adjudicate.h). */
#include "adjudicate.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <curses.h>
#include <cjson/cJSON.h>

#include "annotations/task.h"
#include "term.h"
#include "width.h"

enum action {
#define X(a, key, key2, shown, hint) ACT_##a,
	ADJUDICATE_KEYS(X)
#undef X
	ACT_NONE
};

static const struct keydef {
	int key, key2;
	const char *shown, *hint;
} keydefs[] = {
#define X(a, key, key2, shown, hint) {key, key2, shown, hint},
	ADJUDICATE_KEYS(X)
#undef X
};

struct ui {
	struct labels *l;
	enum labels_task task;
	const struct task_ops *ops;
	const char *reviewer;
	struct adjud_item *items;
	int n, cur, decided;
	bool quit;
	char *making;   /* + pressed (a task answered with tags): the final label being made,
			   toggled tag by tag, decided on Enter; NULL otherwise */
	char status[512];
};

/* show: s at (y, x) with control characters as spaces, cut to the line. Returns the
 * columns used. */
static int show(int y, int x, const char *s, attr_t a)
{
	char *c = strdup(s ? s : "");
	int used = 0;
	if (!c || x >= COLS || y < 0 || y >= LINES) {
		free(c);
		return 0;
	}
	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	size_t len = width_cut(c, COLS - x, &used);
	attron(a);
	mvaddnstr(y, x, c, (int)len);
	attroff(a);
	free(c);
	return used;
}

/* draw_stages: the turn's stage records (labels_item.context) in brief, one line each:
 * what EXTRACT returned, what the agent said, an error, how the call ended. */
static void draw_stages(const struct labels_item *it, int *y)
{
	static const char *const keys[][2] = {{"extraction", "extraction"},
					       {"reply", "agent said"},
					       {"error", "error"},
					       {"call_status", "call ended"},
					       {"call_reason", "why"}};
	cJSON *ctx = it->context ? cJSON_Parse(it->context) : NULL;
	if (!ctx) {
		show(*y, 2, "stages", A_DIM);
		show((*y)++, 16, "(no stage records)", 0);
		return;
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0] && *y < LINES - 10; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ctx, keys[i][0]);
		if (!v || cJSON_IsNull(v))
			continue;
		char *s = cJSON_IsString(v) ? strdup(v->valuestring) : cJSON_PrintUnformatted(v);
		show(*y, 2, keys[i][1], A_DIM);
		show((*y)++, 16, s ? s : "", 0);
		free(s);
	}
	cJSON_Delete(ctx);
}

/* for_tags: whether action a (tags, confirm, drop) belongs to a task answered with tags. */
static bool for_tags(int a)
{
	return a == ACT_tags || a == ACT_confirm || a == ACT_drop;
}

static const char *shown_label(const struct ui *u, const char *label)
{
	for (int i = 0; label && i < u->ops->n_labels; i++)
		if (strcmp(u->ops->labels[i], label) == 0)
			return u->ops->shown[i];
	return label ? label : "-";
}

static void draw(struct ui *u)
{
	char buf[1024];
	int y = 0, x = 0;

	erase();
	snprintf(buf, sizeof buf, "formdesk adjudicate · %s · reviewer %s",
		 labels_task_name(u->task), u->reviewer);
	show(0, 0, buf, A_BOLD);
	snprintf(buf, sizeof buf, "%d/%d decided", u->decided, u->n);
	show(0, COLS - width_cols(buf) > 0 ? COLS - width_cols(buf) : 0, buf, A_BOLD);
	if (u->n == 0) {
		show(2, 2, "No item in disagreement.", A_BOLD);
	} else {
		const struct adjud_item *a = &u->items[u->cur];
		const struct labels_item *it = &a->item;
		snprintf(buf, sizeof buf, "item %d of %d in disagreement · #%lld %s", u->cur + 1,
			 u->n, it->id, it->key ? it->key : "");
		show(1, 0, buf, A_DIM);
		y = 3;
		for (int r = 0; r < u->ops->n_rows && y < LINES - 8; r++) {
			const struct task_row *row = &u->ops->rows[r];
			if (!row->caption) {
				y++;
				continue;
			}
			const char *v = *(char *const *)((const char *)it + row->offset);
			show(y, 2, row->caption, A_DIM);
			show(y++, 16, v && v[0] ? v : "(none)", row->bold ? A_BOLD : 0);
		}
		if (u->ops->stages)
			draw_stages(it, &y);
		y++;
		/* the annotators side by side: name, label, note */
		show(y, 2, "annotator", A_DIM);
		show(y, 16, "label", A_DIM);
		show(y++, 46, "note", A_DIM);
		for (int s = 0; s < a->n_sides && y < LINES - 4; s++) {
			show(y, 2, a->sides[s].annotator, 0);
			show(y, 16, shown_label(u, a->sides[s].label), A_BOLD);
			show(y++, 46, a->sides[s].note ? a->sides[s].note : "", 0);
		}
		if (a->final.label)
			snprintf(buf, sizeof buf, "final: %s (%s, %s)", shown_label(u, a->final.label),
				 a->final.reviewer, a->final.decided_at);
		else
			snprintf(buf, sizeof buf, "final: not decided yet");
		show(++y, 2, buf, a->final.label ? A_BOLD : A_DIM);
		if (u->making) {
			snprintf(buf, sizeof buf, "final being made: %s (tag keys toggle, Enter "
				 "decides, Esc drops)", u->making[0] ? u->making : "(no tag yet)");
			show(++y, 2, buf, A_BOLD);
		}
	}
	/* the answers, wrapped on as many lines as they need above the actions' line */
	int lines = 1, top;
	for (int i = 0; i < u->ops->n_labels; i++) {
		snprintf(buf, sizeof buf, "%c %s  ", u->ops->keys[i], u->ops->shown[i]);
		if (x && x + width_cols(buf) > COLS)
			lines++, x = 0;
		x += width_cols(buf);
	}
	top = LINES - 1 - lines;
	show(top - 1, 0, u->status, 0);
	for (int i = 0, row = top; i < u->ops->n_labels; i++) {
		snprintf(buf, sizeof buf, "%c %s  ", u->ops->keys[i], u->ops->shown[i]);
		if (i == 0 || x + width_cols(buf) > COLS)
			x = i == 0 ? 0 : (row++, 0);
		x += show(row, x, buf, A_DIM);
	}
	x = 0;
	for (int i = 0; i < ACT_NONE; i++) {
		if (for_tags(i) && !u->ops->tags)
			continue;
		snprintf(buf, sizeof buf, "%s %s  ", keydefs[i].shown, keydefs[i].hint);
		x += show(LINES - 1, x, buf, A_DIM);
	}
	refresh();
}

static void set_status(struct ui *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(u->status, sizeof u->status, fmt, ap);
	va_end(ap);
}

/* decide: the final label lb for the current item; refused decisions write nothing. */
static enum err decide(struct ui *u, const char *lb)
{
	struct adjud_item *a = &u->items[u->cur];
	char why[512];
	enum err e = adjud_decide(u->l, a->item.id, u->reviewer, lb, NULL, why, sizeof why);
	if (e == ERR_INVALID) {
		set_status(u, "not decided: %s", why);
		return ERR_OK;
	}
	if (e != ERR_OK)
		return e;
	if (!a->final.label)
		u->decided++;
	free(a->final.label);
	free(a->final.reviewer);
	free(a->final.decided_at);
	a->final.label = strdup(lb);
	a->final.reviewer = strdup(u->reviewer);
	a->final.decided_at = strdup("now");
	if (!a->final.label || !a->final.reviewer || !a->final.decided_at)
		return ERR_NOMEM;
	set_status(u, "decided: item #%lld is %s", a->item.id, shown_label(u, lb));
	if (u->cur + 1 < u->n)
		u->cur++;
	return ERR_OK;
}

/* drop_making: leave the tags being made. */
static void drop_making(struct ui *u)
{
	free(u->making);
	u->making = NULL;
}

/* toggle: tag added to or taken off the final label being made. */
static enum err toggle(struct ui *u, const char *tag)
{
	char *now = labels_tag_toggle(u->task, u->making, tag);
	if (!now)
		return ERR_NOMEM;
	free(u->making);
	u->making = now;
	set_status(u, "final being made: %s", now[0] ? now : "(no tag yet)");
	return ERR_OK;
}

static enum err key(struct ui *u, wint_t ch, bool fkey)
{
	enum action act = ACT_NONE;
	enum err e;
	for (int i = 0; i < ACT_NONE; i++)
		if ((fkey || keydefs[i].key < KEY_MIN) && (!for_tags(i) || u->ops->tags) &&
		    ((int)ch == keydefs[i].key || (keydefs[i].key2 && (int)ch == keydefs[i].key2)))
			act = (enum action)i;
	if (fkey && (int)ch == KEY_ENTER && u->ops->tags)
		act = ACT_confirm;
	switch (act) {
	case ACT_next:
		drop_making(u);
		if (u->cur + 1 < u->n)
			u->cur++;
		return ERR_OK;
	case ACT_prev:
		drop_making(u);
		if (u->cur > 0)
			u->cur--;
		return ERR_OK;
	case ACT_tags:
		if (u->n && !u->making && !(u->making = strdup("")))
			return ERR_NOMEM;
		set_status(u, "final being made: press the tags' keys, then Enter");
		return ERR_OK;
	case ACT_confirm:
		if (!u->making)
			return ERR_OK;
		if (!u->making[0]) {
			set_status(u, "not decided: no tag yet");
			return ERR_OK;
		}
		e = decide(u, u->making);
		drop_making(u);
		return e;
	case ACT_drop:
		drop_making(u);
		set_status(u, "tags dropped: nothing decided");
		return ERR_OK;
	case ACT_quit:
		u->quit = true;
		return ERR_OK;
	case ACT_NONE:
		break;
	}
	for (int i = 0; !fkey && u->n && i < u->ops->n_labels; i++)
		if ((wint_t)u->ops->keys[i] == ch)
			return u->making ? toggle(u, u->ops->labels[i]) : decide(u, u->ops->labels[i]);
	return ERR_OK;
}

enum err adjudicate_run(struct labels *l, enum labels_task t, const char *reviewer,
			struct adjud_item *items, int n, char **errmsg)
{
	struct ui u = {.l = l, .task = t, .ops = task_ops(t), .reviewer = reviewer,
		       .items = items, .n = n};
	const char *why = NULL;
	enum err e;

	*errmsg = NULL;
	if (!u.ops)
		return ERR_INVALID;
	for (int i = 0; i < n; i++)
		u.decided += items[i].final.label != NULL;
	if ((e = term_open(NULL, 0, &why)) != ERR_OK) {
		*errmsg = strdup(e == ERR_IO ? "the adjudication screen needs a terminal (is TERM "
					       "set?); --list and --decide work without one" : why);
		return e;
	}
	set_status(&u, "the keys below decide the final label of the item shown");
	draw(&u);
	while (!u.quit && !term_signal()) {
		struct pollfd pf[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
				       {.fd = term_wake_fd(), .events = POLLIN}};
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[0].revents & (POLLHUP | POLLERR))
			break;
		if (term_pending() & TERM_QUIT)
			break;
		wint_t ch;
		int r;
		while (!u.quit && (r = get_wch(&ch)) != ERR)
			if ((e = key(&u, ch, r == KEY_CODE_YES)) != ERR_OK)
				goto out;
		draw(&u);
	}
	e = ERR_OK;
out:
	drop_making(&u);
	term_close();
	if (e != ERR_OK)
		*errmsg = strdup(e == ERR_NOMEM ? err_str(e) : labels_error(l));
	else
		printf("%s: %d of %d %s items in disagreement have a final label\n",
		       labels_path(l), u.decided, u.n, labels_task_name(t));
	return e;
}
