/* adjud: reviewers' final labels where annotators disagree (adjud.h). */
#include "adjud.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool adjud_disagree(const struct adjud_side *sides, int n)
{
	for (int i = 1; i < n; i++)
		if (strcmp(sides[i].label, sides[0].label) != 0)
			return true;
	return false;
}

enum err adjud_check(const struct adjud_side *sides, int n, const char *reviewer, char *why,
		     size_t wn)
{
	const char *own = NULL, *others = NULL;
	bool others_agree = true;

	if (!adjud_disagree(sides, n)) {
		if (n < 2)
			snprintf(why, wn, "only %d annotator labelled it: nothing to adjudicate", n);
		else
			snprintf(why, wn, "its %d annotators agree (%s): nothing to adjudicate", n,
				 sides[0].label);
		return ERR_INVALID;
	}
	for (int i = 0; i < n; i++) {
		if (reviewer && strcmp(sides[i].annotator, reviewer) == 0) {
			own = sides[i].label;
			continue;
		}
		if (!others)
			others = sides[i].label;
		else if (strcmp(others, sides[i].label) != 0)
			others_agree = false;
	}
	if (own && others && others_agree && strcmp(own, others) != 0) {
		snprintf(why, wn, "%s is the only one who said %s (everyone else said %s): a "
			 "reviewer may not settle a disagreement that is theirs alone; another "
			 "reviewer decides it", reviewer, own, others);
		return ERR_INVALID;
	}
	return ERR_OK;
}

#define FINAL(type, member) LABELS_COLUMN(type, struct adjud_final, member)
static const struct labels_column final_cols[] = {
	FINAL(LABELS_INT64, item), FINAL(LABELS_TEXT, label), FINAL(LABELS_TEXT, reviewer),
	FINAL(LABELS_TEXT, note), FINAL(LABELS_TEXT, decided_at),
};
#undef FINAL
static const struct labels_rows final_rows = LABELS_ROWS(struct adjud_final, final_cols);

void adjud_finals_free(struct adjud_final *v, int n)
{
	labels_rows_free(&final_rows, v, n);
}

#define SIDE(member) LABELS_COLUMN(LABELS_TEXT, struct adjud_side, member)
static const struct labels_column side_cols[] = {SIDE(annotator), SIDE(label), SIDE(note)};
#undef SIDE
static const struct labels_rows side_rows = LABELS_ROWS(struct adjud_side, side_cols);

/* a name list is an array of char * */
static const struct labels_column name_cols[] = {{LABELS_TEXT, 0}};
static const struct labels_rows name_rows = LABELS_ROWS(char *, name_cols);

enum err adjud_finals(struct labels *l, enum labels_task t, struct adjud_final **out, int *n)
{
	/* the latest decision per item: its highest row id */
	static const char sql[] =
		"SELECT a.item_id, a.label, a.reviewer, a.note, a.decided_at"
		" FROM ann_adjudications a JOIN ann_items i ON i.id = a.item_id"
		" WHERE i.task = ? AND a.id = (SELECT max(id) FROM ann_adjudications"
		" WHERE item_id = a.item_id) ORDER BY a.item_id";
	return labels_select_task(l, &final_rows, sql, t, "reading the final labels", (void **)out,
				  n);
}

const struct adjud_final *adjud_find(const struct adjud_final *v, int n, long long item)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (v[mid].item == item)
			return &v[mid];
		if (v[mid].item < item)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

void adjud_list_free(struct adjud_item *v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++) {
		labels_item_clear(&v[i].item);
		labels_rows_free(&side_rows, v[i].sides, v[i].n_sides);
		labels_row_clear(&final_rows, &v[i].final);
	}
	free(v);
}

/* dup_final: a copy of f (NULL: all fields NULL). */
static bool dup_final(struct adjud_final *d, const struct adjud_final *f)
{
	memset(d, 0, sizeof *d);
	if (!f)
		return true;
	d->item = f->item;
	d->label = f->label ? strdup(f->label) : NULL;
	d->reviewer = f->reviewer ? strdup(f->reviewer) : NULL;
	d->note = f->note ? strdup(f->note) : NULL;
	d->decided_at = f->decided_at ? strdup(f->decided_at) : NULL;
	return (!f->label || d->label) && (!f->reviewer || d->reviewer) &&
	       (!f->note || d->note) && (!f->decided_at || d->decided_at);
}

enum err adjud_list(struct labels *l, enum labels_task t, const char *annotator,
		    bool undecided_only, struct adjud_item **out, int *n)
{
	struct labels_item *items = NULL;
	struct labels_label *lb = NULL;
	struct adjud_final *fin = NULL;
	struct adjud_item *v = NULL;
	int n_items = 0, n_lb = 0, n_fin = 0, cnt = 0;
	enum err e;

	if ((e = labels_items(l, t, &items, &n_items)) != ERR_OK ||
	    (e = labels_all(l, t, &lb, &n_lb)) != ERR_OK ||
	    (e = adjud_finals(l, t, &fin, &n_fin)) != ERR_OK)
		goto out;
	/* items and labels both come by item id */
	for (int i = 0, j = 0; i < n_items && e == ERR_OK; i++) {
		int first;
		bool mine = !annotator;
		for (; j < n_lb && lb[j].item < items[i].id; j++)
			;
		first = j;
		for (; j < n_lb && lb[j].item == items[i].id; j++)
			if (annotator && strcmp(lb[j].annotator, annotator) == 0)
				mine = true;
		const struct adjud_final *f = adjud_find(fin, n_fin, items[i].id);
		if (!mine || (undecided_only && f))
			continue;
		struct adjud_side *s = calloc((size_t)(j - first) + 1, sizeof *s);
		if (!s) {
			e = ERR_NOMEM;
			break;
		}
		/* borrowed to test the disagreement, then moved in */
		for (int m = first; m < j; m++)
			s[m - first] = (struct adjud_side){lb[m].annotator, lb[m].label, lb[m].note};
		if (!adjud_disagree(s, j - first)) {
			free(s);
			continue;
		}
		struct adjud_item *nv = realloc(v, (size_t)(cnt + 1) * sizeof *nv);
		if (!nv) {
			free(s);
			e = ERR_NOMEM;
			break;
		}
		v = nv;
		struct adjud_item *a = &v[cnt++];
		memset(a, 0, sizeof *a);
		a->item = items[i];
		memset(&items[i], 0, sizeof items[i]);
		a->sides = s;
		a->n_sides = j - first;
		for (int m = first; m < j; m++) {
			lb[m].annotator = NULL;
			lb[m].label = NULL;
			lb[m].note = NULL;
		}
		if (!dup_final(&a->final, f))
			e = ERR_NOMEM;
	}
out:
	labels_items_free(items, n_items);
	labels_all_free(lb, n_lb);
	adjud_finals_free(fin, n_fin);
	if (e == ERR_OK) {
		*out = v;
		*n = cnt;
	} else {
		adjud_list_free(v, cnt);
	}
	return e;
}

/* item_sides: the task and labels of item, read inside the caller's transaction. */
static enum err item_sides(struct labels *l, long long item, enum labels_task *t,
			   struct adjud_side **out, int *n)
{
	sqlite3_stmt *q = NULL;
	int rc;
	enum err e;

	if (sqlite3_prepare_v2(labels_db(l), "SELECT task FROM ann_items WHERE id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		return labels_fail(l, "reading an item");
	sqlite3_bind_int64(q, 1, item);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		e = labels_task_parse((const char *)sqlite3_column_text(q, 0), t);
	else
		e = rc == SQLITE_DONE ? ERR_NOTFOUND : labels_fail(l, "reading an item");
	sqlite3_finalize(q);
	q = NULL;
	if (e != ERR_OK)
		return e;
	if (sqlite3_prepare_v2(labels_db(l),
			       "SELECT annotator, label, note FROM ann_labels WHERE item_id = ?"
			       " ORDER BY annotator", -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "reading the item's labels");
	sqlite3_bind_int64(q, 1, item);
	return labels_select(l, &side_rows, q, "reading the item's labels", (void **)out, n);
}

enum err adjud_decide(struct labels *l, long long item, const char *reviewer, const char *label,
		      const char *note, char *why, size_t wn)
{
	sqlite3 *db = labels_db(l);
	sqlite3_stmt *q = NULL;
	struct adjud_side *s = NULL;
	enum labels_task t;
	int n = 0;
	enum err e;

	why[0] = '\0';
	if (!reviewer || !reviewer[0]) {
		snprintf(why, wn, "a decision needs the reviewer's name");
		return ERR_INVALID;
	}
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		e = labels_fail(l, "recording a decision");
		snprintf(why, wn, "%s", labels_error(l));
		return e;
	}
	if ((e = item_sides(l, item, &t, &s, &n)) != ERR_OK) {
		if (e == ERR_NOTFOUND)
			snprintf(why, wn, "no item %lld", item);
		else if (e == ERR_DB)
			snprintf(why, wn, "%s", labels_error(l));
		goto out;
	}
	if (!labels_valid(t, label)) {
		snprintf(why, wn, "'%s' is not a %s label", label ? label : "",
			 labels_task_name(t));
		e = ERR_INVALID;
		goto out;
	}
	if ((e = adjud_check(s, n, reviewer, why, wn)) != ERR_OK)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT INTO ann_adjudications (item_id, reviewer, label, note)"
			       " VALUES (?,?,?,?)", -1, &q, NULL) != SQLITE_OK) {
		e = labels_fail(l, "recording a decision");
		goto out;
	}
	sqlite3_bind_int64(q, 1, item);
	sqlite3_bind_text(q, 2, reviewer, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, label, -1, SQLITE_STATIC);
	if (note && note[0])
		sqlite3_bind_text(q, 4, note, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 4);
	if (sqlite3_step(q) != SQLITE_DONE ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		e = labels_fail(l, "recording a decision");
		goto out;
	}
	e = ERR_OK;
out:
	if (e == ERR_DB && !why[0])
		snprintf(why, wn, "%s", labels_error(l));
	sqlite3_finalize(q);
	if (e != ERR_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	labels_rows_free(&side_rows, s, n);
	return e;
}

enum err adjud_annotators(struct labels *l, enum labels_task t, char ***names, int *n)
{
	static const char sql[] =
		"SELECT DISTINCT l.annotator FROM ann_labels l JOIN ann_items i ON i.id = l.item_id"
		" WHERE ?1 IS NULL OR i.task = ?1 ORDER BY l.annotator";
	return labels_select_task(l, &name_rows, sql, t, "reading the annotators", (void **)names, n);
}

enum err adjud_known(struct labels *l, enum labels_task t, const char *who, char *why,
		     size_t wn)
{
	char **names = NULL;
	int n = 0;
	bool found = false;
	enum err e = adjud_annotators(l, t, &names, &n);
	if (e != ERR_OK)
		return e;
	for (int i = 0; i < n; i++)
		found |= strcmp(names[i], who) == 0;
	if (!found) {
		size_t w = (size_t)snprintf(why, wn, "no %s%slabels by '%s' (annotators:",
					    t < LABELS_NTASKS ? labels_task_name(t) : "",
					    t < LABELS_NTASKS ? " " : "", who);
		for (int i = 0; i < n && w < wn; i++)
			w += (size_t)snprintf(why + w, wn - w, "%s %s", i ? "," : "", names[i]);
		if (w < wn)
			snprintf(why + w, wn - w, "%s)", n ? "" : " none");
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return found ? ERR_OK : ERR_NOTFOUND;
}

enum err adjud_label_counts(struct labels *l, long counts[LABELS_NTASKS])
{
	static const char sql[] = "SELECT i.task, count(*) FROM ann_labels l"
				  " JOIN ann_items i ON i.id = l.item_id GROUP BY i.task";
	sqlite3_stmt *q = NULL;
	int rc;

	memset(counts, 0, LABELS_NTASKS * sizeof counts[0]);
	if (sqlite3_prepare_v2(labels_db(l), sql, -1, &q, NULL) != SQLITE_OK)
		return labels_fail(l, "counting the labels");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		enum labels_task t;
		if (labels_task_parse((const char *)sqlite3_column_text(q, 0), &t) == ERR_OK)
			counts[t] = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? ERR_OK : labels_fail(l, "counting the labels");
}
