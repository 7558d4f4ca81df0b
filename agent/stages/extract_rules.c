/* The offline rule-based EXTRACT backend.
 *
 * How a question is recognized, for any FormBharo form: its type and validation rule
 * decide what is read (phone_number / exact_num_digits: a digit string; number: a
 * number; date: a date; boolean: yes/no; selects: options); words of its name and label
 * (agent/words/hints.tsv) only refine that: a person's name or a place for a string, a
 * months or weeks count for a number, which "none" answers apply (no phone, no Aadhaar
 * card, child not named).
 *
 * What is stored for an integer-months question (gestational age): the completed months.
 * "saadhe paanch mahine" (5.5) and "paune chhe" (5.75) store 5; weeks and days are turned
 * into completed months (30.44 days each: "bees hafte" stores 4). The caller is asked
 * again (nothing is captured) when she gives a range ("paanch chhe mahine"); an ordinal
 * month ("saatva mahina") stores that number (7), as callers name the running month.
 *
 * Besides the asked question, the turn fills every other question the words clearly
 * answer: a name after "mera naam" (the caller's) or "beti ka naam" (the child's), an
 * option followed by "se"/"zila" or preceded by "zila", a yes/no said next to a word found
 * only in that question's label ("main pregnant hoon"), a months count said with its unit,
 * a number for a phone or digits question whose distinctive word (WhatsApp, Aadhaar) is
 * said. Digits said with another digit question's distinctive word belong to that one,
 * not to the asked one: asked for the clinic's number, "mera aadhaar ke aakhri chaar ank
 * 4 5 6 7" is the Aadhaar's last four, and the number is asked again.
 *
 * A name said again in full after a pause is the name ("Sunita. Sunita Devi."); after a
 * don't-know, a yes or no inside a sentence is its reason ("pata nahi, test nahi
 * karaya"), so the answer stays don't-know. A name's or clinic's Latin words typed in
 * small letters are stored with a capital ("sadar aspatal" -> "Sadar Aspatal"). */
#include "extract_rules.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/hindi/lexicon.h"
#include "agent/hindi/namematch.h"
#include "agent/hindi/parse.h"
#include "agent/hindi/text.h"

#define MAXNUMS 64
#define KEYLEN 64
#define DAYS_PER_MONTH 30.4375 /* mean Gregorian month */

enum kind { K_PHONE, K_DIGITS, K_NUMBER, K_DATE, K_BOOL, K_SELECT, K_MULTI, K_PERSON, K_TEXT };

enum hint {
	H_NAME = 1 << 0, H_CHILD = 1 << 1, H_PLACE = 1 << 2, H_PHONE = 1 << 3,
	H_WHATSAPP = 1 << 4, H_AADHAAR = 1 << 5, H_MONTHS = 1 << 6, H_WEEKS = 1 << 7,
	H_BIRTH = 1 << 8, H_PREGNANCY = 1 << 9,
};

static const struct {
	const char *name;
	unsigned bit;
} hint_names[] = {
	{"name", H_NAME}, {"child", H_CHILD}, {"place", H_PLACE}, {"phone", H_PHONE},
	{"whatsapp", H_WHATSAPP}, {"aadhaar", H_AADHAAR}, {"months", H_MONTHS},
	{"weeks", H_WEEKS}, {"birth", H_BIRTH}, {"pregnancy", H_PREGNANCY},
};

/* Everything known about the utterance during one call. */
struct ctx {
	const struct extract_request *req;
	const struct lexicon *lex;
	struct text *t;
	bool *used;          /* tokens already given to a value */
	char (*keys)[KEYLEN]; /* phonetic key of each token, made on first need */
	bool keys_done;
	const struct qinfo *info; /* per question, from the form cache */
};

struct found {
	cJSON *value;
	bool skip;
	const char *reason;
	int from, to;        /* tokens it came from; from < 0 when unknown */
};

static unsigned hints_of_text(const struct lexicon *lex, const struct text *t, int from, int to)
{
	unsigned h = 0;
	for (int i = from; i < to; i++) {
		if (!lexicon_has(lex, t, i, LEX_HINT))
			continue;
		const struct lexicon_phrase *ph = NULL;
		if (!lexicon_match(lex, t, i, to, LEX_HINT, &ph))
			continue;
		for (size_t k = 0; k < sizeof(hint_names) / sizeof(hint_names[0]); k++)
			if (strcmp(ph->arg, hint_names[k].name) == 0)
				h |= hint_names[k].bit;
	}
	return h;
}

/* A question's name and label as one text ("child_dob" reads as "child dob"). */
static struct text *question_text(const struct lexicon *lex, const struct form_question *q)
{
	size_t n = strlen(q->name) + (q->label ? strlen(q->label) : 0) + 2;
	char *s = malloc(n);
	struct text *t = NULL;
	if (!s)
		return NULL;
	snprintf(s, n, "%s %s", q->name, q->label ? q->label : "");
	for (char *p = s; *p; p++)
		if (*p == '_')
			*p = ' ';
	if (text_new(s, &t) == ERR_OK)
		lexicon_tag_text(lex, t);
	free(s);
	return t;
}

static unsigned question_hints(const struct lexicon *lex, const struct form_question *q)
{
	struct text *t = question_text(lex, q);
	unsigned h = t ? hints_of_text(lex, t, 0, t->n) : 0;
	text_free(t);
	return h;
}

static enum kind kind_of(const struct lexicon *lex, const struct form_question *q, unsigned *hints)
{
	enum form_digits digits = form_digits(q);
	*hints = question_hints(lex, q);
	if (digits == FORM_DIGITS_PHONE)
		return K_PHONE;
	if (digits == FORM_DIGITS_EXACT)
		return K_DIGITS;
	switch (q->type) {
	case FORM_NUMBER: return K_NUMBER;
	case FORM_DATE: return K_DATE;
	case FORM_BOOLEAN: return K_BOOL;
	case FORM_SINGLE_SELECT: return K_SELECT;
	case FORM_MULTI_SELECT: return K_MULTI;
	default: break;
	}
	if (q->validation == VALID_DATE || q->validation == VALID_DATE_TODAY_OR_PAST ||
	    q->validation == VALID_DATE_FUTURE)
		return K_DATE;
	if (digits == FORM_DIGITS_PATTERN)
		return K_DIGITS;
	if ((*hints & H_NAME) && !(*hints & H_PLACE))
		return K_PERSON;
	return K_TEXT;
}

#define MAXOPTWORDS 8
#define MAXLABELWORDS 16

/* What the extractor reads from one question, once per form. */
struct optkeys {
	char k[MAXOPTWORDS][KEYLEN]; /* phonetic keys of the option's words */
	int n;
};

struct qinfo {
	enum kind kind;
	unsigned hints;
	char hay[256];                       /* name and label, for skip phrase hints */
	char words[MAXLABELWORDS][KEYLEN];   /* folded words of name and label (5+ bytes) */
	bool distinct[MAXLABELWORDS];        /* ... a word of the label found in no other
						question's label */
	bool in_label[MAXLABELWORDS];        /* ... from the label, not the name */
	int nwords;
	struct optkeys *opts;
	int nopts;
	char blabel[2][MAXOPTWORDS][KEYLEN]; /* boolean_labels false, true: folded words */
	int nblabel[2];
};

/* The questions' analysis is kept in the backend's ctx (struct extract_rules) for the
 * last form seen, keyed by the form's address, the word lists' address and a hash of
 * everything read from the questions, so a changed or new form is analysed afresh; it
 * costs tens of microseconds, the utterance itself a few. */
struct formcache {
	const struct form *form;
	const struct lexicon *lex;
	uint64_t hash;
	struct qinfo *q;
	int n;
};

struct extract_rules {
	struct formcache cache;
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return s ? mix(h, s, strlen(s) + 1) : mix(h, "", 1);
}

static uint64_t form_hash(const struct form *f)
{
	uint64_t h = 1469598103934665603ULL;
	h = mix(h, &f->n_questions, sizeof(f->n_questions));
	for (int i = 0; i < f->n_questions; i++) {
		const struct form_question *q = &f->questions[i];
		int nums[5] = {(int)q->type, (int)q->validation, q->digits, q->n_options, q->integer};
		h = mix(h, nums, sizeof(nums));
		h = mix_str(h, q->name);
		h = mix_str(h, q->label);
		h = mix_str(h, q->pattern);
		h = mix_str(h, q->label_true);
		h = mix_str(h, q->label_false);
		for (int o = 0; o < q->n_options; o++)
			h = mix_str(h, q->options[o]);
	}
	return h;
}

static void cache_clear(struct formcache *cache)
{
	for (int i = 0; i < cache->n; i++)
		free(cache->q[i].opts);
	free(cache->q);
	memset(cache, 0, sizeof(*cache));
}

static void fold_words(const char *s, char (*out)[KEYLEN], int *n)
{
	struct text *t = NULL;
	*n = 0;
	if (!s || text_new(s, &t) != ERR_OK)
		return;
	for (int i = 0; i < t->n && *n < MAXOPTWORDS; i++)
		snprintf(out[(*n)++], KEYLEN, "%s", t->tok[i].key);
	text_free(t);
}

static enum err analyse(const struct lexicon *lex, const struct form_question *q, struct qinfo *qi)
{
	qi->kind = kind_of(lex, q, &qi->hints);
	snprintf(qi->hay, sizeof(qi->hay), "%s %s", q->name, q->label ? q->label : "");
	struct text *qt = question_text(lex, q);
	if (!qt)
		return ERR_NOMEM;
	size_t name_end = strlen(q->name);
	for (int w = 0; w < qt->n && qi->nwords < MAXLABELWORDS; w++) {
		const struct text_token *tk = &qt->tok[w];
		if (tk->key_len < 5 || tk->key_len >= KEYLEN || tk->digits ||
		    lexicon_has(lex, qt, w, LEX_STOP))
			continue;
		qi->in_label[qi->nwords] = tk->start > name_end;
		snprintf(qi->words[qi->nwords++], KEYLEN, "%s", tk->key);
	}
	text_free(qt);
	fold_words(q->label_false, qi->blabel[0], &qi->nblabel[0]);
	fold_words(q->label_true, qi->blabel[1], &qi->nblabel[1]);
	if (q->n_options > 0) {
		qi->opts = calloc((size_t)q->n_options, sizeof(*qi->opts));
		if (!qi->opts)
			return ERR_NOMEM;
		qi->nopts = q->n_options;
	}
	for (int o = 0; o < q->n_options; o++) {
		struct text *ot = NULL;
		if (text_new(q->options[o], &ot) != ERR_OK)
			return ERR_NOMEM;
		struct optkeys *ok = &qi->opts[o];
		for (int w = 0; w < ot->n && ok->n < MAXOPTWORDS; w++)
			if (namematch_key(ot->orig + ot->tok[w].start, ot->tok[w].end - ot->tok[w].start,
					  ok->k[ok->n], KEYLEN))
				ok->n++;
		text_free(ot);
	}
	return ERR_OK;
}

/* The analysis of every question of f. Output: the cached array (owned by the cache).
 * Errors: ERR_NOMEM. */
static enum err form_info(struct formcache *cache, const struct lexicon *lex, const struct form *f, const struct qinfo **out)
{
	uint64_t h = form_hash(f);
	if (cache->q && cache->form == f && cache->lex == lex && cache->hash == h) {
		*out = cache->q;
		return ERR_OK;
	}
	cache_clear(cache);
	cache->q = calloc((size_t)f->n_questions + 1, sizeof(*cache->q));
	if (!cache->q)
		return ERR_NOMEM;
	cache->n = f->n_questions;
	for (int i = 0; i < f->n_questions; i++)
		if (analyse(lex, &f->questions[i], &cache->q[i]) != ERR_OK) {
			cache_clear(cache);
			return ERR_NOMEM;
		}
	/* a label word that no other question's label has ("pregnant", not "number") */
	for (int i = 0; i < f->n_questions; i++)
		for (int w = 0; w < cache->q[i].nwords; w++) {
			bool shared = !cache->q[i].in_label[w];
			for (int o = 0; o < f->n_questions && !shared; o++) {
				if (o == i)
					continue;
				for (int x = 0; x < cache->q[o].nwords && !shared; x++)
					shared = cache->q[o].in_label[x] &&
						 strcmp(cache->q[o].words[x], cache->q[i].words[w]) == 0;
			}
			cache->q[i].distinct[w] = !shared;
		}
	cache->form = f;
	cache->lex = lex;
	cache->hash = h;
	*out = cache->q;
	return ERR_OK;
}

static int match(const struct ctx *c, int i, int to, enum lexicon_tag tag)
{
	return lexicon_has(c->lex, c->t, i, tag) ? lexicon_match(c->lex, c->t, i, to, tag, NULL) : 0;
}

static const char *key_of(struct ctx *c, int i)
{
	if (!c->keys_done) {
		for (int k = 0; k < c->t->n; k++) {
			const struct text_token *tk = &c->t->tok[k];
			namematch_key(c->t->orig + tk->start, tk->end - tk->start, c->keys[k], KEYLEN);
		}
		c->keys_done = true;
	}
	return c->keys[i];
}

/* ---- skip ------------------------------------------------------------------------- */

/* hints: comma-separated words; true when one is in the question's name or label */
static bool hint_applies(const char *hints, const char *hay)
{
	if (!*hints)
		return true;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", hints);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (strcasestr(hay, w))
			return true;
	return false;
}

/* The last don't-know / declined / none phrase that applies to q. Returns the reason
 * (static) or NULL; *end the token after it. */
static const char *find_skip(struct ctx *c, int qi, int *start, int *end)
{
	static const struct {
		enum lexicon_tag tag;
		const char *reason;
	} kinds[] = {{LEX_DONT_KNOW, "dont_know"}, {LEX_DECLINED, "declined"}, {LEX_NONE, "none"}};
	const char *reason = NULL;
	const char *hay = c->info[qi].hay;
	*start = *end = 0;
	for (int i = 0; i < c->t->n; i++) {
		int best = 0;
		const char *r = NULL;
		for (size_t k = 0; k < 3; k++) {
			const struct lexicon_phrase *ph = NULL;
			if (!lexicon_has(c->lex, c->t, i, kinds[k].tag))
				continue;
			int m = lexicon_match(c->lex, c->t, i, c->t->n, kinds[k].tag, &ph);
			if (m > best && hint_applies(ph->arg, hay)) {
				best = m;
				r = kinds[k].reason;
			}
		}
		if (best && i + best > *end) {
			/* overlapping phrases ("abhi naam nahi" + "naam nahi socha") make one */
			if (!reason || i >= *end)
				*start = i;
			reason = r;
			*end = i + best;
		}
	}
	return reason;
}

/* ---- digits and numbers ----------------------------------------------------------- */

static cJSON *read_digits(struct ctx *c, const struct form_question *q, enum kind k, int from,
			  int to, enum err *e)
{
	char *d = NULL;
	int expect = q->digits > 0 ? q->digits : (k == K_PHONE ? 10 : 0);
	*e = parse_digits_span(c->lex, c->t, from, to, expect, &d);
	if (!d)
		return NULL;
	const char *s = d;
	size_t n = strlen(d);
	if (k == K_PHONE && expect > 0) {
		/* +91 / 91 / 0 before a 10-digit number is the country or trunk prefix */
		if (n == (size_t)expect + 2 && strncmp(d, "91", 2) == 0)
			s = d + 2;
		else if (n == (size_t)expect + 1 && d[0] == '0')
			s = d + 1;
		else if (n == (size_t)expect + 3 && strncmp(d, "091", 3) == 0)
			s = d + 3;
	}
	/* a number field gets a JSON number, as FormBharo stores it; a leading zero (which a
	 * number would lose) or more digits than a double holds exactly stay text for the
	 * rule layer to judge */
	size_t sn = strlen(s);
	cJSON *v = q->type == FORM_NUMBER && sn > 0 && sn <= 15 && s[0] != '0'
			   ? cJSON_CreateNumber(strtod(s, NULL))
			   : cJSON_CreateString(s);
	free(d);
	if (!v)
		*e = ERR_NOMEM;
	return v;
}

/* the unit said right after a number, in days (0 none; not after a pause: "2024, month
 * january" is no duration) */
static double unit_after(struct ctx *c, int i, int to)
{
	const struct lexicon_phrase *ph = NULL;
	if (i < to && !c->t->tok[i].pause && lexicon_has(c->lex, c->t, i, LEX_UNIT) &&
	    lexicon_match(c->lex, c->t, i, to, LEX_UNIT, &ph))
		return ph->value;
	return 0;
}

static bool range_word(struct ctx *c, int i)
{
	static const char *const w[] = {"ya", "se", "or", "to", "या", "से", "ki", "की"};
	const struct text_token *tk = &c->t->tok[i];
	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
		if (strcmp(tk->key, w[k]) == 0)
			return true;
	return false;
}

/* A duration said with unit u (days; 0 none) in the question's unit. */
static double in_field_unit(double v, double u, unsigned hints)
{
	if (u <= 0)
		return v;
	double days = u == 30 ? v * DAYS_PER_MONTH : u == 365 ? v * 365.25 : v * u;
	/* weeks to months as obstetrics counts them: 52 weeks make 12 months, so 26 weeks
	 * is 6 months (by days, 182 / 30.44 = 5.98 would floor to 5) */
	if (hints & H_MONTHS)
		return u == 30 ? v : u == 7 ? v * 12.0 / 52.0 : days / DAYS_PER_MONTH;
	if (hints & H_WEEKS)
		return u == 7 ? v : days / 7;
	return v;
}

static bool joiner(struct ctx *c, int i)
{
	static const char *const w[] = {"aur", "and", "और", "ar"};
	for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
		if (strcmp(c->t->tok[i].key, w[k]) == 0)
			return true;
	return false;
}

/* The number answer in [from, to). need_unit: only a count said with the question's
 * unit (months, weeks) counts. *out NAN for a range ("paanch chhe mahine"). */
static bool read_number(struct ctx *c, const struct form_question *q, unsigned hints, int from,
			int to, bool need_unit, double *out, int *nf, int *nt)
{
	struct parse_num nums[MAXNUMS];
	int n = parse_numbers_span(c->lex, c->t, from, to, nums, MAXNUMS);
	int pick = -1, end = -1;
	double acc = 0, pick_unit = 0;
	for (int i = 0; i < n; i++) {
		if (c->used[nums[i].from])
			continue;
		double u = unit_after(c, nums[i].to, to);
		int after = nums[i].to + (u > 0 ? match(c, nums[i].to, to, LEX_UNIT) : 0);
		if (need_unit && !((hints & H_MONTHS) ? u == 30 || u == 7 : (hints & H_WEEKS) ? u == 7 || u == 30 : u > 0))
			continue;
		/* "teen mahine aur do hafte": one duration in two units */
		if (pick >= 0 && u > 0 && pick_unit > u && !nums[i].after_neg &&
		    (nums[i].from == end || (nums[i].from == end + 1 && joiner(c, end)))) {
			acc += in_field_unit(nums[i].value, u, hints);
			end = after;
			pick_unit = u;
			continue;
		}
		/* "paanch chhe mahine", "5 ya 6": a range, not one answer */
		if (pick >= 0 && !nums[i].after_neg && !nums[pick].ordinal && pick_unit == 0 &&
		    (nums[i].from == nums[pick].to ||
		     (nums[i].from == nums[pick].to + 1 && range_word(c, nums[pick].to)))) {
			*out = NAN;
			return true;
		}
		pick = i;
		pick_unit = u;
		acc = in_field_unit(nums[i].value, u, hints);
		end = after;
	}
	if (pick < 0)
		return false;
	double v = acc;
	if (q->integer)
		v = floor(v + 1e-9); /* completed months (see the top of this file) */
	*out = v;
	*nf = nums[pick].from;
	*nt = end;
	return true;
}

/* ---- names and places ------------------------------------------------------------- */

static bool junk(struct ctx *c, int i, int to, int *len)
{
	static const enum lexicon_tag tags[] = {
		LEX_FILLER, LEX_YES, LEX_NO, LEX_WEAKYES, LEX_HONORIFIC, LEX_NAME_AFTER,
		LEX_NOANSWER, LEX_NEUTRAL, LEX_COPULA,
	};
	for (size_t k = 0; k < sizeof(tags) / sizeof(tags[0]); k++) {
		int m = match(c, i, to, tags[k]);
		if (m) {
			*len = m;
			return true;
		}
	}
	return false;
}

/* Whether word i of [from, to) lies inside a junk phrase that starts before it: the
 * "nahi" of "awaaz nahi aa rahi" (the caller did not hear) corrects no name. */
static bool inside_junk(struct ctx *c, int from, int i, int to)
{
	int l;
	for (int j = from; j < i; j++)
		if (junk(c, j, to, &l) && j + l > i)
			return true;
	return false;
}

/* The longest answer (in words other than fillers and yes/no) that is taken as a bare
 * name or place with no carrier phrase or place word around it. Longer utterances are
 * sentences (real callers, and the RESPIN read speech, say "गाय" or "ना" inside them). */
#define BARE_ANSWER_WORDS 6

/* words in [from, to) that are not junk */
static int content_words(struct ctx *c, int from, int to)
{
	int n = 0, l;
	for (int i = from; i < to; i += l) {
		l = 1;
		if (!junk(c, i, to, &l))
			n++;
	}
	return n;
}

static bool single_letter(const struct text *t, int i)
{
	return t->tok[i].latin && !t->tok[i].digits && t->tok[i].key_len == 1;
}

/* a run of 3 or more single letters from i ("S U M I T A"); returns its length */
static int spelled_at(const struct text *t, int i, int to)
{
	int j = i;
	while (j < to && single_letter(t, j))
		j++;
	return j - i >= 3 ? j - i : 0;
}

/* The first name carrier in [from, to) for whose ("self", "child", "pronoun" for "main",
 * "I am"; NULL: any but "pronoun"). Returns the token after it, or -1. */
static int find_carrier(struct ctx *c, int from, int to, const char *whose)
{
	for (int i = from; i < to; i++) {
		const struct lexicon_phrase *ph = NULL;
		if (!lexicon_has(c->lex, c->t, i, LEX_NAME_BEFORE))
			continue;
		int m = lexicon_match(c->lex, c->t, i, to, LEX_NAME_BEFORE, &ph);
		if (!m)
			continue;
		if (whose ? strcmp(ph->arg, whose) == 0 : strcmp(ph->arg, "pronoun") != 0)
			return i + m;
		i += m - 1;
	}
	return -1;
}

struct name {
	int a, b;        /* tokens of the name, inclusive; a < 0 none */
	int sp, splen;   /* spelled letters, splen 0 none */
	bool place;      /* the words were followed by "se"/"zila": a place */
};

/* the token's key equals that of a token in [a, b] (a name said twice) */
static bool repeats(struct ctx *c, int i, int a, int b)
{
	for (int j = a; j <= b && a >= 0; j++)
		if (strcmp(key_of(c, i), key_of(c, j)) == 0)
			return true;
	return false;
}

static char *spelled_text(const struct text *t, int sp, int n);

/* the word at i sounds like the spelled letters */
static bool spelled_word(struct ctx *c, const struct name *nm, int i)
{
	char key[KEYLEN];
	char *sp = spelled_text(c->t, nm->sp, nm->splen);
	if (!sp)
		return false;
	namematch_key(sp, strlen(sp), key, sizeof(key));
	free(sp);
	return strcmp(key, key_of(c, i)) == 0;
}

/* Read a name from [from, to): corrections, leading junk, then name words up to a word
 * that ends it. person: a person's name (short, no function words). carrier: a carrier
 * ("mera naam") came just before from, so words after the name may be anything; without
 * one the whole answer must be the name. */
static bool read_name(struct ctx *c, int from, int to, bool person, bool carrier, struct name *nm)
{
	const struct text *t = c->t;
	nm->a = nm->b = -1;
	nm->splen = 0;
	nm->place = false;
	/* spelled letters anywhere in the region */
	for (int i = from; i < to; i++) {
		int s = spelled_at(t, i, to);
		if (s) {
			nm->sp = i;
			nm->splen = s;
			i += s - 1;
		}
	}
	/* a correction: what follows the last "nahi" replaces the name said before it */
	for (int i = to - 1, l; i >= from; i--) {
		if (!match(c, i, to, LEX_NEG) || match(c, i, to, LEX_DONT_KNOW) ||
		    inside_junk(c, from, i, to))
			continue;
		bool sentence = false;
		int named = 0;
		for (int j = from; j < i; j++) {
			if (junk(c, j, i, &l) || single_letter(t, j))
				continue;
			if (match(c, j, i, LEX_STOP) || match(c, j, i, LEX_NAME_BEFORE))
				sentence = sentence || match(c, j, i, LEX_STOP);
			else
				named++;
		}
		/* "Sunita nahi, Sumita" corrects a name of at most three words; more before the
		 * "nahi"/"na" is a sentence that happens to contain one */
		if (!named || named > 3 || sentence)
			break; /* "samajh nahi aaya": a sentence, not a corrected name */
		int after = i + match(c, i, to, LEX_NEG);
		bool words = false;
		for (int j = after; j < to; j++)
			if (!junk(c, j, to, &l) && !single_letter(t, j))
				words = true;
		if (words) {
			from = after;
		} else {
			/* "Sunita hai, Sumita nahi": drop the clause it negates */
			int p = i;
			while (p > from && !t->tok[p].pause)
				p--;
			to = p;
		}
		break;
	}
	int i = from, l = 0;
	/* "zila" before a place; in a clinic's name ("zila aspatal") it is the name's own */
	while (i < to && (junk(c, i, to, &l) || (l = match(c, i, to, LEX_NAME_BEFORE)) ||
			  (person && (l = match(c, i, to, LEX_PLACE_BEFORE)))))
		i += l;
	int a = i;
	int maxw = person ? 4 : 10;
	bool clean_end = true; /* the name ended where names end, not inside a sentence */
	for (; i < to; i++) {
		if (spelled_at(t, i, to) || single_letter(t, i) || (i > a && t->tok[i].pause))
			break;
		/* "Sunita Sunita Devi": the name begun again (read again below) */
		if (person && i > a && strcmp(key_of(c, i), key_of(c, a)) == 0)
			break;
		if (match(c, i, to, LEX_PLACE_AFTER) && i > a) {
			nm->place = true;
			break;
		}
		if (match(c, i, to, LEX_NAME_AFTER) || match(c, i, to, LEX_HONORIFIC) || joiner(c, i))
			break;
		if (t->tok[i].digits || (person && (match(c, i, to, LEX_STOP) || match(c, i, to, LEX_NUM) ||
						    match(c, i, to, LEX_YES) || match(c, i, to, LEX_NO) ||
						    match(c, i, to, LEX_NOANSWER)))) {
			clean_end = false;
			break;
		}
		if (i - a >= maxw)
			return false; /* too long for an answer: a sentence */
	}
	int b = i - 1;
	/* "Sunita. Sunita Devi.", "naam Sunita hai, Sunita Devi": the name said again, in
	 * full, after it ended */
	if (i < to && b >= a) {
		int r = i, j = 0;
		while (r < to && junk(c, r, to, &l))
			r += l;
		while (j <= b - a && r + j < to && strcmp(key_of(c, a + j), key_of(c, r + j)) == 0)
			j++;
		if (j > b - a)
			return read_name(c, r, to, person, carrier, nm);
	}
	if (!person) {
		while (b >= a && junk(c, b, b + 1, &l))
			b--;
	}
	if (carrier && person && !clean_end)
		return false; /* "main kal baat karungi": no name here */
	/* Without a carrier the whole answer must be the name: anything else said (besides
	 * junk, spelled letters and the name again) makes it a sentence, not a name answer. */
	if (!carrier) {
		for (int j = i; j < to;) {
			int s = spelled_at(t, j, to);
			if (s) {
				j += s;
				continue;
			}
			if (junk(c, j, to, &l)) {
				j += l;
				continue;
			}
			if (nm->place && (l = match(c, j, to, LEX_PLACE_AFTER))) {
				j += l;
				continue;
			}
			if (b >= a && repeats(c, j, a, b)) {
				j++;
				continue;
			}
			if (b < a && nm->splen && spelled_word(c, nm, j)) {
				a = b = j++; /* "S U M I T A, Sumita": the word the letters spell */
				continue;
			}
			return false;
		}
	}
	if (b >= a) {
		nm->a = a;
		nm->b = b;
	}
	return nm->a >= 0 || nm->splen > 0;
}

/* A person's name or other text answer in [from, to): after a carrier ("mera naam")
 * when one is said; else the whole answer, or its first clause ("Sunita Devi, main
 * pregnant hoon"); else after "main" / "I am". */
static bool read_text_answer(struct ctx *c, int from, int to, bool person, const char *whose,
			     struct name *nm)
{
	int cs = find_carrier(c, from, to, NULL);
	if (cs >= 0) {
		/* "beti ka naam Pari" answers the child's name, not the mother's asked now */
		if (whose && find_carrier(c, from, to, whose) < 0 &&
		    find_carrier(c, from, to, strcmp(whose, "child") == 0 ? "self" : "child") >= 0)
			return false;
		return read_name(c, cs, to, person, true, nm);
	}
	if (read_name(c, from, to, person, false, nm))
		return true;
	int end = from + 1;
	while (end < to && !c->t->tok[end].pause)
		end++;
	/* "Sunita Devi, main pregnant hoon": a first clause is the answer only when what
	 * follows it is short, not a long sentence after an abbreviation or a pause */
	if (end < to && content_words(c, end, to) <= BARE_ANSWER_WORDS &&
	    read_name(c, from, end, person, false, nm))
		return true;
	cs = find_carrier(c, from, to, "pronoun");
	return cs >= 0 && read_name(c, cs, to, person, true, nm);
}

static char *spelled_text(const struct text *t, int sp, int n)
{
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		char ch = t->tok[sp + i].key[0];
		s[i] = (char)(i == 0 && ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
	}
	s[n] = 0;
	return s;
}

/* A name's Latin words typed all in small letters get a capital, as names are written
 * ("sadar aspatal" -> "Sadar Aspatal"); words with a capital (PHC, McLeod) stay. */
static void capitalize(char *s)
{
	for (char *w = s; *w;) {
		size_t n = strcspn(w, " ");
		bool lower = n > 0;
		for (size_t i = 0; i < n && lower; i++)
			lower = w[i] >= 'a' && w[i] <= 'z';
		if (lower)
			w[0] = (char)(w[0] - 'a' + 'A');
		w += n;
		w += strspn(w, " ");
	}
}

/* The name as a JSON string: the caller's words (capitalize), or the spelled letters when
 * the words do not sound like them. */
static cJSON *name_value(struct ctx *c, const struct name *nm, enum err *e)
{
	char *s = NULL;
	if (nm->splen) {
		char *sp = spelled_text(c->t, nm->sp, nm->splen);
		if (!sp) {
			*e = ERR_NOMEM;
			return NULL;
		}
		char key[KEYLEN];
		namematch_key(sp, strlen(sp), key, sizeof(key));
		bool same = false;
		for (int i = nm->a; nm->a >= 0 && i <= nm->b; i++)
			if (strcmp(key_of(c, i), key) == 0)
				same = true;
		if (same)
			free(sp);
		else
			s = sp;
	}
	if (!s && nm->a >= 0 && (s = text_span(c->t, nm->a, nm->b)))
		capitalize(s);
	if (!s) {
		*e = ERR_NOMEM;
		return NULL;
	}
	cJSON *v = cJSON_CreateString(s);
	free(s);
	if (!v)
		*e = ERR_NOMEM;
	return v;
}

/* "zila" or "district" said just before token i */
static bool t_place_before(struct ctx *c, int i)
{
	for (int j = i - 1; j >= 0 && j >= i - 3; j--)
		if (lexicon_has(c->lex, c->t, j, LEX_PLACE_BEFORE) &&
		    lexicon_match(c->lex, c->t, j, i, LEX_PLACE_BEFORE, NULL) == i - j)
			return true;
	return false;
}

/* ---- options ---------------------------------------------------------------------- */

/* How well option o is said in [from, to), matched by phonetic keys word for word: the
 * last word may be cut short ("kamrup metro" = Kamrup Metropolitan), two words may make
 * one ("mayur bhanj"), and a leading part of the option's words is enough when no other
 * option begins the same way. need_cue: only with "se"/"zila" after it or "zila" before.
 * Returns the score (0 none); *mf, *mt the tokens of the best place. */
static int option_score(struct ctx *c, const struct form_question *q, int o, int from, int to,
			bool need_cue, int *mf, int *mt)
{
	const struct qinfo *qi = &c->info[q - c->req->form->questions];
	const char (*ok)[KEYLEN] = (const char (*)[KEYLEN])qi->opts[o].k;
	int on = qi->opts[o].n, best = 0;
	for (int i = from; i < to && on > 0; i++) {
		if (c->used[i])
			continue;
		int w = 0, j = i;
		while (w < on && j < to && !c->used[j]) {
			const char *k = key_of(c, j);
			size_t kl = strlen(k);
			if (strcmp(k, ok[w]) == 0 ||
			    (w > 0 && w == on - 1 && kl >= 4 && strncmp(k, ok[w], kl) == 0)) {
				w++;
				j++;
				continue;
			}
			/* "mayur bhanj" = Mayurbhanj */
			if (j + 1 < to && !c->used[j + 1] && kl > 0 && strncmp(k, ok[w], kl) == 0 &&
			    strcmp(key_of(c, j + 1), ok[w] + kl) == 0) {
				w++;
				j += 2;
				continue;
			}
			break;
		}
		if (w == 0 || (w < on && strlen(ok[0]) < 3))
			continue;
		if (w < on) {
			/* a part: only when no other option begins the same way */
			bool shared = false;
			for (int p = 0; p < q->n_options && !shared; p++)
				shared = p != o && qi->opts[p].n > 0 && strcmp(qi->opts[p].k[0], ok[0]) == 0;
			if (shared)
				continue;
		}
		if (need_cue && !match(c, j, to, LEX_PLACE_AFTER) && !(i > 0 && t_place_before(c, i)))
			continue;
		int score = w * 2 + (w == on);
		if (score > best) {
			best = score;
			*mf = i;
			*mt = j;
		}
	}
	return best;
}

/* The option said in [from, to): the best scoring, -1 when none or two tie (after a
 * correction, "Mayurbhanj, nahi nahi, Gaya", only what follows it counts). */
static int match_option(struct ctx *c, const struct form_question *q, int from, int to,
			bool need_cue, int *mf, int *mt)
{
	for (int i = to - 1; i > from; i--)
		if (match(c, i, to, LEX_NEG)) {
			int f2, t2;
			int after = i + match(c, i, to, LEX_NEG);
			for (int o = 0; o < q->n_options; o++)
				if (option_score(c, q, o, after, to, need_cue, &f2, &t2)) {
					from = after;
					break;
				}
			break;
		}
	int best = -1, best_score = 0, ties = 0;
	for (int o = 0; o < q->n_options; o++) {
		int f2, t2;
		int sc = option_score(c, q, o, from, to, need_cue, &f2, &t2);
		if (sc > best_score) {
			best_score = sc;
			best = o;
			ties = 0;
			*mf = f2;
			*mt = t2;
		} else if (sc && sc == best_score) {
			ties++;
		}
	}
	return ties ? -1 : best;
}

/* A word of the question's name or label ("pregnant" in "Are you pregnant?") said in
 * [from, to); distinct: only a word of its label found in no other question's label
 * (then the caller saying it speaks about this question). Returns its token, or -1. */
static int own_word_said(struct ctx *c, int qi, int from, int to, bool distinct)
{
	const struct qinfo *in = &c->info[qi];
	for (int w = 0; w < in->nwords; w++) {
		if (distinct && !in->distinct[w])
			continue;
		for (int i = from; i < to; i++)
			if (strcmp(c->t->tok[i].key, in->words[w]) == 0)
				return i;
	}
	return -1;
}

static void mark(struct ctx *c, int from, int to)
{
	for (int i = from; i >= 0 && i < to && i < c->t->n; i++)
		c->used[i] = true;
}

/* the words of a boolean label ("Has card") said in [from, to) */
static bool bool_label(struct ctx *c, const struct qinfo *in, int which, int from, int to)
{
	int n = in->nblabel[which];
	for (int i = from; n > 0 && i + n <= to; i++) {
		int w = 0;
		while (w < n && strcmp(c->t->tok[i + w].key, in->blabel[which][w]) == 0)
			w++;
		if (w == n)
			return true;
	}
	return false;
}

/* Narrows [*from, *to) to the words that can answer a text question that is not a
 * person's name (a clinic, a village): never another field's answer, never the sentence
 * said before it. Cut before a person's name carrier ("beti ka naam Pari", "mera naam"),
 * with the "aur" joining it; cut before a duration ("saat mahine"), which answers a
 * number question; and when a first clause is a statement ending in "hai"/"hain" ("aaj
 * bahut garmi hai, bachche school gaye hain Sadar aspatal"), keep what follows the last
 * such word when that is a short phrase. An empty region answers nothing. */
static void text_region(struct ctx *c, int *from, int *to)
{
	int a = *from, b = *to, l;
	for (int i = a; i < b; i++) {
		const struct lexicon_phrase *ph = NULL;
		bool carrier = lexicon_has(c->lex, c->t, i, LEX_NAME_BEFORE) &&
			       lexicon_match(c->lex, c->t, i, b, LEX_NAME_BEFORE, &ph) &&
			       (strcmp(ph->arg, "self") == 0 || strcmp(ph->arg, "child") == 0);
		bool number = c->t->tok[i].digits || match(c, i, b, LEX_NUM);
		int j = i;
		while (number && j < b && (c->t->tok[j].digits || match(c, j, b, LEX_NUM)))
			j++;
		if (carrier || (number && j > i && unit_after(c, j, b) > 0)) {
			b = i;
			while (b > a && (joiner(c, b - 1) || junk(c, b - 1, b, &l)))
				b--;
			break;
		}
	}
	/* the last statement word with a short phrase after it */
	int last = -1;
	for (int i = a; i < b; i++)
		if (match(c, i, b, LEX_COPULA) && !c->t->tok[i].digits)
			last = i;
	if (last > a && content_words(c, a, last) > 0) {
		int after = last + match(c, last, b, LEX_COPULA);
		int n = content_words(c, after, b);
		if (n > 0 && n <= 4 && !c->used[after])
			a = after;
	}
	*from = a;
	*to = b;
}

/* The value of question qi said in [from, to) when it was asked. */
static enum err read_asked(struct ctx *c, int qi, int from, int to, struct found *fd)
{
	const struct form_question *q = &c->req->form->questions[qi];
	unsigned hints = c->info[qi].hints;
	enum kind k = c->info[qi].kind;
	enum err e = ERR_OK;
	fd->value = NULL;
	fd->from = fd->to = -1;
	switch (k) {
	case K_PHONE:
	case K_DIGITS:
		fd->value = read_digits(c, q, k, from, to, &e);
		break;
	case K_NUMBER: {
		double v;
		int nf = -1, nt = -1;
		if (read_number(c, q, hints, from, to, false, &v, &nf, &nt) && !isnan(v)) {
			fd->value = cJSON_CreateNumber(v);
			fd->from = nf;
			fd->to = nt;
			if (!fd->value)
				e = ERR_NOMEM;
		}
		break;
	}
	case K_DATE: {
		bool found, valid;
		struct ymd d;
		int when = q->validation == VALID_DATE_TODAY_OR_PAST ? -1
			   : q->validation == VALID_DATE_FUTURE  ? 1 : 0;
		if (when == 0 && (hints & H_BIRTH))
			when = -1; /* a birth date is in the past even when the form does not say */
		parse_date_span(c->lex, c->t, from, to, c->req->today, when, &found, &valid, &d);
		if (found) {
			char buf[16];
			/* an impossible date goes on in the caller's words, so that the rule
			 * layer calls it invalid rather than storing a made-up day */
			fd->value = cJSON_CreateString(valid ? ymd_format(d, buf) : c->t->orig);
			if (!fd->value)
				e = ERR_NOMEM;
		}
		break;
	}
	case K_BOOL: {
		int b = -1;
		if (bool_label(c, &c->info[qi], 1, from, to))
			b = 1;
		else if (bool_label(c, &c->info[qi], 0, from, to))
			b = 0;
		else
			b = parse_yesno_span(c->lex, c->t, from, to, own_word_said(c, qi, from, to, false) >= 0);
		if (b >= 0 && !(fd->value = cJSON_CreateBool(b)))
			e = ERR_NOMEM;
		break;
	}
	case K_MULTI: {
		/* every option said, in the options' order */
		for (int p = 0; p < q->n_options; p++) {
			int f2, t2;
			if (!option_score(c, q, p, from, to, false, &f2, &t2))
				continue;
			if (!fd->value && !(fd->value = cJSON_CreateArray()))
				return ERR_NOMEM;
			cJSON *n = cJSON_CreateNumber(p);
			if (!n || !cJSON_AddItemToArray(fd->value, n)) {
				cJSON_Delete(n);
				return ERR_NOMEM;
			}
		}
		break;
	}
	case K_SELECT: {
		int mf, mt;
		/* in a long sentence an option counts only with a place word around it */
		bool need_cue = content_words(c, from, to) > BARE_ANSWER_WORDS;
		int o = match_option(c, q, from, to, need_cue, &mf, &mt);
		if (o >= 0) {
			if (!(fd->value = cJSON_CreateNumber(o)))
				return ERR_NOMEM;
			fd->from = mf;
			fd->to = mt;
			break;
		}
		/* a place not among the options: its words, for validation to refuse */
		struct name nm;
		if (read_text_answer(c, from, to, true, NULL, &nm) && nm.a >= 0) {
			nm.splen = 0;
			fd->value = name_value(c, &nm, &e);
			fd->from = nm.a;
			fd->to = nm.b + 1;
		}
		break;
	}
	case K_PERSON:
	case K_TEXT: {
		struct name nm;
		bool person = k == K_PERSON;
		if (!person)
			text_region(c, &from, &to);
		const char *whose = !person ? NULL : (hints & H_CHILD) ? "child" : "self";
		if (read_text_answer(c, from, to, person, whose, &nm) &&
		    !(person && nm.place && !nm.splen)) {
			fd->value = name_value(c, &nm, &e);
			fd->from = nm.a;
			fd->to = nm.b + 1;
		}
		break;
	}
	}
	return e;
}

static enum err add(struct extraction *ex, struct ctx *c, const char *field, struct found *fd)
{
	char *span = NULL;
	if (fd->from >= 0 && fd->to > fd->from) {
		span = text_span(c->t, fd->from, fd->to - 1);
		if (!span) {
			cJSON_Delete(fd->value);
			return ERR_NOMEM;
		}
	}
	enum err e = extraction_add(ex, field, fd->value, fd->skip, fd->reason,
				    span ? span : c->t->orig);
	free(span);
	fd->value = NULL;
	return e;
}

/* Other questions the words clearly answer (see the top of this file). */
static enum err read_others(struct ctx *c, struct extraction *ex)
{
	const struct form *f = c->req->form;
	enum err e = ERR_OK;
	unsigned said = hints_of_text(c->lex, c->t, 0, c->t->n);
	for (int qi = 0; qi < f->n_questions && e == ERR_OK; qi++) {
		if (qi == c->req->asked)
			continue;
		const struct form_question *q = &f->questions[qi];
		unsigned hints = c->info[qi].hints;
		enum kind k = c->info[qi].kind;
		struct found fd = {.from = -1, .to = -1};
		int n = c->t->n;
		switch (k) {
		case K_PERSON: {
			const char *whose = (hints & H_CHILD) ? "child" : "self";
			int cs = find_carrier(c, 0, n, whose);
			struct name nm;
			if (cs >= 0 && !c->used[cs - 1] && cs < n && !c->used[cs] &&
			    (strcmp(whose, "child") == 0 || !lexicon_has(c->lex, c->t, cs - 1, LEX_STOP)) &&
			    read_name(c, cs, n, true, true, &nm) && nm.a >= 0 && !nm.place) {
				nm.splen = 0;
				fd.value = name_value(c, &nm, &e);
				fd.from = nm.a;
				fd.to = nm.b + 1;
			}
			break;
		}
		case K_SELECT: {
			int mf, mt;
			int o = match_option(c, q, 0, n, true, &mf, &mt);
			if (o >= 0) {
				fd.value = cJSON_CreateNumber(o);
				fd.from = mf;
				fd.to = mt;
			}
			break;
		}
		case K_NUMBER: {
			double v;
			int nf, nt;
			/* not a child's age ("beti 2 mahine ki hai") */
			if ((hints & (H_MONTHS | H_WEEKS)) && !(said & H_CHILD) && !(hints & H_CHILD) &&
			    read_number(c, q, hints, 0, n, true, &v, &nf, &nt) && !isnan(v) &&
			    !(nt < n && (match(c, nt, n, LEX_AGO) || match(c, nt, n, LEX_LATER)))) {
				fd.value = cJSON_CreateNumber(v);
				fd.from = nf;
				fd.to = nt;
			}
			break;
		}
		case K_BOOL: {
			int at = own_word_said(c, qi, 0, n, true);
			if (at < 0 || c->used[at])
				break;
			int a = at, b = at + 1;
			while (a > 0 && !c->t->tok[a].pause)
				a--;
			while (b < n && !c->t->tok[b].pause)
				b++;
			int v = parse_yesno_span(c->lex, c->t, a, b, true);
			if (v >= 0) {
				fd.value = cJSON_CreateBool(v);
				fd.from = a;
				fd.to = b;
			}
			break;
		}
		case K_PHONE:
		case K_DIGITS: {
			unsigned own = hints & ~(H_PHONE | H_NAME);
			if (!(own & said))
				break;
			char *d = NULL;
			e = parse_digits_span(c->lex, c->t, 0, n, q->digits, &d);
			if (d && (int)strlen(d) == q->digits)
				fd.value = cJSON_CreateString(d);
			free(d);
			break;
		}
		default:
			break;
		}
		if (e != ERR_OK) {
			cJSON_Delete(fd.value);
			return e;
		}
		if (fd.value) {
			mark(c, fd.from, fd.to);
			e = add(ex, c, q->name, &fd);
		}
	}
	return e;
}

/* Whether the digits said belong to another digit question than the asked one qi: its
 * distinctive word (aadhaar, whatsapp) is said and is not the asked question's own. */
static bool digits_named_elsewhere(struct ctx *c, int qi)
{
	enum kind k = c->info[qi].kind;
	if (k != K_PHONE && k != K_DIGITS)
		return false;
	unsigned said = hints_of_text(c->lex, c->t, 0, c->t->n);
	unsigned mine = c->info[qi].hints & ~(H_PHONE | H_NAME);
	for (int o = 0; o < c->req->form->n_questions; o++) {
		unsigned own = c->info[o].hints & ~(H_PHONE | H_NAME);
		if (o != qi && (c->info[o].kind == K_PHONE || c->info[o].kind == K_DIGITS) &&
		    (own & said & ~mine))
			return true;
	}
	return false;
}

enum err extract_rules_new(struct extract_rules **out)
{
	struct extract_rules *x = calloc(1, sizeof(*x));
	if (!x)
		return ERR_NOMEM;
	*out = x;
	return ERR_OK;
}

void extract_rules_free(struct extract_rules *x)
{
	if (!x)
		return;
	cache_clear(&x->cache);
	free(x);
}

enum err extract_rules_extract(void *vctx, const struct extract_request *req, struct extraction **out)
{
	enum err e = ERR_NOMEM;
	struct extraction *ex = extraction_new();
	struct ctx c = {.req = req, .lex = req->lex};
	struct extract_rules *x = vctx;
	struct formcache once = {0}; /* no ctx: the form is analysed for this call alone */
	struct formcache *cache = x ? &x->cache : &once;
	if (!ex)
		goto out;
	if (!req->lex || !req->form) {
		/* without word lists nothing can be understood: an empty turn */
		*out = ex;
		return ERR_OK;
	}
	if (form_info(cache, c.lex, req->form, &c.info) != ERR_OK || text_new(req->transcript, &c.t) != ERR_OK)
		goto out;
	lexicon_tag_text(c.lex, c.t);
	c.used = calloc((size_t)c.t->n + 1, sizeof(bool));
	c.keys = malloc(((size_t)c.t->n + 1) * sizeof(*c.keys));
	if (!c.used || !c.keys)
		goto out;
	e = ERR_OK;
	if (req->asked >= 0 && req->asked < req->form->n_questions) {
		const struct form_question *q = &req->form->questions[req->asked];
		struct found fd = {.from = -1, .to = -1};
		int ss = 0, se = 0;
		const char *reason = find_skip(&c, req->asked, &ss, &se);
		/* a value said after "pata nahi" still counts; else the skip does */
		if (!digits_named_elsewhere(&c, req->asked))
			e = read_asked(&c, req->asked, reason ? se : 0, c.t->n, &fd);
		/* "pata nahi, test nahi karaya": a yes or no inside the sentence after a
		 * don't-know gives its reason; only a bare "haan" / "nahi" answers */
		if (e == ERR_OK && fd.value && reason && c.info[req->asked].kind == K_BOOL &&
		    content_words(&c, se, c.t->n) > 0) {
			cJSON_Delete(fd.value);
			fd.value = NULL;
		}
		if (e == ERR_OK && !fd.value && reason) {
			fd.skip = true;
			fd.reason = reason;
			fd.from = ss;
			fd.to = se;
		}
		if (e == ERR_OK && (fd.value || fd.skip)) {
			mark(&c, fd.from, fd.to);
			if (reason)
				mark(&c, ss, se);
			e = add(ex, &c, q->name, &fd);
		}
		cJSON_Delete(fd.value);
	}
	if (e == ERR_OK)
		e = read_others(&c, ex);
	if (e == ERR_OK && ex->n > 0)
		e = extraction_set_text(&ex->ack, "जी");
	if (e != ERR_OK)
		goto out;
	*out = ex;
	ex = NULL;
out:
	extraction_free(ex);
	text_free(c.t);
	free(c.used);
	free(c.keys);
	cache_clear(&once);
	return e;
}

static enum err rules_call(void *ctx, const void *req, void *out)
{
	return extract_rules_extract(ctx, req, out);
}

static void rules_free(void *ctx)
{
	extract_rules_free(ctx);
}

const struct backend_ops extract_rules_ops = {
	.stage = BACKEND_EXTRACT,
	.call = rules_call,
	.free = rules_free,
};
