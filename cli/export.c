/* export: labels and the items they label, for other labelling tools.
 *
 * formdesk export --db FILE --format jsonl|csv [--task NAME] [--all] [--out FILE]
 *
 * stdout (or --out): Label Studio JSONL tasks, or CSV rows with the columns of
 * annotations/export.h. --all: items nobody labelled too. Exit status: 0 done; 2 bad
 * usage, a database that cannot be read, or a file that cannot be written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/opts.h"
#include "annotations/export.h"
#include "annotations/labels.h"

struct export_opts {
	const char *db, *format, *task, *out;
	bool all;
};

static const struct opts_spec export_spec[] = {
	{"db", OPTS_STRING, offsetof(struct export_opts, db), "FILE", "the database with the labels",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"format", OPTS_STRING, offsetof(struct export_opts, format), "jsonl|csv",
	 "Label Studio JSONL tasks or CSV rows", OPTS_REQUIRED, 0, 0, NULL},
	{"task", OPTS_STRING, offsetof(struct export_opts, task), "name-match|turn-errors|stt",
	 "one task only", 0, 0, 0, NULL},
	{"all", OPTS_FLAG, offsetof(struct export_opts, all), NULL,
	 "items nobody labelled too", 0, 0, 0, NULL},
	{"out", OPTS_STRING, offsetof(struct export_opts, out), "FILE", "instead of stdout", 0, 0, 0,
	 NULL},
};

const struct opts_cmd cmd_export_opts = {
	.name = "export", .spec = export_spec, .n = OPTS_N(export_spec),
};

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	enum labels_task t;
	enum export_format fmt;
	struct labels *l = NULL;
	FILE *f = stdout;
	char *msg = NULL;
	int rc = 2;
	enum err e;

	enum opts_result parsed = opts_parse(&cmd_export_opts, argc, argv, &o, NULL, NULL, NULL);
	if (parsed != OPTS_OK)
		return parsed == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *format = o.format, *task = o.task, *outp = o.out;
	bool all = o.all;
	if (strcmp(format, "jsonl") == 0) {
		fmt = EXPORT_JSONL;
	} else if (strcmp(format, "csv") == 0) {
		fmt = EXPORT_CSV;
	} else {
		fprintf(stderr, "formdesk export: --format '%s': use jsonl or csv\n", format);
		return 2;
	}
	if (task && labels_task_parse(task, &t) != ERR_OK) {
		fprintf(stderr, "formdesk export: --task '%s': not a task (name-match, "
				"turn-errors or stt)\n", task);
		return 2;
	}
	if ((e = labels_open(db, &l, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk export: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if (outp && !(f = fopen(outp, "w"))) {
		perror(outp);
		f = NULL;
		goto out;
	}
	if ((e = export_write(l, f, fmt, task ? &t : NULL, all)) != ERR_OK) {
		fprintf(stderr, "formdesk export: %s\n",
			e == ERR_DB ? labels_error(l)
			: e == ERR_IO ? "cannot write the output"
				      : err_str(e));
		goto out;
	}
	rc = 0;
out:
	if (f && f != stdout && fclose(f) != 0 && rc == 0) {
		perror(outp);
		rc = 2;
	}
	free(msg);
	labels_close(l);
	return rc;
}
