#include "namematch.h"

#include <stdbool.h>
#include <string.h>
#include <utf8proc.h>

#include "text.h"

#define KEYMAX 96
#define MAXWORDS 8

/* Latin letters for the Devanagari block U+0900-U+097F: consonants carry no vowel (the
 * inherent a is added unless a matra or virama follows). Sounds are those of standard
 * Hindi romanization (Hunterian). */
struct dev {
	const char *lat;
	char kind; /* 'c' consonant, 'v' independent vowel, 'm' matra, 'n' nasal sign, 'x' virama */
};

static struct dev dev_of(utf8proc_int32_t cp)
{
	static const char *const cons[] = {
		/* 0915 */ "k", "kh", "g", "gh", "n", "ch", "chh", "j", "jh", "n", "t", "th", "d",
		"dh", "n", "t", "th", "d", "dh", "n", "n", "p", "ph", "b", "bh", "m", "y", "r", "r",
		"l", "l", "l", "v", "sh", "sh", "s", "h",
	};
	static const char *const vow[] = {
		/* 0904 */ "e", "a", "aa", "i", "ii", "u", "uu", "ri", "li", "e", "e", "e", "ai",
		"o", "o", "o", "au",
	};
	static const char *const mat[] = {
		/* 093E */ "aa", "i", "ii", "u", "uu", "ri", "ri", "e", "e", "e", "ai", "o", "o", "o",
		"au",
	};
	if (cp >= 0x0915 && cp <= 0x0939)
		return (struct dev){cons[cp - 0x0915], 'c'};
	if (cp >= 0x0904 && cp <= 0x0914)
		return (struct dev){vow[cp - 0x0904], 'v'};
	if (cp >= 0x093E && cp <= 0x094C)
		return (struct dev){mat[cp - 0x093E], 'm'};
	switch (cp) {
	case 0x0958: return (struct dev){"k", 'c'};
	case 0x0959: return (struct dev){"kh", 'c'};
	case 0x095A: return (struct dev){"g", 'c'};
	case 0x095B: return (struct dev){"j", 'c'};
	case 0x095C: return (struct dev){"d", 'c'};
	case 0x095D: return (struct dev){"dh", 'c'};
	case 0x095E: return (struct dev){"f", 'c'};
	case 0x095F: return (struct dev){"y", 'c'};
	case 0x0901: case 0x0902: return (struct dev){"n", 'n'};
	case 0x0903: return (struct dev){"h", 'n'};
	case 0x094D: return (struct dev){"", 'x'};
	case 0x0960: return (struct dev){"ri", 'v'};
	default: return (struct dev){"", 0};
	}
}

static void append(char *buf, size_t *n, size_t size, const char *s)
{
	for (; *s && *n + 1 < size; s++)
		buf[(*n)++] = *s;
}

/* Latin letters of a word: Devanagari transliterated, Latin lowercased without accents,
 * everything else dropped. */
static size_t latin_of(const char *word, size_t len, char *out, size_t size)
{
	char folded[KEYMAX * 4];
	size_t fl = text_fold_word(word, len, folded, sizeof(folded));
	size_t n = 0;
	bool pending_a = false; /* a consonant waits to see whether its inherent a is said */
	for (size_t i = 0; i < fl;) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)folded + i,
						      (utf8proc_ssize_t)(fl - i), &cp);
		if (k <= 0)
			break;
		i += (size_t)k;
		if (cp < 128) {
			if (pending_a)
				append(out, &n, size, "a");
			pending_a = false;
			if (cp >= 'a' && cp <= 'z') {
				char c[2] = {(char)cp, 0};
				append(out, &n, size, c);
			}
			continue;
		}
		struct dev d = dev_of(cp);
		switch (d.kind) {
		case 'c':
			if (pending_a)
				append(out, &n, size, "a");
			append(out, &n, size, d.lat);
			pending_a = true;
			break;
		case 'm':
			pending_a = false;
			append(out, &n, size, d.lat);
			break;
		case 'x':
			pending_a = false;
			break;
		case 'v':
		case 'n':
			if (pending_a)
				append(out, &n, size, "a");
			pending_a = false;
			append(out, &n, size, d.lat);
			break;
		default:
			break;
		}
	}
	if (pending_a)
		append(out, &n, size, "a");
	out[n] = 0;
	return n;
}

static bool vowel(char c)
{
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

static bool consonant(char c)
{
	return c >= 'a' && c <= 'z' && !vowel(c);
}

/* replace every occurrence of from (at positions where ok() agrees) by to, in place */
static void subst(char *s, const char *from, const char *to)
{
	char out[KEYMAX * 2];
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	for (size_t i = 0; s[i] && n + tl + 1 < sizeof(out);) {
		if (strncmp(s + i, from, fl) == 0) {
			memcpy(out + n, to, tl);
			n += tl;
			i += fl;
		} else {
			out[n++] = s[i++];
		}
	}
	out[n] = 0;
	strcpy(s, out);
}

static void fold(char *s)
{
	char t[KEYMAX * 2];
	size_t n;
	/* letters for the same sound */
	subst(s, "x", "ks");
	subst(s, "ck", "k");
	subst(s, "q", "k");
	subst(s, "z", "j");
	n = 0;
	for (size_t i = 0; s[i]; i++)
		t[n++] = (s[i] == 'c' && s[i + 1] != 'h') ? 'k' : s[i];
	t[n] = 0;
	/* aspiration and sh: an h after a consonant */
	n = 0;
	for (size_t i = 0; t[i]; i++)
		if (!(t[i] == 'h' && i > 0 && consonant(t[i - 1]) && t[i - 1] != 'h'))
			s[n++] = t[i];
	s[n] = 0;
	subst(s, "f", "p");
	subst(s, "w", "b");
	subst(s, "v", "b");
	subst(s, "ks", "x");
	if (s[0] == 'y')
		s[0] = 'j';
	/* vowels */
	subst(s, "aye", "e");
	subst(s, "ee", "i");
	subst(s, "ii", "i");
	subst(s, "oo", "u");
	subst(s, "uu", "u");
	subst(s, "aa", "a");
	subst(s, "ai", "e");
	subst(s, "ae", "e");
	subst(s, "au", "o");
	subst(s, "ou", "o");
	n = strlen(s);
	if (n >= 3 && s[n - 2] == 'e' && s[n - 1] == 'r' && consonant(s[n - 3]))
		s[n - 2] = 'r', s[n - 1] = 0; /* Dharmender = Dharmendra */
	if (n >= 3 && s[n - 2] == 'i' && s[n - 1] == 'e' && consonant(s[n - 3]))
		s[n - 1] = 0; /* Rinkie = Rinki */
	else if (n >= 3 && s[n - 2] == 'e' && s[n - 1] == 'y' && consonant(s[n - 3]))
		s[n - 2] = 'i', s[n - 1] = 0; /* Pinkey = Pinki (Pandey: see word_key) */
	n = 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == 'y' && i > 0 && s[i - 1] == 'i' && (vowel(s[i + 1]) || !s[i + 1]))
			continue; /* Priya = Pria, Gudiya = Gudia */
		if (s[i] == 'y' && !s[i + 1] && i > 0 && consonant(s[i - 1])) {
			t[n++] = 'i'; /* Rinky = Rinki */
			continue;
		}
		if (s[i] == 'n' && s[i + 1] == 'g' && (!s[i + 2] || consonant(s[i + 2]))) {
			t[n++] = 'n'; /* Singh = सिंह */
			i++;
			continue;
		}
		if (s[i] == 'm' && (s[i + 1] == 'p' || s[i + 1] == 'b')) {
			t[n++] = 'n'; /* anusvara before a labial */
			continue;
		}
		if (s[i] == 'a' && n > 0)
			continue; /* schwa and written a alike */
		if (n > 0 && t[n - 1] == s[i])
			continue; /* doubled letters */
		t[n++] = s[i];
	}
	t[n] = 0;
	strcpy(s, t);
}

/* The vowels of a word's middle syllables (neither its first nor its last vowel) e and o
 * written i and u, in place: Manesha / Manisha, Anoradha / Anuradha. */
static void middle_slip(char *s)
{
	int groups = 0;
	for (size_t i = 0; s[i]; i++)
		if (vowel(s[i]) && (i == 0 || !vowel(s[i - 1])))
			groups++;
	int g = 0;
	for (size_t i = 0; s[i]; i++) {
		if (!vowel(s[i]) || (i > 0 && vowel(s[i - 1])))
			continue;
		g++;
		bool single = !vowel(s[i + 1]);
		if (g > 1 && g < groups && single && (s[i] == 'e' || s[i] == 'o'))
			s[i] = s[i] == 'e' ? 'i' : 'u';
	}
}

/* Everything the judge compares about one word. */
struct wordkey {
	char k[KEYMAX];    /* the phonetic key (namematch_key) */
	char alt[KEYMAX];  /* a final -ey read as e (Pandey / पांडे), else "" */
	char slip[KEYMAX]; /* the key after middle_slip */
	bool final_a;      /* the word ends in a (its key has dropped it) */
};

/* dst (KEYMAX bytes) = src, cut to fit */
static void set_key(char *dst, const char *src)
{
	size_t n = strlen(src);
	if (n >= KEYMAX)
		n = KEYMAX - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static void word_key(const char *word, size_t len, struct wordkey *w)
{
	char s[KEYMAX * 2], t[KEYMAX * 2];
	latin_of(word, len, s, KEYMAX);
	size_t n = strlen(s);
	w->final_a = n > 0 && s[n - 1] == 'a';
	strcpy(t, s);
	fold(t);
	set_key(w->k, t);
	w->alt[0] = 0;
	if (n >= 3 && s[n - 2] == 'e' && s[n - 1] == 'y' && consonant(s[n - 3])) {
		strcpy(t, s);
		t[n - 1] = 0;
		fold(t);
		set_key(w->alt, t);
	}
	strcpy(t, s);
	middle_slip(t);
	fold(t);
	set_key(w->slip, t);
}

size_t namematch_key(const char *word, size_t len, char *buf, size_t size)
{
	char s[KEYMAX * 2];
	if (!size)
		return 0;
	latin_of(word, len, s, KEYMAX);
	fold(s);
	size_t n = strlen(s);
	if (n + 1 > size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return n;
}

const char *namematch_verdict_name(enum namematch_verdict v)
{
	switch (v) {
	case NAMEMATCH_SAME: return "same";
	case NAMEMATCH_DIFFERENT: return "different";
	default: return "unsure";
	}
}

struct keys {
	struct wordkey w[MAXWORDS];
	int n;
};

static bool keys_of(const char *s, struct keys *out)
{
	struct text *t = NULL;
	out->n = 0;
	if (text_new(s, &t) != ERR_OK)
		return false;
	for (int i = 0; i < t->n && out->n < MAXWORDS; i++) {
		if (t->tok[i].digits)
			continue;
		word_key(t->orig + t->tok[i].start, t->tok[i].end - t->tok[i].start, &out->w[out->n]);
		if (out->w[out->n].k[0])
			out->n++;
	}
	text_free(t);
	return true;
}

/* a without one b (v/w) or y that follows a consonant equals b */
static bool glide_only(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la != lb + 1)
		return false;
	for (size_t i = 1; i < la; i++)
		if ((a[i] == 'b' || a[i] == 'y') && consonant(a[i - 1]) && strncmp(a, b, i) == 0 &&
		    strcmp(a + i + 1, b + i) == 0)
			return true;
	return false;
}

/* a without one of the vowels in set, after its first letter (and, with medial, before
 * its last and after another vowel: not in the first syllable), equals b. The key drops
 * every a, so this finds a short a written otherwise. */
static bool vowel_only(const char *a, const char *b, const char *set, bool medial)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la != lb + 1)
		return false;
	for (size_t i = 1; i < (medial ? la - 1 : la); i++)
		if (strchr(set, a[i]) && strncmp(a, b, i) == 0 && strcmp(a + i + 1, b + i) == 0)
			return !medial || strcspn(a, "aeiou") < i;
	return false;
}

/* a is b with a short i before its last letter, a consonant, both words ending in a:
 * the i of -ila, -ika said or left out (Urmila / Urmla, Priyanka / Priyanika); or a's
 * -ia is b's -ya after a consonant (Divia / Divya, Sania / Sanya) */
static bool i_before_final_a(const struct wordkey *a, const struct wordkey *b)
{
	size_t la = strlen(a->k);
	if (!a->final_a || !b->final_a || la < 3)
		return false;
	if (strlen(b->k) == la)
		return a->k[la - 1] == 'i' && b->k[la - 1] == 'y' && consonant(a->k[la - 2]) &&
		       strncmp(a->k, b->k, la - 1) == 0;
	return strlen(b->k) + 1 == la && a->k[la - 2] == 'i' && consonant(a->k[la - 1]) &&
	       strncmp(a->k, b->k, la - 2) == 0 && b->k[la - 2] == a->k[la - 1];
}

/* a is b with an o or u before its last letter, a consonant (kiron / kirn) */
static bool last_syllable_ou(const char *a, const char *b)
{
	size_t la = strlen(a);
	return la >= 3 && strlen(b) + 1 == la && (a[la - 2] == 'o' || a[la - 2] == 'u') &&
	       consonant(a[la - 1]) && strncmp(a, b, la - 2) == 0 && b[la - 2] == a[la - 1];
}

/* a and b equal once every h is dropped: an aspiration written elsewhere (Jahnavi /
 * Jhanvi) */
static bool same_without_h(const char *a, const char *b)
{
	while (*a || *b) {
		if (*a == 'h') {
			a++;
			continue;
		}
		if (*b == 'h') {
			b++;
			continue;
		}
		if (*a != *b)
			return false;
		a++;
		b++;
	}
	return true;
}

static enum namematch_verdict word_verdict(const struct wordkey *x, const struct wordkey *y)
{
	const char *a = x->k, *b = y->k;
	if (strcmp(a, b) == 0 || (x->alt[0] && strcmp(x->alt, b) == 0) ||
	    (y->alt[0] && strcmp(a, y->alt) == 0))
		return NAMEMATCH_SAME;
	/* spoken Hindi drops the short i of -ila, -ika (Urmila / Urmla), and writes the
	 * vowel of a middle syllable e or o for i or u (Manisha / Manesha): one name. The
	 * first syllable's vowel is the name's own (Sumit / Samit, Kiran / Karan). */
	if (i_before_final_a(x, y) || i_before_final_a(y, x) || strcmp(x->slip, y->slip) == 0)
		return NAMEMATCH_SAME;
	/* Bengali and English spellings write the short a of a name's last syllable as o or
	 * u (Kiron / Kiran, Mohun / Mohan): the same name. Earlier in the name an o is a
	 * vowel of its own (Komal / Kamla). */
	if (last_syllable_ou(a, b) || last_syllable_ou(b, a))
		return NAMEMATCH_SAME;
	/* e for a short a (Mohammed / Mohammad), a v/w or y glide (Sapna / Swapna), a short i
	 * against a short a inside the name (Rukmini / Rukmani, Mohini / Mohani, which can be
	 * two names): ask the caller */
	if (glide_only(a, b) || glide_only(b, a) || vowel_only(a, b, "e", false) ||
	    vowel_only(b, a, "e", false) || vowel_only(a, b, "i", true) || vowel_only(b, a, "i", true) ||
	    same_without_h(a, b))
		return NAMEMATCH_UNSURE;
	return NAMEMATCH_DIFFERENT;
}

static void joined(const struct keys *k, char *out, size_t size)
{
	out[0] = 0;
	for (int i = 0; i < k->n; i++)
		strncat(out, k->w[i].k, size - strlen(out) - 1);
}

/* every word of the shorter is among the longer's, in order */
static bool words_within(const struct keys *s, const struct keys *l)
{
	int j = 0;
	for (int i = 0; i < l->n && j < s->n; i++)
		if (strcmp(s->w[j].k, l->w[i].k) == 0)
			j++;
	return j == s->n;
}

enum namematch_verdict namematch_judge(const char *a, const char *b)
{
	struct keys ka, kb;
	if (!keys_of(a ? a : "", &ka) || !keys_of(b ? b : "", &kb))
		return NAMEMATCH_UNSURE;
	if (ka.n == 0 || kb.n == 0)
		return NAMEMATCH_UNSURE;
	char ja[KEYMAX * MAXWORDS], jb[KEYMAX * MAXWORDS];
	joined(&ka, ja, sizeof(ja));
	joined(&kb, jb, sizeof(jb));
	if (strcmp(ja, jb) == 0)
		return NAMEMATCH_SAME;
	if (ka.n == kb.n) {
		enum namematch_verdict v = NAMEMATCH_SAME;
		for (int i = 0; i < ka.n; i++) {
			enum namematch_verdict w = word_verdict(&ka.w[i], &kb.w[i]);
			if (w == NAMEMATCH_DIFFERENT)
				return NAMEMATCH_DIFFERENT;
			if (w == NAMEMATCH_UNSURE)
				v = NAMEMATCH_UNSURE;
		}
		return v;
	}
	if ((ka.n < kb.n && words_within(&ka, &kb)) || (kb.n < ka.n && words_within(&kb, &ka)))
		return NAMEMATCH_UNSURE;
	return NAMEMATCH_DIFFERENT;
}

size_t namematch_latin(const char *name, char *buf, size_t size)
{
	struct text *t = NULL;
	size_t n = 0;

	if (!size)
		return 0;
	buf[0] = 0;
	if (text_new(name ? name : "", &t) != ERR_OK)
		return 0;
	for (int i = 0; i < t->n; i++) {
		char w[KEYMAX * 2];
		size_t len = t->tok[i].end - t->tok[i].start;
		if (t->tok[i].digits || !latin_of(t->orig + t->tok[i].start, len, w, sizeof w))
			continue;
		if (n)
			append(buf, &n, size, " ");
		if (w[0] >= 'a' && w[0] <= 'z') /* a name: capital first letter */
			w[0] = (char)(w[0] - 'a' + 'A');
		append(buf, &n, size, w);
	}
	buf[n] = 0;
	text_free(t);
	return n;
}

/* The Devanagari for Latin letters, read the way latin_of writes them (Hunterian), the
 * longest spelling first. Where dev_of gives one spelling to several letters (t for the
 * dental and the retroflex), the letter names use most is taken (dental t, d, n). */
static const struct {
	const char *lat, *cons;
} lat_cons[] = {
	{"chh", "छ"}, {"kh", "ख"}, {"gh", "घ"}, {"ch", "च"}, {"jh", "झ"}, {"th", "थ"},
	{"dh", "ध"},  {"ph", "फ"}, {"bh", "भ"}, {"sh", "श"}, {"ksh", "क्ष"}, {"k", "क"},
	{"g", "ग"},   {"c", "क"},  {"j", "ज"},  {"t", "त"},  {"d", "द"},  {"n", "न"},
	{"p", "प"},   {"b", "ब"},  {"m", "म"},  {"y", "य"},  {"r", "र"},  {"l", "ल"},
	{"v", "व"},   {"w", "व"},  {"s", "स"},  {"h", "ह"},  {"f", "फ़"}, {"z", "ज़"},
	{"q", "क"},   {"x", "क्ष"},
};
static const struct {
	const char *lat, *vowel, *matra; /* matra "" for the inherent a */
} lat_vow[] = {
	{"aa", "आ", "ा"}, {"ai", "ऐ", "ै"}, {"au", "औ", "ौ"}, {"ee", "ई", "ी"}, {"ii", "ई", "ी"},
	{"oo", "ऊ", "ू"}, {"uu", "ऊ", "ू"}, {"a", "अ", ""},   {"i", "इ", "ि"},  {"u", "उ", "ु"},
	{"e", "ए", "े"},  {"o", "ओ", "ो"},
};

size_t namematch_devanagari(const char *name, char *buf, size_t size)
{
	char lat[KEYMAX * 4];
	size_t n = 0;
	bool after_cons = false; /* the last letter written was a consonant, vowel not yet said */

	if (!size)
		return 0;
	namematch_latin(name, lat, sizeof lat);
	for (char *p = lat; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	for (const char *p = lat; *p;) {
		size_t best = 0;
		int bi = -1;
		bool cons = false;
		if (*p == ' ') {
			after_cons = false;
			append(buf, &n, size, " ");
			p++;
			continue;
		}
		for (size_t i = 0; i < sizeof lat_cons / sizeof lat_cons[0]; i++) {
			size_t l = strlen(lat_cons[i].lat);
			if (l > best && strncmp(p, lat_cons[i].lat, l) == 0)
				best = l, bi = (int)i, cons = true;
		}
		for (size_t i = 0; i < sizeof lat_vow / sizeof lat_vow[0]; i++) {
			size_t l = strlen(lat_vow[i].lat);
			if (l > best && strncmp(p, lat_vow[i].lat, l) == 0)
				best = l, bi = (int)i, cons = false;
		}
		if (bi < 0) { /* not a letter these tables know */
			p++;
			continue;
		}
		if (cons) {
			if (after_cons) /* two consonants together: a conjunct */
				append(buf, &n, size, "्");
			append(buf, &n, size, lat_cons[bi].cons);
			after_cons = true;
		} else {
			bool final = p[best] == 0 || p[best] == ' ';
			const char *m = lat_vow[bi].matra;
			/* names end long: Sunita सुनीता's final a and Devi देवी's final i */
			if (final && after_cons && strcmp(lat_vow[bi].lat, "a") == 0)
				m = "ा";
			else if (final && after_cons && strcmp(lat_vow[bi].lat, "i") == 0)
				m = "ी";
			append(buf, &n, size, after_cons ? m : lat_vow[bi].vowel);
			after_cons = false;
		}
		p += best;
	}
	buf[n] = 0;
	return n;
}
