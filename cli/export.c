/* export: labels and the items they label, for other labelling tools.
 *
 * formdesk export --db FILE --format jsonl|csv [--task NAME] [--annotator NAME] [--all]
 *                 [--out FILE]
 *
 * stdout (or --out): Label Studio JSONL tasks, or CSV rows with the columns of
 * annotations/export.h, each item's final (adjudicated) label beside every annotator's.
 * --all: items nobody labelled too; --annotator: that annotator's labels only. Exit
 * status: 0 done; 2 bad usage, a database without labels (unless --all), an unknown
 * annotator, a database that cannot be read, or a file that cannot be written. Nothing is
 * written (no --out file is made) when the input is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "annotations/adjud.h"
#include "annotations/export.h"
#include "annotations/labels.h"

/* refuse: whether there is nothing to export (no labels of the task, unless all) or the
 * annotator labelled nothing; says why on stderr. */
static bool refuse(struct labels *l, const char *db, const enum labels_task *t,
		   const char *annotator, bool all)
{
	long counts[LABELS_NTASKS], total = 0;
	char why[512];
	enum err e;

	if (adjud_label_counts(l, counts) != ERR_OK) {
		fprintf(stderr, "formdesk export: %s\n", labels_error(l));
		return true;
	}
	for (int i = 0; i < LABELS_NTASKS; i++)
		if (!t || *t == (enum labels_task)i)
			total += counts[i];
	if (!total && !all) {
		fprintf(stderr, "formdesk export: %s has no %s%slabels to export (label items with "
				"formdesk annotate; --all exports the items alone)\n", db,
			t ? labels_task_name(*t) : "", t ? " " : "");
		return true;
	}
	if (annotator &&
	    (e = adjud_known(l, t ? *t : LABELS_NTASKS, annotator, why, sizeof why)) != ERR_OK) {
		fprintf(stderr, "formdesk export: --annotator '%s': %s in %s\n", annotator,
			e == ERR_NOTFOUND ? why : labels_error(l), db);
		return true;
	}
	return false;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	enum labels_task t;
	enum export_format fmt;
	struct labels *l = NULL;
	FILE *f = stdout;
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
	if (task && compose_task("export", task, &t) != ERR_OK)
		return 2;
	if ((e = compose_labels("export", db, &l)) != ERR_OK)
		goto out;
	if (refuse(l, db, task ? &t : NULL, o.annotator, all))
		goto out;
	if (outp && !(f = fopen(outp, "w"))) {
		perror(outp);
		f = NULL;
		goto out;
	}
	if ((e = export_write(l, f, fmt, task ? &t : NULL, o.annotator, all)) != ERR_OK) {
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
	labels_close(l);
	return rc;
}
