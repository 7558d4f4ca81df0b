/* calib: judges against the human majority, and annotators against each other
 * (calib.h). */
#include "calib.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations/judges.h"
#include "annotations/task.h"

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
	free(c);
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
				 const struct tally *ty, const struct calib_judge *j,
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
	d->majority = dup0(binary_names[ty->majority], &e);
	d->expected = dup0(it->expected, &e);
	d->captured = dup0(it->captured, &e);
	d->transcript = dup0(it->transcript, &e);
	d->humans = dup0(ty->humans, &e);
	return e;
}

/* inter_annotator: Cohen for two annotators, Fleiss for more, over the task's classes. */
static void inter_annotator(struct calib *c, const struct labels_label *lb, int n_lb,
			    const struct labels_item *items, int n_items, struct tally *ty, int k,
			    const char *const *cls, enum err *e)
{
	if (c->n_annotators == 2) {
		long t[KAPPA_MAX_CLASSES * KAPPA_MAX_CLASSES] = {0};
		/* labels come by item then annotator (labels_all), so a pair is adjacent */
		for (int i = 0; i + 1 < n_lb; i++) {
			if (lb[i].item != lb[i + 1].item)
				continue;
			int a = class_of(cls, k, lb[i].label), b = class_of(cls, k, lb[i + 1].label);
			int ia = annotator_index(c, lb[i].annotator, e);
			if (a < 0 || b < 0 || ia < 0)
				continue;
			/* rows: the first annotator by name */
			if (ia == 0)
				t[a * k + b]++;
			else
				t[b * k + a]++;
		}
		if (kappa_cohen(t, k, &c->iaa) == ERR_OK)
			c->agreement = "cohen";
	} else if (c->n_annotators > 2) {
		long *counts = calloc((size_t)n_items * (size_t)k + 1, sizeof *counts);
		if (!counts) {
			*e = ERR_NOMEM;
			return;
		}
		for (int i = 0; i < n_items; i++)
			memcpy(counts + (size_t)i * k, ty[i].votes, (size_t)k * sizeof *counts);
		if (kappa_fleiss(counts, n_items, k, &c->iaa) == ERR_OK)
			c->agreement = "fleiss";
		free(counts);
	}
	(void)items;
}

enum err calib_run(struct labels *l, enum labels_task t, const char *only, unsigned seed,
		   struct calib **out)
{
	struct calib *c = calloc(1, sizeof *c);
	struct labels_item *items = NULL;
	struct labels_label *lb = NULL;
	struct judges_id *js = NULL;
	struct tally *ty = NULL;
	int n_items = 0, n_lb = 0, n_js = 0, k;
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
	if ((e = labels_items(l, t, &items, &n_items)) != ERR_OK ||
	    (e = labels_all(l, t, &lb, &n_lb)) != ERR_OK ||
	    (e = judges_list(l, t, &js, &n_js)) != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	c->n_items = n_items;
	if (!(ty = calloc((size_t)n_items + 1, sizeof *ty)))
		goto out;
	e = ERR_OK;
	/* votes per item; items and labels are both in item order */
	for (int i = 0, j = 0; i < n_items && e == ERR_OK; i++) {
		ty[i].majority = -1;
		for (; j < n_lb && lb[j].item < items[i].id; j++)
			;
		for (; j < n_lb && lb[j].item == items[i].id && e == ERR_OK; j++) {
			int cl = class_of(cls, k, lb[j].label);
			char pair[512];
			annotator_index(c, lb[j].annotator, &e);
			if (cl < 0)
				continue;
			ty[i].votes[cl]++;
			snprintf(pair, sizeof pair, "%s%s=%s", ty[i].humans ? ", " : "",
				 lb[j].annotator, lb[j].label);
			if (!(ty[i].humans = append(ty[i].humans, pair)))
				e = ERR_NOMEM;
		}
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
		if (tie) {
			c->n_tie++;
			continue;
		}
		ty[i].majority = arg;
		if (!task_ops(t)->judged)
			continue;
		if (arg == CALIB_UNSURE) {
			c->n_unsure++;
			continue;
		}
		c->n_compared++;
		if (calib_split_of(items[i].key, seed) == CALIB_DEV)
			c->n_dev++;
		else
			c->n_test++;
	}
	if (e != ERR_OK)
		goto out;
	inter_annotator(c, lb, n_lb, items, n_items, ty, k, cls, &e);
	if (e != ERR_OK || !task_ops(t)->judged)
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
			int h = ty[i].majority, d;
			char *dec = NULL;
			if (h != CALIB_SAME && h != CALIB_DIFFERENT)
				continue;
			enum err ge = judges_get(l, items[i].id, j->judge, j->version, &dec);
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
				if (d != h)
					e = add_disagreement(c, &items[i], &ty[i], j, dec, s);
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
	labels_items_free(items, n_items);
	labels_all_free(lb, n_lb);
	judges_list_free(js, n_js);
	if (e == ERR_OK) {
		*out = c;
		return ERR_OK;
	}
	calib_free(c);
	return e;
}
