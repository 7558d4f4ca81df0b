/* turncol: the registry of derived turn columns: columns of the store's `turns` table whose
 * value follows from what the engine hands the store for a turn (struct store_turn: the
 * transcript, the extraction, the decision as a struct and as JSON, the verdicts in it, the
 * timings, the latency, barge-in, how the words came in, ...). Each is one row: its name,
 * SQL type, the label the screens show it under (NULL: not shown generically), and one
 * function computing its value from the turn. From the row alone the store declares the
 * column in a new file, adds it to an older file that lacks it, binds it when a turn is
 * written and reads it back (store_turn_row.cols, store_turn_col); the call view
 * (tui/callview.c) and review (tui/review.c) show every shown column.
 *
 * So a new turn column whose value the engine already knows is one row of turncol.c's
 * table plus its function, in this folder. A column holding something the engine does not
 * hand over yet needs that added to struct store_turn and set in sessions/calls/engine.c
 * first. */
#ifndef FORMDESK_TURNCOL_H
#define FORMDESK_TURNCOL_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

struct store_turn;

/* How many columns can be registered, built in and added at run time together. */
#define TURNCOL_MAX 16

/* A column's SQL type; every registered column is nullable, with no default. */
enum turncol_type {
	TURNCOL_INTEGER,
	TURNCOL_REAL,
	TURNCOL_TEXT,
};

/* One value of a column: for a turn being written (computed), or read back. */
struct turncol_value {
	bool set;    /* false: NULL */
	long long i; /* TURNCOL_INTEGER */
	double r;    /* TURNCOL_REAL */
	char *s;     /* TURNCOL_TEXT: owned by the value (turncol_value_clear frees it) */
};

/* The value of a column for turn t (as handed to store_turn_add; what the engine knows
 * about it). Output: *v, zeroed before the call (left so: NULL). Errors: ERR_NOMEM (the
 * turn is then not written); any other error is also the turn's. */
typedef enum err (*turncol_fn)(const struct store_turn *t, struct turncol_value *v);

struct turncol {
	const char *name;       /* the column in turns: [a-z_][a-z0-9_]*, static */
	enum turncol_type type;
	const char *label;      /* what the screens call it (static); NULL: not shown by the
	                           generic rendering (a column with a view of its own) */
	turncol_fn value;
};

/* turncol_count: the registered columns, built-in ones first, then those added by
 * turncol_register in the order added. turncol_at: the i-th (0 <= i < turncol_count),
 * static. turncol_find: the index of the column called name, -1 when none is. */
int turncol_count(void);
const struct turncol *turncol_at(int i);
int turncol_find(const char *name);

/* turncol_register: add column c (copied; its strings must stay valid) after the built-in
 * ones: for a program or a test that has a column of its own. Call it before any store is
 * opened: a store adds the registered columns a file lacks when it opens it
 * (store_open_with), and writes them with every turn after that. Not thread-safe (call it
 * at start-up). Errors: ERR_INVALID (no name or function, a name that is not an SQL
 * identifier of [a-z_][a-z0-9_]*, or one registered already), ERR_UNSUPPORTED (TURNCOL_MAX
 * columns registered already). */
enum err turncol_register(const struct turncol *c);

/* turncol_sql_type: "INTEGER", "REAL" or "TEXT" (static). */
const char *turncol_sql_type(enum turncol_type type);

/* turncol_compute: column c's value for turn t into *v (zeroed first; caller clears it
 * with turncol_value_clear). Errors: as c's function. */
enum err turncol_compute(const struct turncol *c, const struct store_turn *t,
			 struct turncol_value *v);

/* turncol_shown: "LABEL VALUE" for every registered column with a label, computed from
 * turn t, joined by two spaces, into buf (size n > 0, truncated to fit; "" when there is
 * none); a column whose function fails (out of memory) is left out. For a screen that
 * shows the turn before or without reading it back from the store. */
void turncol_shown(const struct store_turn *t, char *buf, size_t n);

/* turncol_value_clear: free what v owns and zero it (NULL does nothing). */
void turncol_value_clear(struct turncol_value *v);

/* turncol_format: v as the screens show it (integers in decimal, reals with %g, text as
 * is, "" for NULL) into buf (size n > 0, truncated to fit). Returns buf. */
const char *turncol_format(const struct turncol *c, const struct turncol_value *v, char *buf,
			   size_t n);

#endif
