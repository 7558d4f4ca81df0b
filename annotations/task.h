/* task: a labelling task as one table of what differs between tasks (tig's view_ops is
 * the model): its answers and their keys, how its queue is drawn from the recorded calls,
 * how an item is shown, and how it is calibrated against judges. Each task is one file,
 * annotations/task_<name>.c, filling one struct task_ops, named in LABELS_TASKS
 * (labels.h); the screen (tui/annotate.c) and the commands (annotate, calibrate, export)
 * loop over the table and never ask which task it is.
 *
 * A new task: one LABELS_TASKS row and one task file. */
#ifndef FORMDESK_TASK_H
#define FORMDESK_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "labels.h"

struct queue_build;

/* One recorded call as the queue hands it to a task (columns of the session store's
 * calls table; borrowed, each may be NULL). */
struct task_call {
	long long id;             /* calls.id */
	const char *corpus;       /* the corpus's name */
	const char *call_id;      /* the corpus's call id */
	const char *form;         /* the form's path */
	const char *status, *reason;
	const char *data;         /* final form_data, JSON text */
	const char *form_status;  /* final form_status, JSON text */
	const char *opening;      /* the agent's first words */
};

/* One line of an item on the screen: a caption and the item's string at offset (a
 * char * member of struct labels_item). caption NULL: an empty line. */
struct task_row {
	const char *caption;
	size_t offset;
	bool bold;
	bool scripts;   /* a name: shown in Latin and Devanagari letters both */
};

struct task_ops {
	/* The answers, in the order they are listed: stored label, words shown, key that
	 * gives it on the screen, what the help says of it. n_labels of each. */
	const char *const *labels;
	const char *const *shown;
	const char *keys;
	const char *const *help;
	int n_labels;
	/* true: the answers are a taxonomy, listed under the item and tagged by key, with
	 * a note (turn-errors); false: a same / different / unsure choice on the key line. */
	bool tags;
	/* The item on the screen: rows, then the question (may be NULL), then, when
	 * stages is set, the turn's stage records (labels_item.context). */
	const struct task_row *rows;
	int n_rows;
	const char *question;
	bool stages;
	const char *start_hint; /* the status line when the screen opens */
	const char *empty;      /* why a queue is empty, after "nothing to label for T: " */
	/* Calibration: whether judges decide its items and are compared with the
	 * annotators (calibrate), and whether --llm may judge them. judge, when set, runs
	 * the deterministic judge over the stored items before calibrating (ERR_DB, ERR_NOMEM). */
	bool judged;
	bool llm;
	enum err (*judge)(struct labels *l);
	/* queue: add the items this task draws from one recorded call to b, through the
	 * item makers of queue.h. */
	void (*queue)(struct queue_build *b, const struct task_call *c);
};

/* The answers of a task that chooses same / different / unsure (keys a, x, u), for its
 * table's initializer: TASK_CHOICE(what the help says of each of the three). */
extern const char *const task_choice[3];
#define TASK_CHOICE(help_words) \
	.labels = task_choice, .shown = task_choice, .keys = "axu", .help = (help_words), \
	.n_labels = 3, .start_hint = "a same · x different · u unsure · ? help"

/* task_ops: the table of task t (static; NULL for a value outside LABELS_TASKS). */
const struct task_ops *task_ops(enum labels_task t);

#endif
