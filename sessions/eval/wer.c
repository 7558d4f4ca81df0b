/* wer: error rates after Indic normalization, alignment and LLM-WER (rules in wer.h). */
#include "wer.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/sbuf.h"

static bool buf_cp(struct sbuf *b, utf8proc_int32_t cp)
{
	utf8proc_uint8_t tmp[4];
	utf8proc_ssize_t n = utf8proc_encode_char(cp, tmp);
	return sbuf_add(b, (const char *)tmp, (size_t)n);
}

/* The code point that stands for cp after steps 2-5, 0 to delete it, ' ' for a space. */
static utf8proc_int32_t fold(utf8proc_int32_t cp)
{
	switch (cp) {
	case 0x093C: return 0;      /* nukta */
	case 0x0929: return 0x0928; /* ऩ -> न */
	case 0x0931: return 0x0930; /* ऱ -> र */
	case 0x0934: return 0x0933; /* ऴ -> ळ */
	case 0x0901: return 0x0902; /* chandrabindu -> anusvara */
	case 0x0027: case 0x2019: return 0; /* apostrophes join their word */
	}
	if (cp >= 0x0966 && cp <= 0x096F)
		return '0' + (cp - 0x0966);
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_CF:
		return 0;
	case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS:
	case UTF8PROC_CATEGORY_PE: case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF:
	case UTF8PROC_CATEGORY_PO:
	case UTF8PROC_CATEGORY_ZS: case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP:
		return ' ';
	case UTF8PROC_CATEGORY_CC:
		return cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f' ? ' ' : 0;
	default:
		return cp;
	}
}

static enum err normalize(const char *text, char **out)
{
	utf8proc_uint8_t *nfc = NULL;
	struct sbuf b = {0};
	enum err e = ERR_NOMEM;
	utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)text, 0, &nfc,
					  UTF8PROC_NULLTERM | UTF8PROC_STABLE |
					  UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD);
	if (n < 0) {
		e = n == UTF8PROC_ERROR_NOMEM ? ERR_NOMEM : ERR_PARSE;
		goto out;
	}
	if (!sbuf_add(&b, "", 0))
		goto out;
	bool space = false;
	for (utf8proc_ssize_t i = 0; i < n;) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate(nfc + i, n - i, &cp);
		if (k <= 0) {
			e = ERR_PARSE;
			goto out;
		}
		i += k;
		cp = fold(cp);
		if (cp == 0)
			continue;
		if (cp == ' ') {
			space = b.n > 0;
			continue;
		}
		if (space && !sbuf_add(&b, " ", 1))
			goto out;
		space = false;
		if (!buf_cp(&b, cp))
			goto out;
	}
	*out = b.p;
	b.p = NULL;
	e = ERR_OK;
out:
	free(b.p);
	free(nfc);
	return e;
}

/* The texts normalized last, so that the same words normalized again (a benchmark grades
 * every reply against the same few questions) cost a lookup: a direct-mapped table of
 * MEMO_SLOTS texts up to MEMO_MAX bytes, each slot holding the text and its result. The
 * result is the same either way. */
#define MEMO_SLOTS 1024
#define MEMO_MAX 512
static struct {
	char *text, *norm;
} memo[MEMO_SLOTS];
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t memo_slot(const char *s, size_t *len)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	size_t n = 0;
	for (; s[n] && n <= MEMO_MAX; n++)
		h = (h ^ (unsigned char)s[n]) * 1099511628211u;
	*len = n;
	return (size_t)(h % MEMO_SLOTS);
}

enum err wer_normalize(const char *text, char **out)
{
	size_t len, k = memo_slot(text, &len);
	char *got = NULL;
	enum err e;

	if (len > MEMO_MAX)
		return normalize(text, out);
	pthread_mutex_lock(&memo_lock);
	if (memo[k].text && strcmp(memo[k].text, text) == 0 && !(got = strdup(memo[k].norm))) {
		pthread_mutex_unlock(&memo_lock);
		return ERR_NOMEM;
	}
	pthread_mutex_unlock(&memo_lock);
	if (got) {
		*out = got;
		return ERR_OK;
	}
	if ((e = normalize(text, out)) != ERR_OK)
		return e;
	char *t = strdup(text), *n = strdup(*out);
	if (!t || !n) { /* not remembered: no harm */
		free(t);
		free(n);
		return ERR_OK;
	}
	pthread_mutex_lock(&memo_lock);
	free(memo[k].text);
	free(memo[k].norm);
	memo[k].text = t;
	memo[k].norm = n;
	pthread_mutex_unlock(&memo_lock);
	return ERR_OK;
}

/* Token spans of a normalized text. */
struct toks {
	int n;
	int *start, *len; /* byte offsets and lengths */
};

static bool tokenize(const char *s, enum wer_unit unit, struct toks *t)
{
	size_t cap = strlen(s) + 1;
	t->n = 0;
	t->start = malloc(cap * sizeof *t->start);
	t->len = malloc(cap * sizeof *t->len);
	if (!t->start || !t->len)
		return false;
	size_t i = 0, n = strlen(s);
	while (i < n) {
		size_t l;
		if (unit == WER_WORDS) {
			if (s[i] == ' ') {
				i++;
				continue;
			}
			l = strcspn(s + i, " ");
		} else {
			utf8proc_int32_t cp;
			l = (size_t)utf8proc_iterate((const utf8proc_uint8_t *)s + i,
						     (utf8proc_ssize_t)(n - i), &cp);
		}
		t->start[t->n] = (int)i;
		t->len[t->n] = (int)l;
		t->n++;
		i += l;
	}
	return true;
}

static void toks_free(struct toks *t)
{
	free(t->start);
	free(t->len);
}

static bool tok_eq(const char *a, const struct toks *ta, int i, const char *b,
		   const struct toks *tb, int j)
{
	return ta->len[i] == tb->len[j] && !memcmp(a + ta->start[i], b + tb->start[j],
						   (size_t)ta->len[i]);
}

/* The text of tokens [from, from + count) of s. */
static char *span(const char *s, const struct toks *t, int from, int count,
		  enum wer_unit unit)
{
	struct sbuf b = {0};
	if (!sbuf_add(&b, "", 0))
		return NULL;
	for (int k = from; k < from + count; k++) {
		if (unit == WER_WORDS && k > from && !sbuf_add(&b, " ", 1))
			goto fail;
		if (!sbuf_add(&b, s + t->start[k], (size_t)t->len[k]))
			goto fail;
	}
	return b.p;
fail:
	free(b.p);
	return NULL;
}

void wer_free(struct wer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n_segments; i++) {
		free(w->segments[i].ref);
		free(w->segments[i].hyp);
	}
	free(w->segments);
	free(w->ops);
	free(w->ref_norm);
	free(w->hyp_norm);
	free(w);
}

/* Fill w->ops (and counts) from the Levenshtein table of ref x hyp. */
static enum err align(struct wer *w, const struct toks *tr, const struct toks *th)
{
	size_t rows = (size_t)tr->n + 1, cols = (size_t)th->n + 1;
	if (cols && rows > SIZE_MAX / sizeof(int) / cols)
		return ERR_NOMEM;
	int *d = malloc(rows * cols * sizeof *d);
	char *rev = malloc(rows + cols);
	if (!d || !rev) {
		free(d);
		free(rev);
		return ERR_NOMEM;
	}
#define D(i, j) d[(size_t)(i) * cols + (size_t)(j)]
	for (size_t i = 0; i < rows; i++)
		D(i, 0) = (int)i;
	for (size_t j = 0; j < cols; j++)
		D(0, j) = (int)j;
	for (size_t i = 1; i < rows; i++)
		for (size_t j = 1; j < cols; j++) {
			int diag = D(i - 1, j - 1) +
				   !tok_eq(w->ref_norm, tr, (int)i - 1, w->hyp_norm, th, (int)j - 1);
			int del = D(i - 1, j) + 1, ins = D(i, j - 1) + 1;
			int m = diag < del ? diag : del;
			D(i, j) = m < ins ? m : ins;
		}
	size_t i = rows - 1, j = cols - 1, n = 0;
	while (i > 0 || j > 0) {
		if (i > 0 && j > 0) {
			bool eq = tok_eq(w->ref_norm, tr, (int)i - 1, w->hyp_norm, th, (int)j - 1);
			if (D(i, j) == D(i - 1, j - 1) + !eq) {
				rev[n++] = eq ? '=' : 'S';
				i--, j--;
				continue;
			}
		}
		if (i > 0 && D(i, j) == D(i - 1, j) + 1) {
			rev[n++] = 'D';
			i--;
		} else {
			rev[n++] = 'I';
			j--;
		}
	}
#undef D
	free(d);
	w->ops = malloc(n + 1);
	if (!w->ops) {
		free(rev);
		return ERR_NOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		char op = rev[n - 1 - k];
		w->ops[k] = op;
		w->hits += op == '=';
		w->subs += op == 'S';
		w->dels += op == 'D';
		w->ins += op == 'I';
	}
	w->ops[n] = '\0';
	free(rev);
	return ERR_OK;
}

static enum err make_segments(struct wer *w, const struct toks *tr, const struct toks *th)
{
	size_t n = strlen(w->ops);
	w->segments = calloc(n ? n : 1, sizeof *w->segments);
	if (!w->segments)
		return ERR_NOMEM;
	int ri = 0, hi = 0;
	for (size_t k = 0; k < n;) {
		if (w->ops[k] == '=') {
			ri++, hi++, k++;
			continue;
		}
		struct wer_segment *s = &w->segments[w->n_segments++];
		s->ref_start = ri;
		s->hyp_start = hi;
		for (; k < n && w->ops[k] != '='; k++) {
			char op = w->ops[k];
			s->subs += op == 'S';
			s->dels += op == 'D';
			s->ins += op == 'I';
			if (op != 'I')
				ri++;
			if (op != 'D')
				hi++;
		}
		s->ref_len = ri - s->ref_start;
		s->hyp_len = hi - s->hyp_start;
		s->ref = span(w->ref_norm, tr, s->ref_start, s->ref_len, w->unit);
		s->hyp = span(w->hyp_norm, th, s->hyp_start, s->hyp_len, w->unit);
		if (!s->ref || !s->hyp)
			return ERR_NOMEM;
	}
	return ERR_OK;
}

enum err wer_align(const char *ref, const char *hyp, enum wer_unit unit, struct wer **out)
{
	struct toks tr = {0}, th = {0};
	enum err e = ERR_NOMEM;
	struct wer *w = calloc(1, sizeof *w);
	if (!w)
		goto out;
	w->unit = unit;
	if ((e = wer_normalize(ref, &w->ref_norm)) != ERR_OK ||
	    (e = wer_normalize(hyp, &w->hyp_norm)) != ERR_OK)
		goto out;
	e = ERR_NOMEM;
	if (!tokenize(w->ref_norm, unit, &tr) || !tokenize(w->hyp_norm, unit, &th))
		goto out;
	w->n_ref = tr.n;
	w->n_hyp = th.n;
	if ((e = align(w, &tr, &th)) != ERR_OK || (e = make_segments(w, &tr, &th)) != ERR_OK)
		goto out;
	*out = w;
	w = NULL;
out:
	toks_free(&tr);
	toks_free(&th);
	wer_free(w);
	return e;
}

int wer_errors(const struct wer *w)
{
	return w->subs + w->dels + w->ins;
}

static double rate(long errors, long n)
{
	if (n == 0)
		return errors ? 1.0 : 0.0;
	return (double)errors / (double)n;
}

double wer_rate(const struct wer *w)
{
	return rate(wer_errors(w), w->n_ref);
}

enum err wer_judge(struct wer *w, wer_judge_fn judge, void *ctx)
{
	for (int i = 0; i < w->n_segments; i++) {
		bool eq = false;
		enum err e = judge(ctx, w->segments[i].ref, w->segments[i].hyp, &eq);
		if (e != ERR_OK)
			return e;
		w->segments[i].forgiven = eq;
	}
	return ERR_OK;
}

int wer_genuine_errors(const struct wer *w)
{
	int n = 0;
	for (int i = 0; i < w->n_segments; i++) {
		const struct wer_segment *s = &w->segments[i];
		if (!s->forgiven)
			n += s->subs + s->dels + s->ins;
	}
	return n;
}

double wer_genuine_rate(const struct wer *w)
{
	return rate(wer_genuine_errors(w), w->n_ref);
}

void wer_sum_add(struct wer_sum *s, const struct wer *w)
{
	s->n_ref += w->n_ref;
	s->errors += wer_errors(w);
	s->genuine += wer_genuine_errors(w);
	s->utterances++;
}

double wer_sum_rate(const struct wer_sum *s)
{
	return rate(s->errors, s->n_ref);
}

double wer_sum_genuine_rate(const struct wer_sum *s)
{
	return rate(s->genuine, s->n_ref);
}
