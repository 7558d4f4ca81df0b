/* adjudicate: a reviewer decides the final label where annotators disagree.
 *
 * formdesk adjudicate --db FILE --task T --reviewer NAME [--annotator NAME] [--all]
 * formdesk adjudicate --db FILE --task T --list [--annotator NAME] [--all]
 * formdesk adjudicate --db FILE --task T --reviewer NAME --decide ITEM=LABEL [--note TEXT]
 *
 * The screen (tui/adjudicate.h) shows the items in disagreement that have no final label
 * yet (--all: every one), each annotator's label and note side by side; --list prints
 * them; --decide records one decision without the screen. --annotator: only items that
 * annotator labelled. The rule on the reviewer's own labels is annotations/adjud.h's.
 * Exit status: 0 done (also when nothing is in disagreement, which it says); 2 bad usage,
 * a database without labels for the task, an unknown annotator, a decision refused (the
 * reason on stderr; nothing is written), a database that cannot be read or written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "annotations/adjud.h"
#include "annotations/labels.h"
#include "annotations/task.h"
#include "tui/adjudicate.h"
#include "tui/term.h"

static void print_list(const struct adjud_item *v, int n, enum labels_task t)
{
	const struct task_ops *ops = task_ops(t);
	int decided = 0;
	for (int i = 0; i < n; i++)
		decided += v[i].final.label != NULL;
	printf("%s: %d items in disagreement, %d decided\n", labels_task_name(t), n, decided);
	for (int i = 0; i < n; i++) {
		const struct adjud_item *a = &v[i];
		printf("\nitem %lld  %s\n", a->item.id, a->item.key ? a->item.key : "");
		for (int r = 0; r < ops->n_rows; r++) {
			const struct task_row *row = &ops->rows[r];
			const char *s = row->caption
				? *(char *const *)((const char *)&a->item + row->offset) : NULL;
			if (s && s[0])
				printf("  %-12s %s\n", row->caption, s);
		}
		for (int s = 0; s < a->n_sides; s++)
			if (a->sides[s].note)
				printf("  %-12s %-16s note: %s\n", a->sides[s].annotator,
				       a->sides[s].label, a->sides[s].note);
			else
				printf("  %-12s %s\n", a->sides[s].annotator, a->sides[s].label);
		if (a->final.label)
			printf("  final        %s (by %s, %s)%s%s\n", a->final.label, a->final.reviewer,
			       a->final.decided_at, a->final.note ? " note: " : "",
			       a->final.note ? a->final.note : "");
		else
			printf("  final        -\n");
	}
}

/* decide_one: --decide ITEM=LABEL. */
static int decide_one(struct labels *l, const char *spec, const char *reviewer,
		      const char *note)
{
	char why[512], *end;
	const char *eq = strchr(spec, '=');
	long long item = strtoll(spec, &end, 10);
	if (!eq || end != eq || item <= 0 || !eq[1]) {
		fprintf(stderr, "formdesk adjudicate: --decide '%s': use ITEM=LABEL, ITEM the "
				"item's number in --list\n", spec);
		return 2;
	}
	enum err e = adjud_decide(l, item, reviewer, eq + 1, note, why, sizeof why);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk adjudicate: item %lld: %s; nothing was written\n", item,
			why[0] ? why : err_str(e));
		return 2;
	}
	printf("item %lld: final label %s, decided by %s\n", item, eq + 1, reviewer);
	return 0;
}

int cmd_adjudicate(int argc, char **argv)
{
	struct adjudicate_opts o = {0};
	struct labels *l = NULL;
	struct adjud_item *v = NULL;
	enum labels_task t;
	long counts[LABELS_NTASKS];
	char *msg = NULL;
	int n = 0, rc = 2;
	enum err e;

	enum opts_result parsed = opts_parse(&cmd_adjudicate_opts, argc, argv, &o, NULL, NULL, NULL);
	if (parsed != OPTS_OK)
		return parsed == OPTS_HELP ? 0 : 2;
	if (compose_task("adjudicate", o.task, &t) != ERR_OK)
		return 2;
	if (!o.list && (!o.reviewer || !o.reviewer[0])) {
		fprintf(stderr, "formdesk adjudicate: --reviewer NAME is needed to decide (or "
				"--list to only look)\n");
		return 2;
	}
	if ((e = compose_labels("adjudicate", o.db, &l)) != ERR_OK)
		goto out;
	if ((e = adjud_label_counts(l, counts)) != ERR_OK) {
		fprintf(stderr, "formdesk adjudicate: %s\n", labels_error(l));
		goto out;
	}
	if (!counts[t]) {
		fprintf(stderr, "formdesk adjudicate: %s has no %s labels: nothing to adjudicate "
				"(label items with formdesk annotate --task %s)\n", o.db, o.task,
			o.task);
		goto out;
	}
	if (o.annotator) {
		char why[512];
		if ((e = adjud_known(l, t, o.annotator, why, sizeof why)) != ERR_OK) {
			fprintf(stderr, "formdesk adjudicate: --annotator '%s': %s\n", o.annotator,
				e == ERR_NOTFOUND ? why : labels_error(l));
			goto out;
		}
	}
	if (o.decide) {
		rc = decide_one(l, o.decide, o.reviewer, o.note);
		goto out;
	}
	if ((e = adjud_list(l, t, o.annotator, !o.all && !o.list, &v, &n)) != ERR_OK) {
		fprintf(stderr, "formdesk adjudicate: %s\n",
			e == ERR_DB ? labels_error(l) : err_str(e));
		goto out;
	}
	if (o.list) {
		print_list(v, n, t);
		rc = 0;
		goto out;
	}
	if (n == 0) {
		printf("%s: no %s item in disagreement is left to decide%s\n", o.db, o.task,
		       o.all ? "" : " (--all shows the decided ones)");
		rc = 0;
		goto out;
	}
	term_locale();
	if ((e = adjudicate_run(l, t, o.reviewer, v, n, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk adjudicate: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	rc = 0;
out:
	adjud_list_free(v, n);
	free(msg);
	labels_close(l);
	return rc;
}
