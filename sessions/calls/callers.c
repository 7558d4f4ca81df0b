/* callers: simulated callers made of a profile and behaviours (callers.h). */
#include "callers.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/rules/decision.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/corpusgen.h"
#include "runs.h"
#include "base/str.h"

static const char *const names[] = {
#define X(id, name, about) name,
	CALLERS_BEHAVIOURS(X)
#undef X
};
static const char *const abouts[] = {
#define X(id, name, about) about,
	CALLERS_BEHAVIOURS(X)
#undef X
};

const char *callers_behaviour_name(enum callers_behaviour b)
{
	return (unsigned)b < CALLERS_N ? names[b] : "?";
}

const char *callers_behaviour_about(enum callers_behaviour b)
{
	return (unsigned)b < CALLERS_N ? abouts[b] : "?";
}

int callers_behaviour_find(const char *name)
{
	for (int i = 0; i < CALLERS_N; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* ---- profiles ---- */

struct callers_profiles {
	const struct form *f;
	char *text;
	cJSON *root;
	const cJSON *callers;
	int n;
	const char *name;
	bool has_today;
	struct ymd today;
};

/* line_at: the line number (from 1) of byte off in text. */
static int line_at(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* entry_line: the line where caller id's entry names key (a field), searched after her
 * "id" value under "callers"; her id's line when key is NULL or not found; 0 when she
 * cannot be found. */
static int entry_line(const char *text, const char *id, const char *key)
{
	char quoted[256];
	const char *from = strstr(text, "\"callers\""), *at, *k;
	if (!from || !id || snprintf(quoted, sizeof quoted, "\"%s\"", id) >= (int)sizeof quoted)
		return 0;
	if (!(at = strstr(from, quoted)))
		return 0;
	if (key && snprintf(quoted, sizeof quoted, "\"%s\"", key) < (int)sizeof quoted &&
	    (k = strstr(at, quoted)))
		at = k;
	return line_at(text, (size_t)(at - text));
}

/* say: *errmsg (when errmsg is not NULL) becomes the message, replacing one before. */
#define say(errmsg, ...)                                      \
	do {                                                  \
		if (errmsg) {                                 \
			free(*(errmsg));                      \
			*(errmsg) = str_printf(__VA_ARGS__); \
		}                                             \
	} while (0)

/* check_caller: caller i's answers against every question of f; *why (size n) and *field
 * (the question at fault, NULL for the whole entry) on failure. */
static bool check_caller(const struct form *f, const cJSON *caller, char *why, size_t n,
			 const char **field)
{
	const cJSON *answers = cJSON_GetObjectItemCaseSensitive(caller, "answers");
	*field = NULL;
	if (!cJSON_IsObject(answers)) {
		snprintf(why, n, "'answers' must be an object");
		return false;
	}
	for (int q = 0; q < f->n_questions; q++) {
		const struct form_question *fq = &f->questions[q];
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(answers, fq->name);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
		*field = fq->name;
		if (!cJSON_IsObject(a)) {
			*field = NULL; /* not in her entry: her own line */
			snprintf(why, n, "field '%s': no answer for a field the form asks", fq->name);
			return false;
		}
		if (fq->type == FORM_BOOLEAN) {
			if (v && !cJSON_IsBool(v)) {
				snprintf(why, n, "field '%s': 'value' must be true or false", fq->name);
				return false;
			}
			continue;
		}
		if (!v) {
			snprintf(why, n, "field '%s': no 'value' for a field the form asks", fq->name);
			return false;
		}
		cJSON *s = corpusgen_stored(fq, v, why, n);
		if (!s)
			return false;
		cJSON_Delete(s);
	}
	return true;
}

enum err callers_profiles_load(const char *path, const struct form *f,
			       struct callers_profiles **out, char **errmsg)
{
	struct callers_profiles *p = calloc(1, sizeof *p);
	const char *end = NULL;
	const cJSON *c, *t;
	enum err e = ERR_NOMEM;
	char why[320];
	int i = 0;

	if (!p)
		goto out;
	p->f = f;
	if (!(p->text = runs_read_file(path))) {
		say(errmsg, "%s: cannot be read", path);
		e = ERR_IO;
		goto out;
	}
	if (!(p->root = cJSON_ParseWithOpts(p->text, &end, 0))) {
		say(errmsg, "%s:%d: not valid JSON", path,
		    end ? line_at(p->text, (size_t)(end - p->text)) : 1);
		e = ERR_PARSE;
		goto out;
	}
	e = ERR_INVALID;
	p->callers = cJSON_GetObjectItemCaseSensitive(p->root, "callers");
	if (!cJSON_IsArray(p->callers) || !(p->n = cJSON_GetArraySize(p->callers))) {
		say(errmsg, "%s: 'callers' must be a non-empty array", path);
		goto out;
	}
	t = cJSON_GetObjectItemCaseSensitive(p->root, "name");
	p->name = cJSON_IsString(t) ? t->valuestring : "";
	t = cJSON_GetObjectItemCaseSensitive(p->root, "today");
	if (t && !(cJSON_IsString(t) && ymd_parse_iso(t->valuestring, &p->today))) {
		const char *at = strstr(p->text, "\"today\"");
		say(errmsg, "%s:%d: 'today' must be a date YYYY-MM-DD", path,
		    at ? line_at(p->text, (size_t)(at - p->text)) : 1);
		goto out;
	}
	p->has_today = t != NULL;
	cJSON_ArrayForEach(c, p->callers) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
		if (!cJSON_IsString(id) || !id->valuestring[0]) {
			say(errmsg, "%s: callers[%d]: 'id' must be a non-empty string", path, i);
			goto out;
		}
		const char *field = NULL;
		if (!check_caller(f, c, why, sizeof why, &field)) {
			say(errmsg, "%s:%d: callers[%d] ('%s'): %s", path,
			    entry_line(p->text, id->valuestring, field), i, id->valuestring, why);
			goto out;
		}
		i++;
	}
	*out = p;
	p = NULL;
	e = ERR_OK;
out:
	if (e == ERR_NOMEM)
		say(errmsg, "out of memory");
	callers_profiles_free(p);
	return e;
}

void callers_profiles_free(struct callers_profiles *p)
{
	if (!p)
		return;
	cJSON_Delete(p->root);
	free(p->text);
	free(p);
}

int callers_profiles_count(const struct callers_profiles *p)
{
	return p->n;
}

const char *callers_profiles_name(const struct callers_profiles *p)
{
	return p->name;
}

bool callers_profiles_today(const struct callers_profiles *p, struct ymd *today)
{
	if (p->has_today)
		*today = p->today;
	return p->has_today;
}

const cJSON *callers_profiles_answers(const struct callers_profiles *p, int i)
{
	const cJSON *c = cJSON_GetArrayItem(p->callers, i);
	return c ? cJSON_GetObjectItemCaseSensitive(c, "answers") : NULL;
}

const char *callers_profiles_id(const struct callers_profiles *p, int i)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(p->callers, i), "id");
	return cJSON_IsString(id) ? id->valuestring : "?";
}

/* ---- the behaviour list ---- */

#define MIX_MAX 64

struct callers_mix {
	int n;
	enum callers_behaviour b[MIX_MAX];
	double w[MIX_MAX], total;
	bool weighted;
	int *field; /* per question: a behaviour, or -1 */
	int n_fields;
};

static enum err mix_item(struct callers_mix *m, const struct form *f, char *item, char **errmsg)
{
	char *eq = strchr(item, '='), *colon = strchr(item, ':'), *name = item, *end;
	int b, q = -1;
	double w = 1;

	if (eq) {
		*eq = 0;
		name = eq + 1;
		if ((q = form_find(f, item)) < 0) {
			*eq = '=';
			say(errmsg, "'%s': no field '%.*s' in the form", item, (int)(eq - item), item);
			return ERR_INVALID;
		}
	} else if (colon) {
		*colon = 0;
		w = strtod(colon + 1, &end);
		if (!colon[1] || *end || !(w > 0) || w > 1e9) {
			*colon = ':';
			say(errmsg, "'%s': the weight must be a number above 0", item);
			return ERR_INVALID;
		}
	}
	if ((b = callers_behaviour_find(name)) < 0) {
		char list[600] = "";
		size_t len = 0;
		for (int i = 0; i < CALLERS_N && len < sizeof list; i++)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
						names[i]);
		say(errmsg, "'%s': no such behaviour (%s)", name, list);
		return ERR_INVALID;
	}
	if (q >= 0) {
		m->field[q] = b;
		return ERR_OK;
	}
	if (m->n == MIX_MAX) {
		say(errmsg, "'%s': more than %d behaviours", name, MIX_MAX);
		return ERR_INVALID;
	}
	m->weighted |= colon != NULL;
	m->b[m->n] = (enum callers_behaviour)b;
	m->w[m->n++] = w;
	m->total += w;
	return ERR_OK;
}

enum err callers_mix_parse(const char *list, const struct form *f, struct callers_mix **out,
			   char **errmsg)
{
	struct callers_mix *m = calloc(1, sizeof *m);
	char *copy = NULL, *save = NULL, *item;
	enum err e = ERR_NOMEM;

	if (!m || !(m->field = malloc((size_t)(f->n_questions ? f->n_questions : 1) * sizeof *m->field)) ||
	    !(copy = strdup(list ? list : "")))
		goto out;
	m->n_fields = f->n_questions;
	for (int q = 0; q < f->n_questions; q++)
		m->field[q] = -1;
	if (strcmp(copy, "all") == 0) {
		for (int b = 0; b < CALLERS_N; b++) {
			m->b[m->n] = (enum callers_behaviour)b;
			m->w[m->n++] = 1;
		}
		m->total = CALLERS_N;
	} else {
		for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
			if ((e = mix_item(m, f, item, errmsg)) != ERR_OK)
				goto out;
	}
	*out = m;
	m = NULL;
	e = ERR_OK;
out:
	if (e == ERR_NOMEM)
		say(errmsg, "out of memory");
	free(copy);
	callers_mix_free(m);
	return e;
}

void callers_mix_free(struct callers_mix *m)
{
	if (!m)
		return;
	free(m->field);
	free(m);
}

int callers_mix_count(const struct callers_mix *m)
{
	return m->n;
}

/* ---- one call ---- */

struct callers_call {
	const struct callers_profiles *p;
	const struct form *f;
	int caller;
	struct ymd today;
	enum callers_behaviour *beh; /* per question */
	bool *yes;                   /* per boolean question: her answer */
	bool *asked_q;               /* per question: she means to be asked it (not empty) */
	int *asked;                  /* per question: times asked so far */
	bool used[CALLERS_N];
	char *label;
	struct corpus_call cc;
};

/* splitmix64 (Steele, Lea and Flood 2014): a small, good, seedable generator. */
static uint64_t mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static bool optional_skip(const struct form_question *q, enum callers_behaviour b)
{
	return !q->required && (b == CALLERS_DONT_KNOW || b == CALLERS_DECLINE);
}

/* expect: the form she should end with (data, status, call status), question by
 * question in order: branches by the rule layer's own test (form_branch_open), a
 * screening answer ends it. */
static enum err expect(struct callers_call *c, const struct form *f)
{
	cJSON *data = cJSON_CreateObject(), *st = cJSON_CreateObject();
	enum form_answer *got = calloc((size_t)(f->n_questions ? f->n_questions : 1), sizeof *got);
	const cJSON *answers = callers_profiles_answers(c->p, c->caller);
	const char *call_status = "complete";
	bool ended = false;
	enum err e = ERR_NOMEM;
	char why[256];

	if (!data || !st || !got)
		goto out;
	for (int i = 0; i < f->n_questions; i++) {
		const struct form_question *q = &f->questions[i];
		bool open = !ended;
		cJSON *v = NULL;
		const char *status = "empty";
		got[i] = FORM_ANSWER_SKIPPED;
		if (open && q->branch >= 0) {
			const struct form_branch *br = &f->branches[q->branch];
			open = br->question >= 0 && br->question < i &&
			       form_branch_open(br, got[br->question]) == 1;
		}
		if (open && optional_skip(q, c->beh[i])) {
			status = "skipped";
		} else if (open) {
			const cJSON *a = cJSON_GetObjectItemCaseSensitive(answers, q->name);
			cJSON b = {0};
			const cJSON *value = cJSON_GetObjectItemCaseSensitive(a, "value");
			if (q->type == FORM_BOOLEAN) {
				b.type = c->yes[i] ? cJSON_True : cJSON_False;
				value = &b;
				got[i] = c->yes[i] ? FORM_ANSWER_TRUE : FORM_ANSWER_FALSE;
				if (corpusgen_ends_call(q, c->yes[i])) {
					ended = true;
					call_status = "screened_out";
				}
			} else {
				got[i] = FORM_ANSWER_OTHER;
			}
			if (!(v = corpusgen_stored(q, value, why, sizeof why))) {
				e = ERR_INVALID;
				goto out;
			}
			status = "answered";
		}
		c->asked_q[i] = open;
		if (!v && !(v = cJSON_CreateNull()))
			goto out;
		if (!cJSON_AddItemToObject(data, q->name, v) || !cJSON_AddStringToObject(st, q->name, status))
			goto out;
	}
	if (!(c->cc.expected_call_status = strdup(call_status)))
		goto out;
	c->cc.expected_data = data;
	c->cc.expected_status = st;
	data = st = NULL;
	e = ERR_OK;
out:
	cJSON_Delete(data);
	cJSON_Delete(st);
	free(got);
	return e;
}

enum err callers_plan(const struct callers_profiles *p, const struct callers_mix *m,
		      const struct form *f, int index, unsigned long long seed,
		      struct ymd today, struct callers_call **out)
{
	struct callers_call *c = calloc(1, sizeof *c);
	size_t nq = (size_t)(f->n_questions ? f->n_questions : 1);
	uint64_t s = seed ^ ((uint64_t)(unsigned)index * 0xD1B54A32D192ED03ull);
	enum callers_behaviour b = CALLERS_PLAIN;
	const cJSON *answers;
	char *path = NULL, *id = NULL;
	size_t path_len = 0;
	FILE *pf = NULL;
	enum err e = ERR_NOMEM;

	if (!c)
		return ERR_NOMEM;
	c->p = p;
	c->f = f;
	c->today = today;
	c->caller = index % p->n;
	if (!(c->beh = calloc(nq, sizeof *c->beh)) || !(c->yes = calloc(nq, sizeof *c->yes)) ||
	    !(c->asked = calloc(nq, sizeof *c->asked)) || !(c->asked_q = calloc(nq, sizeof *c->asked_q)))
		goto out;
	mix64(&s);
	if (m->n && m->weighted) {
		double r = (double)(mix64(&s) >> 11) / 9007199254740992.0 * m->total;
		b = m->b[m->n - 1];
		for (int i = 0; i < m->n; i++) {
			if (r < m->w[i]) {
				b = m->b[i];
				break;
			}
			r -= m->w[i];
		}
	} else if (m->n) {
		b = m->b[index % m->n];
	}
	answers = callers_profiles_answers(p, c->caller);
	for (int q = 0; q < f->n_questions; q++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(answers, f->questions[q].name);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
		int fb = q < m->n_fields ? m->field[q] : -1;
		c->beh[q] = fb >= 0 ? (enum callers_behaviour)fb : b;
		c->used[c->beh[q]] = true;
		bool coin = mix64(&s) & 1;
		if (f->questions[q].type == FORM_BOOLEAN)
			c->yes[q] = cJSON_IsBool(v) ? cJSON_IsTrue(v) : coin;
	}
	if (!(pf = open_memstream(&path, &path_len)))
		goto out;
	fprintf(pf, "%s", callers_behaviour_name(b));
	for (int q = 0; q < f->n_questions && q < m->n_fields; q++)
		if (m->field[q] >= 0)
			fprintf(pf, ",%s=%s", f->questions[q].name, callers_behaviour_name(c->beh[q]));
	if (fclose(pf) != 0 || !path)
		goto out;
	pf = NULL;
	c->label = path;
	path = NULL;
	/* the readable path: behaviours, then the boolean answers */
	if (!(pf = open_memstream(&path, &path_len)))
		goto out;
	fprintf(pf, "behaviours=%s", c->label);
	for (int q = 0; q < f->n_questions; q++)
		if (f->questions[q].type == FORM_BOOLEAN)
			fprintf(pf, " %s=%s", f->questions[q].name, c->yes[q] ? "yes" : "no");
	if (fclose(pf) != 0 || !path)
		goto out;
	pf = NULL;
	if (asprintf(&id, "%s-%04d-%s", callers_profiles_id(p, c->caller), index + 1, c->label) < 0) {
		id = NULL;
		goto out;
	}
	for (char *x = id; *x; x++)
		if (*x == ',' || *x == '=')
			*x = '+';
	c->cc.id = id;
	c->cc.path = path;
	id = path = NULL;
	if (!(c->cc.caller = strdup(callers_profiles_id(p, c->caller))))
		goto out;
	c->cc.n_turns = INT_MAX; /* her turns come from callers_answer; she never runs out */
	if ((e = expect(c, f)) != ERR_OK)
		goto out;
	*out = c;
	c = NULL;
	e = ERR_OK;
out:
	if (pf)
		fclose(pf);
	free(path);
	free(id);
	callers_call_free(c);
	return e;
}

void callers_call_free(struct callers_call *c)
{
	if (!c)
		return;
	free(c->beh);
	free(c->yes);
	free(c->asked);
	free(c->asked_q);
	free(c->label);
	free(c->cc.id);
	free(c->cc.caller);
	free(c->cc.path);
	free(c->cc.expected_call_status);
	cJSON_Delete(c->cc.expected_data);
	cJSON_Delete(c->cc.expected_status);
	free(c);
}

const struct corpus_call *callers_call_corpus(const struct callers_call *c)
{
	return &c->cc;
}

enum callers_behaviour callers_call_behaviour(const struct callers_call *c, int q)
{
	return q >= 0 && q < c->f->n_questions ? c->beh[q] : CALLERS_PLAIN;
}

bool callers_call_uses(const struct callers_call *c, enum callers_behaviour b)
{
	return (unsigned)b < CALLERS_N && c->used[b];
}

const char *callers_call_label(const struct callers_call *c)
{
	return c->label;
}

/* ---- words ---- */

static const char *const digit_words[3][10] = {
	{"shunya", "ek", "do", "teen", "chaar", "paanch", "chhe", "saat", "aath", "nau"},
	{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"},
	{"शून्य", "एक", "दो", "तीन", "चार", "पांच", "छह", "सात", "आठ", "नौ"},
};
static const char *const month_words[2][12] = {
	{"January", "February", "March", "April", "May", "June", "July", "August", "September",
	 "October", "November", "December"},
	{"जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्टूबर",
	 "नवंबर", "दिसंबर"},
};
static const char *const yes_words[3][2] = {
	{"nahi ji", "haan ji"}, {"no", "yes"}, {"जी नहीं", "हाँ जी"},
};

/* The script a style writes in: 0 romanized Hindi, 1 English, 2 Devanagari. */
static int script_of(enum callers_behaviour b)
{
	return b == CALLERS_ENGLISH ? 1 : b == CALLERS_DEVANAGARI ? 2 : 0;
}

/* cat: append printf output to buf (size n, holding *len bytes); false when it does not fit. */
static bool cat(char *buf, size_t n, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool cat(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int r;
	if (*len >= n)
		return false;
	va_start(ap, fmt);
	r = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= n - *len)
		return false;
	*len += (size_t)r;
	return true;
}

/* digits_of: the digits of a value (a number, or a string of digits) into d (size n). */
static bool digits_of(const cJSON *v, char *d, size_t n)
{
	if (cJSON_IsNumber(v))
		return snprintf(d, n, "%.0f", v->valuedouble) < (int)n;
	if (cJSON_IsString(v))
		return snprintf(d, n, "%s", v->valuestring) < (int)n;
	return false;
}

/* spell: value v of question q said in script s (generated words) into buf. */
static bool spell(const struct form_question *q, const cJSON *v, bool yes, int s, char *buf,
		  size_t n)
{
	size_t len = 0;
	char d[64];
	struct ymd date;
	buf[0] = 0;
	if (q->type == FORM_BOOLEAN)
		return cat(buf, n, &len, "%s", yes_words[s][yes]);
	if (form_digits(q) != FORM_DIGITS_NO && digits_of(v, d, sizeof d)) {
		for (const char *x = d; *x; x++)
			if (*x >= '0' && *x <= '9' &&
			    !cat(buf, n, &len, "%s%s", len ? " " : "", digit_words[s][*x - '0']))
				return false;
		return true;
	}
	if (q->type == FORM_NUMBER && cJSON_IsNumber(v)) {
		double x = v->valuedouble;
		if (x >= 0 && x <= 9 && x == (int)x)
			return cat(buf, n, &len, "%s", digit_words[s][(int)x]);
		return cat(buf, n, &len, "%g", x);
	}
	if (q->type == FORM_DATE && cJSON_IsString(v) && ymd_parse_stored(v->valuestring, &date)) {
		if (s == 1)
			return cat(buf, n, &len, "%s %d, %d", month_words[0][date.m - 1], date.d, date.y);
		return cat(buf, n, &len, "%d %s %d", date.d, month_words[s == 2][date.m - 1], date.y);
	}
	if (cJSON_IsString(v))
		return cat(buf, n, &len, "%s", v->valuestring);
	if (cJSON_IsNumber(v))
		return cat(buf, n, &len, "%g", v->valuedouble);
	return false;
}

bool callers_words(const struct callers_profiles *p, int caller, const struct form *f, int q,
		   enum callers_behaviour b, bool yes, char *buf, size_t n)
{
	const struct form_question *fq = &f->questions[q];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(callers_profiles_answers(p, caller), fq->name);
	const cJSON *w = NULL;
	int s = script_of(b);

	if (b == CALLERS_HINGLISH || b == CALLERS_ENGLISH || b == CALLERS_DEVANAGARI) {
		w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(a, "variants"),
						     callers_behaviour_name(b));
		if (cJSON_IsObject(w)) /* a boolean's variants: {"yes": ..., "no": ...} */
			w = cJSON_GetObjectItemCaseSensitive(w, yes ? "yes" : "no");
	} else {
		w = cJSON_GetObjectItemCaseSensitive(a, fq->type == FORM_BOOLEAN ? (yes ? "yes" : "no")
										 : "say");
	}
	if (cJSON_IsString(w) && w->valuestring[0])
		return snprintf(buf, n, "%s", w->valuestring) < (int)n;
	return spell(fq, cJSON_GetObjectItemCaseSensitive(a, "value"), yes, s, buf, n);
}

/* near: a value close to the right one (self-correction's slip), romanized; false when
 * the field has none (a one-word name). */
static bool near(const struct callers_call *c, int q, char *buf, size_t n)
{
	const struct form_question *fq = &c->f->questions[q];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(callers_profiles_answers(c->p, c->caller), fq->name),
		"value");
	char d[64];
	struct ymd date;
	cJSON *x = NULL;
	bool ok = false;

	if (fq->type == FORM_BOOLEAN)
		return spell(fq, NULL, !c->yes[q], 0, buf, n);
	if (form_digits(fq) != FORM_DIGITS_NO && digits_of(v, d, sizeof d) && d[0]) {
		char *last = d + strlen(d) - 1;
		*last = (char)('0' + (*last - '0' + 1) % 10);
		x = cJSON_CreateString(d);
	} else if (fq->type == FORM_NUMBER && cJSON_IsNumber(v)) {
		double y = v->valuedouble + 1;
		if (fq->has_max && y > fq->max)
			y = v->valuedouble - 1;
		x = cJSON_CreateNumber(y);
	} else if (fq->type == FORM_SINGLE_SELECT && fq->n_options > 1 && cJSON_IsString(v)) {
		int i = 0;
		while (i < fq->n_options && strcmp(fq->options[i], v->valuestring) != 0)
			i++;
		x = cJSON_CreateString(fq->options[(i + 1) % fq->n_options]);
	} else if (fq->type == FORM_DATE && cJSON_IsString(v) && ymd_parse_stored(v->valuestring, &date)) {
		char s[16];
		x = cJSON_CreateString(ymd_format(ymd_add_days(date, -1), s));
	} else if (cJSON_IsString(v) && strchr(v->valuestring, ' ')) {
		/* a name of several words: the first one alone */
		return snprintf(buf, n, "%.*s", (int)strcspn(v->valuestring, " "), v->valuestring) < (int)n;
	}
	ok = x && spell(fq, x, false, 0, buf, n);
	cJSON_Delete(x);
	return ok;
}

/* invalid: an answer the form's validation refuses (wrong-then-right's first try); false
 * when the field has none. */
static bool invalid(const struct callers_call *c, int q, char *buf, size_t n)
{
	const struct form_question *fq = &c->f->questions[q];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(callers_profiles_answers(c->p, c->caller), fq->name),
		"value");
	char d[64], s[16];
	struct ymd date;

	if (form_counts_digits(fq) && digits_of(v, d, sizeof d) && strlen(d) > 1) {
		d[strlen(d) - 1] = 0; /* a digit short */
		return snprintf(buf, n, "%s", d) < (int)n;
	}
	if (fq->type == FORM_NUMBER && fq->has_max)
		return snprintf(buf, n, "%g", fq->max + 2) < (int)n;
	if (fq->type == FORM_NUMBER && fq->has_min)
		return snprintf(buf, n, "%g", fq->min - 2) < (int)n;
	if (fq->type == FORM_SINGLE_SELECT)
		return snprintf(buf, n, "Pune") < (int)n; /* no form of ours lists it */
	if (fq->type == FORM_DATE && (fq->validation == VALID_DATE_TODAY_OR_PAST ||
				      fq->validation == VALID_DATE_FUTURE)) {
		date = ymd_add_days(c->today, fq->validation == VALID_DATE_FUTURE ? -400 : 400);
		cJSON *x = cJSON_CreateString(ymd_format(date, s));
		bool ok = x && spell(fq, x, false, 0, buf, n);
		cJSON_Delete(x);
		return ok;
	}
	return false;
}

/* next_field: the next question after q she means to be asked whose answer can stand on
 * its own (not a bare yes or no), -1 when none. */
static int next_field(const struct callers_call *c, int q)
{
	for (int i = q + 1; i < c->f->n_questions; i++)
		if (c->asked_q[i] && c->f->questions[i].type != FORM_BOOLEAN &&
		    !optional_skip(&c->f->questions[i], c->beh[i]))
			return i;
	return -1;
}

/* piece: append words as a new stretch of speech after gap ms of silence. */
static bool piece(struct callers_turn *t, long gap, const char *words)
{
	size_t len = strlen(t->text), add = strlen(words);
	if (t->n_pieces == CALLERS_PIECES || len + 1 + add >= sizeof t->text)
		return false;
	if (len)
		t->text[len++] = ' ';
	memcpy(t->text + len, words, add + 1);
	t->piece_off[t->n_pieces] = (int)len;
	t->piece_len[t->n_pieces] = (int)add;
	t->gap_ms[t->n_pieces++] = gap;
	return true;
}

/* groups: digits of q's value as numerals in groups, one piece each. */
static bool groups(const struct callers_call *c, int q, struct callers_turn *t)
{
	const struct form_question *fq = &c->f->questions[q];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(callers_profiles_answers(c->p, c->caller), fq->name),
		"value");
	char d[64], g[64];
	size_t len, at = 0;
	if (form_digits(fq) == FORM_DIGITS_NO || !digits_of(v, d, sizeof d) || (len = strlen(d)) < 4)
		return false;
	size_t size = len % 5 == 0 ? 5 : len % 2 == 0 && len <= 8 ? 2 : 3;
	while (at < len) {
		size_t k = at + 2 * size > len && t->n_pieces == CALLERS_PIECES - 1 ? len - at : size;
		if (k > len - at)
			k = len - at;
		snprintf(g, sizeof g, "%.*s", (int)k, d + at);
		if (!piece(t, t->n_pieces ? CALLERS_GROUP_GAP_MS : 0, g))
			return false;
		at += k;
	}
	return true;
}

bool callers_answer(struct callers_call *c, const struct decision *d, struct callers_turn *t)
{
	const struct form *f = c->f;
	char w[CALLERS_TEXT_MAX / 2], x[CALLERS_TEXT_MAX / 2];
	int q, g, nth;
	enum callers_behaviour b;

	memset(t, 0, sizeof *t);
	if (!d || d->tool != DECISION_ASK_QUESTION || !d->ask.field ||
	    (q = form_find(f, d->ask.field)) < 0)
		return false;
	nth = ++c->asked[q];
	b = c->beh[q];
	t->field = f->questions[q].name;
	t->behaviour = b;
	if (!callers_words(c->p, c->caller, f, q, b, c->yes[q], w, sizeof w))
		w[0] = 0;
	bool first = nth == 1, skip = optional_skip(&f->questions[q], b);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(callers_profiles_answers(c->p, c->caller),
							  t->field);
	const cJSON *dk = cJSON_GetObjectItemCaseSensitive(a, "dont_know");

	bool style = b == CALLERS_HINGLISH || b == CALLERS_ENGLISH || b == CALLERS_DEVANAGARI;
	switch (first || skip || style ? b : CALLERS_PLAIN) {
	case CALLERS_CORRECT:
		if (near(c, q, x, sizeof x)) {
			char both[CALLERS_TEXT_MAX + 32];
			snprintf(both, sizeof both, "%s, nahi nahi, %s", x, w);
			piece(t, 0, both);
		}
		break;
	case CALLERS_VOLUNTEER:
		if ((g = next_field(c, q)) >= 0 &&
		    callers_words(c->p, c->caller, f, g, CALLERS_PLAIN, c->yes[g], x, sizeof x))
			piece(t, 0, x);
		break;
	case CALLERS_TWO:
		if ((g = next_field(c, q)) >= 0 &&
		    callers_words(c->p, c->caller, f, g, CALLERS_PLAIN, c->yes[g], x, sizeof x)) {
			char both[CALLERS_TEXT_MAX + 32];
			snprintf(both, sizeof both, "%s aur %s", w, x);
			piece(t, 0, both);
		}
		break;
	case CALLERS_DONT_KNOW:
		piece(t, 0, cJSON_IsString(dk) && dk->valuestring[0] ? dk->valuestring : "pata nahi");
		break;
	case CALLERS_DECLINE:
		piece(t, 0, "yeh main nahi batana chahti");
		break;
	case CALLERS_REPEAT:
		piece(t, 0, "kya? phir se boliye");
		break;
	case CALLERS_SILENCE:
		t->silence = true;
		return true;
	case CALLERS_OFF_TOPIC:
		piece(t, 0, "aaj bahut garmi hai, bachche school gaye hain");
		piece(t, 400, w);
		break;
	case CALLERS_HESITATE:
		piece(t, 0, "umm...");
		piece(t, CALLERS_HESITATE_MS, w);
		break;
	case CALLERS_WRONG_RIGHT:
		if (invalid(c, q, x, sizeof x))
			piece(t, 0, x);
		break;
	case CALLERS_DIGIT_GROUPS:
		if (!groups(c, q, t))
			t->n_pieces = 0, t->text[0] = 0;
		break;
	case CALLERS_BACKCHANNEL:
		piece(t, 0, "hmm");
		t->backchannel = t->barge_in = true;
		t->barge_in_ms = CALLERS_BACKCHANNEL_MS;
		return true;
	case CALLERS_BARGE_IN:
		t->barge_in = true;
		t->barge_in_ms = CALLERS_BARGE_IN_MS;
		break;
	default:
		break;
	}
	if (!t->n_pieces)
		piece(t, 0, w);
	t->silence = !t->text[0];
	return true;
}
