/* calib: judges against the human majority, and annotators against each other
 * (calib.h). */
#include "calib.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adjud.h"
#include "judges.h"
#include "task.h"

/* The classes judges and annotators are compared over, in CALIB_ order. */
static const char *const binary_names[] = {LABELS_SAME, LABELS_DIFFERENT, LABELS_UNSURE};

/* classes: the task's classes (its answers), *k of them. */
static const char *const *classes(enum labels_task t, int *k)
{
	const struct task_ops *ops = task_ops(t);
	*k = ops ? ops->n_labels : CALIB_NCLASSES;
	return ops ? ops->labels : binary_names;
}

static int class_of(const char *const *cls, int k, const char *s)
{
	for (int i = 0; s && i < k; i++)
		if (strcmp(cls[i], s) == 0)
			return i;
	return -1;
}

/* first_class: the class of label s; for a label with several tags (labels.h,
 * LABELS_TAG_SEP) its first in the taxonomy's order, which is the order of cls. -1 for none. */
static int first_class(const char *const *cls, int k, const char *s)
{
	int c = class_of(cls, k, s);
	for (int i = 0; c < 0 && s && i < k; i++)
		if (labels_has_tag(s, cls[i]))
			c = i;
	return c;
}

enum calib_split calib_split_of(const char *key, unsigned seed)
{
	/* FNV-1a 64 (Fowler, Noll, Vo) over "SEED:KEY". */
	char pre[16];
	uint64_t h = 1469598103934665603ull;
	snprintf(pre, sizeof pre, "%u:", seed);
	for (const char *p = pre; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (const char *p = key ? key : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return (h & 1) ? CALIB_TEST : CALIB_DEV;
}

const char *calib_split_name(enum calib_split s)
{
	static const char *const names[] = {"all", "dev", "test"};
	return (unsigned)s < CALIB_NSPLITS ? names[s] : "?";
}

void calib_free(struct calib *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n_annotators; i++)
		free(c->annotators[i]);
	free(c->annotators);
	for (int i = 0; i < c->n_judges; i++) {
		free(c->judges[i].judge);
		free(c->judges[i].version);
	}
	free(c->judges);
	for (int i = 0; i < c->n_dis; i++) {
		struct calib_disagreement *d = &c->dis[i];
		free(d->key);
		free(d->judge);
		free(d->version);
		free(d->decision);
		free(d->majority);
		free(d->expected);
		free(d->captured);
		free(d->transcript);
		free(d->humans);
	}
	free(c->dis);
	free(c->class_labels);
	free(c->class_items);
	free(c->annot_class);
	free(c->pairs);
	for (int i = 0; i < c->n_idis; i++) {
		free(c->idis[i].key);
		free(c->idis[i].humans);
		free(c->idis[i].final);
		free(c->idis[i].final_by);
	}
	free(c->idis);
	for (int i = 0; i < c->n_trend; i++) {
		free(c->trend[i].judge);
		free(c->trend[i].version);
	}
	free(c->trend);
	calib_tags_free(c->tags, c->n_tags);
	free(c);
}

void calib_tags_free(struct calib_tag *v, int k)
{
	if (!v)
		return;
	for (int x = 0; x < k; x++)
		free(v[x].pairs);
	free(v);
}

/* one_tag: tag x's figures into g (see calib_tags); counts: n_items x 2, scratch. */
static void one_tag(struct calib_tag *g, const char *const *labels, const char *const *finals,
		    int n_items, int na, long *counts)
{
	const char *tag = g->tag;
	for (int i = 0; i < n_items; i++) {
		long *n = counts + (size_t)i * 2;
		n[0] = n[1] = 0;
		for (int a = 0; a < na; a++) {
			const char *lb = labels[(size_t)i * (size_t)na + (size_t)a];
			if (lb)
				n[labels_has_tag(lb, tag)]++;
		}
		g->labels += n[1];
		if (finals && finals[i])
			*(labels_has_tag(finals[i], tag) ? &g->present : &g->absent) += 1;
		else if (n[1] > n[0])
			g->present++;
		else if (n[0] > n[1])
			g->absent++;
	}
	for (int a = 0; a < na; a++)
		for (int b = a + 1; b < na; b++) {
			struct calib_tag_pair *p = &g->pairs[g->n_pairs++];
			p->a = a;
			p->b = b;
			for (int i = 0; i < n_items; i++) {
				const char *x = labels[(size_t)i * (size_t)na + (size_t)a];
				const char *y = labels[(size_t)i * (size_t)na + (size_t)b];
				if (x && y)
					p->table[labels_has_tag(x, tag) * 2 + labels_has_tag(y, tag)]++;
			}
			p->has_kappa = kappa_cohen(p->table, 2, &p->kappa) == ERR_OK;
			p->pabak = p->has_kappa ? 2.0 * p->kappa.po - 1.0 : NAN;
		}
	g->has_alpha = kappa_alpha(counts, n_items, 2, &g->alpha) == ERR_OK;
}

enum err calib_tags(const char *const *labels, const char *const *finals, int n_items, int na,
		    const char *const *tags, int k, struct calib_tag **out)
{
	struct calib_tag *v;
	long *counts;

	if (k < 1 || k > KAPPA_MAX_CLASSES || na < 0 || n_items < 0)
		return ERR_INVALID;
	if (!(v = calloc((size_t)k, sizeof *v)))
		return ERR_NOMEM;
	if (!(counts = calloc((size_t)n_items * 2 + 1, sizeof *counts))) {
		free(v);
		return ERR_NOMEM;
	}
	for (int x = 0; x < k; x++) {
		v[x].tag = tags[x];
		if (!(v[x].pairs = calloc((size_t)(na * (na - 1) / 2) + 1, sizeof *v[x].pairs))) {
			calib_tags_free(v, k);
			free(counts);
			return ERR_NOMEM;
		}
		one_tag(&v[x], labels, finals, n_items, na, counts);
	}
	free(counts);
	*out = v;
	return ERR_OK;
}

/* Per item: its votes and majority. */
struct tally {
	long votes[KAPPA_MAX_CLASSES];
	int majority;   /* class, -1 for none */
	char *humans;   /* "a=x, b=y" */
};

static char *append(char *s, const char *add)
{
	size_t a = s ? strlen(s) : 0, b = strlen(add);
	char *n = realloc(s, a + b + 1);
	if (!n) {
		free(s);
		return NULL;
	}
	memcpy(n + a, add, b + 1);
	return n;
}

static int annotator_index(struct calib *c, const char *name, enum err *e)
{
	for (int i = 0; i < c->n_annotators; i++)
		if (strcmp(c->annotators[i], name) == 0)
			return i;
	char **v = realloc(c->annotators, (size_t)(c->n_annotators + 1) * sizeof *v);
	if (!v || !(v[c->n_annotators] = strdup(name))) {
		if (v)
			c->annotators = v;
		*e = ERR_NOMEM;
		return -1;
	}
	c->annotators = v;
	/* keep them sorted by name */
	int i = c->n_annotators++;
	while (i > 0 && strcmp(v[i - 1], v[i]) > 0) {
		char *t = v[i - 1];
		v[i - 1] = v[i];
		v[i] = t;
		i--;
	}
	return i;
}

static void finish_figures(struct calib_judge_figures *f)
{
	f->accuracy = kappa_accuracy(f->table, CALIB_NCLASSES);
	f->tpr = kappa_recall(f->table, CALIB_NCLASSES, CALIB_SAME);
	f->tnr = kappa_recall(f->table, CALIB_NCLASSES, CALIB_DIFFERENT);
	f->has_kappa = kappa_cohen(f->table, CALIB_NCLASSES, &f->kappa) == ERR_OK;
}

static char *dup0(const char *s, enum err *e)
{
	char *d;
	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*e = ERR_NOMEM;
	return d;
}

static enum err add_disagreement(struct calib *c, const struct labels_item *it,
				 const struct tally *ty, int human, const struct calib_judge *j,
				 const char *decision, enum calib_split s)
{
	struct calib_disagreement *v = realloc(c->dis, (size_t)(c->n_dis + 1) * sizeof *v);
	enum err e = ERR_OK;
	if (!v)
		return ERR_NOMEM;
	c->dis = v;
	struct calib_disagreement *d = &v[c->n_dis++];
	memset(d, 0, sizeof *d);
	d->item = it->id;
	d->split = s;
	d->key = dup0(it->key, &e);
	d->judge = dup0(j->judge, &e);
	d->version = dup0(j->version, &e);
	d->decision = dup0(decision, &e);
	d->majority = dup0(binary_names[human], &e);
	d->expected = dup0(it->expected, &e);
	d->captured = dup0(it->captured, &e);
	d->transcript = dup0(it->transcript, &e);
	d->humans = dup0(ty->humans, &e);
	return e;
}

/* inter_annotator: over mat (n_items x n_annotators classes, -1 for no label) and the
 * items' votes: each pair's table and Cohen's kappa; Cohen (two annotators) or Fleiss
 * (more) with Gwet's AC1 beside it; PABAK and the indices of the pairs' tables added up;
 * Krippendorff's alpha over every label. */
static void inter_annotator(struct calib *c, const int *mat, const struct tally *ty,
			    int n_items, enum err *e)
{
	int na = c->n_annotators, k = c->k;
	long pooled[KAPPA_MAX_CLASSES * KAPPA_MAX_CLASSES] = {0};
	long *counts;

	if (na < 2)
		return;
	if (!(c->pairs = calloc((size_t)(na * (na - 1) / 2), sizeof *c->pairs)) ||
	    !(counts = calloc((size_t)n_items * (size_t)k + 1, sizeof *counts))) {
		*e = ERR_NOMEM;
		return;
	}
	for (int a = 0; a < na; a++)
		for (int b = a + 1; b < na; b++) {
			struct calib_pair *p = &c->pairs[c->n_pairs++];
			p->a = a;
			p->b = b;
			for (int i = 0; i < n_items; i++) {
				int x = mat[i * na + a], y = mat[i * na + b];
				if (x >= 0 && y >= 0) {
					p->table[x * k + y]++;
					pooled[x * k + y]++;
				}
			}
			p->has_kappa = kappa_cohen(p->table, k, &p->kappa) == ERR_OK;
		}
	for (int i = 0; i < n_items; i++) {
		int m = 0;
		memcpy(counts + (size_t)i * k, ty[i].votes, (size_t)k * sizeof *counts);
		for (int a = 0; a < na; a++)
			m += mat[i * na + a] >= 0;
		if (m > 0 && m < na)
			c->subsets_differ = true;
	}
	if (na == 2) {
		if (c->pairs[0].has_kappa) {
			c->iaa = c->pairs[0].kappa;
			c->agreement = "cohen";
		}
		c->has_ac1 = kappa_gwet_table(c->pairs[0].table, k, &c->ac1) == ERR_OK;
	} else {
		if (kappa_fleiss(counts, n_items, k, &c->iaa) == ERR_OK)
			c->agreement = "fleiss";
		c->has_ac1 = kappa_gwet(counts, n_items, k, &c->ac1) == ERR_OK;
	}
	c->has_indices = kappa_indices(pooled, k, &c->indices) == ERR_OK;
	c->has_alpha = kappa_alpha(counts, n_items, k, &c->alpha) == ERR_OK;
	free(counts);
}

const char *calib_explain(const struct calib *c, char *buf, size_t n)
{
	const struct kappa_result *r = &c->iaa;
	char more[256] = "";
	size_t w;

	buf[0] = '\0';
	if (!c->agreement || r->po < 0.6 || r->po - r->kappa < 0.2 || r->degenerate)
		return buf;
	w = (size_t)snprintf(buf, n, "kappa is %s although observed agreement is %.0f%%",
			     r->kappa < 0.4 ? "low" : "well below it", 100.0 * r->po);
	if (w >= n)
		return buf;
	if (c->has_indices && c->indices.top_share >= 0.6) {
		int top = c->indices.cls;
		snprintf(buf + w, n - w, " because one label (%s) makes up %.0f%% of the labels: "
			 "chance agreement is already %.0f%%; the prevalence index is %.2f",
			 c->classes[top], 100.0 * c->indices.top_share, 100.0 * r->pe,
			 c->indices.pi);
	} else if (c->has_indices && c->indices.bi >= 0.2) {
		snprintf(buf + w, n - w, " because the annotators use the labels at different "
			 "rates: the bias index is %.2f; chance agreement is %.0f%%", c->indices.bi,
			 100.0 * r->pe);
	} else {
		snprintf(buf + w, n - w, " because chance agreement is already %.0f%%",
			 100.0 * r->pe);
	}
	if (c->has_indices && c->indices.bi >= 0.2 && c->indices.top_share >= 0.6)
		snprintf(more, sizeof more, ", the bias index %.2f", c->indices.bi);
	w = strlen(buf);
	if (w < n && c->has_indices)
		w += (size_t)snprintf(buf + w, n - w, "%s; PABAK is %.3f", more, c->indices.pabak);
	if (w < n && c->has_ac1)
		w += (size_t)snprintf(buf + w, n - w, ", Gwet's AC1 %.3f", c->ac1.kappa);
	if (w < n)
		snprintf(buf + w, n - w, " (docs/annotation.md, \"When kappa and agreement "
			 "disagree\")");
	return buf;
}

/* add_trend: count one decision of judge j stored on day against the truth. */
static void add_trend(struct calib *c, const struct calib_judge *j, const char *day, bool agree,
		      enum err *e)
{
	struct calib_trend *t = NULL;
	for (int i = 0; i < c->n_trend; i++)
		if (strcmp(c->trend[i].judge, j->judge) == 0 &&
		    strcmp(c->trend[i].version, j->version) == 0 && strcmp(c->trend[i].day, day) == 0)
			t = &c->trend[i];
	if (!t) {
		struct calib_trend *v = realloc(c->trend, (size_t)(c->n_trend + 1) * sizeof *v);
		if (!v) {
			*e = ERR_NOMEM;
			return;
		}
		c->trend = v;
		t = &v[c->n_trend++];
		memset(t, 0, sizeof *t);
		snprintf(t->day, sizeof t->day, "%s", day);
		t->judge = dup0(j->judge, e);
		t->version = dup0(j->version, e);
	}
	t->n++;
	t->agree += agree;
}

/* add_item_dis: item it, whose labels disagree, with its final label when decided. */
static void add_item_dis(struct calib *c, const struct labels_item *it, const char *humans,
			 const struct adjud_final *f, enum err *e)
{
	struct calib_item_dis *v = realloc(c->idis, (size_t)(c->n_idis + 1) * sizeof *v);
	if (!v) {
		*e = ERR_NOMEM;
		return;
	}
	c->idis = v;
	struct calib_item_dis *d = &v[c->n_idis++];
	memset(d, 0, sizeof *d);
	d->item = it->id;
	d->key = dup0(it->key, e);
	d->humans = dup0(humans, e);
	d->final = f ? dup0(f->label, e) : NULL;
	d->final_by = f ? dup0(f->reviewer, e) : NULL;
}

enum err calib_run(struct labels *l, enum labels_task t, const char *only, unsigned seed,
		   struct calib **out)
{
	return calib_run_annotator(l, t, only, NULL, seed, out);
}

/* count_compared: one more item compared with the judges, in key's half. */
static void count_compared(struct calib *c, const char *key, unsigned seed)
{
	c->n_compared++;
	if (calib_split_of(key, seed) == CALIB_DEV)
		c->n_dev++;
	else
		c->n_test++;
}

/* versus_truth: annotator a's labels (first class) against the truth of each item. */
static void versus_truth(struct calib *c, const int *mat, const struct tally *ty, int n_items)
{
	int na = c->n_annotators, k = c->k;
	for (int i = 0; i < n_items; i++) {
		int x = mat[i * na + c->annotator], h = ty[i].majority;
		if (x >= 0 && h >= 0) {
			c->vs_truth[h * k + x]++;
			c->vs_n++;
			c->vs_agree += x == h;
		}
	}
	c->has_vs_kappa = c->vs_n > 0 && kappa_cohen(c->vs_truth, k, &c->vs_kappa) == ERR_OK;
}

enum err calib_run_annotator(struct labels *l, enum labels_task t, const char *only,
			     const char *annotator, unsigned seed, struct calib **out)
{
	struct calib *c = calloc(1, sizeof *c);
	struct labels_item *items = NULL;
	struct labels_label *lb = NULL;
	struct judges_id *js = NULL;
	struct adjud_final *fin = NULL;
	struct tally *ty = NULL;
	int *mat = NULL;
	const char **smat = NULL, **fins = NULL; /* the labels and final labels, for calib_tags */
	int n_items = 0, n_lb = 0, n_js = 0, n_fin = 0, k, na;
	const char *const *cls = classes(t, &k);
	enum err e = ERR_NOMEM;

	if (!task_ops(t)) {
		free(c);
		return ERR_INVALID;
	}
	if (!c)
		goto out;
	c->task = t;
	c->seed = seed;
	c->annotator = -1;
	c->k = k;
	c->classes = cls;
	if ((e = labels_items(l, t, &items, &n_items)) != ERR_OK ||
	    (e = labels_all(l, t, &lb, &n_lb)) != ERR_OK ||
	    (e = judges_list(l, t, &js, &n_js)) != ERR_OK ||
	    (e = adjud_finals(l, t, &fin, &n_fin)) != ERR_OK)
		goto out;
	/* every annotator first, so their indices (by name) no longer move */
	for (int j = 0; j < n_lb && e == ERR_OK; j++)
		annotator_index(c, lb[j].annotator, &e);
	if (e != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	na = c->n_annotators;
	for (int a = 0; annotator && a < na; a++)
		if (strcmp(c->annotators[a], annotator) == 0)
			c->annotator = a;
	if (annotator && c->annotator < 0) {
		e = ERR_NOTFOUND;
		goto out;
	}
	c->n_items = n_items;
	if (!(ty = calloc((size_t)n_items + 1, sizeof *ty)) ||
	    !(mat = malloc(((size_t)n_items * (size_t)na + 1) * sizeof *mat)) ||
	    !(smat = calloc((size_t)n_items * (size_t)na + 1, sizeof *smat)) ||
	    !(fins = calloc((size_t)n_items + 1, sizeof *fins)) ||
	    !(c->class_labels = calloc((size_t)k, sizeof *c->class_labels)) ||
	    !(c->class_items = calloc((size_t)k, sizeof *c->class_items)) ||
	    !(c->annot_class = calloc((size_t)(na * k) + 1, sizeof *c->annot_class)))
		goto out;
	for (size_t x = 0; x < (size_t)n_items * (size_t)na; x++)
		mat[x] = -1;
	e = ERR_OK;
	/* votes per item; items and labels are both in item order */
	for (int i = 0, j = 0; i < n_items && e == ERR_OK; i++) {
		const char *seen = NULL;
		bool differ = false;
		ty[i].majority = -1;
		for (; j < n_lb && lb[j].item < items[i].id; j++)
			;
		for (; j < n_lb && lb[j].item == items[i].id && e == ERR_OK; j++) {
			int cl = first_class(cls, k, lb[j].label);
			int a = annotator_index(c, lb[j].annotator, &e);
			char pair[512];
			if (a >= 0)
				smat[i * na + a] = lb[j].label;
			if (cl < 0 || a < 0)
				continue;
			ty[i].votes[cl]++;
			mat[i * na + a] = cl;
			/* every tag of a label counts for its class; the agreement, its first */
			for (int x = 0; x < k; x++)
				if (x == cl || (x > cl && labels_has_tag(lb[j].label, cls[x]))) {
					c->class_labels[x]++;
					c->annot_class[a * k + x]++;
				}
			differ |= seen && strcmp(seen, lb[j].label) != 0;
			seen = lb[j].label;
			snprintf(pair, sizeof pair, "%s%s=%s", ty[i].humans ? ", " : "",
				 lb[j].annotator, lb[j].label);
			if (!(ty[i].humans = append(ty[i].humans, pair)))
				e = ERR_NOMEM;
		}
		const struct adjud_final *f = adjud_find(fin, n_fin, items[i].id);
		int final = f ? first_class(cls, k, f->label) : -1;
		fins[i] = f ? f->label : NULL;
		if (differ)
			add_item_dis(c, &items[i], ty[i].humans, f, &e);
		long best = 0, total = 0;
		int arg = -1;
		bool tie = false;
		for (int m = 0; m < k; m++) {
			total += ty[i].votes[m];
			if (ty[i].votes[m] > best)
				best = ty[i].votes[m], arg = m, tie = false;
			else if (ty[i].votes[m] == best && best > 0)
				tie = true;
		}
		if (total == 0)
			continue;
		c->n_labelled++;
		if (final >= 0) {
			/* a reviewer's final label is the truth, ties included */
			arg = final;
			tie = false;
			c->n_adjudicated++;
		}
		if (tie) {
			c->n_tie++;
			continue;
		}
		ty[i].majority = arg;
		c->class_items[arg]++;
		if (!task_ops(t)->judged)
			continue;
		if (arg == CALIB_UNSURE) {
			c->n_unsure++;
			continue;
		}
		count_compared(c, items[i].key, seed);
	}
	if (e != ERR_OK)
		goto out;
	inter_annotator(c, mat, ty, n_items, &e);
	if (e == ERR_OK && task_ops(t)->tags &&
	    (e = calib_tags(smat, fins, n_items, na, cls, k, &c->tags)) == ERR_OK)
		c->n_tags = k;
	if (e != ERR_OK)
		goto out;
	if (c->annotator >= 0) {
		versus_truth(c, mat, ty, n_items);
		/* the judges are compared with this annotator's labels, not the truth */
		c->n_compared = c->n_dev = c->n_test = 0;
		for (int i = 0; i < n_items; i++) {
			int x = mat[i * na + c->annotator];
			if (x == CALIB_SAME || x == CALIB_DIFFERENT)
				count_compared(c, items[i].key, seed);
		}
	}
	if (!task_ops(t)->judged)
		goto out;

	for (int m = 0; m < n_js && e == ERR_OK; m++) {
		if (only && strcmp(only, js[m].judge) != 0)
			continue;
		struct calib_judge *nj = realloc(c->judges, (size_t)(c->n_judges + 1) * sizeof *nj);
		if (!nj) {
			e = ERR_NOMEM;
			break;
		}
		c->judges = nj;
		struct calib_judge *j = &nj[c->n_judges++];
		memset(j, 0, sizeof *j);
		j->judge = dup0(js[m].judge, &e);
		j->version = dup0(js[m].version, &e);
		for (int i = 0; i < n_items && e == ERR_OK; i++) {
			int h = c->annotator >= 0 ? mat[i * na + c->annotator] : ty[i].majority, d;
			char *dec = NULL, day[11] = "";
			if (h != CALIB_SAME && h != CALIB_DIFFERENT)
				continue;
			enum err ge = judges_get_dated(l, items[i].id, j->judge, j->version, &dec, day);
			if (ge == ERR_NOTFOUND) {
				j->undecided++;
				continue;
			}
			if (ge != ERR_OK) {
				e = ge;
				break;
			}
			d = class_of(cls, k, dec);
			if (d >= 0) {
				enum calib_split s = calib_split_of(items[i].key, seed);
				j->split[CALIB_ALL].table[h * CALIB_NCLASSES + d]++;
				j->split[s].table[h * CALIB_NCLASSES + d]++;
				add_trend(c, j, day, d == h, &e);
				if (d != h && e == ERR_OK)
					e = add_disagreement(c, &items[i], &ty[i], h, j, dec, s);
			}
			free(dec);
		}
		for (int s = 0; s < CALIB_NSPLITS; s++) {
			struct calib_judge_figures *f = &j->split[s];
			for (int x = 0; x < CALIB_NCLASSES * CALIB_NCLASSES; x++)
				f->n += f->table[x];
			finish_figures(f);
		}
	}
out:
	if (ty)
		for (int i = 0; i < n_items; i++)
			free(ty[i].humans);
	free(ty);
	free(mat);
	free(smat);
	free(fins);
	labels_items_free(items, n_items);
	labels_all_free(lb, n_lb);
	judges_list_free(js, n_js);
	adjud_finals_free(fin, n_fin);
	if (e == ERR_OK) {
		*out = c;
		return ERR_OK;
	}
	calib_free(c);
	return e;
}
