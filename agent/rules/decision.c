/* decision: the rule layer's decision record and its one JSON shape (see decision.h). */
#include "decision.h"
#include "base/numconv.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The shape's words, by enum value. */
static const char *const call_status_words[] = {
	[CALL_IN_PROGRESS] = "in_progress", [CALL_COMPLETE] = "complete",
	[CALL_SCREENED_OUT] = "screened_out", [CALL_FAILED] = "failed",
};
static const char *const capture_words[] = {
	[DECISION_ANSWERED] = "answered", [DECISION_INVALID] = "invalid",
	[DECISION_SKIPPED] = "skipped", [DECISION_IGNORED] = "ignored",
	[DECISION_HELD] = "held", [DECISION_DROPPED] = "dropped",
};
#define N_WORDS(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *call_status_name(enum call_status s)
{
	return (int)s >= 0 && (int)s < N_WORDS(call_status_words) ? call_status_words[s] : "failed";
}

const char *decision_capture_status_name(enum decision_capture_status s)
{
	return (int)s >= 0 && (int)s < N_WORDS(capture_words) ? capture_words[s] : "ignored";
}

const char *decision_tool_name(enum decision_tool t)
{
	return t == DECISION_END_CALL ? "end_call" : "ask_question";
}

/* ---- memory ---- */

/* dup: s copied into *slot (NULL stays NULL). false when out of memory. */
static bool dup(char **slot, const char *s)
{
	*slot = s ? strdup(s) : NULL;
	return !s || *slot;
}

static bool dup_json(cJSON **slot, const cJSON *v)
{
	*slot = v ? cJSON_Duplicate(v, true) : NULL;
	return !v || *slot;
}

/* GROW: room for one more element in array a (holding n); false when out of memory (a
 * unchanged). */
#define GROW(a, n)                                                                    \
	({                                                                            \
		__typeof__(a) g_ = realloc((a), ((size_t)(n) + 1) * sizeof *(a));     \
		if (g_)                                                               \
			(a) = g_;                                                     \
		g_ != NULL;                                                           \
	})

static void free_strs(char **s, int n)
{
	for (int i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

static void capture_clear(struct decision_capture *c)
{
	free(c->field);
	cJSON_Delete(c->raw);
	cJSON_Delete(c->value);
	free(c->reason);
	free(c->branch);
}

static void verdict_clear(struct decision_verdict *v)
{
	free(v->field);
	free(v->rule);
	free(v->message);
}

static void branch_clear(struct decision_branch *b)
{
	free(b->id);
	free(b->field);
	free(b->condition);
}

/* The decision's own strings outside its lists, by offset: decision_free and decision_dup
 * walk this one list. */
static const size_t strings[] = {
	offsetof(struct decision, asked),      offsetof(struct decision, retries.field),
	offsetof(struct decision, ask.field),  offsetof(struct decision, ask.label),
	offsetof(struct decision, ask.script), offsetof(struct decision, ask.error),
	offsetof(struct decision, ask.progress), offsetof(struct decision, end.reason),
	offsetof(struct decision, end.script), offsetof(struct decision, reason),
	offsetof(struct decision, barge_in_during),
};
#define N_STRINGS (sizeof strings / sizeof strings[0])
#define STRING(d, off) ((char **)((char *)(d) + (off)))

struct decision *decision_new(void)
{
	return calloc(1, sizeof(struct decision));
}

void decision_free(struct decision *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n_captured; i++)
		capture_clear(&d->captured[i]);
	free(d->captured);
	for (int i = 0; i < d->n_verdicts; i++)
		verdict_clear(&d->verdicts[i]);
	free(d->verdicts);
	free_strs(d->faults, d->n_faults);
	for (int i = 0; i < d->n_branches; i++)
		branch_clear(&d->branches[i]);
	free(d->branches);
	free_strs(d->skipped, d->n_skipped);
	for (size_t i = 0; i < N_STRINGS; i++)
		free(*STRING(d, strings[i]));
	free(d);
}

/* ---- builders ---- */

enum err decision_add_capture(struct decision *d, const char *field, const cJSON *raw,
			      const cJSON *value, enum decision_capture_status status,
			      const char *reason)
{
	return decision_add_capture_held(d, field, raw, value, status, reason, NULL, 0);
}

enum err decision_add_capture_held(struct decision *d, const char *field, const cJSON *raw,
				   const cJSON *value, enum decision_capture_status status,
				   const char *reason, const char *branch, int turn)
{
	struct decision_capture c = {.status = status, .turn = turn > 0 ? turn : 0};
	if (!dup(&c.field, field) || !dup_json(&c.raw, raw) || !dup_json(&c.value, value) ||
	    !dup(&c.reason, reason) || !dup(&c.branch, branch) ||
	    !GROW(d->captured, d->n_captured)) {
		capture_clear(&c);
		return ERR_NOMEM;
	}
	d->captured[d->n_captured++] = c;
	return ERR_OK;
}

static enum err add_str(char ***list, int *n, const char *s)
{
	char *c = NULL;
	if (!dup(&c, s ? s : "") || !GROW(*list, *n)) {
		free(c);
		return ERR_NOMEM;
	}
	(*list)[(*n)++] = c;
	return ERR_OK;
}

enum err decision_add_fault(struct decision *d, const char *fault)
{
	return add_str(&d->faults, &d->n_faults, fault);
}

enum err decision_add_skipped(struct decision *d, const char *field)
{
	return add_str(&d->skipped, &d->n_skipped, field);
}

enum err decision_add_branch(struct decision *d, const char *id, const char *field,
			     const char *condition, bool active)
{
	struct decision_branch b = {.active = active};
	if (!dup(&b.id, id) || !dup(&b.field, field) || !dup(&b.condition, condition) ||
	    !GROW(d->branches, d->n_branches)) {
		branch_clear(&b);
		return ERR_NOMEM;
	}
	d->branches[d->n_branches++] = b;
	return ERR_OK;
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int jint(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

enum err decision_add_verdicts(struct decision *d, const cJSON *verdicts)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, verdicts) {
		struct decision_verdict v = {
			.ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "ok")),
		};
		if (!dup(&v.field, jstr(it, "field")) || !dup(&v.rule, jstr(it, "rule")) ||
		    !dup(&v.message, jstr(it, "message")) ||
		    !GROW(d->verdicts, d->n_verdicts)) {
			verdict_clear(&v);
			return ERR_NOMEM;
		}
		d->verdicts[d->n_verdicts++] = v;
	}
	return ERR_OK;
}

struct decision *decision_dup(const struct decision *d)
{
	if (!d)
		return NULL;
	struct decision *c = decision_new();
	if (!c)
		return NULL;
	bool ok = true;
	*c = *d; /* every scalar; each pointer below is replaced by a copy of what it points to */
	c->captured = NULL;
	c->verdicts = NULL;
	c->faults = c->skipped = NULL;
	c->branches = NULL;
	c->n_captured = c->n_verdicts = c->n_faults = c->n_branches = c->n_skipped = 0;
	for (size_t i = 0; i < N_STRINGS; i++) /* every one, so c owns no string of d's */
		ok &= dup(STRING(c, strings[i]), *STRING(d, strings[i]));
	for (int i = 0; ok && i < d->n_captured; i++) {
		const struct decision_capture *k = &d->captured[i];
		ok = decision_add_capture_held(c, k->field, k->raw, k->value, k->status, k->reason,
					       k->branch, k->turn) == ERR_OK;
	}
	for (int i = 0; ok && i < d->n_verdicts; i++) {
		struct decision_verdict v = {.ok = d->verdicts[i].ok};
		ok = dup(&v.field, d->verdicts[i].field) && dup(&v.rule, d->verdicts[i].rule) &&
		     dup(&v.message, d->verdicts[i].message) &&
		     GROW(c->verdicts, c->n_verdicts);
		if (ok)
			c->verdicts[c->n_verdicts++] = v;
		else
			verdict_clear(&v);
	}
	for (int i = 0; ok && i < d->n_faults; i++)
		ok = decision_add_fault(c, d->faults[i]) == ERR_OK;
	for (int i = 0; ok && i < d->n_branches; i++) {
		const struct decision_branch *b = &d->branches[i];
		ok = decision_add_branch(c, b->id, b->field, b->condition, b->active) == ERR_OK;
	}
	for (int i = 0; ok && i < d->n_skipped; i++)
		ok = decision_add_skipped(c, d->skipped[i]) == ERR_OK;
	if (!ok) {
		decision_free(c);
		return NULL;
	}
	return c;
}

/* ---- JSON out ---- */

/* An object under construction; allocation failures are remembered in nomem so the
 * writing stays linear, and reported once. */
struct out {
	bool nomem;
};

static void chk(struct out *o, const void *p)
{
	if (!p)
		o->nomem = true;
}

static void put_str(struct out *o, cJSON *obj, const char *key, const char *s)
{
	chk(o, s ? cJSON_AddStringToObject(obj, key, s) : cJSON_AddNullToObject(obj, key));
}

static void put_item(struct out *o, cJSON *obj, const char *key, cJSON *v)
{
	if (!v || !cJSON_AddItemToObject(obj, key, v)) {
		cJSON_Delete(v);
		o->nomem = true;
	}
}

static void put_json(struct out *o, cJSON *obj, const char *key, const cJSON *v)
{
	put_item(o, obj, key, v ? cJSON_Duplicate(v, true) : cJSON_CreateNull());
}

static void put_strs(struct out *o, cJSON *obj, const char *key, char *const *s, int n)
{
	cJSON *a = cJSON_AddArrayToObject(obj, key);
	chk(o, a);
	for (int i = 0; a && i < n; i++) {
		cJSON *e = cJSON_CreateString(s[i]);
		if (!e || !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			o->nomem = true;
		}
	}
}

/* add_obj: a new object appended to array a (NULL when out of memory). */
static cJSON *add_obj(struct out *o, cJSON *a)
{
	cJSON *e = cJSON_CreateObject();
	if (!e || !a || !cJSON_AddItemToArray(a, e)) {
		cJSON_Delete(e);
		o->nomem = true;
		return NULL;
	}
	return e;
}

cJSON *decision_to_json(const struct decision *d)
{
	struct out o = {false};
	cJSON *root = d ? cJSON_CreateObject() : NULL, *a, *e;
	if (!root)
		return NULL;
	chk(&o, cJSON_AddNumberToObject(root, "turn", d->turn));
	put_str(&o, root, "asked", d->asked);

	chk(&o, a = cJSON_AddArrayToObject(root, "captured"));
	for (int i = 0; a && i < d->n_captured; i++) {
		const struct decision_capture *c = &d->captured[i];
		if (!(e = add_obj(&o, a)))
			break;
		put_str(&o, e, "field", c->field);
		put_json(&o, e, "raw", c->raw);
		put_json(&o, e, "value", c->value);
		put_str(&o, e, "status", decision_capture_status_name(c->status));
		if (c->reason)
			put_str(&o, e, "reason", c->reason);
		if (c->branch)
			put_str(&o, e, "branch", c->branch);
		if (c->turn > 0)
			chk(&o, cJSON_AddNumberToObject(e, "turn", c->turn));
	}
	chk(&o, a = cJSON_AddArrayToObject(root, "verdicts"));
	for (int i = 0; a && i < d->n_verdicts; i++) {
		const struct decision_verdict *v = &d->verdicts[i];
		if (!(e = add_obj(&o, a)))
			break;
		put_str(&o, e, "field", v->field);
		put_str(&o, e, "rule", v->rule);
		chk(&o, cJSON_AddBoolToObject(e, "ok", v->ok));
		put_str(&o, e, "message", v->message);
	}
	put_strs(&o, root, "faults", d->faults, d->n_faults);

	if (!d->has_retries) {
		chk(&o, cJSON_AddNullToObject(root, "retries"));
	} else if ((e = cJSON_AddObjectToObject(root, "retries"))) {
		const struct decision_retries *r = &d->retries;
		put_str(&o, e, "field", r->field);
		chk(&o, cJSON_AddNumberToObject(e, "used", r->used));
		if (r->until_answered) {
			chk(&o, cJSON_AddNullToObject(e, "max"));
			chk(&o, cJSON_AddNullToObject(e, "left"));
		} else {
			chk(&o, cJSON_AddNumberToObject(e, "max", r->max));
			chk(&o, cJSON_AddNumberToObject(e, "left", r->left));
		}
		chk(&o, cJSON_AddBoolToObject(e, "until_answered", r->until_answered));
		cJSON *fr = NULL;
		if (r->free_used > 0)
			chk(&o, fr = cJSON_AddObjectToObject(e, "free_reasks"));
		if (fr) {
			chk(&o, cJSON_AddNumberToObject(fr, "used", r->free_used));
			chk(&o, cJSON_AddNumberToObject(fr, "max", r->free_max));
		}
	} else {
		o.nomem = true;
	}

	chk(&o, a = cJSON_AddArrayToObject(root, "branches"));
	for (int i = 0; a && i < d->n_branches; i++) {
		const struct decision_branch *b = &d->branches[i];
		if (!(e = add_obj(&o, a)))
			break;
		put_str(&o, e, "id", b->id);
		put_str(&o, e, "field", b->field);
		put_str(&o, e, "condition", b->condition);
		chk(&o, cJSON_AddBoolToObject(e, "active", b->active));
	}
	put_strs(&o, root, "skipped", d->skipped, d->n_skipped);

	cJSON *tc = cJSON_AddObjectToObject(root, "tool_call"), *args = NULL;
	chk(&o, tc);
	if (tc) {
		put_str(&o, tc, "name", decision_tool_name(d->tool));
		chk(&o, args = cJSON_AddObjectToObject(tc, "arguments"));
	}
	if (args && d->tool == DECISION_ASK_QUESTION) {
		put_str(&o, args, "field", d->ask.field);
		put_str(&o, args, "label", d->ask.label);
		put_str(&o, args, "script", d->ask.script);
		chk(&o, cJSON_AddNumberToObject(args, "retry", d->ask.retry));
		if (d->ask.error)
			put_str(&o, args, "error", d->ask.error);
		if (d->ask.progress)
			put_str(&o, args, "progress", d->ask.progress);
	} else if (args) {
		put_str(&o, args, "status", call_status_name(d->end.status));
		put_str(&o, args, "reason", d->end.reason);
		put_str(&o, args, "script", d->end.script);
	}
	put_str(&o, root, "call_status", call_status_name(d->call_status));
	put_str(&o, root, "reason", d->reason);

	if (d->barge_in && (e = cJSON_AddObjectToObject(root, "barge_in"))) {
		chk(&o, cJSON_AddNumberToObject(e, "at_ms", (double)d->barge_in_at_ms));
		put_str(&o, e, "during", d->barge_in_during);
	} else if (d->barge_in) {
		o.nomem = true;
	}
	if (d->silence)
		chk(&o, cJSON_AddTrueToObject(root, "silence"));
	if (o.nomem) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/* ---- JSON in ---- */

/* word_index: the index of s in words (n of them), or dflt. */
static int word_index(const char *const *words, int n, const char *s, int dflt)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return dflt;
}

static enum call_status status_from(const char *s)
{
	return (enum call_status)word_index(call_status_words, N_WORDS(call_status_words), s,
					    CALL_IN_PROGRESS);
}

static enum decision_capture_status capture_status_from(const char *s)
{
	return (enum decision_capture_status)word_index(capture_words, N_WORDS(capture_words), s,
							DECISION_IGNORED);
}

/* A value as the record has it: JSON null (or no key) reads as NULL. */
static const cJSON *jval(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return v && !cJSON_IsNull(v) ? v : NULL;
}

static enum err add_strs_from(char ***list, int *n, const cJSON *a)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, a)
		if (cJSON_IsString(it) && add_str(list, n, it->valuestring) != ERR_OK)
			return ERR_NOMEM;
	return ERR_OK;
}

enum err decision_from_json(const cJSON *j, struct decision **out)
{
	if (!cJSON_IsObject(j))
		return ERR_PARSE;
	struct decision *d = decision_new();
	if (!d)
		return ERR_NOMEM;
	bool ok = true;
	const cJSON *it;
	d->turn = jint(j, "turn");
	ok &= dup(&d->asked, jstr(j, "asked"));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(j, "captured")) {
		if (!ok)
			break;
		ok = decision_add_capture_held(d, jstr(it, "field"), jval(it, "raw"), jval(it, "value"),
					       capture_status_from(jstr(it, "status")),
					       jstr(it, "reason"), jstr(it, "branch"),
					       jint(it, "turn")) == ERR_OK;
	}
	ok = ok && decision_add_verdicts(d, cJSON_GetObjectItemCaseSensitive(j, "verdicts")) == ERR_OK;
	ok = ok && add_strs_from(&d->faults, &d->n_faults,
				 cJSON_GetObjectItemCaseSensitive(j, "faults")) == ERR_OK;
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "retries");
	if (cJSON_IsObject(r)) {
		d->has_retries = true;
		d->retries.used = jint(r, "used");
		d->retries.max = jint(r, "max");
		d->retries.left = jint(r, "left");
		d->retries.until_answered = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "until_answered"));
		ok &= dup(&d->retries.field, jstr(r, "field"));
		const cJSON *fr = cJSON_GetObjectItemCaseSensitive(r, "free_reasks");
		d->retries.free_used = jint(fr, "used");
		d->retries.free_max = jint(fr, "max");
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(j, "branches")) {
		if (!ok)
			break;
		ok = decision_add_branch(d, jstr(it, "id"), jstr(it, "field"), jstr(it, "condition"),
					 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "active"))) == ERR_OK;
	}
	ok = ok && add_strs_from(&d->skipped, &d->n_skipped,
				 cJSON_GetObjectItemCaseSensitive(j, "skipped")) == ERR_OK;
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(j, "tool_call");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(tc, "arguments");
	const char *name = jstr(tc, "name");
	if (tc && !(cJSON_IsObject(args) && name &&
		    (strcmp(name, decision_tool_name(DECISION_END_CALL)) == 0 ||
		     strcmp(name, decision_tool_name(DECISION_ASK_QUESTION)) == 0))) {
		decision_free(d); /* a tool call neither tool: not a decision record */
		return ERR_PARSE;
	}
	if (name && strcmp(name, decision_tool_name(DECISION_END_CALL)) == 0) {
		d->tool = DECISION_END_CALL;
		d->end.status = status_from(jstr(args, "status"));
		ok &= dup(&d->end.reason, jstr(args, "reason"));
		ok &= dup(&d->end.script, jstr(args, "script"));
	} else {
		d->tool = DECISION_ASK_QUESTION;
		d->ask.retry = jint(args, "retry");
		ok &= dup(&d->ask.field, jstr(args, "field"));
		ok &= dup(&d->ask.label, jstr(args, "label"));
		ok &= dup(&d->ask.script, jstr(args, "script"));
		ok &= dup(&d->ask.error, jstr(args, "error"));
		ok &= dup(&d->ask.progress, jstr(args, "progress"));
	}
	d->call_status = status_from(jstr(j, "call_status"));
	ok &= dup(&d->reason, jstr(j, "reason"));
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "barge_in");
	if (cJSON_IsObject(b)) {
		const cJSON *at = cJSON_GetObjectItemCaseSensitive(b, "at_ms");
		d->barge_in = true;
		d->barge_in_at_ms = 0; /* a stored record's number: checked before it is a long */
		if (cJSON_IsNumber(at))
			numconv_long(at->valuedouble, 0, NUMCONV_COUNT_MAX, &d->barge_in_at_ms);
		ok &= dup(&d->barge_in_during, jstr(b, "during"));
	}
	d->silence = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "silence"));
	if (!ok) {
		decision_free(d);
		return ERR_NOMEM;
	}
	*out = d;
	return ERR_OK;
}

/* ---- REPLY's tools (decision.h) ---- */

enum reply_param {
	RP_FIELD, RP_LABEL, RP_SCRIPT, RP_RETRY, RP_ERROR, RP_PROGRESS, /* ask_question */
	RP_MESSAGE, RP_STATUS, RP_REASON,                               /* end_call */
};

/* The one definition: each tool's parameters, their JSON types, whether the schema
 * requires them (a required one is always injected), and what the model is told. */
static const struct {
	enum decision_tool tool;
	enum reply_param id;
	const char *name, *type;
	bool required;
	const char *desc;
} reply_params[] = {
	{DECISION_ASK_QUESTION, RP_FIELD, "field", "string", true, "the field asked"},
	{DECISION_ASK_QUESTION, RP_LABEL, "label", "string", true, "what is asked"},
	{DECISION_ASK_QUESTION, RP_RETRY, "retry", "boolean", true, "whether this is a re-ask"},
	{DECISION_ASK_QUESTION, RP_SCRIPT, "script", "string", false, "the words to ask with"},
	{DECISION_ASK_QUESTION, RP_ERROR, "error", "string", false,
	 "what was wrong with the last answer"},
	{DECISION_ASK_QUESTION, RP_PROGRESS, "progress", "string", false,
	 "where the caller is in the form"},
	{DECISION_END_CALL, RP_MESSAGE, "message", "string", true,
	 "the closing words to say, in Hindi"},
	{DECISION_END_CALL, RP_STATUS, "status", "string", false, "the call's status"},
	{DECISION_END_CALL, RP_REASON, "reason", "string", false, "why the call ends"},
};
#define N_REPLY_PARAMS (sizeof reply_params / sizeof reply_params[0])

const char *decision_reply_description(enum decision_tool t)
{
	return t == DECISION_END_CALL
		       ? "End the call, saying the closing words in message."
		       : "The rules' decision to ask a question (made by the system, not by you).";
}

cJSON *decision_reply_schema(enum decision_tool t)
{
	struct out o = {false};
	cJSON *s = cJSON_CreateObject(), *props = NULL, *req = NULL;
	chk(&o, s);
	if (s) {
		put_str(&o, s, "type", "object");
		chk(&o, props = cJSON_AddObjectToObject(s, "properties"));
		chk(&o, req = cJSON_AddArrayToObject(s, "required"));
	}
	for (size_t i = 0; props && req && i < N_REPLY_PARAMS; i++) {
		if (reply_params[i].tool != t)
			continue;
		cJSON *p = cJSON_AddObjectToObject(props, reply_params[i].name);
		chk(&o, p);
		if (!p)
			break;
		put_str(&o, p, "type", reply_params[i].type);
		put_str(&o, p, "description", reply_params[i].desc);
		if (reply_params[i].id == RP_STATUS)
			put_strs(&o, p, "enum", (char *const *)call_status_words,
				 N_WORDS(call_status_words));
		cJSON *n = reply_params[i].required ? cJSON_CreateString(reply_params[i].name) : NULL;
		if (reply_params[i].required && (!n || !cJSON_AddItemToArray(req, n))) {
			cJSON_Delete(n);
			o.nomem = true;
		}
	}
	if (o.nomem) {
		cJSON_Delete(s);
		return NULL;
	}
	return s;
}

/* param_value: parameter id of d as JSON, NULL when d has none (an optional one is then
 * left out; a required one is never NULL). */
static cJSON *param_value(const struct decision *d, enum reply_param id)
{
	const char *s = NULL;
	switch (id) {
	case RP_FIELD: s = d->ask.field ? d->ask.field : ""; break;
	case RP_LABEL: s = d->ask.label ? d->ask.label : ""; break;
	case RP_SCRIPT: s = d->ask.script; break;
	case RP_RETRY: return cJSON_CreateBool(d->ask.retry > 0);
	case RP_ERROR: s = d->ask.error; break;
	case RP_PROGRESS: s = d->ask.progress; break;
	case RP_MESSAGE: s = d->end.script ? d->end.script : ""; break;
	case RP_STATUS: s = call_status_name(d->end.status); break;
	case RP_REASON: s = d->end.reason; break;
	}
	return s ? cJSON_CreateString(s) : NULL;
}

cJSON *decision_reply_arguments(const struct decision *d)
{
	struct out o = {false};
	cJSON *a = cJSON_CreateObject();
	chk(&o, a);
	for (size_t i = 0; a && i < N_REPLY_PARAMS; i++) {
		if (reply_params[i].tool != d->tool)
			continue;
		cJSON *v = param_value(d, reply_params[i].id);
		if (v || reply_params[i].required)
			put_item(&o, a, reply_params[i].name, v);
	}
	if (o.nomem) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}
