#include "text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define REPLACEMENT 0xFFFD

/* Devanagari code points the folding treats specially (Unicode block U+0900-U+097F). */
enum {
	DEV_CHANDRABINDU = 0x0901,
	DEV_ANUSVARA = 0x0902,
	DEV_CANDRA_O_LETTER = 0x0911,
	DEV_O_LETTER = 0x0913,
	DEV_NUKTA = 0x093C,
	DEV_CANDRA_E = 0x0945,
	DEV_E = 0x0947,
	DEV_CANDRA_O = 0x0949,
	DEV_O = 0x094B,
	DEV_VIRAMA = 0x094D,
	DEV_DIGIT0 = 0x0966,
};

/* Copy s into valid UTF-8, replacing each undecodable byte with U+FFFD. */
static char *sanitize(const char *s, size_t len)
{
	char *out = malloc(len * 3 + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
						      (utf8proc_ssize_t)(len - i), &cp);
		if (k <= 0 || cp == 0) {
			o += (size_t)utf8proc_encode_char(k <= 0 ? REPLACEMENT : ' ',
							  (utf8proc_uint8_t *)out + o);
			i++;
			continue;
		}
		memcpy(out + o, s + i, (size_t)k);
		o += (size_t)k;
		i += (size_t)k;
	}
	out[o] = 0;
	return out;
}

static bool is_joiner(utf8proc_int32_t cp)
{
	return cp == 0x200B || cp == 0x200C || cp == 0x200D || cp == 0x2060 || cp == 0xFEFF;
}

/* 0 separator, 1 letter (or mark), 2 digit */
static int char_class(utf8proc_int32_t cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ? 1
		       : (cp >= '0' && cp <= '9')			   ? 2 : 0;
	if (is_joiner(cp))
		return 1;
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
		return 1;
	case UTF8PROC_CATEGORY_ND:
		return 2;
	default:
		return 0;
	}
}

/* Punctuation that marks a pause or a restart in speech transcripts. */
static bool is_pause(utf8proc_int32_t cp)
{
	switch (cp) {
	case ',': case '.': case ';': case ':': case '!': case '?': case '-': case '(': case ')':
	case '\n': case 0x2026: case 0x0964: case 0x0965: case 0x2013: case 0x2014: case 0x060C:
		return true;
	default:
		return false;
	}
}

static bool is_apostrophe(utf8proc_int32_t cp)
{
	return cp == '\'' || cp == 0x2019;
}

static bool dev_consonant(utf8proc_int32_t cp)
{
	return (cp >= 0x0915 && cp <= 0x0939) || (cp >= 0x0958 && cp <= 0x095F);
}

static bool dev_nasal(utf8proc_int32_t cp)
{
	return cp == 0x0919 || cp == 0x091E || cp == 0x0923 || cp == 0x0928 || cp == 0x092E;
}

/* ASCII words (most romanized transcripts) fold by lowercasing alone. */
static size_t fold_ascii(const char *w, size_t len, char *buf, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 1 < size; i++) {
		char ch = w[i];
		if (ch == '\'')
			continue;
		buf[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
	}
	if (size)
		buf[o] = 0;
	return o;
}

size_t text_fold_word(const char *w, size_t len, char *buf, size_t size)
{
	bool ascii = true;
	for (size_t i = 0; i < len && ascii; i++)
		ascii = (unsigned char)w[i] < 0x80;
	if (ascii)
		return fold_ascii(w, len, buf, size);
	utf8proc_int32_t cps[256];
	utf8proc_ssize_t n = 0;
	int bound = 0;
	for (size_t i = 0; i < len && n < 240;) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)w + i,
						      (utf8proc_ssize_t)(len - i), &cp);
		if (k <= 0) {
			cp = REPLACEMENT;
			k = 1;
		}
		i += (size_t)k;
		if (is_joiner(cp) || cp == DEV_NUKTA || is_apostrophe(cp))
			continue;
		if (cp >= DEV_DIGIT0 && cp <= DEV_DIGIT0 + 9) {
			cps[n++] = '0' + (cp - DEV_DIGIT0);
			continue;
		}
		/* Latin accents are spelling noise here; Devanagari signs carry the word. */
		utf8proc_option_t opt = UTF8PROC_DECOMPOSE | UTF8PROC_CASEFOLD |
					(cp < 0x0900 ? UTF8PROC_STRIPMARK : 0);
		utf8proc_ssize_t m = utf8proc_decompose_char(cp, cps + n, 16, opt, &bound);
		if (m < 0 || m > 16)
			continue;
		/* drop the nukta a precomposed letter (U+0958-U+095F) decomposes into */
		utf8proc_ssize_t j = n;
		for (utf8proc_ssize_t x = n; x < n + m; x++)
			if (cps[x] != DEV_NUKTA)
				cps[j++] = cps[x];
		n = j;
	}
	/* spelling variants of the same sound */
	utf8proc_ssize_t j = 0;
	for (utf8proc_ssize_t i = 0; i < n; i++) {
		utf8proc_int32_t cp = cps[i];
		if (cp == DEV_CHANDRABINDU)
			cp = DEV_ANUSVARA;
		else if (cp == DEV_CANDRA_E)
			cp = DEV_E;
		else if (cp == DEV_CANDRA_O)
			cp = DEV_O;
		else if (cp == DEV_CANDRA_O_LETTER)
			cp = DEV_O_LETTER;
		else if (dev_nasal(cp) && i + 2 < n && cps[i + 1] == DEV_VIRAMA &&
			 dev_consonant(cps[i + 2])) {
			cp = DEV_ANUSVARA;
			i++;
		}
		cps[j++] = cp;
	}
	n = utf8proc_normalize_utf32(cps, j, UTF8PROC_COMPOSE | UTF8PROC_STABLE);
	size_t o = 0;
	for (utf8proc_ssize_t i = 0; i < n; i++) {
		utf8proc_uint8_t e[4];
		utf8proc_ssize_t k = utf8proc_encode_char(cps[i], e);
		if (o + (size_t)k + 1 > size)
			break;
		memcpy(buf + o, e, (size_t)k);
		o += (size_t)k;
	}
	if (size)
		buf[o] = 0;
	return o;
}

void text_free(struct text *t)
{
	if (!t)
		return;
	free(t->orig);
	free(t->tok);
	free(t->keys);
	for (int i = 0; i < t->nmore; i++)
		free(t->more[i]);
	free(t->more);
	free(t);
}

enum err text_split(struct text *t, int i, const size_t *cuts, int ncuts)
{
	if (i < 0 || i >= t->n || ncuts < 1)
		return ERR_INVALID;
	const struct text_token old = t->tok[i];
	for (int c = 0; c < ncuts; c++)
		if (cuts[c] == 0 || cuts[c] >= old.key_len || (c > 0 && cuts[c] <= cuts[c - 1]))
			return ERR_INVALID;
	char **more = realloc(t->more, (size_t)(t->nmore + 1) * sizeof(*more));
	if (!more)
		return ERR_NOMEM;
	t->more = more;
	struct text_token *tok = realloc(t->tok, (size_t)(t->n + ncuts + 1) * sizeof(*tok));
	if (!tok)
		return ERR_NOMEM;
	t->tok = tok;
	char *keys = malloc(old.key_len + (size_t)ncuts + 1);
	if (!keys)
		return ERR_NOMEM;
	t->more[t->nmore++] = keys;
	memmove(&t->tok[i + ncuts + 1], &t->tok[i + 1], (size_t)(t->n - i - 1) * sizeof(*tok));
	t->n += ncuts;
	size_t from = 0, o = 0;
	for (int c = 0; c <= ncuts; c++) {
		size_t to = c < ncuts ? cuts[c] : old.key_len;
		struct text_token *tk = &t->tok[i + c];
		*tk = old;
		memcpy(keys + o, old.key + from, to - from);
		keys[o + to - from] = 0;
		tk->key = keys + o;
		tk->key_len = to - from;
		tk->digits = false;
		tk->id = -1;
		if (c > 0) {
			tk->start = old.end;
			tk->pause = false;
			tk->sep = 0;
		}
		o += to - from + 1;
		from = to;
	}
	return ERR_OK;
}

enum err text_new(const char *s, struct text **out)
{
	enum err e = ERR_NOMEM;
	struct text *t = calloc(1, sizeof(*t));
	char *clean = NULL;
	if (!s)
		s = "";
	if (!t)
		goto out;
	clean = sanitize(s, strlen(s));
	if (!clean)
		goto out;
	bool ascii = true;
	for (const char *p = clean; *p && ascii; p++)
		ascii = (unsigned char)*p < 0x80;
	utf8proc_uint8_t *nfc = NULL;
	if (ascii) {
		t->orig = clean; /* ASCII is its own NFC */
		clean = NULL;
	} else if (utf8proc_map((const utf8proc_uint8_t *)clean, 0, &nfc,
				UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE) < 0) {
		t->orig = clean; /* cannot happen on sanitized text; keep it as is */
		clean = NULL;
	} else {
		t->orig = (char *)nfc;
	}
	size_t len = strlen(t->orig);
	/* at most one token per byte; keys grow by at most 3 bytes per input byte (casefold) */
	t->tok = malloc((len + 1) * sizeof(*t->tok));
	t->keys = malloc(len * 4 + 1);
	if (!t->tok || !t->keys)
		goto out;

	size_t kpos = 0, i = 0;
	bool pause = false;
	int nsep = 0;
	char sepch = 0;
	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)t->orig + i,
						      (utf8proc_ssize_t)(len - i), &cp);
		if (k <= 0) {
			i++;
			continue;
		}
		int cls = char_class(cp);
		if (cls == 0) {
			if (is_pause(cp))
				pause = true;
			nsep++;
			sepch = (cp == '/' || cp == '-' || cp == '.') ? (char)cp : ' ';
			i += (size_t)k;
			continue;
		}
		/* a word: same class (letters with marks, or digits) */
		size_t start = i;
		bool latin = cp < 0x0250;
		while (i < len) {
			utf8proc_int32_t c2;
			utf8proc_ssize_t k2 = utf8proc_iterate((const utf8proc_uint8_t *)t->orig + i,
							       (utf8proc_ssize_t)(len - i), &c2);
			if (k2 <= 0)
				break;
			int c2cls = char_class(c2);
			if (c2cls == 0 && cls == 1 && is_apostrophe(c2) && latin) {
				/* don't, ma'am: keep the word whole when a letter follows */
				utf8proc_int32_t c3 = 0;
				if (i + (size_t)k2 < len)
					utf8proc_iterate((const utf8proc_uint8_t *)t->orig + i + k2,
							 (utf8proc_ssize_t)(len - i - (size_t)k2), &c3);
				if (char_class(c3) == 1) {
					i += (size_t)k2;
					continue;
				}
			}
			if (c2cls != cls)
				break;
			i += (size_t)k2;
		}
		struct text_token *tk = &t->tok[t->n];
		tk->start = start;
		tk->end = i;
		tk->latin = latin;
		tk->pause = t->n > 0 && pause;
		tk->sep = (t->n > 0 && nsep == 1 && sepch != ' ') ? sepch : 0;
		tk->id = -1;
		size_t room = len * 4 + 1 - kpos;
		size_t kl = text_fold_word(t->orig + start, i - start, t->keys + kpos, room);
		tk->key_len = kl;
		tk->digits = kl > 0;
		for (size_t x = 0; x < kl; x++)
			if (t->keys[kpos + x] < '0' || t->keys[kpos + x] > '9')
				tk->digits = false;
		/* key pointers are set once the storage stops moving */
		tk->key = (const char *)(uintptr_t)kpos;
		kpos += kl + 1;
		t->n++;
		pause = false;
		nsep = 0;
		sepch = 0;
	}
	for (int x = 0; x < t->n; x++)
		t->tok[x].key = t->keys + (uintptr_t)t->tok[x].key;
	*out = t;
	t = NULL;
	e = ERR_OK;
out:
	free(clean);
	text_free(t);
	return e;
}

char *text_span(const struct text *t, int a, int b)
{
	size_t n = 1;
	for (int i = a; i <= b; i++)
		n += t->tok[i].end - t->tok[i].start + 1;
	char *s = malloc(n);
	if (!s)
		return NULL;
	size_t o = 0;
	for (int i = a; i <= b; i++) {
		if (t->tok[i].end == t->tok[i].start)
			continue; /* a part of a split word, said in the first part */
		if (o > 0)
			s[o++] = ' ';
		size_t l = t->tok[i].end - t->tok[i].start;
		memcpy(s + o, t->orig + t->tok[i].start, l);
		o += l;
	}
	s[o] = 0;
	return s;
}
