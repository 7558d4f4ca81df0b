/* calibrate: judges against people, and people against each other.
 *
 * formdesk calibrate --db FILE [--task name-match|stt|turn-errors] [--judge NAME]
 *                    [--format table|markdown|csv] [--seed N] [--llm PROVIDER[:MODEL]]
 *                    [--corpus DIR|demo|respin] [--annotator NAME]
 *
 * Draws the task's items from the recorded calls (as annotate does), runs the
 * deterministic name judge on every name-match item, asks the language model --llm about
 * the items it has no cached decision on, then prints for every judge found in the
 * judges' table (or only --judge) the figures of annotations/calib.h for all items, the
 * dev half and the held-out test half; the inter-annotator agreement; the disagreements.
 * --annotator: that annotator's labels against the truth, and the judges compared with
 * their labels (calib_run_annotator); an annotator with no labels of the task is refused,
 * with the names of those who have, before anything is written (as adjudicate and export).
 * Exit status: 0 done; 2 bad usage, a database that cannot be read, a judge that failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "column.h"
#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/stages/backend.h"
#include "annotations/adjud.h"
#include "annotations/calib.h"
#include "annotations/judges.h"
#include "annotations/labels.h"
#include "annotations/queue.h"
#include "annotations/task.h"
#include "sessions/corpus/csv.h"

enum fmt { FMT_TABLE, FMT_MARKDOWN, FMT_CSV };

/* num: x with 3 decimals, "n/a" for NaN. */
static const char *num(double x, char *buf, size_t n)
{
	if (isnan(x))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.3f", x);
	return buf;
}

static const char *kappa_text(const struct calib_judge_figures *f, char *buf, size_t n)
{
	if (!f->has_kappa)
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.3f%s", f->kappa.kappa, f->kappa.degenerate ? "*" : "");
	return buf;
}

static const char *const cls[] = {"same", "different", "unsure"};

static void print_iaa(const struct calib *c, enum fmt f)
{
	char a[32], b[32], k[32];
	const char *md = f == FMT_MARKDOWN ? "- " : "";
	printf("%sannotators (%d):", md, c->n_annotators);
	for (int i = 0; i < c->n_annotators; i++)
		printf("%s %s", i ? "," : "", c->annotators[i]);
	printf("\n");
	if (!c->agreement) {
		printf("%sinter-annotator agreement: n/a (%s)\n", md,
		       c->n_annotators < 2 ? "fewer than two annotators"
					   : "no item labelled by two of them");
		return;
	}
	snprintf(k, sizeof k, "%.3f%s", c->iaa.kappa, c->iaa.degenerate ? "*" : "");
	printf("%sinter-annotator agreement: %s kappa %s (observed %s, chance %s, %ld items)\n", md,
	       strcmp(c->agreement, "cohen") == 0 ? "Cohen's" : "Fleiss'", k,
	       num(c->iaa.po, a, sizeof a), num(c->iaa.pe, b, sizeof b), c->iaa.n);
}

/* print_beside: what stands beside the kappa (calib.h), and why they differ. */
static void print_beside(const struct calib *c, enum fmt f)
{
	const char *md = f == FMT_MARKDOWN ? "- " : "";
	char why[768];
	if (c->has_ac1 || c->has_indices) {
		printf("%sbeside kappa:", md);
		if (c->has_ac1)
			printf(" Gwet's AC1 %.3f%s", c->ac1.kappa, c->has_indices ? ";" : "");
		if (c->has_indices) {
			printf(" PABAK %.3f; prevalence index %.3f, bias index %.3f", c->indices.pabak,
			       c->indices.pi, c->indices.bi);
			if (c->indices.cls >= 0)
				printf(" ('%s' against the other labels)", c->classes[c->indices.cls]);
			printf(" over every pair of annotators' labels");
		}
		printf("\n");
	}
	if (c->has_alpha)
		printf("%sKrippendorff's alpha (nominal, every label): %.3f%s over %ld items%s\n", md,
		       c->alpha.kappa, c->alpha.degenerate ? "*" : "", c->alpha.n,
		       c->subsets_differ ? "; the annotators labelled different subsets" : "");
	if (calib_explain(c, why, sizeof why)[0])
		printf("%s%s\n", md, why);
}

/* print_tags: each tag some label holds as its own yes/no question (calib_tags). */
static void print_tags(const struct calib *c, enum fmt f)
{
	const char *md = f == FMT_MARKDOWN ? "- " : "    ";
	if (!c->n_tags)
		return;
	printf("\n%sagreement per tag (each tag a yes/no question: present in a label or not; "
	       "the truth has it when a reviewer's final label or the majority of the labels "
	       "does; tags no label holds left out)\n", f == FMT_MARKDOWN ? "### " : "");
	if (f == FMT_MARKDOWN)
		putchar('\n');
	for (int x = 0; x < c->n_tags; x++) {
		const struct calib_tag *g = &c->tags[x];
		if (!g->labels)
			continue;
		printf("%s%s: %ld labels; truth present on %ld items, absent on %ld",
		       f == FMT_MARKDOWN ? "- " : "  ", g->tag, g->labels, g->present, g->absent);
		if (g->has_alpha)
			printf("; Krippendorff's alpha %.3f%s over %ld items", g->alpha.kappa,
			       g->alpha.degenerate ? "*" : "", g->alpha.n);
		putchar('\n');
		for (int p = 0; p < g->n_pairs; p++) {
			const struct calib_tag_pair *q = &g->pairs[p];
			if (!q->has_kappa)
				continue;
			printf("%s%s/%s: Cohen's kappa %.3f%s (observed %.3f, chance %.3f), PABAK %.3f, "
			       "%ld items\n", f == FMT_MARKDOWN ? "  - " : md, c->annotators[q->a],
			       c->annotators[q->b], q->kappa.kappa, q->kappa.degenerate ? "*" : "",
			       q->kappa.po, q->kappa.pe, q->pabak, q->kappa.n);
		}
	}
}

/* print_classes: labels per class and annotator, and items whose truth it is. */
static void print_classes(const struct calib *c, enum fmt f)
{
	int w = 12;
	for (int x = 0; x < c->k; x++)
		if ((int)strlen(c->classes[x]) > w)
			w = (int)strlen(c->classes[x]);
	if (f == FMT_MARKDOWN) {
		printf("\n### Labels per class\n\n| class |");
		for (int a = 0; a < c->n_annotators; a++)
			printf(" %s |", c->annotators[a]);
		printf(" all | items (truth) |\n|---|");
		for (int a = 0; a <= c->n_annotators + 1; a++)
			printf("---|");
		printf("\n");
	} else {
		printf("\nlabels per class (items: whose truth it is: a reviewer's final label, "
		       "else the majority)\n  %-*s", w, "class");
		for (int a = 0; a < c->n_annotators; a++)
			printf(" %8s", c->annotators[a]);
		printf("      all    items\n");
	}
	for (int x = 0; x < c->k; x++) {
		if (f == FMT_MARKDOWN) {
			printf("| %s |", c->classes[x]);
			for (int a = 0; a < c->n_annotators; a++)
				printf(" %ld |", c->annot_class[a * c->k + x]);
			printf(" %ld | %ld |\n", c->class_labels[x], c->class_items[x]);
			continue;
		}
		printf("  %-*s", w, c->classes[x]);
		for (int a = 0; a < c->n_annotators; a++)
			printf(" %8ld", c->annot_class[a * c->k + x]);
		printf(" %8ld %8ld\n", c->class_labels[x], c->class_items[x]);
	}
}

/* print_pairs: each pair's confusion table, rows and columns the classes either used. */
static void print_pairs(const struct calib *c, enum fmt f)
{
	const char *md = f == FMT_MARKDOWN ? "    " : "";
	if (c->n_pairs)
		printf("\n%sconfusion between annotators (rows the first, columns the second; "
		       "classes numbered as listed)\n", f == FMT_MARKDOWN ? "### " : "");
	for (int p = 0; p < c->n_pairs; p++) {
		const struct calib_pair *x = &c->pairs[p];
		bool used[KAPPA_MAX_CLASSES] = {false};
		int k = c->k;
		for (int i = 0; i < k; i++)
			for (int j = 0; j < k; j++)
				if (x->table[i * k + j])
					used[i] = used[j] = true;
		printf("%s%s  %s x %s: ", f == FMT_MARKDOWN ? "\n" : "", md,
		       c->annotators[x->a], c->annotators[x->b]);
		if (!x->has_kappa) {
			printf("no item labelled by both\n");
			continue;
		}
		printf("Cohen's kappa %.3f%s on %ld items\n%s  %-28s", x->kappa.kappa,
		       x->kappa.degenerate ? "*" : "", x->kappa.n, md, "");
		for (int j = 0; j < k; j++)
			if (used[j])
				printf(" %5d", j + 1);
		printf("\n");
		for (int i = 0; i < k; i++) {
			if (!used[i])
				continue;
			char head[64];
			snprintf(head, sizeof head, "%2d %s", i + 1, c->classes[i]);
			printf("%s    %-26s", md, head);
			for (int j = 0; j < k; j++)
				if (used[j])
					printf(" %5ld", x->table[i * k + j]);
			printf("\n");
		}
	}
}

/* print_item_dis: the items the annotators disagree on. */
static void print_item_dis(const struct calib *c, enum fmt f)
{
	int decided = 0;
	for (int i = 0; i < c->n_idis; i++)
		decided += c->idis[i].final != NULL;
	printf("\n%sitems the annotators disagree on (%d, %d decided by a reviewer: "
	       "formdesk adjudicate)\n%s", f == FMT_MARKDOWN ? "### " : "", c->n_idis, decided,
	       f == FMT_MARKDOWN ? "\n" : "");
	for (int i = 0; i < c->n_idis; i++) {
		const struct calib_item_dis *d = &c->idis[i];
		printf("%s item %lld [%s] %s", f == FMT_MARKDOWN ? "-" : " ", d->item, d->key,
		       d->humans);
		if (d->final)
			printf("; final %s (%s)", d->final, d->final_by);
		printf("\n");
	}
}

/* print_trend: each judge's agreement with the truth per prompt version and day. */
static void print_trend(const struct calib *c, enum fmt f)
{
	if (!c->n_trend)
		return;
	printf("\n%sjudges over time: agreement with the truth by prompt version and the UTC "
	       "day the decisions were stored\n%s", f == FMT_MARKDOWN ? "### " : "",
	       f == FMT_MARKDOWN ? "\n" : "");
	for (int i = 0; i < c->n_trend; i++) {
		const struct calib_trend *t = &c->trend[i];
		printf("%s %s@%s  %s  %ld items  agreement %.3f\n", f == FMT_MARKDOWN ? "-" : " ",
		       t->judge, t->version, t->day, t->n, (double)t->agree / (double)t->n);
	}
}

static void print_judge(const struct calib_judge *j, enum fmt f)
{
	char a[32], t[32], n[32], k[32];
	if (f == FMT_MARKDOWN) {
		printf("\n### Judge %s (prompt version %s)\n\n", j->judge, j->version);
		printf("| split | n | accuracy | TPR | TNR | Cohen's kappa |\n"
		       "|---|---|---|---|---|---|\n");
	} else {
		printf("\njudge %s (prompt version %s)\n", j->judge, j->version);
		printf("  split      n  accuracy    TPR    TNR  kappa\n");
	}
	for (int s = 0; s < CALIB_NSPLITS; s++) {
		const struct calib_judge_figures *x = &j->split[s];
		if (f == FMT_MARKDOWN)
			printf("| %s | %ld | %s | %s | %s | %s |\n", calib_split_name(s), x->n,
			       num(x->accuracy, a, sizeof a), num(x->tpr, t, sizeof t),
			       num(x->tnr, n, sizeof n), kappa_text(x, k, sizeof k));
		else
			printf("  %-5s %6ld  %8s %6s %6s  %s\n", calib_split_name(s), x->n,
			       num(x->accuracy, a, sizeof a), num(x->tpr, t, sizeof t),
			       num(x->tnr, n, sizeof n), kappa_text(x, k, sizeof k));
	}
	for (int s = 0; s < CALIB_NSPLITS; s++) {
		const long *tb = j->split[s].table;
		if (f == FMT_MARKDOWN) {
			printf("\nConfusion matrix, %s (rows: people's majority; columns: the "
			       "judge)\n\n| | judge same | judge different | judge unsure |\n"
			       "|---|---|---|---|\n", calib_split_name(s));
			for (int r = 0; r < 2; r++)
				printf("| people %s | %ld | %ld | %ld |\n", cls[r], tb[r * 3],
				       tb[r * 3 + 1], tb[r * 3 + 2]);
		} else {
			printf("  confusion, %s: rows people's majority, columns the judge\n"
			       "                    same  different  unsure\n", calib_split_name(s));
			for (int r = 0; r < 2; r++)
				printf("    people %-9s %4ld  %9ld  %6ld\n", cls[r], tb[r * 3],
				       tb[r * 3 + 1], tb[r * 3 + 2]);
		}
	}
	if (j->undecided)
		printf("%s%ld compared items have no decision from this judge\n",
		       f == FMT_MARKDOWN ? "\n" : "  ", j->undecided);
}

static void print_dis(const struct calib *c, enum fmt f)
{
	if (f == FMT_MARKDOWN) {
		printf("\n### Disagreements (%d)\n\n", c->n_dis);
		if (!c->n_dis)
			return;
		printf("| item | split | judge | judge said | people | expected | captured |\n"
		       "|---|---|---|---|---|---|---|\n");
		for (int i = 0; i < c->n_dis; i++) {
			const struct calib_disagreement *d = &c->dis[i];
			printf("| %lld | %s | %s@%s | %s | %s (%s) | %s | %s |\n", d->item,
			       calib_split_name(d->split), d->judge, d->version, d->decision,
			       d->majority, d->humans ? d->humans : "", d->expected ? d->expected : "",
			       d->captured ? d->captured : "");
		}
		return;
	}
	printf("\ndisagreements (%d): the judge against the people's majority\n", c->n_dis);
	for (int i = 0; i < c->n_dis; i++) {
		const struct calib_disagreement *d = &c->dis[i];
		char head[64];
		snprintf(head, sizeof head, "  item %lld [%s]", d->item, calib_split_name(d->split));
		column_pad(stdout, head, 20);
		printf(" %s@%s said %s, people said %s (%s)\n", d->judge, d->version, d->decision,
		       d->majority, d->humans ? d->humans : "");
		printf("      expected ");
		column_pad(stdout, d->expected ? d->expected : "", 24);
		printf("  captured %s\n", d->captured ? d->captured : "");
		if (d->transcript)
			printf("      caller said: %s\n", d->transcript);
	}
}

static void csv_row(const char *const *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			putchar(',');
		csv_write_field(stdout, v[i] ? v[i] : "");
	}
	fputs("\r\n", stdout);
}

static void print_csv(const struct calib *c)
{
	static const char *const head[] = {
		"kind", "judge", "prompt_version", "split", "n", "accuracy", "tpr", "tnr",
		"kappa", "same_same", "same_different", "same_unsure", "different_same",
		"different_different", "different_unsure", "item_id", "expected", "captured",
		"people", "judge_said"};
	char b[12][32];
	csv_row(head, 20);
	if (c->agreement) {
		snprintf(b[0], 32, "%ld", c->iaa.n);
		snprintf(b[1], 32, "%.6f", c->iaa.kappa);
		const char *r[20] = {"annotators", c->agreement, "", "all", b[0], NULL, NULL, NULL,
				     b[1]};
		csv_row(r, 20);
	}
	{
		/* the figures beside kappa: kind "agreement", the figure's name, its value */
		const char *name[5] = {"ac1", "pabak", "prevalence_index", "bias_index", "alpha"};
		double v[5] = {c->ac1.kappa, c->indices.pabak, c->indices.pi, c->indices.bi,
			       c->alpha.kappa};
		bool has[5] = {c->has_ac1, c->has_indices, c->has_indices, c->has_indices,
			       c->has_alpha};
		for (int m = 0; m < 5; m++) {
			if (!has[m])
				continue;
			snprintf(b[0], 32, "%.6f", v[m]);
			const char *r[20] = {"agreement", name[m], "", "all", "", NULL, NULL, NULL, b[0]};
			csv_row(r, 20);
		}
	}
	if (c->annotator >= 0) {
		/* kind "annotator": their labels against the truth, n, agreement, kappa */
		snprintf(b[0], 32, "%ld", c->vs_n);
		snprintf(b[1], 32, "%.6f", c->vs_n ? (double)c->vs_agree / (double)c->vs_n : 0.0);
		const char *r[20] = {"annotator", c->annotators[c->annotator], "", "all", b[0],
				     c->vs_n ? b[1] : ""};
		r[8] = !c->has_vs_kappa ? "" : (snprintf(b[2], 32, "%.6f", c->vs_kappa.kappa), b[2]);
		csv_row(r, 20);
	}
	for (int x = 0; x < c->k; x++) {
		/* kind "class": labels given with it (n) and items whose truth it is (people) */
		snprintf(b[0], 32, "%ld", c->class_labels[x]);
		snprintf(b[1], 32, "%ld", c->class_items[x]);
		const char *r[20] = {"class", c->classes[x], "", "all", b[0]};
		r[18] = b[1];
		csv_row(r, 20);
	}
	for (int x = 0; x < c->n_tags; x++) {
		/* kind "tag": labels holding it (n), alpha (kappa), items whose truth has it
		 * (people) and has it not (judge_said); kind "tag_pair": a pair's items (n),
		 * observed agreement (accuracy), Cohen's kappa, PABAK (people) */
		const struct calib_tag *g = &c->tags[x];
		if (!g->labels)
			continue;
		snprintf(b[0], 32, "%ld", g->labels);
		snprintf(b[1], 32, "%.6f", g->alpha.kappa);
		snprintf(b[2], 32, "%ld", g->present);
		snprintf(b[3], 32, "%ld", g->absent);
		const char *r[20] = {"tag", g->tag, "", "all", b[0], NULL, NULL, NULL,
				     g->has_alpha ? b[1] : ""};
		r[18] = b[2];
		r[19] = b[3];
		csv_row(r, 20);
		for (int p = 0; p < g->n_pairs; p++) {
			const struct calib_tag_pair *q = &g->pairs[p];
			char who[256];
			if (!q->has_kappa)
				continue;
			snprintf(who, sizeof who, "%s/%s", c->annotators[q->a], c->annotators[q->b]);
			snprintf(b[4], 32, "%ld", q->kappa.n);
			snprintf(b[5], 32, "%.6f", q->kappa.po);
			snprintf(b[6], 32, "%.6f", q->kappa.kappa);
			snprintf(b[7], 32, "%.6f", q->pabak);
			const char *pr[20] = {"tag_pair", g->tag, who, "all", b[4], b[5], NULL, NULL,
					      b[6]};
			pr[18] = b[7];
			csv_row(pr, 20);
		}
	}
	for (int i = 0; i < c->n_idis; i++) {
		const struct calib_item_dis *d = &c->idis[i];
		const char *r[20] = {"item_disagreement", d->final_by, "", "all"};
		snprintf(b[0], 32, "%lld", d->item);
		r[15] = b[0];
		r[18] = d->humans;
		r[19] = d->final;
		csv_row(r, 20);
	}
	for (int i = 0; i < c->n_trend; i++) {
		const struct calib_trend *t = &c->trend[i];
		const char *r[20] = {"trend", t->judge, t->version, t->day};
		snprintf(b[0], 32, "%ld", t->n);
		snprintf(b[1], 32, "%.6f", (double)t->agree / (double)t->n);
		r[4] = b[0];
		r[5] = b[1];
		csv_row(r, 20);
	}
	for (int i = 0; i < c->n_judges; i++) {
		const struct calib_judge *j = &c->judges[i];
		for (int s = 0; s < CALIB_NSPLITS; s++) {
			const struct calib_judge_figures *x = &j->split[s];
			const char *r[20] = {"judge", j->judge, j->version, calib_split_name(s)};
			snprintf(b[0], 32, "%ld", x->n);
			r[4] = b[0];
			r[5] = isnan(x->accuracy) ? "" : (snprintf(b[1], 32, "%.6f", x->accuracy), b[1]);
			r[6] = isnan(x->tpr) ? "" : (snprintf(b[2], 32, "%.6f", x->tpr), b[2]);
			r[7] = isnan(x->tnr) ? "" : (snprintf(b[3], 32, "%.6f", x->tnr), b[3]);
			r[8] = !x->has_kappa ? "" : (snprintf(b[4], 32, "%.6f", x->kappa.kappa), b[4]);
			for (int m = 0; m < 6; m++) {
				snprintf(b[5 + m], 32, "%ld", x->table[m]);
				r[9 + m] = b[5 + m];
			}
			csv_row(r, 20);
		}
	}
	for (int i = 0; i < c->n_dis; i++) {
		const struct calib_disagreement *d = &c->dis[i];
		const char *r[20] = {"disagreement", d->judge, d->version, calib_split_name(d->split)};
		snprintf(b[0], 32, "%lld", d->item);
		r[15] = b[0];
		r[16] = d->expected;
		r[17] = d->captured;
		r[18] = d->humans;
		r[19] = d->decision;
		csv_row(r, 20);
	}
}

/* print_annotator: with --annotator, their labels against the truth, and a table. */
static void print_annotator(const struct calib *c, enum fmt f)
{
	const char *md = f == FMT_MARKDOWN ? "- " : "", *who;
	int k = c->k;
	char a[32];

	if (c->annotator < 0)
		return;
	who = c->annotators[c->annotator];
	printf("\n%sannotator %s against the truth (a reviewer's final label, else the majority): "
	       "%ld items, agreement %s", md, who, c->vs_n,
	       num(c->vs_n ? (double)c->vs_agree / (double)c->vs_n : NAN, a, sizeof a));
	if (c->has_vs_kappa)
		printf(", Cohen's kappa %.3f (observed %.3f, chance %.3f)", c->vs_kappa.kappa,
		       c->vs_kappa.po, c->vs_kappa.pe);
	printf("\n%sconfusion: rows the truth, columns %s\n", md, who);
	if (f == FMT_MARKDOWN) {
		printf("\n| truth |");
		for (int x = 0; x < k; x++)
			printf(" %s |", c->classes[x]);
		printf("\n|---|");
		for (int x = 0; x < k; x++)
			printf("---|");
		putchar('\n');
	}
	for (int r = 0; r < k; r++) {
		if (f == FMT_MARKDOWN) {
			printf("| %s |", c->classes[r]);
			for (int x = 0; x < k; x++)
				printf(" %ld |", c->vs_truth[r * k + x]);
		} else {
			printf("  ");
			column_pad(stdout, c->classes[r], 16);
			for (int x = 0; x < k; x++)
				printf(" %s=%ld", c->classes[x], c->vs_truth[r * k + x]);
		}
		putchar('\n');
	}
	if (task_ops(c->task)->judged)
		printf("%sthe judges below are compared with %s's labels, not the truth\n", md, who);
}

static void print_report(const struct calib *c, const char *db, const long *counts, enum fmt f)
{
	const char *md = f == FMT_MARKDOWN ? "- " : "";
	bool any_degenerate = c->agreement && c->iaa.degenerate;
	if (f == FMT_CSV) {
		print_csv(c);
		return;
	}
	if (f == FMT_MARKDOWN)
		printf("## Calibration: %s (%s)\n\n", labels_task_name(c->task), db);
	else
		printf("%s calibration: %s\n", labels_task_name(c->task), db);
	printf("%sitems %d, labelled %d", md, c->n_items, c->n_labelled);
	if (task_ops(c->task)->judged)
		printf(", compared with judges %d (dev %d, test %d); left out: %d tied, %d with "
		       "an unsure majority", c->n_compared, c->n_dev, c->n_test, c->n_tie,
		       c->n_unsure);
	printf("\n%slabels by task:", md);
	for (int i = 0; i < LABELS_NTASKS; i++)
		printf("%s %s %ld", i ? "," : "", labels_task_name((enum labels_task)i), counts[i]);
	if (c->n_adjudicated)
		printf("\n%sitems whose truth is a reviewer's final label (formdesk adjudicate): %d",
		       md, c->n_adjudicated);
	printf("\n%ssplit: dev or test by item key, seed %u\n", md, c->seed);
	print_iaa(c, f);
	print_annotator(c, f);
	print_beside(c, f);
	print_classes(c, f);
	print_tags(c, f);
	print_pairs(c, f);
	print_item_dis(c, f);
	print_trend(c, f);
	for (int i = 0; i < c->n_judges; i++) {
		print_judge(&c->judges[i], f);
		for (int s = 0; s < CALIB_NSPLITS; s++)
			any_degenerate |= c->judges[i].split[s].has_kappa &&
					  c->judges[i].split[s].kappa.degenerate;
	}
	if (task_ops(c->task)->judged) {
		if (!c->n_judges)
			printf("\nno judge has decided any item yet\n");
		print_dis(c, f);
	}
	if (any_degenerate)
		printf("\n* every rating in one class: chance agreement is 1 and kappa is defined "
		       "as 1 (docs/annotation.md)\n");
}

/* pick_task: the task to report on, and counts, the labels of each task. given: --task
 * (NULL when absent). Without it: the one
 * task that has labels; name-match when none has (its judge is still run and its items
 * drawn); when several have, they are listed and the choice is left to --task. A task
 * without labels is said on stderr. Errors: ERR_INVALID (several tasks, said), ERR_DB. */
static enum err pick_task(struct labels *l, const char *db, const char *given,
			  enum labels_task *t, long counts[LABELS_NTASKS])
{
	int with = 0;
	enum err e = adjud_label_counts(l, counts);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk calibrate: %s\n", labels_error(l));
		return e;
	}
	for (int i = 0; i < LABELS_NTASKS; i++)
		if (counts[i])
			with++;
	if (!given && with > 1) {
		fprintf(stderr, "formdesk calibrate: %s holds labels of %d tasks:", db, with);
		for (int i = 0, m = 0; i < LABELS_NTASKS; i++)
			if (counts[i])
				fprintf(stderr, "%s %s (%ld labels)", m++ ? "," : "",
					labels_task_name((enum labels_task)i), counts[i]);
		fprintf(stderr, "; choose one with --task\n");
		return ERR_INVALID;
	}
	if (!given) {
		*t = LABELS_NAME_MATCH;
		for (int i = 0; i < LABELS_NTASKS; i++)
			if (counts[i])
				*t = (enum labels_task)i;
		if (with == 1 && *t != LABELS_NAME_MATCH)
			fprintf(stderr, "formdesk calibrate: no --task: %s, the task with labels in "
					"%s\n", labels_task_name(*t), db);
	}
	if (!counts[*t])
		fprintf(stderr, "formdesk calibrate: %s has no %s labels yet (formdesk annotate "
				"--task %s)%s\n", db, labels_task_name(*t), labels_task_name(*t),
			task_ops(*t)->judged ? ": nothing to compare the judges with" : "");
	return ERR_OK;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_opts o = {.format = "table", .seed = CALIB_SEED};
	enum labels_task t;
	enum fmt f;
	struct labels *l = NULL;
	struct calib *c = NULL;
	char *notes = NULL;
	long counts[LABELS_NTASKS] = {0};
	int rc = 2;
	enum err e;

	enum opts_result parsed = opts_parse(&cmd_calibrate_opts, argc, argv, &o, NULL, NULL, NULL);
	if (parsed != OPTS_OK)
		return parsed == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *task = o.task, *judge = o.judge, *format = o.format,
		   *llm = o.llm, *corpus = o.corpus;
	unsigned seed = o.seed;
	if (task && compose_task("calibrate", task, &t) != ERR_OK)
		return 2;
	if (strcmp(format, "table") == 0) {
		f = FMT_TABLE;
	} else if (strcmp(format, "markdown") == 0) {
		f = FMT_MARKDOWN;
	} else if (strcmp(format, "csv") == 0) {
		f = FMT_CSV;
	} else {
		fprintf(stderr, "formdesk calibrate: --format '%s': use table, markdown or csv\n",
			format);
		return 2;
	}
	if ((e = compose_labels("calibrate", db, &l)) != ERR_OK)
		goto out;
	if (pick_task(l, db, task, &t, counts) != ERR_OK)
		goto out;
	if (o.annotator) {
		/* checked before anything is drawn or judged: nothing written */
		char why[512];
		if ((e = adjud_known(l, t, o.annotator, why, sizeof why)) != ERR_OK) {
			fprintf(stderr, "formdesk calibrate: --annotator '%s': %s in %s\n",
				o.annotator, e == ERR_NOTFOUND ? why : labels_error(l), db);
			goto out;
		}
	}
	if (llm && !task_ops(t)->llm) {
		fprintf(stderr, "formdesk calibrate: --llm judges name-match items only\n");
		goto out;
	}
	e = queue_build(l, t, corpus, &notes, NULL);
	if (notes)
		fprintf(stderr, "%s", notes);
	if (e == ERR_OK && task_ops(t)->judge)
		e = task_ops(t)->judge(l);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk calibrate: %s\n", e == ERR_DB ? labels_error(l) : err_str(e));
		goto out;
	}
	if (llm) {
		char why[512] = "";
		int asked = 0;
		e = judges_run_llm(l, llm, &asked, why, sizeof why);
		backend_cleanup(); /* the judge's instance (judges.h) */
		fprintf(stderr, "formdesk calibrate: asked %s about %d items (the others were "
				"cached)\n", llm, asked);
		if (e != ERR_OK) {
			fprintf(stderr, "formdesk calibrate: --llm %s: %s\n", llm,
				why[0] ? why : err_str(e));
			goto out;
		}
	}
	if ((e = calib_run_annotator(l, t, judge, o.annotator, seed, &c)) != ERR_OK) {
		fprintf(stderr, "formdesk calibrate: %s\n", e == ERR_DB ? labels_error(l) : err_str(e));
		goto out;
	}
	if (judge && c->n_judges == 0 && task_ops(t)->judged) {
		fprintf(stderr, "formdesk calibrate: --judge '%s': no decisions by that judge in %s\n",
			judge, db);
		goto out;
	}
	print_report(c, db, counts, f);
	rc = 0;
out:
	calib_free(c);
	free(notes);
	labels_close(l);
	return rc;
}
