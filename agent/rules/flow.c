/* flow: one call's rule layer (FormBharo semantics; flow.h names the sources, decision.h
 * the decision record). Every value goes through validate_answer, the same code
 * flow_check uses, so `formdesk extract` and a call always agree. */
#include "flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

struct flow {
	const struct form *form;
	const struct lexicon *lex;
	struct ymd today;
	bool started;
	enum call_status status;
	int turn;            /* caller turns so far */
	int current;         /* question being asked, -1 when none */
	enum field_status *st;
	int *used;           /* failed turns per question */
	cJSON **val;         /* stored value per question, NULL when none */
	int *free_used;      /* free re-asks per question (flow.h) */
	cJSON **held;        /* value held per question until its branch is decided, or NULL */
	int *held_turn;      /* the caller turn each held value was said in */
	cJSON *data;         /* form_data view */
	cJSON *fstatus;      /* form_status view */
	cJSON *hview;        /* held view */
};

const char *field_status_name(enum field_status s)
{
	switch (s) {
	case FIELD_EMPTY: return "empty";
	case FIELD_ANSWERED: return "answered";
	case FIELD_SKIPPED: return "skipped";
	}
	return "empty";
}

/* The truth of a boolean answer as stored (true/false or a boolean_labels label); -1 when
 * not a boolean answer. */
static int truth(const struct form_question *q, const cJSON *v)
{
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (cJSON_IsString(v)) {
		if (q->label_true && strcmp(v->valuestring, q->label_true) == 0)
			return 1;
		if (q->label_false && strcmp(v->valuestring, q->label_false) == 0)
			return 0;
	}
	return -1;
}

/* Branch b's state: 1 active, 0 not active, -1 not yet decidable (its controller is still
 * empty). The condition itself is form_branch_open's; a controller that does not apply
 * itself closes the branch. */
static int branch_state(const struct flow *fl, int b)
{
	const struct form *f = fl->form;
	if (b < 0)
		return 1;
	if (b >= f->n_branches)
		return 0;
	const struct form_branch *br = &f->branches[b];
	int c = br->question;
	if (c < 0)
		return 0;
	if (f->questions[c].branch >= 0 && branch_state(fl, f->questions[c].branch) == 0)
		return 0;
	enum form_answer a = FORM_ANSWER_EMPTY;
	if (fl->st[c] == FIELD_SKIPPED) {
		a = FORM_ANSWER_SKIPPED;
	} else if (fl->st[c] == FIELD_ANSWERED) {
		int t = truth(&f->questions[c], fl->val[c]);
		a = t == 1 ? FORM_ANSWER_TRUE : t == 0 ? FORM_ANSWER_FALSE : FORM_ANSWER_OTHER;
	}
	return form_branch_open(br, a);
}

bool flow_branch_active(const struct flow *fl, int branch)
{
	return fl && branch_state(fl, branch) == 1;
}

static bool applies(const struct flow *fl, int q)
{
	return branch_state(fl, fl->form->questions[q].branch) == 1;
}

/* The next question: the first in order that applies and is still empty; -1 if none. */
static int next_question(const struct flow *fl)
{
	for (int i = 0; i < fl->form->n_questions; i++)
		if (fl->st[i] == FIELD_EMPTY && applies(fl, i))
			return i;
	return -1;
}

/* Retries a question allows after its first ask (retries.mdx); -1 = until_answered. */
int flow_retry_limit(const struct flow *fl, int question)
{
	if (!fl || question < 0 || question >= fl->form->n_questions)
		return 0;
	return form_retry_limit(&fl->form->questions[question]);
}

enum err flow_new(const struct form *form, const struct lexicon *lex, struct ymd today,
		  struct flow **out)
{
	if (!form || form->n_questions <= 0)
		return ERR_INVALID;
	struct flow *fl = calloc(1, sizeof(*fl));
	if (!fl)
		return ERR_NOMEM;
	size_t n = (size_t)form->n_questions;
	fl->form = form;
	fl->lex = lex;
	fl->today = today;
	fl->status = CALL_IN_PROGRESS;
	fl->current = -1;
	fl->st = calloc(n, sizeof(*fl->st));
	fl->used = calloc(n, sizeof(*fl->used));
	fl->val = calloc(n, sizeof(*fl->val));
	fl->free_used = calloc(n, sizeof(*fl->free_used));
	fl->held = calloc(n, sizeof(*fl->held));
	fl->held_turn = calloc(n, sizeof(*fl->held_turn));
	if (!fl->st || !fl->used || !fl->val || !fl->free_used || !fl->held || !fl->held_turn) {
		flow_free(fl);
		return ERR_NOMEM;
	}
	*out = fl;
	return ERR_OK;
}

void flow_free(struct flow *fl)
{
	if (!fl)
		return;
	for (int i = 0; fl->val && i < fl->form->n_questions; i++)
		cJSON_Delete(fl->val[i]);
	for (int i = 0; fl->held && i < fl->form->n_questions; i++)
		cJSON_Delete(fl->held[i]);
	free(fl->val);
	free(fl->held);
	free(fl->held_turn);
	free(fl->free_used);
	cJSON_Delete(fl->hview);
	free(fl->st);
	free(fl->used);
	cJSON_Delete(fl->data);
	cJSON_Delete(fl->fstatus);
	free(fl);
}

static enum err rebuild_views(struct flow *fl)
{
	cJSON *d = cJSON_CreateObject(), *s = cJSON_CreateObject(), *h = cJSON_CreateObject();
	if (!d || !s || !h)
		goto nomem;
	for (int i = 0; i < fl->form->n_questions; i++) {
		const char *name = fl->form->questions[i].name;
		/* FormBharo's form_data holds answered values and null for skipped ones; a
		 * question never reached is only in form_status (concepts/answers.mdx). */
		if (fl->st[i] != FIELD_EMPTY) {
			cJSON *v = fl->val[i] ? cJSON_Duplicate(fl->val[i], true) : cJSON_CreateNull();
			if (!v || !cJSON_AddItemToObject(d, name, v)) {
				cJSON_Delete(v);
				goto nomem;
			}
		}
		if (!cJSON_AddStringToObject(s, name, field_status_name(fl->st[i])))
			goto nomem;
		if (fl->held[i]) {
			cJSON *e = cJSON_AddObjectToObject(h, name);
			cJSON *v = cJSON_Duplicate(fl->held[i], true);
			if (!e || !v || !cJSON_AddItemToObject(e, "value", v)) {
				cJSON_Delete(v);
				goto nomem;
			}
			if (!cJSON_AddStringToObject(e, "branch", fl->form->questions[i].branch_id
								  ? fl->form->questions[i].branch_id : "") ||
			    !cJSON_AddNumberToObject(e, "turn", fl->held_turn[i]))
				goto nomem;
		}
	}
	cJSON_Delete(fl->data);
	cJSON_Delete(fl->fstatus);
	cJSON_Delete(fl->hview);
	fl->data = d;
	fl->fstatus = s;
	fl->hview = h;
	return ERR_OK;
nomem:
	cJSON_Delete(d);
	cJSON_Delete(s);
	cJSON_Delete(h);
	return ERR_NOMEM;
}

static void set_value(struct flow *fl, int q, cJSON *v, enum field_status st)
{
	cJSON_Delete(fl->val[q]);
	fl->val[q] = v;
	fl->st[q] = st;
}

/* A decision under construction. Allocation failures are remembered in nomem and
 * reported once at the end, so the building code stays linear. */
struct dec {
	struct decision *d;
	bool nomem;
};

static void chk(struct dec *d, enum err e)
{
	if (e != ERR_OK)
		d->nomem = true;
}

static bool dup_str(struct dec *d, char **slot, const char *s)
{
	free(*slot);
	*slot = s ? strdup(s) : NULL;
	if (s && !*slot)
		d->nomem = true;
	return !d->nomem;
}

static void dec_init(struct dec *d, int turn, const char *asked)
{
	memset(d, 0, sizeof(*d));
	if (!(d->d = decision_new())) {
		d->nomem = true;
		return;
	}
	d->d->turn = turn;
	dup_str(d, &d->d->asked, asked);
}

static void dec_fault(struct dec *d, const char *fmt, const char *a, const char *b)
{
	char buf[600];
	snprintf(buf, sizeof(buf), fmt, a ? a : "", b ? b : "");
	if (d->d)
		chk(d, decision_add_fault(d->d, buf));
}

static void dec_capture(struct dec *d, const struct extraction_item *it, const cJSON *value,
			enum decision_capture_status status, const char *reason)
{
	if (d->d)
		chk(d, decision_add_capture(d->d, it->field, it->value, value, status, reason));
}

/* A held value's capture: applied, refused or dropped in this turn. */
static void dec_held(struct dec *d, const struct flow *fl, int q, const cJSON *value,
		     enum decision_capture_status status, const char *reason)
{
	const struct form_question *qq = &fl->form->questions[q];
	char why[700];
	/* the turn in the words too, for readers of the reason alone (the store's rows) */
	snprintf(why, sizeof why, "said in turn %d; %s", fl->held_turn[q], reason ? reason : "");
	if (d->d)
		chk(d, decision_add_capture_held(d->d, qq->name, fl->held[q], value, status, why,
						 qq->branch_id, fl->held_turn[q]));
}

static void drop_held(struct flow *fl, int q)
{
	cJSON_Delete(fl->held[q]);
	fl->held[q] = NULL;
	fl->held_turn[q] = 0;
}

static void dec_skipped(struct dec *d, const char *name)
{
	if (d->d)
		chk(d, decision_add_skipped(d->d, name));
}

static void dec_retries(struct dec *d, const struct flow *fl, int q)
{
	if (!d->d || q < 0)
		return;
	struct decision_retries *r = &d->d->retries;
	int limit = flow_retry_limit(fl, q);
	d->d->has_retries = true;
	dup_str(d, &r->field, fl->form->questions[q].name);
	r->used = fl->used[q];
	r->until_answered = limit < 0;
	r->max = limit < 0 ? 0 : limit;
	r->left = limit > fl->used[q] ? limit - fl->used[q] : 0;
	r->free_used = fl->free_used[q];
	r->free_max = FLOW_FREE_REASKS;
}

static void dec_branches(struct dec *d, const struct flow *fl)
{
	for (int i = 0; d->d && i < fl->form->n_branches; i++) {
		const struct form_branch *b = &fl->form->branches[i];
		char cond[32];
		if (b->has_present)
			snprintf(cond, sizeof(cond), "present %s", b->present ? "true" : "false");
		else
			snprintf(cond, sizeof(cond), "equals %s", b->equals ? "true" : "false");
		chk(d, decision_add_branch(d->d, b->id, b->field, cond, branch_state(fl, i) == 1));
	}
}

/* The closing part of every decision: tool call, call status, reason. */
static void dec_finish(struct dec *d, struct flow *fl, int next, const char *error,
		       const char *end_reason, const char *reason)
{
	const struct form *f = fl->form;
	struct decision *dd = d->d;
	if (!dd)
		return;
	if (fl->status == CALL_IN_PROGRESS) {
		const struct form_question *q = &f->questions[next];
		dd->tool = DECISION_ASK_QUESTION;
		dup_str(d, &dd->ask.field, q->name);
		dup_str(d, &dd->ask.label, q->label);
		dup_str(d, &dd->ask.script, q->script);
		dd->ask.retry = fl->used[next];
		if (error && fl->used[next] > 0)
			dup_str(d, &dd->ask.error, error);
	} else {
		dd->tool = DECISION_END_CALL;
		dd->end.status = fl->status;
		dup_str(d, &dd->end.reason, end_reason);
		dup_str(d, &dd->end.script,
			fl->status == CALL_COMPLETE ? f->outro : f->outro_incomplete);
	}
	dd->call_status = fl->status;
	dup_str(d, &dd->reason, reason);
}

enum err flow_start(struct flow *fl, struct decision **out)
{
	if (!fl || fl->started)
		return ERR_INVALID;
	struct dec d;
	char reason[300];
	fl->started = true;
	dec_init(&d, 0, NULL);
	dec_retries(&d, fl, -1);
	dec_branches(&d, fl);
	int next = next_question(fl);
	fl->current = next;
	if (next < 0) {
		fl->status = CALL_COMPLETE;
		dec_finish(&d, fl, -1, NULL, "all_answered", "No question applies: the form is complete.");
	} else {
		snprintf(reason, sizeof(reason), "Opening: ask the first question, %s.",
			 fl->form->questions[next].name);
		dec_finish(&d, fl, next, NULL, NULL, reason);
	}
	if (!d.nomem && rebuild_views(fl) == ERR_OK) {
		*out = d.d;
		return ERR_OK;
	}
	decision_free(d.d);
	return ERR_NOMEM;
}

static bool twice_of(const bool *twice, int q)
{
	return twice && q >= 0 && twice[q];
}

/* Items in question order (unknown fields first), so a controller answered in the same
 * turn decides its branch before that branch's questions are looked at; among items for
 * the same question, the later one wins. */
static int *item_order(const struct form *f, const struct extraction *ex)
{
	int *ord = malloc(((size_t)ex->n + 1) * sizeof(int));
	if (!ord)
		return NULL;
	int k = 0;
	for (int qi = -1; qi < f->n_questions; qi++)
		for (int i = 0; i < ex->n; i++)
			if (form_find(f, ex->items[i].field) == qi)
				ord[k++] = i;
	return ord;
}

/* conflicts: for each question, whether EXTRACT listed it twice with different values (a
 * skip flag beside a value is no second value: the rules below settle it). Output: new
 * array (caller frees), NULL when out of memory. */
static bool *conflicts(const struct form *f, const struct extraction *ex)
{
	bool *c = calloc((size_t)f->n_questions + 1, sizeof(bool));
	for (int i = 0; c && ex && i < ex->n; i++) {
		int q = form_find(f, ex->items[i].field);
		for (int j = i + 1; q >= 0 && j < ex->n; j++) {
			const struct extraction_item *a = &ex->items[i], *b = &ex->items[j];
			if (form_find(f, b->field) != q)
				continue;
			if (!a->skip && !b->skip && a->value && b->value &&
			    !cJSON_IsNull(a->value) && !cJSON_IsNull(b->value) &&
			    !cJSON_Compare(a->value, b->value, true))
				c[q] = true;
		}
	}
	return c;
}

/* What became of question q's branch, in words: "its branch 'is_pregnant' (pregnant
 * equals true) opened". */
static void branch_words(const struct flow *fl, int q, const char *what, char *buf, size_t n)
{
	const struct form_question *qq = &fl->form->questions[q];
	const struct form_branch *b = qq->branch >= 0 ? &fl->form->branches[qq->branch] : NULL;
	char cond[200] = "";
	if (b)
		snprintf(cond, sizeof cond, " (%s %s %s)", b->field ? b->field : "",
			 b->has_present ? "present" : "equals",
			 (b->has_present ? b->present : b->equals) ? "true" : "false");
	snprintf(buf, n, "its branch '%s'%s %s", qq->branch_id ? qq->branch_id : "", cond, what);
}

/* Held values whose branch is now decided: validate and store those whose branch opened,
 * drop those whose branch closed or whose field was answered otherwise. Returns whether
 * a value was stored (it may decide another branch). *screen is set as flow_turn's.
 * Errors: ERR_NOMEM. */
static enum err settle_held(struct flow *fl, struct dec *d, cJSON *verdicts, int *screen,
			    bool *stored)
{
	char why[300];
	*stored = false;
	for (int q = 0; q < fl->form->n_questions; q++) {
		if (!fl->held[q])
			continue;
		const struct form_question *qq = &fl->form->questions[q];
		int bs = branch_state(fl, qq->branch);
		if (fl->st[q] != FIELD_EMPTY) {
			dec_held(d, fl, q, NULL, DECISION_DROPPED, "replaced by a later answer");
			drop_held(fl, q);
			continue;
		}
		if (bs < 0)
			continue;
		if (bs == 0) {
			branch_words(fl, q, "closed", why, sizeof why);
			dec_held(d, fl, q, NULL, DECISION_DROPPED, why);
			drop_held(fl, q);
			continue;
		}
		/* the branch opened: its validators run now, on the value as it was said */
		enum normalize_result res;
		cJSON *value = NULL;
		char *err = NULL;
		enum err e = validate_answer(qq, fl->lex, fl->today, fl->held[q], verdicts, &res,
					     &value, &err);
		if (e != ERR_OK)
			return e;
		branch_words(fl, q, "opened", why, sizeof why);
		if (res == NORMALIZE_OK) {
			size_t n = strlen(why);
			snprintf(why + n, sizeof(why) - n, ": answered without being asked");
			dec_held(d, fl, q, value, DECISION_ANSWERED, why);
			set_value(fl, q, value, FIELD_ANSWERED);
			*stored = true;
			if (*screen < 0 && validate_end_call_value(qq, fl->lex, value))
				*screen = q;
		} else if (res == NORMALIZE_INVALID) {
			dec_held(d, fl, q, NULL, DECISION_INVALID, err);
		} else {
			dec_held(d, fl, q, NULL, DECISION_IGNORED, "no value");
		}
		free(err);
		drop_held(fl, q);
	}
	return ERR_OK;
}

enum err flow_turn(struct flow *fl, const struct extraction *ex, struct decision **out)
{
	if (!fl || !fl->started || fl->status != CALL_IN_PROGRESS)
		return ERR_INVALID;
	const struct form *f = fl->form;
	enum err e = ERR_OK;
	struct dec d;
	char reason[800], why[300];
	char *asked_err = NULL;
	int *ord = NULL;
	bool *twice = NULL;
	cJSON *verdicts = NULL; /* validate_answer's verdicts, moved into the decision */
	int asked = fl->current;
	bool asked_done = false, asked_skip_required = false;
	int screen = -1, other = -1; /* other: a field other than the asked one given a value */

	fl->turn++;
	dec_init(&d, fl->turn, asked >= 0 ? f->questions[asked].name : NULL);
	if (!(verdicts = cJSON_CreateArray()))
		d.nomem = true;
	if (ex && ex->fault)
		dec_fault(&d, "extraction: %s%s", ex->fault, NULL);
	if (ex && ex->n > 0 && (!(ord = item_order(f, ex)) || !(twice = conflicts(f, ex)))) {
		e = ERR_NOMEM;
		goto out;
	}
	for (int k = 0; ex && k < ex->n; k++) {
		const struct extraction_item *it = &ex->items[ord[k]];
		int q = form_find(f, it->field);
		if (q < 0) {
			dec_capture(&d, it, NULL, DECISION_IGNORED, "unknown field");
			dec_fault(&d, "unknown field '%s'%s", it->field ? it->field : "(none)", NULL);
			continue;
		}
		const struct form_question *qq = &f->questions[q];
		if (twice[q]) {
			/* which one the caller meant is not ours to guess: neither is used */
			dec_capture(&d, it, NULL, DECISION_IGNORED, "listed twice with different values");
			bool first = true;
			for (int j = 0; j < k; j++)
				first &= form_find(f, ex->items[ord[j]].field) != q;
			if (first)
				dec_fault(&d, "'%s' listed twice with different values%s", qq->name, NULL);
			continue;
		}
		int bs = branch_state(fl, qq->branch);
		if (bs == 0) {
			dec_capture(&d, it, NULL, DECISION_IGNORED, "its branch is not active");
			dec_fault(&d, "'%s' answered, but branch '%s' is not active", qq->name,
				  qq->branch_id);
			continue;
		}
		if (bs < 0 && it->skip) {
			dec_capture(&d, it, NULL, DECISION_IGNORED, "its branch is not decided yet");
			continue;
		}
		if (bs < 0) {
			/* said before its branch is decided: kept until it is (flow.h) */
			cJSON *h = it->value ? cJSON_Duplicate(it->value, true) : NULL;
			if (!h) {
				dec_capture(&d, it, NULL, DECISION_IGNORED, "no value");
				d.nomem |= it->value != NULL;
				continue;
			}
			cJSON_Delete(fl->held[q]);
			fl->held[q] = h;
			fl->held_turn[q] = fl->turn;
			branch_words(fl, q, "is not decided yet", why, sizeof why);
			if (d.d)
				chk(&d, decision_add_capture_held(d.d, it->field, it->value, NULL,
								  DECISION_HELD, why, qq->branch_id, 0));
			if (other < 0)
				other = q;
			continue;
		}
		if (it->skip) {
			if (qq->required) {
				/* A model's skip flag never skips a required field. */
				dec_capture(&d, it, NULL, DECISION_IGNORED, "a required field cannot be skipped");
				if (q == asked)
					asked_skip_required = true;
			} else if (fl->st[q] == FIELD_ANSWERED && q != asked) {
				dec_capture(&d, it, NULL, DECISION_IGNORED, "already answered");
			} else {
				set_value(fl, q, NULL, FIELD_SKIPPED);
				dec_capture(&d, it, NULL, DECISION_SKIPPED, it->reason ? it->reason : "dont_know");
				dec_skipped(&d, qq->name);
				if (q == asked)
					asked_done = true;
			}
			continue;
		}
		enum normalize_result res;
		cJSON *value = NULL;
		char *err = NULL;
		e = validate_answer(qq, fl->lex, fl->today, it->value, verdicts, &res, &value, &err);
		if (e != ERR_OK)
			goto out;
		if (res == NORMALIZE_EMPTY) {
			dec_capture(&d, it, NULL, DECISION_IGNORED, "no value");
		} else if (res == NORMALIZE_INVALID) {
			dec_capture(&d, it, NULL, DECISION_INVALID, err);
			if (q == asked) {
				free(asked_err);
				asked_err = err;
				err = NULL;
			}
			free(err);
		} else {
			dec_capture(&d, it, value, DECISION_ANSWERED, NULL);
			set_value(fl, q, value, FIELD_ANSWERED);
			if (q == asked)
				asked_done = true;
			else if (other < 0)
				other = q;
			if (screen < 0 && validate_end_call_value(qq, fl->lex, value))
				screen = q;
		}
	}
	/* Settle held values and corrections until nothing changes: a held value stored may
	 * decide another branch; a correction can close a branch, whose answers then no
	 * longer apply. Each pass stores or clears at least one field, so this ends. */
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < f->n_questions; i++)
			if (fl->st[i] != FIELD_EMPTY && !applies(fl, i)) {
				set_value(fl, i, NULL, FIELD_EMPTY);
				fl->used[i] = 0;
				changed = true;
			}
		bool stored = false;
		if ((e = settle_held(fl, &d, verdicts, &screen, &stored)) != ERR_OK)
			goto out;
		changed |= stored;
	}
	if (screen >= 0 && fl->st[screen] != FIELD_ANSWERED)
		screen = -1;

	int next = next_question(fl);
	const char *end_reason = NULL;
	bool failed = false;
	if (screen >= 0) {
		fl->status = CALL_SCREENED_OUT;
		end_reason = "end_call_value";
		snprintf(reason, sizeof(reason), "The answer to %s is one of its end_call_values: the call is screened out.",
			 f->questions[screen].name);
	} else if (asked >= 0 && !asked_done && next == asked && other >= 0 && !asked_err &&
		   !asked_skip_required && !twice_of(twice, asked) &&
		   fl->free_used[asked] < FLOW_FREE_REASKS) {
		/* The turn answered another field only: not a failed answer (flow.h). */
		fl->free_used[asked]++;
		snprintf(reason, sizeof(reason), "%s got no answer, but the turn answered %s: re-ask without using a retry (free re-ask %d of %d).",
			 f->questions[asked].name, f->questions[other].name, fl->free_used[asked],
			 FLOW_FREE_REASKS);
		failed = true;
	} else if (asked >= 0 && !asked_done && next == asked) {
		/* The asked field got no valid answer: one retry used (retries.mdx). */
		const struct form_question *q = &f->questions[asked];
		int limit = flow_retry_limit(fl, asked);
		fl->used[asked]++;
		failed = true;
		if (!asked_err && asked_skip_required &&
		    !(asked_err = strdup("This question is required and cannot be skipped."))) {
			e = ERR_NOMEM;
			goto out;
		}
		if (limit >= 0 && fl->used[asked] > limit) {
			/* Exhausted: put to the caller, nothing captured -> null, skipped. */
			set_value(fl, asked, NULL, FIELD_SKIPPED);
			if (q->required || q->exhausted_end_call) {
				fl->status = CALL_FAILED;
				end_reason = "retries_exhausted";
				snprintf(reason, sizeof(reason), "%s ran out of retries (%d answers failed; all %d re-asks used) and %s: the call ends.",
					 q->name, fl->used[asked], limit,
					 q->required ? "is required" : "its exhausted_action is end_call");
			} else {
				dec_skipped(&d, q->name);
				next = next_question(fl);
				snprintf(reason, sizeof(reason), "%s ran out of retries (%d answers failed; all %d re-asks used); it is optional, so it is skipped.",
					 q->name, fl->used[asked], limit);
			}
		} else {
			char lim[32];
			snprintf(lim, sizeof(lim), limit < 0 ? "until answered" : "of %d", limit);
			snprintf(reason, sizeof(reason), "%s got no valid answer%s%s Re-ask (retry %d %s).",
				 q->name, asked_err ? ": " : ".", asked_err ? asked_err : "",
				 fl->used[asked], lim);
		}
	}
	if (fl->status == CALL_IN_PROGRESS) {
		if (next < 0) {
			fl->status = CALL_COMPLETE;
			end_reason = "all_answered";
			snprintf(reason, sizeof(reason), "Every question that applies is answered or skipped: the call is complete.");
		} else if (!failed) {
			snprintf(reason, sizeof(reason), "Next question: %s, the first that applies and is still empty.",
				 f->questions[next].name);
		} else if (next != asked) {
			/* the asked question was skipped: say so, then what comes next */
			size_t n = strlen(reason);
			snprintf(reason + n, sizeof(reason) - n, " Next question: %s.", f->questions[next].name);
		}
	}
	fl->current = fl->status == CALL_IN_PROGRESS ? next : -1;
	if (d.d)
		chk(&d, decision_add_verdicts(d.d, verdicts));
	dec_retries(&d, fl, asked);
	dec_branches(&d, fl);
	dec_finish(&d, fl, next, next == asked ? asked_err : NULL, end_reason, reason);
	if (d.nomem || rebuild_views(fl) != ERR_OK)
		e = ERR_NOMEM;
out:
	free(ord);
	free(twice);
	free(asked_err);
	cJSON_Delete(verdicts);
	if (e == ERR_OK && !d.nomem) {
		*out = d.d;
		return ERR_OK;
	}
	decision_free(d.d);
	return e != ERR_OK ? e : ERR_NOMEM;
}

static enum err check_put(cJSON *o, const char *field, const char *status, const char *k,
			  cJSON *v)
{
	cJSON *e = cJSON_CreateObject();
	if (!e || !cJSON_AddStringToObject(e, "status", status)) {
		cJSON_Delete(e);
		cJSON_Delete(v);
		return ERR_NOMEM;
	}
	if (k && (!v || !cJSON_AddItemToObject(e, k, v))) {
		cJSON_Delete(e);
		cJSON_Delete(v);
		return ERR_NOMEM;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, field);
	if (!cJSON_AddItemToObject(o, field, e)) {
		cJSON_Delete(e);
		return ERR_NOMEM;
	}
	return ERR_OK;
}

enum err flow_check(const struct form *form, const struct lexicon *lex, struct ymd today,
		    int asked, const struct extraction *ex, cJSON **out)
{
	enum err e = ERR_OK;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return ERR_NOMEM;
	for (int i = 0; ex && i < ex->n && e == ERR_OK; i++) {
		const struct extraction_item *it = &ex->items[i];
		const char *field = it->field ? it->field : "";
		int q = form_find(form, it->field);
		if (q < 0) {
			char msg[300];
			snprintf(msg, sizeof(msg), "No question named '%.200s'.", field);
			e = check_put(o, field, "invalid", "error", cJSON_CreateString(msg));
			continue;
		}
		if (it->skip) {
			e = check_put(o, field, "skipped", "reason",
				      cJSON_CreateString(it->reason ? it->reason : "dont_know"));
			continue;
		}
		enum normalize_result res;
		cJSON *value = NULL;
		char *err = NULL;
		e = validate_answer(&form->questions[q], lex, today, it->value, NULL, &res, &value, &err);
		if (e != ERR_OK)
			break;
		if (res == NORMALIZE_OK) {
			e = check_put(o, field, "answered", "value", value);
		} else if (res == NORMALIZE_INVALID) {
			e = check_put(o, field, "invalid", "error", cJSON_CreateString(err));
			free(err);
		} else {
			e = check_put(o, field, "empty", NULL, NULL);
		}
	}
	if (e == ERR_OK && asked >= 0 && asked < form->n_questions &&
	    !cJSON_GetObjectItemCaseSensitive(o, form->questions[asked].name))
		e = check_put(o, form->questions[asked].name, "empty", NULL, NULL);
	if (e != ERR_OK) {
		cJSON_Delete(o);
		return e;
	}
	*out = o;
	return ERR_OK;
}

const cJSON *flow_form_data(const struct flow *fl)
{
	return fl ? fl->data : NULL;
}

const cJSON *flow_held_view(const struct flow *fl)
{
	return fl ? fl->hview : NULL;
}

const cJSON *flow_held(const struct flow *fl, int question, int *turn)
{
	if (!fl || question < 0 || question >= fl->form->n_questions)
		return NULL;
	if (turn)
		*turn = fl->held_turn[question];
	return fl->held[question];
}

const cJSON *flow_form_status(const struct flow *fl)
{
	return fl ? fl->fstatus : NULL;
}

enum call_status flow_status(const struct flow *fl)
{
	return fl ? fl->status : CALL_FAILED;
}

enum field_status flow_field_status(const struct flow *fl, int question)
{
	if (!fl || question < 0 || question >= fl->form->n_questions)
		return FIELD_EMPTY;
	return fl->st[question];
}

int flow_retries_used(const struct flow *fl, int question)
{
	if (!fl || question < 0 || question >= fl->form->n_questions)
		return 0;
	return fl->used[question];
}

int flow_current(const struct flow *fl)
{
	return fl && fl->status == CALL_IN_PROGRESS ? fl->current : -1;
}
