/* task_stt: does what STT heard say what the caller said, in meaning? One item per caller
 * turn whose transcript differs from the corpus's reference (queue_stt_items); answered
 * same / different / unsure. */
#include "queue.h"
#include "task.h"

static const char *const help[] = {"same: the transcript is right in meaning",
				   "different: the transcript is wrong in meaning", "unsure"};

static const struct task_row rows[] = {
	{"reference", offsetof(struct labels_item, expected), true, false},
	{"STT heard", offsetof(struct labels_item, captured), true, false},
	{NULL, 0, false, false},
};

static void queue(struct queue_build *b, const struct task_call *c)
{
	if (c->call_id || !c->corpus)
		queue_stt_items(b, c->id, c->corpus, c->call_id);
}

const struct task_ops task_stt = {
	TASK_CHOICE(help),
	.rows = rows,
	.n_rows = (int)(sizeof rows / sizeof rows[0]),
	.question = "Is what STT heard right in meaning?",
	.empty = "no turn's transcript differs from its reference",
	.judged = true,
	.queue = queue,
};
