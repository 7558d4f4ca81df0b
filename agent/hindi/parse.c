#include "parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexicon.h"
#include "base/numconv.h"
#include "text.h"

#define MAXNUMS 64
#define MAXDIGITS 256

static int match(const struct lexicon *lex, const struct text *t, int i, int to,
		 enum lexicon_tag tag, double *value)
{
	const struct lexicon_phrase *ph = NULL;
	int k = lexicon_match(lex, t, i, to, tag, &ph);
	if (k && value)
		*value = ph->value;
	return k;
}

/* ---- numbers ---------------------------------------------------------------------- */

/* A one-word number (or an ASCII digit run) at i: its value, tokens taken (0 when none),
 * and whether it is an English tens word. */
static int small_at(const struct lexicon *lex, const struct text *t, int i, int to, double *v,
		    bool *tens)
{
	*tens = false;
	if (i >= to)
		return 0;
	if (t->tok[i].digits) {
		if (t->tok[i].key_len > 15)
			return 0;
		*v = strtod(t->tok[i].key, NULL);
		/* 5.5 said with a point between digit runs */
		if (i + 1 < to && t->tok[i + 1].sep == '.' && t->tok[i + 1].digits &&
		    t->tok[i + 1].key_len <= 6) {
			char buf[32];
			snprintf(buf, sizeof(buf), "%s.%s", t->tok[i].key, t->tok[i + 1].key);
			*v = strtod(buf, NULL);
			return 2;
		}
		return 1;
	}
	int k = match(lex, t, i, to, LEX_TENS, v);
	if (k) {
		*tens = true;
		return k;
	}
	return match(lex, t, i, to, LEX_NUM, v);
}

/* Whether a count noun ("digit", "ank", "number") follows the number ending at i, so that
 * number counts digits. Counts of digits are small: "98765 number" is not one. */
static bool counted_value(const struct lexicon *lex, const struct text *t, int i, int to, double v)
{
	return v <= 16 && i < to && lexicon_has(lex, t, i, LEX_COUNTNOUN) &&
	       match(lex, t, i, to, LEX_COUNTNOUN, NULL);
}

/* One compound number starting at i ("do hazaar teen sau chaubees", "saadhe paanch",
 * "ninety eight", "2 lakh"). Returns tokens taken, 0 when none starts there. */
static int number_at(const struct lexicon *lex, const struct text *t, int i, int to, double *out)
{
	double total = 0, cur = 0, plus = 0, v, m;
	bool have = false, last_tens = false, after_mult = false, tens;
	int j = i;
	while (j < to) {
		/* "two thousand and twenty two", "do hazaar aur baais": the rest after the
		 * multiplier, when it will be taken below */
		int k = have && after_mult ? match(lex, t, j, to, LEX_AND, NULL) : 0;
		if (k && small_at(lex, t, j + k, to, &m, &tens) && m < 100 &&
		    (t->tok[j + k].digits ? cur == 0 : cur == 0 || fmod(cur, 100) == 0)) {
			j += k;
			continue;
		}
		k = match(lex, t, j, to, LEX_PLUS, &v);
		if (k && !have && (small_at(lex, t, j + k, to, &m, &tens) ||
				   match(lex, t, j + k, to, LEX_MULT, NULL))) {
			plus += v;
			j += k;
			continue;
		}
		k = small_at(lex, t, j, to, &v, &tens);
		if (k) {
			if (!have) {
				cur = v + plus;
				plus = 0;
			} else if (last_tens && v > 0 && v < 10 && v == floor(v) && fmod(cur, 10) == 0) {
				cur += v;
			} else if (after_mult && v < 100 && (cur == 0 || fmod(cur, 100) == 0) &&
				   !t->tok[j].digits) {
				cur += v;
			} else if (after_mult && t->tok[j].digits && v < 100 && cur == 0) {
				cur = v;
			} else {
				break;
			}
			have = true;
			last_tens = tens;
			after_mult = false;
			j += k;
			continue;
		}
		k = match(lex, t, j, to, LEX_MULT, &m);
		if (k) {
			if (!have)
				cur = 1 + plus;
			if (m == 100) {
				if (cur >= 100)
					break;
				cur = (cur ? cur : 1) * m;
			} else {
				total += (cur ? cur : 1) * m;
				cur = 0;
			}
			have = true;
			after_mult = true;
			last_tens = false;
			j += k;
			continue;
		}
		k = match(lex, t, j, to, LEX_POINT, NULL);
		if (k && have) {
			/* "five point five", "paanch point do five": digits after the point */
			double scale = 0.1, frac = 0;
			int d = j + k;
			while (d < to) {
				if (t->tok[d].digits && t->tok[d].key_len <= 6) {
					for (size_t x = 0; x < t->tok[d].key_len; x++, scale /= 10)
						frac += (t->tok[d].key[x] - '0') * scale;
					d++;
					continue;
				}
				int kd = small_at(lex, t, d, to, &v, &tens);
				if (!kd || tens || v != floor(v) || v < 0 || v > 9)
					break;
				frac += v * scale;
				scale /= 10;
				d += kd;
			}
			if (d > j + k) {
				cur += frac;
				j = d;
			}
			break;
		}
		break;
	}
	if (!have)
		return 0;
	*out = total + cur;
	return j - i;
}

int parse_numbers_span(const struct lexicon *lex, const struct text *t, int from, int to,
		       struct parse_num *out, int max)
{
	int n = 0;
	bool neg = false;
	for (int i = from; i < to && n < max;) {
		int k = match(lex, t, i, to, LEX_FILLER, NULL);
		if (k) {
			i += k;
			continue;
		}
		double v, o;
		/* "twenty first", "thirty first": a tens word and an ordinal */
		k = match(lex, t, i, to, LEX_TENS, &v);
		int ko = k ? match(lex, t, i + k, to, LEX_ORDINAL, &o) : 0;
		if (ko && o >= 1 && o <= 9) {
			out[n++] = (struct parse_num){v + o, i, i + k + ko, neg, true};
			neg = false;
			i += k + ko;
			continue;
		}
		k = match(lex, t, i, to, LEX_ORDINAL, &v);
		if (k) {
			out[n++] = (struct parse_num){v, i, i + k, neg, true};
			neg = false;
			i += k;
			continue;
		}
		k = number_at(lex, t, i, to, &v);
		if (k) {
			if (!counted_value(lex, t, i + k, to, v)) {
				out[n++] = (struct parse_num){v, i, i + k, neg, false};
				neg = false;
			}
			i += k;
			continue;
		}
		k = match(lex, t, i, to, LEX_NEG, NULL);
		if (k) {
			if (n > 0)
				neg = true;
			i += k;
			continue;
		}
		i++;
	}
	return n;
}

/* tagged: text split into words and tagged by the word lists, for the whole-text parsers
 * below (caller frees *t with text_free). Errors: ERR_NOMEM. */
static enum err tagged(const struct lexicon *lex, const char *text, struct text **t)
{
	if (text_new(text, t) != ERR_OK)
		return ERR_NOMEM;
	lexicon_tag_text(lex, *t);
	return ERR_OK;
}

enum err parse_number(const struct lexicon *lex, const char *text, bool *found, double *value)
{
	struct text *t = NULL;
	struct parse_num nums[MAXNUMS];
	*found = false;
	if (!lex)
		return ERR_OK;
	if (tagged(lex, text, &t) != ERR_OK)
		return ERR_NOMEM;
	int n = parse_numbers_span(lex, t, 0, t->n, nums, MAXNUMS);
	if (n > 0) {
		/* of several numbers, the last said wins (a correction comes last) */
		*found = true;
		*value = nums[n - 1].value;
	}
	text_free(t);
	return ERR_OK;
}

/* ---- digits ----------------------------------------------------------------------- */

struct digbuf {
	char s[MAXDIGITS];
	int n;
};

static void put(struct digbuf *b, const char *d, int times)
{
	size_t l = strlen(d);
	for (int r = 0; r < times; r++)
		for (size_t i = 0; i < l && b->n < MAXDIGITS - 1; i++)
			b->s[b->n++] = d[i];
}

/* One group of digits said at i: an ASCII run, a number word, "ninety eight", "do
 * hazaar"; after_digit: a digit was said just before, so "oh" is a zero. Writes its
 * digits into d (64 bytes). Returns tokens taken, 0 when none. */
static int digit_group(const struct lexicon *lex, const struct text *t, int i, int to,
		       bool after_digit, char *d)
{
	if (i >= to)
		return 0;
	if (t->tok[i].digits) {
		snprintf(d, 64, "%.63s", t->tok[i].key);
		return 1;
	}
	double v;
	bool tens;
	int k = small_at(lex, t, i, to, &v, &tens);
	if (!k && after_digit && (k = match(lex, t, i, to, LEX_DIGITWORD, &v))) {
		snprintf(d, 64, "%.0f", v);
		return k;
	}
	if (!k || v != floor(v) || v < 0)
		return 0;
	double sum;
	int kc = number_at(lex, t, i, to, &sum);
	/* a compound with a multiplier ("do hazaar chaubees") is one number; otherwise
	 * each word is its own group ("nau aath" is 9 then 8, not one value) */
	bool has_mult = false;
	for (int j = i; j < i + kc; j++)
		if (lexicon_has(lex, t, j, LEX_MULT))
			has_mult = true;
	if (has_mult && sum == floor(sum)) {
		snprintf(d, 64, "%.0f", sum);
		return kc;
	}
	if (tens && i + k < to) {
		double u;
		bool t2;
		int k2 = small_at(lex, t, i + k, to, &u, &t2);
		if (k2 && !t2 && !t->tok[i + k].digits && u > 0 && u < 10 && u == floor(u)) {
			snprintf(d, 64, "%.0f", v + u);
			return k + k2;
		}
	}
	snprintf(d, 64, "%.0f", v);
	return k;
}

enum err parse_digits_span(const struct lexicon *lex, const struct text *t, int from, int to,
			   int expect, char **out)
{
	struct digbuf b = {.n = 0};
	bool restart = false, after_digit = false;
	char d[64];
	*out = NULL;
	for (int i = from; i < to;) {
		int k = match(lex, t, i, to, LEX_FILLER, NULL);
		if (k) {
			i += k;
			continue;
		}
		double rep;
		k = match(lex, t, i, to, LEX_REPEAT, &rep);
		if (k) {
			int g = digit_group(lex, t, i + k, to, true, d);
			if (g && !counted_value(lex, t, i + k + g, to, strtod(d, NULL))) {
				if (restart)
					b.n = 0;
				restart = false;
				put(&b, d, rep >= 1 && rep <= 9 ? (int)rep : 1);
				after_digit = true;
				i += k + g;
				continue;
			}
			i += k;
			continue;
		}
		/* "last four 4567": a number word after "last" with digits after it counts them */
		if (!t->tok[i].digits && i > from && lexicon_has(lex, t, i - 1, LEX_COUNTLEAD) &&
		    (k = digit_group(lex, t, i, to, false, d)) && strtod(d, NULL) <= 16 &&
		    digit_group(lex, t, i + k, to, true, d)) {
			after_digit = false;
			i += k;
			continue;
		}
		k = digit_group(lex, t, i, to, after_digit, d);
		if (k) {
			after_digit = !counted_value(lex, t, i + k, to, strtod(d, NULL));
			if (after_digit) {
				if (restart)
					b.n = 0;
				restart = false;
				put(&b, d, 1);
			} else {
				k++; /* "chaar digit": drop the count and its noun */
			}
			i += k;
			continue;
		}
		after_digit = false;
		k = match(lex, t, i, to, LEX_NEG, NULL);
		if (k) {
			/* "nau aath... nahi nahi, nau saat": what follows replaces what came */
			if (b.n > 0)
				restart = true;
			i += k;
			continue;
		}
		i++;
	}
	if (b.n == 0)
		return ERR_OK;
	b.s[b.n] = 0;
	const char *s = b.s;
	/* two complete numbers said one after the other: the last wins */
	if (expect > 0 && b.n >= 2 * expect && b.n % expect == 0)
		s = b.s + b.n - expect;
	*out = strdup(s);
	return *out ? ERR_OK : ERR_NOMEM;
}

enum err parse_digits(const struct lexicon *lex, const char *text, char **out)
{
	struct text *t = NULL;
	*out = NULL;
	if (!lex)
		return ERR_OK;
	if (tagged(lex, text, &t) != ERR_OK)
		return ERR_NOMEM;
	enum err e = parse_digits_span(lex, t, 0, t->n, 0, out);
	text_free(t);
	return e;
}

/* ---- yes / no --------------------------------------------------------------------- */

int parse_yesno_span(const struct lexicon *lex, const struct text *t, int from, int to,
		     bool copula_yes)
{
	/* at each word the longest phrase wins; on a tie, the earlier tag here */
	static const enum lexicon_tag order[] = {
		LEX_DONT_KNOW, LEX_DECLINED, LEX_NONE, LEX_NEUTRAL, LEX_NOANSWER, LEX_NO,
		LEX_YES, LEX_WEAKYES, LEX_COPULA, LEX_FILLER, LEX_HONORIFIC,
	};
	int last = -1, other = 0;
	bool noanswer = false, weak = false, copula = false, no_seen = false;
	for (int i = from; i < to;) {
		int best = 0;
		enum lexicon_tag bt = LEX_NTAGS;
		for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
			if (!lexicon_has(lex, t, i, order[o]))
				continue;
			int k = lexicon_match(lex, t, i, to, order[o], NULL);
			if (k > best) {
				best = k;
				bt = order[o];
			}
		}
		if (!best) {
			other++;
			i++;
			continue;
		}
		/* "haan na", "yes na": the na after a yes asks for agreement; "haan ji, hmm":
		 * a filler after a yes is no "not answering" */
		if (last == 1 && ((bt == LEX_NO && lexicon_has(lex, t, i, LEX_YESTAG) &&
				   lexicon_match(lex, t, i, to, LEX_YESTAG, NULL) == best) ||
				  (bt == LEX_NOANSWER && lexicon_has(lex, t, i, LEX_FILLER) &&
				   lexicon_match(lex, t, i, to, LEX_FILLER, NULL) == best))) {
			i += best;
			continue;
		}
		switch (bt) {
		case LEX_YES: last = 1; break;
		case LEX_NO: last = 0; no_seen = true; break;
		case LEX_NOANSWER: noanswer = true; break;
		case LEX_WEAKYES: weak = true; break;
		case LEX_COPULA: copula = true; break;
		default: break;
		}
		i += best;
	}
	if (noanswer && !no_seen)
		return -1;
	if (last >= 0)
		return last;
	if (weak && other == 0)
		return 1;
	if (copula && copula_yes)
		return 1;
	return -1;
}

int parse_yesno(const struct lexicon *lex, const char *text)
{
	struct text *t = NULL;
	if (!lex || tagged(lex, text, &t) != ERR_OK)
		return -1;
	int r = parse_yesno_span(lex, t, 0, t->n, false);
	text_free(t);
	return r;
}

/* ---- dates ------------------------------------------------------------------------ */

static bool has_tag(const struct lexicon *lex, const struct text *t, int from, int to,
		    enum lexicon_tag tag, int *at, double *value)
{
	for (int i = from; i < to; i++)
		if (lexicon_has(lex, t, i, tag) && match(lex, t, i, to, tag, value)) {
			if (at)
				*at = i;
			return true;
		}
	return false;
}

static int two_digit_year(int yy, struct ymd today, bool past_only)
{
	int y = 2000 + yy;
	if (past_only ? y > today.y : y > today.y + 30)
		y -= 100;
	return y;
}

/* months added to a date, the day kept when it exists, else the month's last day */
static struct ymd add_months(struct ymd d, int n)
{
	int m = d.y * 12 + (d.m - 1) + n;
	struct ymd r = {m / 12, m % 12 + 1, d.d};
	int dim = ymd_days_in_month(r.y, r.m);
	if (r.d > dim)
		r.d = dim;
	return r;
}

/* Resolve day and month without a year. */
static void resolve_year(int d, int m, struct ymd today, bool past_only, bool future,
			 bool *valid, struct ymd *out)
{
	if (m < 1 || m > 12 || d < 1 || d > 31 || d > ymd_days_in_month(2024, m)) {
		*valid = false; /* 31 February, 31 April: no year has it */
		return;
	}
	struct ymd c = {today.y, m, d};
	if (future) {
		while (!ymd_valid(c) || ymd_cmp(c, today) < 0)
			c.y++;
	} else if (past_only) {
		while (!ymd_valid(c) || ymd_cmp(c, today) > 0)
			c.y--;
	} else {
		while (!ymd_valid(c))
			c.y--;
	}
	*valid = true;
	*out = c;
}

/* An event is named before token i ("holi ke", "eid se"): not today ("aaj se"). */
static bool event_before(const struct lexicon *lex, const struct text *t, int from, int to, int i)
{
	double side = 0;
	return i - 2 >= from && match(lex, t, i - 1, to, LEX_ANCHOR, &side) == 1 && side < 0 &&
	       !lexicon_has(lex, t, i - 2, LEX_TODAY) && !lexicon_has(lex, t, i - 2, LEX_DAYREL) &&
	       !lexicon_has(lex, t, i - 2, LEX_DAYOFF);
}

/* A duration that starts at token nf and whose ago / later word ends at token a is
 * counted from an event named beside it ("holi ke do din baad", "two days before
 * diwali"), not from today ("aaj se do din pehle" is). */
static bool anchored(const struct lexicon *lex, const struct text *t, int from, int to, int nf,
		     int a)
{
	double side = 0;
	if (event_before(lex, t, from, to, nf))
		return true;
	int k = a - 1;
	while (k > nf && !match(lex, t, k, to, LEX_ANCHOR, &side))
		k--;
	return k > nf && side > 0 && a < to && !lexicon_has(lex, t, a, LEX_TODAY) &&
	       !lexicon_has(lex, t, a, LEX_FILLER);
}

/* nums[k] begins a year: a number from 1000 to 2200, or 19 / 20 said right before a
 * number under 100 ("twenty twenty three") */
static bool year_starts(const struct text *t, const struct parse_num *nums, int n, int k)
{
	double v = nums[k].value;
	if (v >= 1000 && v <= 2200 && v == floor(v))
		return true;
	return (v == 19 || v == 20) && k + 1 < n && nums[k + 1].from == nums[k].to &&
	       !t->tok[nums[k + 1].from].pause && nums[k + 1].value < 100 && !nums[k + 1].ordinal;
}

/* tokens between a and b (exclusive) are few and hold no number */
static bool near(const struct parse_num *nums, int n, int a, int b)
{
	if (b < a)
		return false;
	if (b - a > 2)
		return false;
	for (int i = 0; i < n; i++)
		if (nums[i].from >= a && nums[i].from < b)
			return false;
	return true;
}

void parse_date_span(const struct lexicon *lex, const struct text *t, int from, int to,
		     struct ymd today, int when, bool *found, bool *valid, struct ymd *out)
{
	*found = *valid = false;
	bool past_only = when < 0;
	bool future = when > 0 || has_tag(lex, t, from, to, LEX_FUTURE, NULL, NULL);

	/* 15/08/2024, 15-8-24, 2024-08-15: day first unless the year leads */
	for (int i = from; i + 1 < to; i++) {
		const struct text_token *a = &t->tok[i], *b = &t->tok[i + 1];
		if (!a->digits || !b->digits || !b->sep || a->key_len > 4 || b->key_len > 2)
			continue;
		int x = atoi(a->key), y = atoi(b->key);
		bool third = i + 2 < to && t->tok[i + 2].digits && t->tok[i + 2].sep == b->sep &&
			     t->tok[i + 2].key_len <= 4;
		*found = true;
		if (a->key_len == 4) {
			if (!third)
				continue;
			struct ymd d = {x, y, atoi(t->tok[i + 2].key)};
			*valid = ymd_valid(d);
			if (*valid)
				*out = d;
			return;
		}
		if (third) {
			const struct text_token *c = &t->tok[i + 2];
			int z = atoi(c->key);
			struct ymd d = {c->key_len <= 2 ? two_digit_year(z, today, past_only) : z, y, x};
			*valid = c->key_len != 3 && ymd_valid(d);
			if (*valid)
				*out = d;
			return;
		}
		if (b->sep == '.')
			continue; /* 5.5 is a number, not a date */
		resolve_year(x, y, today, past_only, future, valid, out);
		return;
	}

	struct parse_num nums[MAXNUMS];
	int n = parse_numbers_span(lex, t, from, to, nums, MAXNUMS);
	bool used[MAXNUMS] = {false};
	int mi = -1, dm = -1;
	double month = 0, unit = 0, rel = 0;
	has_tag(lex, t, from, to, LEX_MONTH, &mi, &month);
	has_tag(lex, t, from, to, LEX_DAYMARK, &dm, NULL);

	/* "do mahine pehle", "teen din baad" */
	bool from_event = false;
	for (int k = 0; k < n; k++) {
		int u = nums[k].to;
		if (u < to && match(lex, t, u, to, LEX_UNIT, &unit) && !nums[k].ordinal) {
			int a = u + match(lex, t, u, to, LEX_UNIT, NULL);
			int sign = 0, w = 0;
			if (a < to && (w = match(lex, t, a, to, LEX_AGO, NULL)))
				sign = -1;
			else if (a < to && (w = match(lex, t, a, to, LEX_LATER, NULL)))
				sign = 1;
			if (!sign || nums[k].value != floor(nums[k].value) || nums[k].value > 1000)
				continue;
			if (anchored(lex, t, from, to, nums[k].from, a + w)) {
				from_event = true; /* "holi ke ek hafte baad": no date we can know */
				continue;
			}
			int q = (int)nums[k].value * sign;
			struct ymd r = today;
			if (unit == 30)
				r = add_months(today, q);
			else if (unit == 365)
				r = add_months(today, 12 * q);
			else
				r = ymd_add_days(today, q * (int)unit);
			*found = *valid = true;
			*out = r;
			return;
		}
	}

	/* pichle / agle / is mahine, saal */
	int month_shift = 0, year_shift = 0;
	bool rel_month = false, rel_year = false, vague = false;
	for (int i = from; i < to; i++) {
		int sh;
		int k;
		if ((k = match(lex, t, i, to, LEX_PREV, NULL)))
			sh = -1;
		else if ((k = match(lex, t, i, to, LEX_NEXT, NULL)))
			sh = 1;
		else if ((k = match(lex, t, i, to, LEX_THIS, NULL)))
			sh = 0;
		else
			continue;
		if (event_before(lex, t, from, to, i)) {
			from_event = true; /* "eid ke agle din": the day after an event */
			continue;
		}
		if (i + k < to && match(lex, t, i + k, to, LEX_UNIT, &unit)) {
			if (unit == 7 || unit == 1) {
				vague = true; /* "pichle hafte": said, but no day */
			} else if (unit == 30) {
				month_shift = sh;
				rel_month = true;
			} else if (unit == 365) {
				year_shift = sh;
				rel_year = true;
			}
			if (sh > 0)
				future = true;
		}
	}

	int day = -1, year = -1;
	/* the day: beside "tarikh", else an ordinal or number beside the month name */
	for (int k = 0; k < n && day < 0 && dm >= 0; k++)
		if ((near(nums, n, nums[k].to, dm) || near(nums, n, dm + 1, nums[k].from)) &&
		    !year_starts(t, nums, n, k) && !(k > 0 && year_starts(t, nums, n, k - 1))) {
			/* a day out of int's range (a long digit run) is no day: 99 fails the check */
			if (!numconv_int(nums[k].value, 0, 99, &day) || nums[k].value != day)
				day = 99;
			used[k] = true;
		}
	for (int k = 0; k < n && day < 0 && mi >= 0; k++)
		if (near(nums, n, nums[k].to, mi) && nums[k].value < 100 &&
		    !(k > 0 && year_starts(t, nums, n, k - 1) && nums[k - 1].value < 100)) {
			day = nums[k].value == floor(nums[k].value) ? (int)nums[k].value : 99;
			used[k] = true;
		}
	for (int k = 0; k < n && day < 0 && mi >= 0; k++)
		if (near(nums, n, mi + 1, nums[k].from) && nums[k].value >= 1 && nums[k].value <= 31 &&
		    nums[k].value == floor(nums[k].value) &&
		    !(k + 1 < n && nums[k + 1].from == nums[k].to && !t->tok[nums[k].to].pause &&
		      !year_starts(t, nums, n, k + 1))) {
			day = (int)nums[k].value;
			used[k] = true;
		}
	/* the year: a number from 1000 on, "twenty twenty four", or two digits after the month */
	for (int k = 0; k < n && year < 0; k++) {
		if (used[k] || nums[k].ordinal)
			continue;
		double v = nums[k].value;
		if (v >= 1000 && v <= 2200 && v == floor(v)) {
			year = (int)v;
			used[k] = true;
		} else if (k + 1 < n && !used[k + 1] && nums[k + 1].from == nums[k].to && (v == 19 || v == 20) &&
			   nums[k + 1].value < 100 && nums[k + 1].value == floor(nums[k + 1].value)) {
			year = (int)(v * 100 + nums[k + 1].value);
			used[k] = used[k + 1] = true;
		} else if ((mi >= 0 && nums[k].from > mi) && day > 0 && v < 100 && v == floor(v) &&
			   t->tok[nums[k].from].digits && t->tok[nums[k].from].key_len == 2) {
			year = two_digit_year((int)v, today, past_only);
			used[k] = true;
		}
	}

	if (day < 0 && mi < 0 && !rel_month) {
		/* a day said relative to today */
		double dv;
		int at;
		if (has_tag(lex, t, from, to, LEX_TODAY, NULL, NULL)) {
			*found = *valid = true;
			*out = today;
			return;
		}
		if (has_tag(lex, t, from, to, LEX_DAYOFF, NULL, &dv)) {
			*found = *valid = true;
			*out = ymd_add_days(today, (int)dv);
			return;
		}
		if (has_tag(lex, t, from, to, LEX_DAYREL, &at, &rel)) {
			*found = *valid = true;
			*out = ymd_add_days(today, future ? (int)rel : -(int)rel);
			return;
		}
		if ((rel_year || year > 0 || vague) && !from_event)
			*found = true; /* a year alone is not a date: said, but incomplete */
		return;
	}
	*found = true;
	if (day < 0)
		return; /* a month without a day */
	if (rel_month) {
		struct ymd base = add_months((struct ymd){today.y, today.m, 1}, month_shift);
		struct ymd d = {base.y, base.m, day};
		*valid = ymd_valid(d);
		if (*valid)
			*out = d;
		return;
	}
	int m = mi >= 0 ? (int)month : today.m;
	if (year > 0 || rel_year) {
		struct ymd d = {year > 0 ? year : today.y + year_shift, m, day};
		*valid = ymd_valid(d);
		if (*valid)
			*out = d;
		return;
	}
	if (mi < 0) {
		/* "bees tarikh": this month, or the last (next) one it has passed */
		if (day < 1 || day > 31)
			return;
		struct ymd c = {today.y, today.m, day};
		for (int tries = 0; tries < 24; tries++) {
			if (ymd_valid(c) && (future ? ymd_cmp(c, today) >= 0
						    : !past_only || ymd_cmp(c, today) <= 0)) {
				*valid = true;
				*out = c;
				return;
			}
			c = add_months((struct ymd){c.y, c.m, 1}, future ? 1 : -1);
			c.d = day;
		}
		return;
	}
	resolve_year(day, m, today, past_only, future, valid, out);
}

enum err parse_date(const struct lexicon *lex, const char *text, struct ymd today, bool past_only,
		    bool *found, bool *valid, struct ymd *out)
{
	struct text *t = NULL;
	*found = *valid = false;
	if (!lex)
		return ERR_OK;
	if (tagged(lex, text, &t) != ERR_OK)
		return ERR_NOMEM;
	parse_date_span(lex, t, 0, t->n, today, past_only ? -1 : 0, found, valid, out);
	text_free(t);
	return ERR_OK;
}
