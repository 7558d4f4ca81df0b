/* adjud: adjudication. Where an item's annotators disagree, a reviewer decides its final
 * label; calibration then takes that label as the item's truth (calib.h) and export writes
 * it beside every annotator's (export.h).
 *
 * Table ann_adjudications (a migration of the annotation tables, labels.c): one row per
 * decision: item, reviewer, label, note, decided_at (UTC, ISO 8601). A decision made again
 * adds a row, so what was decided, by whom and when is kept; the item's final label is
 * its latest decision (the highest row id).
 *
 * Which items: those with two or more labels that are not all the same (a disagreement).
 * An item whose annotators agree, or that only one annotator labelled, is not adjudicated.
 *
 * The reviewer's own labels (the rule, docs/annotation.md "Adjudication"): a reviewer may
 * have labelled the item. They may not decide it when the disagreement is theirs alone:
 * every other annotator gave one and the same label and the reviewer's differs, so
 * deciding would be overruling everyone else with their own vote (with two annotators,
 * one of them the reviewer, that is always so). When the others disagree among
 * themselves, the reviewer's own label is one side among several and they may decide. */
#ifndef FORMDESK_ADJUD_H
#define FORMDESK_ADJUD_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "labels.h"

/* The migration that creates the table (the annotation tables' version 3, labels.c). */
#define ADJUD_SCHEMA \
	"CREATE TABLE IF NOT EXISTS ann_adjudications (" \
	" id INTEGER PRIMARY KEY," \
	" item_id INTEGER NOT NULL REFERENCES ann_items(id) ON DELETE CASCADE," \
	" reviewer TEXT NOT NULL, label TEXT NOT NULL, note TEXT," \
	" decided_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));" \
	"CREATE INDEX IF NOT EXISTS ann_adjudications_item ON ann_adjudications(item_id, id);"

/* One annotator's label on an item (borrowed strings in adjud_check; owned in
 * struct adjud_item). note may be NULL. */
struct adjud_side {
	char *annotator, *label, *note;
};

/* An item's final label: its latest decision. Strings owned; all NULL when undecided. */
struct adjud_final {
	long long item;
	char *label, *reviewer, *note, *decided_at;
};

/* An item in disagreement, with every annotator's label (by annotator name). */
struct adjud_item {
	struct labels_item item;
	struct adjud_side *sides;
	int n_sides;
	struct adjud_final final;
};

/* adjud_disagree: whether the n sides hold two or more labels that are not all equal. */
bool adjud_disagree(const struct adjud_side *sides, int n);

/* adjud_check: whether reviewer may decide an item whose labels are sides (n of them), by
 * the rule above. Output: why (size wn) the reason when not. Returns ERR_OK, or
 * ERR_INVALID (no disagreement; the disagreement is the reviewer's own alone). */
enum err adjud_check(const struct adjud_side *sides, int n, const char *reviewer, char *why,
		     size_t wn);

/* adjud_list: task t's items in disagreement, by id, with their labels and final label.
 * annotator: only items this annotator labelled (NULL: all). undecided_only: leave out the
 * items already decided. Output: *out, *n (caller frees with adjud_list_free). Errors:
 * ERR_DB, ERR_NOMEM. */
enum err adjud_list(struct labels *l, enum labels_task t, const char *annotator,
		    bool undecided_only, struct adjud_item **out, int *n);
void adjud_list_free(struct adjud_item *v, int n);

/* adjud_decide: record reviewer's final label (and note, may be NULL) on item, after
 * adjud_check, in one IMMEDIATE transaction (nothing is written when it fails). Output:
 * why (size wn) what is wrong. Errors: ERR_NOTFOUND (no such item), ERR_INVALID (an empty
 * reviewer, a label the item's task does not have, the check refused), ERR_DB, ERR_NOMEM. */
enum err adjud_decide(struct labels *l, long long item, const char *reviewer, const char *label,
		      const char *note, char *why, size_t wn);

/* adjud_finals: the final label of every decided item of task t, by item id. Output:
 * *out, *n (caller frees with adjud_finals_free). Errors: ERR_DB, ERR_NOMEM. */
enum err adjud_finals(struct labels *l, enum labels_task t, struct adjud_final **out, int *n);
void adjud_finals_free(struct adjud_final *v, int n);
/* adjud_find: the final of item in v (n of them, by item id, as adjud_finals gives them);
 * NULL when undecided (borrowed). */
const struct adjud_final *adjud_find(const struct adjud_final *v, int n, long long item);

/* adjud_annotators: the names of everyone who labelled an item of task t (every task when
 * t is LABELS_NTASKS), sorted. Output: *names, *n (caller frees each and the array).
 * Errors: ERR_DB, ERR_NOMEM. */
enum err adjud_annotators(struct labels *l, enum labels_task t, char ***names, int *n);

/* adjud_known: whether who labelled an item of task t (every task when t is
 * LABELS_NTASKS). Output: why (size wn) when not: "no labels by 'who' (annotators: ...)".
 * Errors: ERR_NOTFOUND (not an annotator there), ERR_DB, ERR_NOMEM. */
enum err adjud_known(struct labels *l, enum labels_task t, const char *who, char *why,
		     size_t wn);

/* adjud_label_counts: how many labels each task holds. Output: counts[LABELS_NTASKS].
 * Errors: ERR_DB. */
enum err adjud_label_counts(struct labels *l, long counts[LABELS_NTASKS]);

#endif
