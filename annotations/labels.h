/* labels: the annotation desk's storage, in its own tables of the session database (the
 * file `formdesk run` writes), opened the store's one way (store_open_with: WAL, a busy
 * timeout, the schema-version policy) with synchronous=FULL, so several annotators, each
 * in their own process, can label the same file at once: every label is one transaction,
 * committed before the screen moves on, so neither a crash nor a second annotator can
 * lose it. The recorded calls are read with the store's readers (labels_store).
 *
 * Tables (version LABELS_SCHEMA_VERSION, kept in ann_meta, never in the session store's
 * own PRAGMA user_version):
 *   ann_items      one row per thing to label: its task, its identity (key, unique per
 *                  task), the call and turn of the session store it was drawn from, and
 *                  what the annotator is shown (expected, captured, transcript, audio,
 *                  stage records as JSON). Kept as shown, so labels keep their meaning
 *                  after the calls are run again.
 *   ann_labels     one row per item and annotator: the label, an optional note, when it
 *                  was first made and last changed (UTC, ISO 8601).
 *   ann_judgements one row per item, judge and prompt version: the judge's decision
 *                  (the cache of judges.h).
 *   ann_flags      (version 2) one row per item and annotator who flagged it for review,
 *                  with an optional note.
 *   ann_adjudications (version 3) one row per reviewer's decision (adjud.h). */
#ifndef FORMDESK_LABELS_H
#define FORMDESK_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>
#include "base/err.h"
#include "sessions/store/store.h"

#define LABELS_SCHEMA_VERSION 3

/* The labelling tasks: X(enum value, name on the command line and in the tables, its
 * table of struct task_ops, filled in its own file annotations/task_<name>.c). */
#define LABELS_TASKS(X) \
	X(LABELS_NAME_MATCH, "name-match", task_name_match) \
	X(LABELS_TURN_ERRORS, "turn-errors", task_turn_errors) \
	X(LABELS_STT, "stt", task_stt)

enum labels_task {
#define X(e, name, ops) e,
	LABELS_TASKS(X)
#undef X
	LABELS_NTASKS
};

/* The answers of the name-match and stt tasks (stt: "same" = the transcript says what the
 * caller said, in meaning). */
#define LABELS_SAME "same"
#define LABELS_DIFFERENT "different"
#define LABELS_UNSURE "unsure"

/* The turn-errors taxonomy (issue 6), in the order the screen lists it:
 * X(label stored, words shown). */
#define LABELS_TAGS(X) \
	X("stt_error", "STT error") \
	X("endpointing_cutoff", "endpointing cut-off") \
	X("extraction_missed", "extraction missed") \
	X("extraction_invented", "extraction invented") \
	X("wrong_option", "wrong option") \
	X("validator_wrongly_rejected", "validator wrongly rejected") \
	X("validator_wrongly_accepted", "validator wrongly accepted") \
	X("wrong_branch", "wrong branch") \
	X("answered_field_asked_again", "answered field asked again") \
	X("reply_wording", "reply wording") \
	X("bargein_mishandled", "barge-in mishandled") \
	X("none", "none")

/* labels_task_name: the task's name (static string); "?" for an unknown value. */
const char *labels_task_name(enum labels_task t);
/* labels_task_parse: the task named s. Output: *t. Errors: ERR_NOTFOUND. */
enum err labels_task_parse(const char *s, enum labels_task *t);
/* A turn where more than one stage failed carries more than one tag: the label of a task
 * answered with tags (task_ops.tags) is one tag or several joined by this character, each
 * once, in the taxonomy's order ("stt_error,extraction_missed"). */
#define LABELS_TAG_SEP ','

/* labels_valid: whether label is an answer task t accepts (its task_ops labels; for a
 * task answered with tags, one or more of them as LABELS_TAG_SEP says). */
bool labels_valid(enum labels_task t, const char *label);
/* labels_has_tag: whether label (one tag or several, LABELS_TAG_SEP) holds tag; false for
 * NULL. For counting a tag over labels that may carry several. */
bool labels_has_tag(const char *label, const char *tag);
/* labels_tag_toggle: label (may be NULL: no tag yet) with tag added, or removed when it
 * holds it, in the taxonomy's order. Output: a new string (caller frees; "" when the last
 * tag was removed); NULL when t is not answered with tags, tag is not one of its answers,
 * or memory ran out. */
char *labels_tag_toggle(enum labels_task t, const char *label, const char *tag);

/* One thing to label. Every string is owned by the item (labels_item_clear frees them)
 * and may be NULL. */
struct labels_item {
	long long id;             /* row id in ann_items; 0 before it is stored */
	enum labels_task task;
	char *key;                /* identity within the task (e.g. "call 12 field name") */
	long long call_id;        /* calls.id of the session store, 0 when none */
	long long turn_id;        /* turns.id, 0 when none */
	int turn;                 /* turns.idx, 0 when none */
	char *corpus, *corpus_call_id;
	char *field;              /* the form field (name-match) */
	char *expected;           /* name-match: the expected value; stt: reference transcript */
	char *captured;           /* name-match: the captured value; stt: the STT transcript */
	char *transcript;         /* the caller's words in that turn */
	char *audio;              /* audio file of the turn, absolute path */
	char *context;            /* JSON text: the turn's stage records (turn-errors) */
};
void labels_item_clear(struct labels_item *it);
/* labels_items_free: clear each of the n items of v and free v; NULL does nothing. */
void labels_items_free(struct labels_item *v, int n);

struct labels;

/* labels_open: open the database at path (it must exist and hold the session store's
 * tables; older ones are migrated) and create or migrate the annotation tables. Output:
 * *out (caller frees with labels_close); on failure *errmsg (caller frees; may be NULL)
 * names the file and what is wrong. Errors: ERR_NOTFOUND (no such file, or no store
 * tables in it), ERR_DB (SQLite failed, or the store's or the annotation tables are from
 * a newer formdesk), ERR_NOMEM. */
enum err labels_open(const char *path, struct labels **out, char **errmsg);
/* labels_close: close l; NULL does nothing. */
void labels_close(struct labels *l);
/* labels_error: the message of the last failure on l (valid until the next call). */
const char *labels_error(const struct labels *l);
/* labels_store: the session store of l's file, for reading its calls (borrowed). */
struct store *labels_store(struct labels *l);
/* labels_db: the connection, for the other annotation modules' own tables (borrowed). */
sqlite3 *labels_db(struct labels *l);
/* labels_path: the database file's path (borrowed). */
const char *labels_path(const struct labels *l);
/* labels_fail: record "FILE: what: SQLite's message" as l's last error; returns ERR_DB. */
enum err labels_fail(struct labels *l, const char *what);
/* labels_fail_store: record the store's last message (a reader failed) as l's last
 * error; returns ERR_DB. */
enum err labels_fail_store(struct labels *l);

/* Reading the annotation tables: a kind of row is its struct's size and, in the order a
 * SELECT gives them, where each column goes, so that one loop (labels_select) reads every
 * list and one function (labels_rows_free) frees it. A text member is owned by the row. */
enum labels_type { LABELS_TEXT, LABELS_INT64, LABELS_INT };
struct labels_column {
	enum labels_type type;
	size_t off;                  /* offsetof the member (char *, long long, int) */
};
struct labels_rows {
	size_t size;                 /* bytes of one row struct */
	const struct labels_column *cols;
	int n_cols;
};
#define LABELS_COLUMN(type, st, member) {(type), offsetof(st, member)}
/* LABELS_ROWS: the kind of rows of struct type st whose columns are the array cols. */
#define LABELS_ROWS(st, cols) {sizeof(st), (cols), (int)(sizeof(cols) / sizeof((cols)[0]))}
/* labels_row_clear: free the text members of row, of kind k. */
void labels_row_clear(const struct labels_rows *k, void *row);
/* labels_col: a copy of q's column i (caller frees), NULL for SQL NULL; *bad set when the
 * copy fails. */
char *labels_col(sqlite3_stmt *q, int i, bool *bad);
/* labels_select: step q (prepared and bound by the caller; finalized here, also on
 * failure) to its end, one row of kind k per result row; what names the read for l's
 * error. Output: *out (an array of *n rows, caller frees with labels_rows_free; NULL when
 * *n is 0). Errors: ERR_DB (l's error says why), ERR_NOMEM. */
enum err labels_select(struct labels *l, const struct labels_rows *k, sqlite3_stmt *q,
		       const char *what, void **out, int *n);
/* labels_select_task: labels_select on sql, prepared here with task t's name bound as
 * parameter 1 (left NULL when t is LABELS_NTASKS: every task). Errors: as
 * labels_select. */
enum err labels_select_task(struct labels *l, const struct labels_rows *k, const char *sql,
			    enum labels_task t, const char *what, void **out, int *n);
/* labels_rows_free: clear each of the n rows of kind k in v and free v; NULL does nothing. */
void labels_rows_free(const struct labels_rows *k, void *v, int n);

/* labels_items_add: store the n items of v that are not stored yet (same task and key),
 * in one transaction; items already there keep their row and what they showed. Output:
 * v[i].id set for every item. Errors: ERR_DB. */
enum err labels_items_add(struct labels *l, struct labels_item *v, int n);
/* labels_items: every stored item of task t, by id. Output: *out, *n (caller frees with
 * labels_items_free; *out may be NULL when *n is 0). Errors: ERR_DB, ERR_NOMEM. */
enum err labels_items(struct labels *l, enum labels_task t, struct labels_item **out, int *n);

/* labels_put: set annotator's label (and note, may be NULL) on item, replacing one they
 * made before, in one transaction (committed when it returns ERR_OK). The label must be
 * one task t accepts. Errors: ERR_INVALID (bad label or empty annotator), ERR_NOTFOUND
 * (no such item), ERR_DB. */
enum err labels_put(struct labels *l, long long item, const char *annotator, const char *label,
		    const char *note);
/* labels_put_many: the same label (and note) by annotator on each of the n items (a
 * group of identical items labelled once): one row per item, so every figure that counts
 * labels counts the group's label once per member item. One transaction: all or none.
 * Errors: ERR_INVALID (bad label or empty annotator, items of different tasks),
 * ERR_NOTFOUND (no such item; nothing written), ERR_DB. */
enum err labels_put_many(struct labels *l, const long long *items, int n, const char *annotator,
			 const char *label, const char *note);
/* labels_flag: set (on) or clear annotator's flag "for review" on item, with note (may be
 * NULL), in one transaction. Clearing a flag that is not there is not an error. Errors:
 * ERR_INVALID (empty annotator), ERR_NOTFOUND (no such item), ERR_DB. */
enum err labels_flag(struct labels *l, long long item, const char *annotator, bool on,
		     const char *note);
/* labels_flagged: whether annotator flagged item. Output: *on. Errors: ERR_DB. */
enum err labels_flagged(struct labels *l, long long item, const char *annotator, bool *on);
/* labels_remove: delete annotator's label on item (undo). Removing a label that does not
 * exist is not an error. Errors: ERR_DB. */
enum err labels_remove(struct labels *l, long long item, const char *annotator);
/* labels_get: annotator's label on item. Output: *label and *note (caller frees; *note
 * NULL when none; either pointer may be NULL to ignore). Errors: ERR_NOTFOUND (no label),
 * ERR_DB, ERR_NOMEM. */
enum err labels_get(struct labels *l, long long item, const char *annotator, char **label,
		    char **note);

/* One stored label. Strings owned by the label. */
struct labels_label {
	long long id, item;
	char *annotator, *label, *note, *created_at, *updated_at;
};
/* labels_all: every label of task t, by item then annotator. Output: *out, *n (caller
 * frees with labels_all_free). Errors: ERR_DB, ERR_NOMEM. */
enum err labels_all(struct labels *l, enum labels_task t, struct labels_label **out, int *n);
void labels_all_free(struct labels_label *v, int n);

#endif
