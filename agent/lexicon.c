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

#include "base/utf8.h"
#include "text.h"

/* The files read, in order; every one must exist (agent/words/README.md). */
static const char *const files[] = {
	"numbers.tsv", "calendar.tsv", "yesno.tsv", "skip.tsv", "names.tsv",
	"places.tsv", "fillers.tsv", "stopwords.tsv", "hints.tsv",
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
};

/* Tags whose third column is a number (required), and those that take words. */
static bool tag_numeric(enum lexicon_tag t)
{
	switch (t) {
	case LEX_NUM: case LEX_TENS: case LEX_MULT: case LEX_PLUS: case LEX_REPEAT:
	case LEX_MONTH: case LEX_ORDINAL: case LEX_DAYREL: case LEX_DAYOFF: case LEX_UNIT:
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
	if (lex->nwords == lex->capwords) {
		int cap = lex->capwords ? lex->capwords * 2 : 256;
		struct word *v = realloc(lex->words, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		lex->words = v;
		lex->capwords = cap;
	}
	struct word *wd = &lex->words[lex->nwords];
	memset(wd, 0, sizeof(*wd));
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

static void set_msg(char **errmsg, const char *fmt, ...)
{
	if (!errmsg)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
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
		set_msg(errmsg, "%s: %s", path, strerror(errno));
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
				set_msg(errmsg, "%s line %d: not UTF-8 text (byte 0x%02X)", path, lineno,
					(unsigned)(unsigned char)*bad);
			else
				set_msg(errmsg, "%s line %d: the line holds a NUL byte", path, lineno);
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
			set_msg(errmsg, "%s line %d: expected PHRASE<TAB>TAG[<TAB>VALUE], got %d column(s)",
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
			set_msg(errmsg, "%s line %d: unknown tag '%s' (see README.md)", path, lineno, cols[1]);
			e = ERR_PARSE;
			break;
		}
		struct phrase ph = {.pub = {.tag = (enum lexicon_tag)tag}};
		if (tag_numeric((enum lexicon_tag)tag)) {
			char *end = NULL;
			if (nc < 3 || !*cols[2] || (ph.pub.value = strtod(cols[2], &end), *end) ||
			    !isfinite(ph.pub.value)) {
				set_msg(errmsg, "%s line %d: tag '%s' needs a number in the third column",
					path, lineno, cols[1]);
				e = ERR_PARSE;
				break;
			}
			if (tag == LEX_MONTH && !(ph.pub.value >= 1 && ph.pub.value <= 12 &&
						  ph.pub.value == floor(ph.pub.value))) {
				set_msg(errmsg, "%s line %d: tag 'month' needs a month number from 1 to 12, "
						"got '%s'", path, lineno, cols[2]);
				e = ERR_PARSE;
				break;
			}
		} else if (nc == 3 && *cols[2] && !tag_words((enum lexicon_tag)tag)) {
			set_msg(errmsg, "%s line %d: tag '%s' takes no third column", path, lineno, cols[1]);
			e = ERR_PARSE;
			break;
		} else if (tag == LEX_HINT && (nc < 3 || !*cols[2])) {
			set_msg(errmsg, "%s line %d: tag 'hint' needs the kind in the third column",
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
			set_msg(errmsg, "%s line %d: phrase '%s' must have 1 to %d words and not start or end with '*'",
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
		if (lex->nphr == lex->capphr) {
			int c = lex->capphr ? lex->capphr * 2 : 512;
			struct phrase *v = realloc(lex->phr, (size_t)c * sizeof(*v));
			if (!v) {
				free((char *)ph.pub.arg);
				e = ERR_NOMEM;
				break;
			}
			lex->phr = v;
			lex->capphr = c;
		}
		lex->phr[lex->nphr++] = ph;
	}
	if (e == ERR_OK && ferror(f)) {
		/* a folder, or a read that failed: not an empty word list */
		set_msg(errmsg, "%s: %s", path, strerror(errno));
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

/* spell_fold: k (n bytes, a token key) with long vowels written short (ee, ii -> i;
 * oo, uu -> u; ी -> ि, ू -> ु, ई -> इ, ऊ -> उ), the diphthong signs as the plain vowels
 * (ai, final ay -> e; ै -> े, ौ -> ो, ऐ -> ए, औ -> ओ) and doubled Latin letters written
 * once (tt -> t, aa -> a). Writes at most size bytes with the NUL; false when it did not fit. */
static bool spell_fold(const char *k, size_t n, char *out, size_t size)
{
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
	e = build_index(lex);
	if (e == ERR_OK)
		e = build_folds(lex);
	if (e != ERR_OK)
		goto out;
	*out = lex;
	lex = NULL;
out:
	if (e == ERR_NOMEM && errmsg && !*errmsg)
		set_msg(errmsg, "out of memory reading the word lists in %s", dir);
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

void lexicon_tag_text(const struct lexicon *lex, struct text *t)
{
	char f[128];
	for (int i = 0; i < t->n; i++) {
		t->tok[i].id = find_word(lex, t->tok[i].key, t->tok[i].key_len);
		if (t->tok[i].id >= 0 || t->tok[i].digits || !lex->nfold ||
		    !spell_fold(t->tok[i].key, t->tok[i].key_len, f, sizeof f))
			continue;
		int at = find_fold(lex, f);
		if (at >= 0 && lex->fword[at] >= 0)
			t->tok[i].id = lex->fword[at];
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
