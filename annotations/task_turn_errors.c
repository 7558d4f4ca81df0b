/* task_turn_errors: which stage failed in this turn? One item per turn of a failed call,
 * or of a call whose final form or status is not what its corpus expects
 * (queue_turn_items), shown with its stage records and tagged from the taxonomy of
 * LABELS_TAGS, with an optional note. No judge decides these. */
#include <string.h>

#include "annotations/queue.h"
#include "annotations/task.h"

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
	{"caller said", offsetof(struct labels_item, transcript), true},
};

static void queue(struct queue_build *b, const struct task_call *c)
{
	if ((c->status && strcmp(c->status, "failed") == 0) ||
	    queue_call_wrong(b, c->corpus, c->call_id, c->form, c->status, c->data, c->form_status))
		queue_turn_items(b, c->id, c->corpus, c->call_id, c->status, c->reason);
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
	.empty = "no call failed or ended with a wrong form",
	.queue = queue,
};
