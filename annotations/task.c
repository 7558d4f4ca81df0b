/* task: the table of every labelling task (task.h), from LABELS_TASKS. */
#include "task.h"

#define X(e, name, ops) extern const struct task_ops ops;
LABELS_TASKS(X)
#undef X

static const struct task_ops *const tasks[LABELS_NTASKS] = {
#define X(e, name, ops) [e] = &ops,
	LABELS_TASKS(X)
#undef X
};

const char *const task_choice[3] = {LABELS_SAME, LABELS_DIFFERENT, LABELS_UNSURE};

const struct task_ops *task_ops(enum labels_task t)
{
	return (unsigned)t < LABELS_NTASKS ? tasks[t] : NULL;
}
