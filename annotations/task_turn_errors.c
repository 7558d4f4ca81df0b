/* task_turn_errors: which stage failed in this turn? One item per turn of a call that
 * did not end as its corpus expects, or of a live call (queue_turn_items), shown with
 * what the caller was answering and its stage records and tagged from the taxonomy of
 * LABELS_TAGS (one tag or several), with an optional note. No judge decides these. */
#include <string.h>

#include "queue.h"
#include "task.h"

static const char *const labels[] = {
#define X(label, shown) label,
	LABELS_TAGS(X)
#undef X
};
static const char *const shown[] = {
#define X(label, shown) shown,
	LABELS_TAGS(X)
#undef X
};
#define N_TAGS ((int)(sizeof labels / sizeof labels[0]))

/* The tags' keys, in LABELS_TAGS order. */
static const char keys[] = "1234567890bn";
_Static_assert(sizeof keys - 1 == sizeof labels / sizeof labels[0], "one key per tag");

static const struct task_row rows[] = {
	{"caller said", offsetof(struct labels_item, transcript), true, false},
	{"expected", offsetof(struct labels_item, expected), false, false},
};

/* A call is queued when it went wrong: against its corpus's expectation (status, form)
 * when the corpus gives one, so a call that ends as expected, failed or not, is left out;
 * failed when there is none. A call abandoned by the operator (quitting, hanging up) is
 * no failure of the agent. A live call (no corpus) has nothing to compare with: every
 * turn of it is queued, for a person to say what went wrong, if anything. */
static void queue(struct queue_build *b, const struct task_call *c)
{
	bool failed = c->status && strcmp(c->status, "failed") == 0;
	int wrong;

	if (queue_abandoned(c->reason))
		return;
	if (!c->corpus) {
		queue_turn_items(b, c);
		return;
	}
	wrong = queue_call_expectation(b, c->corpus, c->call_id, c->form, c->status, c->data,
				       c->form_status);
	if (wrong > 0 || (wrong < 0 && failed))
		queue_turn_items(b, c);
}

const struct task_ops task_turn_errors = {
	.labels = labels,
	.shown = shown,
	.keys = keys,
	.help = shown,
	.n_labels = N_TAGS,
	.tags = true,
	.rows = rows,
	.n_rows = (int)(sizeof rows / sizeof rows[0]),
	.stages = true,
	.start_hint = "1-0, b, n: tag the stage that failed · e note · ? help",
	.empty = "no call failed or ended otherwise than its corpus expects",
	.queue = queue,
};
