/* form: load a FormBharo agent config and collect every issue FormBharo would refuse a
 * save for. Rules: formbharo-docs reference/agent-config-schema.mdx,
 * question-types.mdx, validation.mdx, retries.mdx, branching.mdx. */
#include "form.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "base/file.h"
#include "base/utf8.h"
#include "normalize.h"

/* More questions or branches than any phone form holds: the load refuses them rather than
 * spend minutes on the cross-checks (and every path through them). */
#define FORM_MAX_QUESTIONS 1000
#define FORM_MAX_BRANCHES 1000

/* Loading context: the issues found so far and whether memory ran out. */
struct ld {
	struct form_issues *is;
	bool nomem;
};

static char *xstrdup(struct ld *ld, const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		ld->nomem = true;
	return d;
}

static void add_issue(struct ld *ld, const char *message, const char *fmt, ...)
{
	char field[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(field, sizeof(field), fmt, ap);
	va_end(ap);
	if (form_issues_add(ld->is, field, message) != ERR_OK)
		ld->nomem = true;
}

enum err form_issues_add(struct form_issues *is, const char *field, const char *message)
{
	struct form_issue *v = realloc(is->v, (size_t)(is->n + 1) * sizeof(*v));
	if (!v)
		return ERR_NOMEM;
	is->v = v;
	v[is->n].field = strdup(field);
	v[is->n].message = strdup(message);
	if (!v[is->n].field || !v[is->n].message) {
		free(v[is->n].field);
		free(v[is->n].message);
		return ERR_NOMEM;
	}
	is->n++;
	return ERR_OK;
}

/* The getters below read obj[key]. Absent or null: the default stays and, when
 * required, an issue "Field required." is added. Wrong JSON type: an issue. path is the
 * JSON path of obj ("" for the root). */
static void field_path(char *buf, size_t n, const char *path, const char *key)
{
	if (*path)
		snprintf(buf, n, "%s.%s", path, key);
	else
		snprintf(buf, n, "%s", key);
}

static const cJSON *item(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNull(v) ? NULL : v;
}

static char *get_str(struct ld *ld, const cJSON *obj, const char *key, const char *path,
		     bool required)
{
	char f[300];
	field_path(f, sizeof(f), path, key);
	const cJSON *v = item(obj, key);
	if (!v) {
		if (required)
			add_issue(ld, "Field required.", "%s", f);
		return NULL;
	}
	if (!cJSON_IsString(v)) {
		add_issue(ld, "Must be a string.", "%s", f);
		return NULL;
	}
	return xstrdup(ld, v->valuestring);
}

static bool get_bool(struct ld *ld, const cJSON *obj, const char *key, const char *path,
		     bool dflt)
{
	char f[300];
	field_path(f, sizeof(f), path, key);
	const cJSON *v = item(obj, key);
	if (!v)
		return dflt;
	if (!cJSON_IsBool(v)) {
		add_issue(ld, "Must be true or false.", "%s", f);
		return dflt;
	}
	return cJSON_IsTrue(v);
}

static bool get_num(struct ld *ld, const cJSON *obj, const char *key, const char *path,
		    double *out)
{
	char f[300];
	field_path(f, sizeof(f), path, key);
	const cJSON *v = item(obj, key);
	if (!v)
		return false;
	if (!cJSON_IsNumber(v)) {
		add_issue(ld, "Must be a number.", "%s", f);
		return false;
	}
	*out = v->valuedouble;
	return true;
}

/* A whole number from lo to 1000000, or dflt when absent or wrong. */
static int get_int(struct ld *ld, const cJSON *obj, const char *key, const char *path,
		   int dflt, int lo)
{
	char f[300];
	double d;
	if (!get_num(ld, obj, key, path, &d))
		return dflt;
	field_path(f, sizeof(f), path, key);
	/* The range first: converting a double outside int's range is undefined. */
	if (!(d >= lo && d <= 1000000) || d != (double)(int)d) {
		char msg[100];
		snprintf(msg, sizeof(msg), "Must be a whole number from %d to 1000000.", lo);
		add_issue(ld, msg, "%s", f);
		return dflt;
	}
	return (int)d;
}

/* An array of strings; *n receives its length. NULL when absent or wrong. */
static char **get_str_array(struct ld *ld, const cJSON *obj, const char *key,
			    const char *path, int *n)
{
	char f[300];
	field_path(f, sizeof(f), path, key);
	*n = 0;
	const cJSON *v = item(obj, key);
	if (!v)
		return NULL;
	if (!cJSON_IsArray(v)) {
		add_issue(ld, "Must be a list of strings.", "%s", f);
		return NULL;
	}
	int len = cJSON_GetArraySize(v);
	char **a = calloc((size_t)len + 1, sizeof(*a));
	if (!a) {
		ld->nomem = true;
		return NULL;
	}
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e)) {
			add_issue(ld, "Must be a string.", "%s[%d]", f, i);
			a[i] = NULL; /* refused already: the later checks pass it over */
		} else {
			a[i] = xstrdup(ld, e->valuestring);
		}
		i++;
	}
	*n = len;
	return a;
}

static void free_strv(char **v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool type_from_name(const char *s, enum form_type *t)
{
	static const char *names[] = {"string", "number", "date", "boolean",
				      "single-select", "multi-select"};
	for (int i = 0; i < 6; i++)
		if (strcmp(s, names[i]) == 0) {
			*t = (enum form_type)i;
			return true;
		}
	return false;
}

const char *form_type_name(enum form_type t)
{
	static const char *names[] = {"string", "number", "date", "boolean",
				      "single-select", "multi-select"};
	return (unsigned)t < 6 ? names[t] : "string";
}

static const struct {
	const char *name, *alias;
	enum form_validation v;
} validations[] = {
#define X(id, name, alias) {#name, alias, VALID_##id},
	FORM_VALIDATIONS(X)
#undef X
};

const char *form_validation_name(enum form_validation v)
{
	for (size_t i = 0; i < sizeof(validations) / sizeof(validations[0]); i++)
		if (validations[i].v == v)
			return validations[i].name;
	return "none";
}

/* The name FormBharo derives from a question's wording (question-types.mdx): lower
 * case, spaces to underscores, question marks dropped. */
static char *derive_name(struct ld *ld, const char *label)
{
	char *s = malloc(strlen(label) + 1);
	if (!s) {
		ld->nomem = true;
		return NULL;
	}
	char *d = s;
	for (const char *p = label; *p; p++) {
		if (*p == '?')
			continue;
		*d++ = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
	}
	*d = 0;
	return s;
}

/* The most positions a pattern may have once its repetitions are counted out: glibc's
 * regcomp expands {m,n} by copying, so nested counts multiply ((((a){1,2}){1,2})... 25
 * deep is 2^25 copies, minutes of work at every load). (a{1,255}){1,255} is 65025. */
#define REGEX_MAX_SIZE 100000

/* The size of pattern p (POSIX extended) with every repetition written out: an estimate
 * from above (an alternation counts as the sum of its branches, *, + and ? as two). */
static double regex_size(const char *p)
{
	enum { DEPTH = 64 };
	double sum[DEPTH] = {0}, last[DEPTH] = {0};
	int d = 0;
	for (; *p; p++) {
		double atom = 1;
		if (*p == '\\') {
			if (p[1])
				p++;
		} else if (*p == '[') {
			/* a bracket expression is one position; ']' first is a member */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				break;
		} else if (*p == '(') {
			if (d + 1 >= DEPTH)
				return 1e300; /* deeper than any sane pattern */
			d++;
			sum[d] = last[d] = 0;
			continue;
		} else if (*p == ')' && d > 0) {
			atom = sum[d] > 1 ? sum[d] : 1;
			d--;
		} else if (*p == '|') {
			continue;
		} else if (*p == '{') {
			char *end;
			double m = strtod(p + 1, &end), n = m;
			if (*end == ',')
				n = end[1] == '}' ? m + 1 : strtod(end + 1, &end);
			while (*end && *end != '}')
				end++;
			double rep = n > 1 ? n : 1;
			sum[d] += last[d] * (rep - 1);
			last[d] *= rep;
			p = *end ? end : end - 1;
			continue;
		} else if (*p == '*' || *p == '+' || *p == '?') {
			sum[d] += last[d];
			last[d] *= 2;
			continue;
		}
		sum[d] += atom;
		last[d] = atom;
	}
	double total = sum[0];
	while (d > 0) /* an unclosed group: regcomp refuses it, size what was read */
		total += sum[d--];
	return total;
}

static void load_validation(struct ld *ld, const cJSON *qj, const char *qp,
			    struct form_question *q)
{
	char vp[300], rp[320];
	const cJSON *v = item(qj, "validation");
	if (!v)
		return;
	snprintf(vp, sizeof(vp), "%s.validation", qp);
	if (!cJSON_IsObject(v)) {
		add_issue(ld, "Must be an object.", "%s", vp);
		return;
	}
	char *type = get_str(ld, v, "type", vp, true);
	if (!type)
		return;
	bool known = false;
	for (size_t i = 0; i < sizeof(validations) / sizeof(validations[0]); i++)
		if (strcmp(type, validations[i].name) == 0 ||
		    (validations[i].alias && strcmp(type, validations[i].alias) == 0)) {
			q->validation = validations[i].v;
			known = true;
		}
	if (!known) {
		char msg[600];
		size_t used = (size_t)snprintf(msg, sizeof(msg),
					       "Unknown validation type '%.60s'. Use one of: ", type);
		for (size_t i = 0; i < sizeof(validations) / sizeof(validations[0]); i++)
			for (int k = 0; k < 2 && used < sizeof(msg); k++) {
				const char *nm = k ? validations[i].alias : validations[i].name;
				if (nm)
					used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s%s",
								 i || k ? ", " : "", nm);
			}
		if (used < sizeof(msg))
			snprintf(msg + used, sizeof(msg) - used, ".");
		add_issue(ld, msg, "%s.type", vp);
	}
	free(type);
	const cJSON *rules = item(v, "rules");
	snprintf(rp, sizeof(rp), "%s.rules", vp);
	if (rules && !cJSON_IsObject(rules)) {
		add_issue(ld, "Must be an object.", "%s", rp);
		rules = NULL;
	}
	/* Defaults from validation.mdx. */
	switch (q->validation) {
	case VALID_PHONE_NUMBER:
		q->digits = rules ? get_int(ld, rules, "digits", rp, 10, 1) : 10;
		break;
	case VALID_EXACT_NUM_DIGITS:
		q->digits = rules ? get_int(ld, rules, "digits", rp, 1, 1) : 1;
		break;
	case VALID_MIN_LENGTH:
		q->min_length = rules ? get_int(ld, rules, "min_length", rp, 1, 0) : 1;
		break;
	case VALID_NUMBER_RANGE:
		if (rules) {
			q->has_min = get_num(ld, rules, "min", rp, &q->min);
			q->has_max = get_num(ld, rules, "max", rp, &q->max);
		}
		if (!q->has_min && !q->has_max)
			add_issue(ld, "number_range needs 'min', 'max' or both.", "%s", rp);
		else if (q->has_min && q->has_max && q->min > q->max)
			add_issue(ld, "'min' is greater than 'max'.", "%s", rp);
		break;
	case VALID_REGEX:
		if (rules) {
			q->pattern = get_str(ld, rules, "pattern", rp, true);
			q->message = get_str(ld, rules, "message", rp, false);
		} else {
			add_issue(ld, "Field required.", "%s.pattern", rp);
		}
		if (q->pattern) {
			double size = regex_size(q->pattern);
			regex_t *re = malloc(sizeof(*re));
			if (!re) {
				ld->nomem = true;
			} else if (size > REGEX_MAX_SIZE) {
				/* the library would take minutes, even hours, to build it */
				char msg[200];
				snprintf(msg, sizeof(msg),
					 "The regular expression is too large once its repetitions are "
					 "counted out (%.3g positions; at most %d).", size, REGEX_MAX_SIZE);
				add_issue(ld, msg, "%s.pattern", rp);
				free(re);
			} else if (regcomp(re, q->pattern, REG_EXTENDED | REG_NOSUB) != 0) {
				add_issue(ld, "Not a valid regular expression (POSIX extended).",
					  "%s.pattern", rp);
				free(re);
			} else {
				q->pattern_re = re; /* compiled once, used for every answer */
			}
		}
		break;
	case VALID_FREE_TEXT:
		if (rules)
			q->description = get_str(ld, rules, "description", rp, false);
		break;
	default:
		break;
	}
}

static void load_retry(struct ld *ld, const cJSON *qj, const char *qp, struct form_question *q)
{
	char rp[300];
	/* Defaults from retries.mdx. */
	q->allow_retries = true;
	q->until_answered = false;
	q->max_retries = 2;
	const cJSON *r = item(qj, "retry_config");
	if (!r)
		return;
	snprintf(rp, sizeof(rp), "%s.retry_config", qp);
	if (!cJSON_IsObject(r)) {
		add_issue(ld, "Must be an object.", "%s", rp);
		return;
	}
	q->allow_retries = get_bool(ld, r, "allow_retries", rp, true);
	q->until_answered = get_bool(ld, r, "until_answered", rp, false);
	q->max_retries = get_int(ld, r, "max_retries", rp, 2, 0);
	q->retry_messages = get_str_array(ld, r, "retry_messages", rp, &q->n_retry_messages);
	char *act = get_str(ld, r, "exhausted_action", rp, false);
	if (act) {
		if (strcmp(act, "end_call") == 0)
			q->exhausted_end_call = true;
		else if (strcmp(act, "skip") == 0)
			q->exhausted_skip = true;
		else
			add_issue(ld, "exhausted_action must be 'skip' or 'end_call'.",
				  "%s.exhausted_action", rp);
		free(act);
	}
}

struct twin {
	char *key;
	int i;
};

static int twin_cmp(const void *a, const void *b)
{
	const struct twin *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* For each option, the first option equal to it (normalize_text_eq), itself when none
 * comes before: keys made once and sorted, so a long list loads in n log n, not n^2
 * comparisons of freshly normalized text. Output: a new array of n_options (caller
 * frees); NULL when there are none, or memory ran out (ld->nomem). */
static int *option_twins(struct ld *ld, const struct form_question *q)
{
	int n = q->n_options;
	if (n <= 0)
		return NULL;
	int *first = malloc((size_t)n * sizeof(*first));
	struct twin *t = calloc((size_t)n, sizeof(*t));
	int m = 0;
	bool ok = first && t;
	for (int i = 0; ok && i < n; i++) {
		first[i] = i;
		if (q->options[i] && *q->options[i]) {
			ok = (t[m].key = normalize_text_key(q->options[i])) != NULL;
			t[m++].i = i;
		}
	}
	if (ok) {
		qsort(t, (size_t)m, sizeof(*t), twin_cmp);
		for (int k = 1; k < m; k++)
			if (strcmp(t[k].key, t[k - 1].key) == 0)
				first[t[k].i] = first[t[k - 1].i];
	}
	for (int k = 0; k < m; k++)
		free(t[k].key);
	free(t);
	if (!ok) {
		free(first);
		ld->nomem = true;
		return NULL;
	}
	return first;
}

/* Options, boolean labels and end_call_values that cannot work: an empty or repeated
 * option (an answer could not say which one), one boolean label without the other or two
 * equal ones, an end_call_value the question can never be answered with. */
static void check_values(struct ld *ld, const char *qp, struct form_question *q)
{
	char msg[300];
	int *first = option_twins(ld, q);
	for (int i = 0; i < q->n_options; i++) {
		if (!q->options[i])
			continue;
		if (!*q->options[i]) {
			add_issue(ld, "An option must not be empty.", "%s.options[%d]", qp, i);
			continue;
		}
		if (first && first[i] < i) {
			snprintf(msg, sizeof(msg), "Duplicate option '%.200s' (the same as options[%d]).",
				 q->options[i], first[i]);
			add_issue(ld, msg, "%s.options[%d]", qp, i);
		}
	}
	free(first);
	if (!q->label_true != !q->label_false)
		add_issue(ld, "boolean_labels needs both 'true' and 'false'.", "%s.boolean_labels", qp);
	else if (q->label_true && normalize_text_eq(q->label_true, q->label_false))
		add_issue(ld, "The 'true' and 'false' labels must differ.", "%s.boolean_labels", qp);
	for (int i = 0; i < q->n_end_call_values; i++) {
		const char *v = q->end_call_values[i];
		const char *why = NULL;
		if (!v)
			continue;
		if (q->type == FORM_BOOLEAN) {
			bool ok = normalize_yesno(NULL, v) >= 0 ||
				  (q->label_true && normalize_text_eq(v, q->label_true)) ||
				  (q->label_false && normalize_text_eq(v, q->label_false));
			if (!ok)
				why = "is not true, false or one of the question's boolean_labels";
		} else if (q->type == FORM_SINGLE_SELECT || q->type == FORM_MULTI_SELECT) {
			bool ok = false;
			for (int k = 0; k < q->n_options && !ok; k++)
				ok = q->options[k] && normalize_text_eq(v, q->options[k]);
			if (!ok)
				why = "is not one of the question's options";
		} else if (q->type == FORM_NUMBER) {
			char *end;
			errno = 0;
			double d = strtod(v, &end);
			(void)d;
			if (end == v || *end || errno == ERANGE)
				why = "is not a number";
		}
		if (why) {
			snprintf(msg, sizeof(msg), "'%.200s' %s, so it can never end the call.", v, why);
			add_issue(ld, msg, "%s.end_call_values[%d]", qp, i);
		}
	}
}

static void load_question(struct ld *ld, const cJSON *qj, int i, struct form_question *q)
{
	char qp[64];
	snprintf(qp, sizeof(qp), "questions[%d]", i);
	q->branch = -1;
	q->required = true;
	if (!cJSON_IsObject(qj)) {
		add_issue(ld, "Must be an object.", "%s", qp);
		return;
	}
	/* Stored shape first, then the write shape's names. */
	if (item(qj, "label"))
		q->label = get_str(ld, qj, "label", qp, true);
	else if (item(qj, "question"))
		q->label = get_str(ld, qj, "question", qp, true);
	else
		add_issue(ld, "Field required: 'label' (or 'question').", "%s.label", qp);

	const char *tkey = item(qj, "type") ? "type" : "response_type";
	if (!item(qj, tkey)) {
		add_issue(ld, "Field required: 'type' (or 'response_type').", "%s.type", qp);
	} else {
		char *t = get_str(ld, qj, tkey, qp, true);
		if (t && !type_from_name(t, &q->type)) {
			char msg[400];
			snprintf(msg, sizeof(msg),
				 "Unknown type '%.60s'. Use one of: string, number, date, boolean, "
				 "single-select, multi-select.",
				 t);
			add_issue(ld, msg, "%s.%s", qp, tkey);
		}
		free(t);
	}

	q->name = get_str(ld, qj, "name", qp, false);
	if (!q->name && q->label)
		q->name = derive_name(ld, q->label);
	if (q->name && !*q->name)
		add_issue(ld, "Question name must not be empty.", "%s.name", qp);

	q->required = get_bool(ld, qj, "required", qp, true);
	q->script = get_str(ld, qj, "script", qp, false);
	q->skip_message = get_str(ld, qj, "skip_message", qp, false);
	q->advanced_instructions = get_str(ld, qj, "advanced_instructions", qp, false);
	q->branch_id = get_str(ld, qj, "branch_id", qp, false);

	char *nf = get_str(ld, qj, "number_format", qp, false);
	if (nf) {
		if (strcmp(nf, "integer") == 0)
			q->integer = true;
		else if (strcmp(nf, "decimal") != 0)
			add_issue(ld, "number_format must be 'integer' or 'decimal'.",
				  "%s.number_format", qp);
		free(nf);
	}

	q->options = get_str_array(ld, qj, "options", qp, &q->n_options);
	if ((q->type == FORM_SINGLE_SELECT || q->type == FORM_MULTI_SELECT) && q->n_options == 0)
		add_issue(ld, "Select questions need a non-empty 'options' list.", "%s.options", qp);

	const cJSON *bl = item(qj, "boolean_labels");
	if (bl) {
		char bp[100];
		snprintf(bp, sizeof(bp), "%s.boolean_labels", qp);
		if (!cJSON_IsObject(bl)) {
			add_issue(ld, "Must be an object.", "%s", bp);
		} else {
			q->label_true = get_str(ld, bl, "true", bp, false);
			q->label_false = get_str(ld, bl, "false", bp, false);
		}
	}
	q->end_call_values = get_str_array(ld, qj, "end_call_values", qp, &q->n_end_call_values);
	check_values(ld, qp, q);
	load_validation(ld, qj, qp, q);
	load_retry(ld, qj, qp, q);
}

static void load_branch(struct ld *ld, const cJSON *bj, int i, struct form_branch *b)
{
	char bp[64], cp[80];
	snprintf(bp, sizeof(bp), "branches[%d]", i);
	b->question = -1;
	if (!cJSON_IsObject(bj)) {
		add_issue(ld, "Must be an object.", "%s", bp);
		return;
	}
	b->id = get_str(ld, bj, "id", bp, true);
	const cJSON *c = item(bj, "condition");
	snprintf(cp, sizeof(cp), "%s.condition", bp);
	if (!c) {
		add_issue(ld, "Field required.", "%s", cp);
		return;
	}
	if (!cJSON_IsObject(c)) {
		add_issue(ld, "Must be an object.", "%s", cp);
		return;
	}
	b->field = get_str(ld, c, "field", cp, true);
	if (item(c, "equals")) {
		b->has_equals = true;
		b->equals = get_bool(ld, c, "equals", cp, false);
	}
	if (item(c, "present")) {
		b->has_present = true;
		b->present = get_bool(ld, c, "present", cp, false);
	}
	if (!b->has_equals && !b->has_present)
		add_issue(ld, "Condition needs one of 'equals' or 'present'.", "%s", cp);
}

/* Cross-checks between questions and branches (branching.mdx "What gets rejected"). */
static void check_links(struct ld *ld, struct form *f)
{
	char msg[300];
	for (int i = 0; i < f->n_questions; i++) {
		const char *n = f->questions[i].name;
		if (!n || !*n)
			continue;
		for (int j = 0; j < i; j++)
			if (f->questions[j].name && strcmp(f->questions[j].name, n) == 0) {
				snprintf(msg, sizeof(msg), "Duplicate question name '%.200s'.", n);
				add_issue(ld, msg, "questions[%d].name", i);
				break;
			}
	}
	for (int i = 0; i < f->n_branches; i++) {
		struct form_branch *b = &f->branches[i];
		if (b->id)
			for (int j = 0; j < i; j++)
				if (f->branches[j].id && strcmp(f->branches[j].id, b->id) == 0) {
					snprintf(msg, sizeof(msg), "Duplicate branch id '%.200s'.",
						 b->id);
					add_issue(ld, msg, "branches[%d].id", i);
					break;
				}
		if (!b->field)
			continue;
		b->question = form_find(f, b->field);
		if (b->question < 0) {
			snprintf(msg, sizeof(msg),
				 "Branch condition field '%.200s' names no question.", b->field);
			add_issue(ld, msg, "branches[%d].condition.field", i);
			continue;
		}
		/* present wins when both are set, so equals is then dropped, not refused. */
		if (b->has_equals && !b->has_present &&
		    f->questions[b->question].type != FORM_BOOLEAN)
			add_issue(ld, "Branch conditions are only supported for boolean questions.",
				  "branches[%d].condition.equals", i);
	}
	for (int i = 0; i < f->n_questions; i++) {
		struct form_question *q = &f->questions[i];
		if (!q->branch_id)
			continue;
		for (int j = 0; j < f->n_branches; j++)
			if (f->branches[j].id && strcmp(f->branches[j].id, q->branch_id) == 0) {
				q->branch = j;
				break;
			}
		if (q->branch < 0) {
			snprintf(msg, sizeof(msg), "Question references unknown branch '%.200s'.",
				 q->branch_id);
			add_issue(ld, msg, "questions[%d].branch_id", i);
			continue;
		}
		int ctl = f->branches[q->branch].question;
		if (ctl >= i)
			add_issue(ld, "Branch condition field must appear before the branch's questions.",
				  "questions[%d].branch_id", i);
	}
}

/* Line and column (1-based) of position at in text. Columns count characters (UTF-8
 * sequences, not their continuation bytes), as an editor shows them: after Devanagari a
 * byte count would point far to the right of the fault. */
static void line_col(const char *text, const char *at, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (const char *p = text; *p && p < at; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)*p & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

/* How many arrays and objects are open at at (counting one opened there), outside
 * strings. */
static int nesting(const char *text, const char *at)
{
	int depth = 0;
	bool in_str = false;
	for (const char *p = text; *p && p <= at; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if (*p == ']' || *p == '}') {
			depth--;
		}
	}
	return depth;
}

enum err form_parse(const char *text, struct form **out, struct form_issues *issues)
{
	struct form_issues local = {0};
	struct form_issues *is = issues ? issues : &local;
	struct ld ld = {is, false};
	struct form *f = NULL;
	enum err e = ERR_OK;
	is->v = NULL;
	is->n = 0;

	const char *end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text ? text : "", &end, true);
	if (!root) {
		int line, col;
		const char *at = end ? end : cJSON_GetErrorPtr();
		if (!at)
			at = text ? text + strlen(text) : "";
		line_col(text ? text : "", at, &line, &col);
		char msg[400];
		if (!*at)
			snprintf(msg, sizeof(msg), "line %d, column %d: unexpected end of the JSON text.",
				 line, col);
		else if (nesting(text, at) > CJSON_NESTING_LIMIT)
			snprintf(msg, sizeof(msg),
				 "line %d, column %d: the JSON text nests deeper than %d levels.", line,
				 col, CJSON_NESTING_LIMIT);
		else
			snprintf(msg, sizeof(msg), "line %d, column %d: malformed JSON near '%.20s'.",
				 line, col, at);
		/* Keep the excerpt on one line. */
		for (char *p = msg; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
		add_issue(&ld, msg, "");
		e = ld.nomem ? ERR_NOMEM : ERR_PARSE;
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		add_issue(&ld, "A form config must be a JSON object.", "");
		e = ERR_INVALID;
		goto out;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		e = ERR_NOMEM;
		goto out;
	}
	f->title = get_str(&ld, root, "title", "", true);
	f->language = get_str(&ld, root, "language", "", false);
	f->context = item(root, "context") ? get_str(&ld, root, "context", "", false)
					   : get_str(&ld, root, "description", "", false);
	f->instructions = item(root, "instructions")
				  ? get_str(&ld, root, "instructions", "", false)
				  : get_str(&ld, root, "ai_instructions", "", false);
	f->agent_persona = get_str(&ld, root, "agent_persona", "", false);
	f->user_persona = get_str(&ld, root, "user_persona", "", false);
	f->agent_speaks_first = get_bool(&ld, root, "agent_speaks_first", "", true);
	f->ask_questions_one_by_one = get_bool(&ld, root, "ask_questions_one_by_one", "", true);
	f->mute_user_while_agent_speaking =
		get_bool(&ld, root, "mute_user_while_agent_speaking", "", false);
	const cJSON *scripts = item(root, "scripts");
	if (scripts && !cJSON_IsObject(scripts)) {
		add_issue(&ld, "Must be an object.", "scripts");
	} else if (scripts) {
		f->intro = get_str(&ld, scripts, "intro", "scripts", false);
		f->outro = get_str(&ld, scripts, "outro", "scripts", false);
		f->outro_incomplete = get_str(&ld, scripts, "outro_incomplete", "scripts", false);
		f->reask = get_str(&ld, scripts, "reask", "scripts", false);
	}

	const cJSON *qs = item(root, "questions");
	if (!qs) {
		add_issue(&ld, "Field required.", "questions");
	} else if (!cJSON_IsArray(qs)) {
		add_issue(&ld, "Must be a list of questions.", "questions");
	} else if (cJSON_GetArraySize(qs) == 0) {
		add_issue(&ld, "A form needs at least one question.", "questions");
	} else if (cJSON_GetArraySize(qs) > FORM_MAX_QUESTIONS) {
		char msg[120];
		snprintf(msg, sizeof(msg), "A form may have at most %d questions (this one has %d).",
			 FORM_MAX_QUESTIONS, cJSON_GetArraySize(qs));
		add_issue(&ld, msg, "questions");
	} else {
		int n = cJSON_GetArraySize(qs);
		f->questions = calloc((size_t)n, sizeof(*f->questions));
		if (!f->questions) {
			e = ERR_NOMEM;
			goto out;
		}
		f->n_questions = n;
		int i = 0;
		const cJSON *qj;
		cJSON_ArrayForEach(qj, qs) {
			load_question(&ld, qj, i, &f->questions[i]);
			i++;
		}
	}

	const cJSON *bs = item(root, "branches");
	if (bs && !cJSON_IsArray(bs)) {
		add_issue(&ld, "Must be a list of branches.", "branches");
	} else if (bs && cJSON_GetArraySize(bs) > FORM_MAX_BRANCHES) {
		char msg[120];
		snprintf(msg, sizeof(msg), "A form may have at most %d branches (this one has %d).",
			 FORM_MAX_BRANCHES, cJSON_GetArraySize(bs));
		add_issue(&ld, msg, "branches");
	} else if (bs && cJSON_GetArraySize(bs) > 0) {
		int n = cJSON_GetArraySize(bs);
		f->branches = calloc((size_t)n, sizeof(*f->branches));
		if (!f->branches) {
			e = ERR_NOMEM;
			goto out;
		}
		f->n_branches = n;
		int i = 0;
		const cJSON *bj;
		cJSON_ArrayForEach(bj, bs) {
			load_branch(&ld, bj, i, &f->branches[i]);
			i++;
		}
	}
	check_links(&ld, f);

	if (ld.nomem)
		e = ERR_NOMEM;
	else if (is->n > 0)
		e = ERR_INVALID;
out:
	cJSON_Delete(root);
	if (e == ERR_OK) {
		*out = f;
	} else {
		form_free(f);
		if (ld.nomem)
			e = ERR_NOMEM;
	}
	if (!issues)
		form_issues_free(&local);
	return e;
}

enum err form_load(const char *path, struct form **out, struct form_issues *issues)
{
	struct form_issues local = {0};
	struct form_issues *is = issues ? issues : &local;
	struct ld ld = {is, false};
	enum err e = ERR_OK;
	char *buf = NULL;
	is->v = NULL;
	is->n = 0;

	size_t len = 0;
	if ((e = file_read(path, &buf, &len)) == ERR_IO)
		goto io;
	if (e != ERR_OK)
		goto out;
	if (strlen(buf) != len) {
		int line, col;
		char msg[100];
		line_col(buf, buf + strlen(buf), &line, &col); /* where the NUL is */
		snprintf(msg, sizeof(msg), "line %d, column %d: the file holds a NUL byte; not JSON text.",
			 line, col);
		add_issue(&ld, msg, "%s", "");
		e = ld.nomem ? ERR_NOMEM : ERR_PARSE;
		goto out;
	}
	const char *bad = utf8_bad(buf, len, true);
	if (bad) {
		int line, col;
		char msg[160];
		line_col(buf, bad, &line, &col);
		snprintf(msg, sizeof(msg), "line %d, column %d: not UTF-8 text (byte 0x%02X).", line,
			 col, (unsigned)(unsigned char)*bad);
		add_issue(&ld, msg, "");
		e = ld.nomem ? ERR_NOMEM : ERR_PARSE;
		goto out;
	}
	e = form_parse(buf, out, is);
	goto out;
io:;
	char msg[600];
	snprintf(msg, sizeof(msg), "%.400s: %s", path, strerror(errno));
	add_issue(&ld, msg, "");
	e = ld.nomem ? ERR_NOMEM : ERR_IO;
out:
	free(buf);
	if (!issues)
		form_issues_free(&local);
	return e;
}

void form_free(struct form *f)
{
	if (!f)
		return;
	free(f->title);
	free(f->language);
	free(f->context);
	free(f->instructions);
	free(f->agent_persona);
	free(f->user_persona);
	free(f->intro);
	free(f->outro);
	free(f->outro_incomplete);
	free(f->reask);
	for (int i = 0; i < f->n_questions; i++) {
		struct form_question *q = &f->questions[i];
		free(q->name);
		free(q->label);
		free(q->script);
		free(q->skip_message);
		free(q->advanced_instructions);
		free_strv(q->options, q->n_options);
		free(q->label_true);
		free(q->label_false);
		free_strv(q->end_call_values, q->n_end_call_values);
		free(q->branch_id);
		free(q->pattern);
		if (q->pattern_re)
			regfree(q->pattern_re);
		free(q->pattern_re);
		free(q->message);
		free(q->description);
		free_strv(q->retry_messages, q->n_retry_messages);
	}
	free(f->questions);
	for (int i = 0; i < f->n_branches; i++) {
		free(f->branches[i].id);
		free(f->branches[i].field);
	}
	free(f->branches);
	free(f);
}

void form_issues_free(struct form_issues *is)
{
	if (!is)
		return;
	for (int i = 0; i < is->n; i++) {
		free(is->v[i].field);
		free(is->v[i].message);
	}
	free(is->v);
	is->v = NULL;
	is->n = 0;
}

char *form_issues_json(const struct form_issues *is)
{
	char *s = NULL;
	cJSON *root = cJSON_CreateObject();
	cJSON *arr = root ? cJSON_AddArrayToObject(root, "validation_issues") : NULL;
	if (!arr)
		goto out;
	for (int i = 0; is && i < is->n; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o) ||
		    !cJSON_AddStringToObject(o, "field", is->v[i].field) ||
		    !cJSON_AddStringToObject(o, "message", is->v[i].message))
			goto out;
	}
	s = cJSON_PrintUnformatted(root);
out:
	cJSON_Delete(root);
	return s;
}

int form_find(const struct form *f, const char *name)
{
	if (!f || !name)
		return -1;
	for (int i = 0; i < f->n_questions; i++)
		if (f->questions[i].name && strcmp(f->questions[i].name, name) == 0)
			return i;
	return -1;
}

/* Whether a regex pattern is made of digits only, such as ^[0-9]{6}$ or ^\d{6}$. */
static bool digits_pattern(const char *p)
{
	return p && (strstr(p, "[0-9]") || strstr(p, "\\d"));
}

enum form_digits form_digits(const struct form_question *q)
{
	switch (q->validation) {
	case VALID_PHONE_NUMBER: return FORM_DIGITS_PHONE;
	case VALID_EXACT_NUM_DIGITS: return FORM_DIGITS_EXACT;
	case VALID_REGEX: return digits_pattern(q->pattern) ? FORM_DIGITS_PATTERN : FORM_DIGITS_NO;
	default: return FORM_DIGITS_NO;
	}
}

bool form_counts_digits(const struct form_question *q)
{
	enum form_digits d = form_digits(q);
	return d == FORM_DIGITS_PHONE || d == FORM_DIGITS_EXACT;
}

int form_retry_limit(const struct form_question *q)
{
	if (q->until_answered)
		return -1;
	return q->allow_retries ? q->max_retries : 0;
}

int form_branch_open(const struct form_branch *br, enum form_answer a)
{
	if (a == FORM_ANSWER_EMPTY)
		return -1;
	if (br->has_present)
		return br->present == (a != FORM_ANSWER_SKIPPED);
	if (br->has_equals)
		return a == (br->equals ? FORM_ANSWER_TRUE : FORM_ANSWER_FALSE);
	return 0;
}
