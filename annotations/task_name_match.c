/* task_name_match: is the captured value the same name as the expected one ("Laxmi" and
 * "लक्ष्मी")? One item per open-text field of a call of a corpus with expected forms
 * (queue_field_items); answered same / different / unsure; decided by the deterministic
 * name judge and, on request, a language model, and calibrated against them. */
#include "judges.h"
#include "queue.h"
#include "task.h"

static const char *const help[] = {"same", "different", "unsure"};

static const struct task_row rows[] = {
	{"expected", offsetof(struct labels_item, expected), true, true},
	{"captured", offsetof(struct labels_item, captured), true, true},
	{NULL, 0, false, false},
	{"caller said", offsetof(struct labels_item, transcript), false, false},
};

static void queue(struct queue_build *b, const struct task_call *c)
{
	/* a live call (no corpus) too: its captured names, without an expected one */
	if ((c->call_id || !c->corpus) && c->data)
		queue_field_items(b, c->id, c->corpus, c->call_id, c->form, c->data);
}

static enum err judge(struct labels *l)
{
	return judges_run_namematch(l, NULL);
}

const struct task_ops task_name_match = {
	TASK_CHOICE(help),
	.rows = rows,
	.n_rows = (int)(sizeof rows / sizeof rows[0]),
	.empty = "no call of a corpus with expected forms has a captured string field",
	.judged = true,
	.llm = true,
	.judge = judge,
	.queue = queue,
};
