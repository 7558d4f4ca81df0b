/* annotate: the labelling desk.
 *
 * formdesk annotate --db FILE --task name-match|turn-errors|stt --annotator NAME
 *                   [--corpus DIR|demo|respin]
 *
 * Draws the task's items from the calls recorded in FILE (annotations/queue.h), then
 * opens the labelling screen (tui/annotate.h). --corpus names the folder of the calls'
 * corpus when its name alone does not find it. stderr: calls passed over and why.
 * Exit status: 0 done (also when there is nothing to label, which it says); 2 bad usage,
 * a database that cannot be opened, or a label that could not be saved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/opts.h"
#include "annotations/labels.h"
#include "annotations/queue.h"
#include "annotations/task.h"
#include "tui/annotate.h"
#include "tui/term.h"

struct annotate_opts {
	const char *db, *task, *annotator, *corpus;
};

static const struct opts_spec annotate_spec[] = {
	{"db", OPTS_STRING, offsetof(struct annotate_opts, db), "FILE",
	 "the database of recorded calls; labels are kept in it", OPTS_REQUIRED, 0, 0, NULL},
	{"task", OPTS_STRING, offsetof(struct annotate_opts, task), "name-match|turn-errors|stt",
	 "what to label", OPTS_REQUIRED, 0, 0, NULL},
	{"annotator", OPTS_STRING, offsetof(struct annotate_opts, annotator), "NAME",
	 "who labels (1 to 64 bytes)", OPTS_REQUIRED, 0, 0, NULL},
	{"corpus", OPTS_STRING, offsetof(struct annotate_opts, corpus), "DIR|demo|respin",
	 "the calls' corpus, when its name alone does not find it", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_annotate_opts = {
	.name = "annotate", .spec = annotate_spec, .n = OPTS_N(annotate_spec),
};

/* name_ok: an annotator's name: not empty, no control characters, at most 64 bytes. */
static bool name_ok(const char *s)
{
	if (!s || !s[0] || strlen(s) > 64)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o = {0};
	struct labels *l = NULL;
	enum labels_task t;
	char *msg = NULL, *notes = NULL;
	int added = 0, rc = 2;
	enum err e;

	enum opts_result parsed = opts_parse(&cmd_annotate_opts, argc, argv, &o, NULL, NULL, NULL);
	if (parsed != OPTS_OK)
		return parsed == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *task = o.task, *who = o.annotator, *corpus = o.corpus;
	if (labels_task_parse(task, &t) != ERR_OK) {
		fprintf(stderr, "formdesk annotate: --task '%s': not a task (name-match, "
				"turn-errors or stt)\n", task);
		return 2;
	}
	if (!name_ok(who)) {
		fprintf(stderr, "formdesk annotate: --annotator '%s': a name of 1 to 64 bytes "
				"without control characters is needed\n", who);
		return 2;
	}
	if ((e = labels_open(db, &l, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk annotate: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	e = queue_build(l, t, corpus, &notes, &added);
	if (notes)
		fprintf(stderr, "%s", notes);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk annotate: %s\n",
			e == ERR_DB ? labels_error(l) : err_str(e));
		goto out;
	}
	{
		struct labels_item *v = NULL;
		int n = 0;
		if ((e = labels_items(l, t, &v, &n)) != ERR_OK) {
			fprintf(stderr, "formdesk annotate: %s\n", labels_error(l));
			goto out;
		}
		labels_items_free(v, n);
		if (n == 0) {
			printf("%s: nothing to label for %s: %s\n", db, task, task_ops(t)->empty);
			rc = 0;
			goto out;
		}
	}
	term_locale();
	if ((e = annotate_run(l, t, who, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk annotate: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	rc = 0;
out:
	free(msg);
	free(notes);
	labels_close(l);
	return rc;
}
