#include "lexicon.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <utf8proc.h>

#include "base/utf8.h"
#include "base/str.h"
#include "base/vec.h"
#include "text.h"

/* The files read, in order; every one must exist (agent/words/README.md). */
static const char *const files[] = {
	"numbers.tsv", "calendar.tsv", "yesno.tsv", "skip.tsv", "names.tsv",
	"places.tsv", "fillers.tsv", "stopwords.tsv", "hints.tsv", "turntaking.tsv",
};

static const char *const tag_names[LEX_NTAGS] = {
	[LEX_NUM] = "num", [LEX_TENS] = "tens", [LEX_MULT] = "mult", [LEX_PLUS] = "plus",
	[LEX_POINT] = "point", [LEX_REPEAT] = "repeat", [LEX_COUNTNOUN] = "countnoun",
	[LEX_MONTH] = "month", [LEX_ORDINAL] = "ordinal", [LEX_TODAY] = "today",
	[LEX_DAYREL] = "dayrel", [LEX_DAYOFF] = "dayoff", [LEX_DAYMARK] = "daymark",
	[LEX_UNIT] = "unit", [LEX_PREV] = "prev", [LEX_NEXT] = "next", [LEX_THIS] = "this",
	[LEX_AGO] = "ago", [LEX_LATER] = "later", [LEX_FUTURE] = "future", [LEX_YES] = "yes",
	[LEX_NO] = "no", [LEX_WEAKYES] = "weakyes", [LEX_NOANSWER] = "noanswer",
	[LEX_NEUTRAL] = "neutral", [LEX_NEG] = "neg", [LEX_DONT_KNOW] = "dont_know",
	[LEX_DECLINED] = "declined", [LEX_NONE] = "none", [LEX_NAME_BEFORE] = "name_before",
	[LEX_NAME_AFTER] = "name_after", [LEX_HONORIFIC] = "honorific", [LEX_FILLER] = "filler",
	[LEX_STOP] = "stop", [LEX_PLACE_AFTER] = "place_after",
	[LEX_PLACE_BEFORE] = "place_before", [LEX_COPULA] = "copula", [LEX_HINT] = "hint",
	[LEX_AND] = "and", [LEX_DIGITWORD] = "digitword", [LEX_YESTAG] = "yestag",
	[LEX_ANCHOR] = "anchor", [LEX_COUNTLEAD] = "countlead",
	[LEX_BACKCHANNEL] = "backchannel", [LEX_UNFINISHED] = "unfinished",
};

/* Tags whose third column is a number (required), and those that take words. */
static bool tag_numeric(enum lexicon_tag t)
{
	switch (t) {
	case LEX_NUM: case LEX_TENS: case LEX_MULT: case LEX_PLUS: case LEX_REPEAT:
	case LEX_MONTH: case LEX_ORDINAL: case LEX_DAYREL: case LEX_DAYOFF: case LEX_UNIT:
	case LEX_DIGITWORD: case LEX_ANCHOR:
		return true;
	default:
		return false;
	}
}

static bool tag_words(enum lexicon_tag t)
{
	return t == LEX_DONT_KNOW || t == LEX_DECLINED || t == LEX_NONE ||
	       t == LEX_NAME_BEFORE || t == LEX_HINT;
}

#define WILD (-2)
#define MAXWORDS 12

struct phrase {
	struct lexicon_phrase pub;
	int words[MAXWORDS];
};

struct word {
	char *key;
	uint64_t mask;  /* tags of the phrases that start with this word */
	int *phr;       /* those phrases, longest first */
	int nphr;
};

struct lexicon {
	struct word *words;
	int nwords, capwords;
	int *hash;      /* open addressing: word index or -1 */
	size_t hcap;    /* power of two */
	struct phrase *phr;
	int nphr, capphr;
	/* spelling folds of the number and calendar words: fold -> word id, AMBIGUOUS when
	 * two words with different meanings share a fold */
	char **fkey;
	int *fword;
	int nfold, capfold;
	bool folds_sorted;
};

#define AMBIGUOUS (-3)

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static int find_word(const struct lexicon *lex, const char *k, size_t n)
{
	if (!lex->hcap)
		return -1;
	for (size_t i = fnv(k, n) & (lex->hcap - 1);; i = (i + 1) & (lex->hcap - 1)) {
		int w = lex->hash[i];
		if (w < 0)
			return -1;
		if (strncmp(lex->words[w].key, k, n) == 0 && lex->words[w].key[n] == 0)
			return w;
	}
}

static enum err rehash(struct lexicon *lex, size_t cap)
{
	int *h = malloc(cap * sizeof(int));
	if (!h)
		return ERR_NOMEM;
	memset(h, 0xff, cap * sizeof(int));
	for (int w = 0; w < lex->nwords; w++) {
		size_t i = fnv(lex->words[w].key, strlen(lex->words[w].key)) & (cap - 1);
		while (h[i] >= 0)
			i = (i + 1) & (cap - 1);
		h[i] = w;
	}
	free(lex->hash);
	lex->hash = h;
	lex->hcap = cap;
	return ERR_OK;
}

/* intern: the id of key k (n bytes), adding it when new. -1 on ERR_NOMEM. */
static int intern(struct lexicon *lex, const char *k, size_t n)
{
	int w = find_word(lex, k, n);
	if (w >= 0)
		return w;
	struct word *v = vec_grow(lex->words, lex->nwords, &lex->capwords, sizeof *v, 256);
	if (!v)
		return -1;
	lex->words = v;
	struct word *wd = &lex->words[lex->nwords];
	wd->key = strndup(k, n);
	if (!wd->key)
		return -1;
	lex->nwords++;
	if ((size_t)lex->nwords * 2 > lex->hcap) {
		if (rehash(lex, lex->hcap ? lex->hcap * 2 : 1024) != ERR_OK) {
			free(wd->key);
			lex->nwords--;
			return -1;
		}
	} else {
		size_t i = fnv(k, n) & (lex->hcap - 1);
		while (lex->hash[i] >= 0)
			i = (i + 1) & (lex->hcap - 1);
		lex->hash[i] = lex->nwords - 1;
	}
	return lex->nwords - 1;
}

void lexicon_free(struct lexicon *lex)
{
	if (!lex)
		return;
	for (int i = 0; i < lex->nwords; i++) {
		free(lex->words[i].key);
		free(lex->words[i].phr);
	}
	for (int i = 0; i < lex->nphr; i++)
		free((char *)lex->phr[i].pub.arg);
	for (int i = 0; i < lex->nfold; i++)
		free(lex->fkey[i]);
	free(lex->fkey);
	free(lex->fword);
	free(lex->words);
	free(lex->hash);
	free(lex->phr);
	free(lex);
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\n' || s[n - 1] == '\t'))
		s[--n] = 0;
	size_t a = 0;
	while (s[a] == ' ')
		a++;
	memmove(s, s + a, n - a + 1);
}

/* Parse the words of a phrase into ids. Returns the count, 0 when it has no words, -1 on
 * ERR_NOMEM, -2 when it has too many. */
static int phrase_words(struct lexicon *lex, const char *phrase, int *ids)
{
	int n = 0;
	char *copy = strdup(phrase), *save = NULL;
	if (!copy)
		return -1;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (strcmp(w, "*") == 0) {
			if (n == MAXWORDS) {
				n = -2;
				break;
			}
			ids[n++] = WILD;
			continue;
		}
		struct text *t = NULL;
		if (text_new(w, &t) != ERR_OK) {
			n = -1;
			break;
		}
		for (int i = 0; i < t->n && n >= 0; i++) {
			if (n == MAXWORDS) {
				n = -2;
				break;
			}
			int id = intern(lex, t->tok[i].key, t->tok[i].key_len);
			if (id < 0)
				n = -1;
			else
				ids[n++] = id;
		}
		text_free(t);
		if (n < 0)
			break;
	}
	free(copy);
	return n;
}

/* add_phrase: append ph to the phrases; on ERR_NOMEM its arg is freed. */
static enum err add_phrase(struct lexicon *lex, const struct phrase *ph)
{
	struct phrase *v = vec_grow(lex->phr, lex->nphr, &lex->capphr, sizeof *v, 512);
	if (!v) {
		free((char *)ph->pub.arg);
		return ERR_NOMEM;
	}
	lex->phr = v;
	lex->phr[lex->nphr++] = *ph;
	return ERR_OK;
}

static enum err load_file(struct lexicon *lex, const char *dir, const char *name, char **errmsg)
{
	enum err e = ERR_OK;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	if (!f) {
		str_setf(errmsg, "%s: %s", path, strerror(errno));
		return ERR_IO;
	}
	ssize_t got;
	while ((got = getline(&line, &cap, f)) > 0) {
		lineno++;
		char *cols[4] = {0};
		int nc = 0;
		const char *bad = utf8_bad(line, (size_t)got, false);
		if (bad) {
			if (*bad)
				str_setf(errmsg, "%s line %d: not UTF-8 text (byte 0x%02X)", path, lineno,
					(unsigned)(unsigned char)*bad);
			else
				str_setf(errmsg, "%s line %d: the line holds a NUL byte", path, lineno);
			e = ERR_PARSE;
			break;
		}
		trim(line);
		if (line[0] == '#' || line[0] == 0)
			continue;
		for (char *p = line; p && nc < 4; nc++) {
			cols[nc] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = 0;
		}
		if (nc < 2 || nc > 3) {
			str_setf(errmsg, "%s line %d: expected PHRASE<TAB>TAG[<TAB>VALUE], got %d column(s)",
				path, lineno, nc);
			e = ERR_PARSE;
			break;
		}
		for (int i = 0; i < nc; i++)
			trim(cols[i]);
		int tag = -1;
		for (int i = 0; i < LEX_NTAGS; i++)
			if (strcmp(cols[1], tag_names[i]) == 0)
				tag = i;
		if (tag < 0) {
			str_setf(errmsg, "%s line %d: unknown tag '%s' (see README.md)", path, lineno, cols[1]);
			e = ERR_PARSE;
			break;
		}
		struct phrase ph = {.pub = {.tag = (enum lexicon_tag)tag}};
		if (tag_numeric((enum lexicon_tag)tag)) {
			char *end = NULL;
			if (nc < 3 || !*cols[2] || (ph.pub.value = strtod(cols[2], &end), *end) ||
			    !isfinite(ph.pub.value)) {
				str_setf(errmsg, "%s line %d: tag '%s' needs a number in the third column",
					path, lineno, cols[1]);
				e = ERR_PARSE;
				break;
			}
			if (tag == LEX_MONTH && !(ph.pub.value >= 1 && ph.pub.value <= 12 &&
						  ph.pub.value == floor(ph.pub.value))) {
				str_setf(errmsg, "%s line %d: tag 'month' needs a month number from 1 to 12, "
						"got '%s'", path, lineno, cols[2]);
				e = ERR_PARSE;
				break;
			}
		} else if (nc == 3 && *cols[2] && !tag_words((enum lexicon_tag)tag)) {
			str_setf(errmsg, "%s line %d: tag '%s' takes no third column", path, lineno, cols[1]);
			e = ERR_PARSE;
			break;
		} else if (tag == LEX_HINT && (nc < 3 || !*cols[2])) {
			str_setf(errmsg, "%s line %d: tag 'hint' needs the kind in the third column",
				path, lineno);
			e = ERR_PARSE;
			break;
		}
		int n = phrase_words(lex, cols[0], ph.words);
		if (n == -1) {
			e = ERR_NOMEM;
			break;
		}
		if (n == -2 || n == 0 || ph.words[0] == WILD || ph.words[n - 1] == WILD) {
			str_setf(errmsg, "%s line %d: phrase '%s' must have 1 to %d words and not start or end with '*'",
				path, lineno, cols[0], MAXWORDS);
			e = ERR_PARSE;
			break;
		}
		ph.pub.n = n;
		ph.pub.arg = strdup(nc == 3 && tag_words((enum lexicon_tag)tag) ? cols[2] : "");
		if (!ph.pub.arg) {
			e = ERR_NOMEM;
			break;
		}
		if (add_phrase(lex, &ph) != ERR_OK) {
			e = ERR_NOMEM;
			break;
		}
	}
	if (e == ERR_OK && ferror(f)) {
		/* a folder, or a read that failed: not an empty word list */
		str_setf(errmsg, "%s: %s", path, strerror(errno));
		e = ERR_IO;
	}
	free(line);
	fclose(f);
	return e;
}

static struct lexicon *sort_lex; /* qsort has no context argument; load is single-threaded */

static int by_length_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int nx = sort_lex->phr[x].pub.n, ny = sort_lex->phr[y].pub.n;
	if (nx != ny)
		return ny - nx;
	return x - y; /* file order breaks ties: deterministic */
}

/* Index the phrases by their first word, longest first. */
static enum err build_index(struct lexicon *lex)
{
	for (int i = 0; i < lex->nphr; i++) {
		struct word *w = &lex->words[lex->phr[i].words[0]];
		int *v = realloc(w->phr, (size_t)(w->nphr + 1) * sizeof(int));
		if (!v)
			return ERR_NOMEM;
		w->phr = v;
		w->phr[w->nphr++] = i;
		w->mask |= 1ULL << lex->phr[i].pub.tag;
	}
	sort_lex = lex;
	for (int i = 0; i < lex->nwords; i++)
		if (lex->words[i].nphr > 1)
			qsort(lex->words[i].phr, (size_t)lex->words[i].nphr, sizeof(int), by_length_desc);
	sort_lex = NULL;
	return ERR_OK;
}

/* ---- spelling variants ----------------------------------------------------------
 * Callers' words reach formdesk in many romanizations and Devanagari spellings ("sataasi",
 * "sattasi", "sattaasee" are all 87; "शुन्य" and "शून्य" are 0). The word lists name the
 * common ones; a word they do not name is looked up by its spelling fold, only among
 * number and calendar words, and only when the fold points at one meaning. */

/* Tags whose words get a spelling fold. */
static bool tag_folds(enum lexicon_tag t)
{
	return t == LEX_NUM || t == LEX_TENS || t == LEX_MULT || t == LEX_MONTH ||
	       t == LEX_ORDINAL || t == LEX_UNIT;
}

/* deva_loose: a Devanagari key k (n bytes) as it is often typed: a doubled consonant
 * written once (इक्कीस -> इकीस, छब्बीस -> छबीस), an unaspirated consonant before its
 * aspirate left out (अट्ठारह -> अठारह), a final ह written ा (बारह, बारा; सत्रह stays
 * apart from सत्तर), a virama left out (सत्रह, सतरह), the anusvara as न (म before a
 * labial) and dropped before a nasal (उन्तीस, उनतीस; दिसंबर, दिसमबर; उन्नीस, उनीस), ि
 * before य left out (ग्यारह, गियारह).
 * Writes at most size bytes with the NUL; returns the length, or n unchanged (a copy)
 * when k is not all Devanagari or does not fit. */
static size_t deva_loose(const char *k, size_t n, char *out, size_t size)
{
	utf8proc_int32_t cp[64];
	int m = 0;
	for (size_t i = 0; i < n;) {
		if (m == 64)
			goto copy; /* longer than any word of the lists */
		utf8proc_ssize_t l = utf8proc_iterate((const utf8proc_uint8_t *)k + i,
						      (utf8proc_ssize_t)(n - i), &cp[m]);
		if (l <= 0 || cp[m] < 0x0900 || cp[m] > 0x097F)
			goto copy;
		i += (size_t)l;
		m++;
	}
	size_t o = 0;
	for (int i = 0; i < m; i++) {
		bool cons = cp[i] >= 0x0915 && cp[i] <= 0x0939;
		/* the unaspirated stops whose aspirate is the next code point */
		bool stop = cp[i] == 0x0915 || cp[i] == 0x0917 || cp[i] == 0x091A || cp[i] == 0x091C ||
			    cp[i] == 0x091F || cp[i] == 0x0921 || cp[i] == 0x0924 || cp[i] == 0x0926 ||
			    cp[i] == 0x092A || cp[i] == 0x092C;
		if (cons && i + 2 < m && cp[i + 1] == 0x094D &&
		    (cp[i + 2] == cp[i] || (stop && cp[i + 2] == cp[i] + 1))) {
			i++; /* the consonant and its virama */
			continue;
		}
		bool nasal_next = i + 1 < m && (cp[i + 1] == 0x0928 || cp[i + 1] == 0x092E ||
						 cp[i + 1] == 0x0923);
		if (cp[i] == 0x094D || (cp[i] == 0x093F && i + 1 < m && cp[i + 1] == 0x092F) ||
		    (cp[i] == 0x0902 && nasal_next))
			continue;
		/* the anusvara as the nasal it is said as: म before a labial, else न */
		bool labial = i + 1 < m && cp[i + 1] >= 0x092A && cp[i + 1] <= 0x092E;
		utf8proc_int32_t w = cp[i] != 0x0902 ? cp[i] : labial ? 0x092E : 0x0928;
		if (i == m - 1 && m >= 3 && w == 0x0939)
			w = 0x093E;
		if (o + 4 >= size)
			goto copy;
		o += (size_t)utf8proc_encode_char(w, (utf8proc_uint8_t *)out + o);
	}
	out[o] = 0;
	return o;
copy:
	if (n + 1 > size)
		n = size - 1;
	memcpy(out, k, n);
	out[n] = 0;
	return n;
}

/* spell_fold: k (n bytes, a token key) with long vowels written short (ee, ii -> i;
 * oo, uu -> u; ी -> ि, ू -> ु, ई -> इ, ऊ -> उ), the diphthong signs as the plain vowels
 * (ai, final ay -> e; ै -> े, ौ -> ो, ऐ -> ए, औ -> ओ), doubled Latin letters written
 * once (tt -> t, aa -> a) and Devanagari as deva_loose types it. Writes at most size
 * bytes with the NUL; false when it did not fit. */
static bool spell_fold(const char *k, size_t n, char *out, size_t size)
{
	char loose[128];
	if (n > 0 && (unsigned char)k[0] == 0xE0) {
		n = deva_loose(k, n, loose, sizeof(loose));
		k = loose;
	}
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		const unsigned char *u = (const unsigned char *)k + i;
		char c[4];
		size_t len = 1;
		if (u[0] == 0xE0 && i + 2 < n && (u[1] == 0xA5 || u[1] == 0xA4)) {
			/* Devanagari: U+0940 -> U+093F, U+0942 -> U+0941, U+0908 -> U+0907,
			 * U+090A -> U+0909 */
			len = 3;
			memcpy(c, u, 3);
			if (u[1] == 0xA5 && u[2] == 0x80)
				c[1] = (char)0xA4, c[2] = (char)0xBF;
			else if (u[1] == 0xA5 && u[2] == 0x82)
				c[2] = (char)0x81;
			else if (u[1] == 0xA4 && (u[2] == 0x88 || u[2] == 0x8A || u[2] == 0x90 ||
						  u[2] == 0x94))
				c[2] = (char)(u[2] - 1);
			else if (u[1] == 0xA5 && (u[2] == 0x88 || u[2] == 0x8C))
				c[2] = (char)(u[2] - 1);
		} else {
			c[0] = (char)u[0];
			if (i + 1 < n && ((u[0] == 'e' && u[1] == 'e') || (u[0] == 'o' && u[1] == 'o')))
				c[0] = u[0] == 'e' ? 'i' : 'u', len = 2;
			/* ai, and ay at the end, for the e sound (chhai, chhay = chhe) */
			else if (i + 1 < n && u[0] == 'a' && (u[1] == 'i' || (u[1] == 'y' && i + 2 == n)))
				c[0] = 'e', len = 2;
			/* a doubled Latin letter once */
			if (o > 0 && c[0] >= 'a' && c[0] <= 'z' && out[o - 1] == c[0]) {
				i += len;
				continue;
			}
			if (o + 1 >= size)
				return false;
			out[o++] = c[0];
			i += len;
			continue;
		}
		if (o + len >= size)
			return false;
		memcpy(out + o, c, len);
		o += len;
		i += len;
	}
	out[o] = 0;
	return true;
}

/* The single-word meaning of word w: its one-word phrases' tags and values must agree for
 * two words to share a fold. */
static bool same_meaning(const struct lexicon *lex, int a, int b)
{
	const struct word *x = &lex->words[a], *y = &lex->words[b];
	for (int i = 0; i < x->nphr; i++) {
		const struct phrase *p = &lex->phr[x->phr[i]];
		if (p->pub.n != 1 || !tag_folds(p->pub.tag))
			continue;
		bool found = false;
		for (int j = 0; j < y->nphr && !found; j++) {
			const struct phrase *q = &lex->phr[y->phr[j]];
			found = q->pub.n == 1 && q->pub.tag == p->pub.tag && q->pub.value == p->pub.value;
		}
		if (!found)
			return false;
	}
	return true;
}

/* find_fold: the index of fold f; a scan while the table is built, a binary search once
 * it is sorted. */
static int find_fold(const struct lexicon *lex, const char *f)
{
	if (!lex->folds_sorted) {
		for (int i = 0; i < lex->nfold; i++)
			if (strcmp(lex->fkey[i], f) == 0)
				return i;
		return -1;
	}
	int lo = 0, hi = lex->nfold - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(lex->fkey[mid], f);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* sort_folds: order the fold table by key (keys and words together), for find_fold. */
static void sort_folds(struct lexicon *lex)
{
	for (int i = 1; i < lex->nfold; i++) {
		char *k = lex->fkey[i];
		int w = lex->fword[i], j = i - 1;
		for (; j >= 0 && strcmp(lex->fkey[j], k) > 0; j--) {
			lex->fkey[j + 1] = lex->fkey[j];
			lex->fword[j + 1] = lex->fword[j];
		}
		lex->fkey[j + 1] = k;
		lex->fword[j + 1] = w;
	}
	lex->folds_sorted = true;
}

/* Index every word that alone is a number or calendar word by its fold. */
static enum err build_folds(struct lexicon *lex)
{
	char f[128];
	for (int w = 0; w < lex->nwords; w++) {
		bool eligible = false;
		for (int j = 0; j < lex->words[w].nphr && !eligible; j++) {
			const struct phrase *p = &lex->phr[lex->words[w].phr[j]];
			eligible = p->pub.n == 1 && tag_folds(p->pub.tag);
		}
		const char *k = lex->words[w].key;
		if (!eligible || !spell_fold(k, strlen(k), f, sizeof f))
			continue;
		int at = find_fold(lex, f);
		if (at >= 0) {
			if (lex->fword[at] >= 0 && !same_meaning(lex, lex->fword[at], w))
				lex->fword[at] = AMBIGUOUS;
			continue;
		}
		if (lex->nfold == lex->capfold) {
			int c = lex->capfold ? lex->capfold * 2 : 256;
			char **nk = realloc(lex->fkey, (size_t)c * sizeof(*nk));
			if (!nk)
				return ERR_NOMEM;
			lex->fkey = nk;
			int *nw = realloc(lex->fword, (size_t)c * sizeof(*nw));
			if (!nw)
				return ERR_NOMEM;
			lex->fword = nw;
			lex->capfold = c;
		}
		if (!(lex->fkey[lex->nfold] = strdup(f)))
			return ERR_NOMEM;
		lex->fword[lex->nfold++] = w;
	}
	sort_folds(lex);
	return ERR_OK;
}

/* ---- ordinals made from number words ----------------------------------------------
 * Hindi makes an ordinal from a number with an ending: barah -> barahvi, बारह ->
 * बारहवीं (the 12th). The lists name the ordinals up to ten; from five to thirty-one
 * (the days of a month) every listed spelling of the number gets the endings here. A
 * word the lists already have keeps its listed meaning. */

static const char *const ordinal_endings[] = {
	"vi", "vin", "va", "van", "vaan", "vee", "veen", "wi", "win", "wa", "wan", "ve", "ven",
	"we", "वीं", "वी", "वां", "वा", "वें", "वे",
};

static enum err derive_ordinals(struct lexicon *lex)
{
	int listed = lex->nphr;
	for (int p = 0; p < listed; p++) {
		const struct phrase base = lex->phr[p];
		double v = base.pub.value;
		if (base.pub.tag != LEX_NUM || base.pub.n != 1 || v < 5 || v > 31 || v != floor(v))
			continue;
		char num[96];
		snprintf(num, sizeof(num), "%s", lex->words[base.words[0]].key);
		bool latin = (unsigned char)num[0] < 0x80;
		if (latin && (num[0] < 'a' || num[0] > 'z'))
			continue; /* "12": 12th is said as digits and letters, two words */
		for (size_t k = 0; k < sizeof(ordinal_endings) / sizeof(ordinal_endings[0]); k++) {
			const char *end = ordinal_endings[k];
			if (((unsigned char)end[0] < 0x80) != latin)
				continue;
			char w[128], key[128];
			snprintf(w, sizeof(w), "%s%s", num, end);
			size_t kl = text_fold_word(w, strlen(w), key, sizeof(key));
			if (!kl || find_word(lex, key, kl) >= 0)
				continue;
			struct phrase ph = {.pub = {.tag = LEX_ORDINAL, .value = v, .n = 1}};
			if ((ph.words[0] = intern(lex, key, kl)) < 0 || !(ph.pub.arg = strdup("")))
				return ERR_NOMEM;
			if (add_phrase(lex, &ph) != ERR_OK)
				return ERR_NOMEM;
		}
	}
	return ERR_OK;
}

enum err lexicon_load(const char *dir, struct lexicon **out, char **errmsg)
{
	enum err e = ERR_NOMEM;
	struct lexicon *lex = calloc(1, sizeof(*lex));
	if (errmsg)
		*errmsg = NULL;
	if (!lex)
		goto out;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		e = load_file(lex, dir, files[i], errmsg);
		if (e != ERR_OK)
			goto out;
	}
	e = derive_ordinals(lex);
	if (e == ERR_OK)
		e = build_index(lex);
	if (e == ERR_OK)
		e = build_folds(lex);
	if (e != ERR_OK)
		goto out;
	*out = lex;
	lex = NULL;
out:
	if (e == ERR_NOMEM && errmsg && !*errmsg)
		str_setf(errmsg, "out of memory reading the word lists in %s", dir);
	lexicon_free(lex);
	return e;
}

const char *lexicon_default_dir(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("FORMDESK_WORDS");
	if (env && *env)
		return env;
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 32);
	if (n > 0) {
		buf[n] = 0;
		char *slash = strrchr(buf, '/');
		/* the binary at the repository root (./formdesk) or under build/<kind>/[tests/] */
		for (int up = 0; slash && up < 4; up++) {
			strcpy(slash, "/agent/words/numbers.tsv");
			if (access(buf, R_OK) == 0) {
				slash[strlen("/agent/words")] = 0;
				return buf;
			}
			*slash = 0;
			slash = strrchr(buf, '/');
		}
	}
	return "agent/words";
}

/* The word the key k (n bytes) is, found as it is or by its spelling fold; -1 none. */
static int lookup(const struct lexicon *lex, const char *k, size_t n)
{
	char f[128];
	int w = find_word(lex, k, n);
	if (w >= 0 || !lex->nfold || !spell_fold(k, n, f, sizeof f))
		return w;
	int at = find_fold(lex, f);
	return at >= 0 && lex->fword[at] >= 0 ? lex->fword[at] : -1;
}

/* A word that may stand in a run-together word: alone a number or calendar word (then
 * *numeric), "tarikh" or a function word ("पाँचलोग"); a place word may not ("पांचगांव" is
 * a village's name). */
static bool word_alone(const struct lexicon *lex, const char *k, size_t n, bool *numeric)
{
	int w = n ? lookup(lex, k, n) : -1;
	bool alone = false;
	for (int j = 0; w >= 0 && j < lex->words[w].nphr; j++) {
		const struct phrase *p = &lex->phr[lex->words[w].phr[j]];
		if (p->pub.n != 1)
			continue;
		if (tag_folds(p->pub.tag))
			*numeric = alone = true;
		else if (p->pub.tag == LEX_DAYMARK || p->pub.tag == LEX_STOP)
			alone = true;
		else if (p->pub.tag != LEX_HINT) /* a hint says what a question is about */
			return false;
	}
	return alone;
}

/* k (n bytes) is Devanagari letters only, three bytes each */
static bool all_devanagari(const char *k, size_t n)
{
	if (n % 3)
		return false;
	for (size_t i = 0; i < n; i += 3)
		if ((unsigned char)k[i] != 0xE0 || ((unsigned char)k[i + 1] & 0xFE) != 0xA4)
			return false;
	return true;
}

/* A Devanagari code point a word may start with (not a vowel sign, virama or nasal). */
static bool starts_syllable(const char *k, size_t n)
{
	utf8proc_int32_t cp;
	if (utf8proc_iterate((const utf8proc_uint8_t *)k, (utf8proc_ssize_t)n, &cp) <= 0)
		return false;
	return cp >= 0x0904 && cp <= 0x0939;
}

/* split_word: Devanagari words typed without a space ("दोहजार", "पंद्रहअगस्त"): cuts of
 * the key k (n bytes) into two or three words word_alone takes, each of two or more
 * characters, one of them a number or calendar word; the longest first word wins.
 * Output: up to 2 byte offsets in cuts. Returns how many (0: no such cut). */
static int split_word(const struct lexicon *lex, const char *k, size_t n, size_t *cuts,
		      int depth, bool *numeric)
{
	/* Devanagari letters are three bytes each: cut after two, leave two */
	for (size_t c = n >= 12 ? n - 6 : 0; c >= 6 && n >= 12; c -= 3) {
		bool num = *numeric;
		if (!starts_syllable(k + c, n - c) || !word_alone(lex, k, c, &num))
			continue;
		bool num2 = num;
		if (word_alone(lex, k + c, n - c, &num2) && num2) {
			cuts[0] = c;
			*numeric = true;
			return 1;
		}
		size_t sub[2];
		num2 = num;
		if (depth > 0 && split_word(lex, k + c, n - c, sub, depth - 1, &num2) == 1 && num2) {
			cuts[0] = c;
			cuts[1] = c + sub[0];
			*numeric = true;
			return 2;
		}
	}
	return 0;
}

void lexicon_tag_text(const struct lexicon *lex, struct text *t)
{
	for (int i = 0; i < t->n; i++) {
		const struct text_token *tk = &t->tok[i];
		t->tok[i].id = tk->digits ? find_word(lex, tk->key, tk->key_len)
					  : lookup(lex, tk->key, tk->key_len);
		if (t->tok[i].id >= 0 || tk->digits || tk->latin || !all_devanagari(tk->key, tk->key_len))
			continue;
		size_t cuts[2];
		bool numeric = false;
		int nc = split_word(lex, tk->key, tk->key_len, cuts, 1, &numeric);
		if (!nc || text_split(t, i, cuts, nc) != ERR_OK)
			continue; /* no memory for the parts: the word stays unknown */
		for (int p = 0; p <= nc; p++)
			t->tok[i + p].id = lookup(lex, t->tok[i + p].key, t->tok[i + p].key_len);
		i += nc;
	}
}

/* Tokens from i matching the phrase's words from k on, or -1. Gaps match as few as can. */
static int match_from(const struct phrase *ph, int k, const struct text *t, int i, int end)
{
	if (k == ph->pub.n)
		return 0;
	if (ph->words[k] == WILD) {
		for (int g = 0; g <= 2 && i + g <= end; g++) {
			int r = match_from(ph, k + 1, t, i + g, end);
			if (r >= 0)
				return g + r;
		}
		return -1;
	}
	if (i >= end || t->tok[i].id != ph->words[k])
		return -1;
	int r = match_from(ph, k + 1, t, i + 1, end);
	return r < 0 ? -1 : r + 1;
}

int lexicon_match(const struct lexicon *lex, const struct text *t, int i, int end,
		  enum lexicon_tag tag, const struct lexicon_phrase **ph)
{
	if (i < 0 || i >= end || i >= t->n || t->tok[i].id < 0)
		return 0;
	const struct word *w = &lex->words[t->tok[i].id];
	if (!(w->mask & (1ULL << tag)))
		return 0;
	int best = 0;
	for (int j = 0; j < w->nphr; j++) {
		const struct phrase *p = &lex->phr[w->phr[j]];
		if (p->pub.tag != tag)
			continue;
		int r = match_from(p, 0, t, i, end);
		if (r > best) {
			best = r;
			if (ph)
				*ph = &p->pub;
		}
	}
	return best;
}

bool lexicon_has(const struct lexicon *lex, const struct text *t, int i, enum lexicon_tag tag)
{
	if (i < 0 || i >= t->n || t->tok[i].id < 0)
		return false;
	return (lex->words[t->tok[i].id].mask >> tag) & 1;
}
