/* text: Unicode normalization and tokenizing of what a caller said, for matching against
 * the word lists. Built on utf8proc (NFC, NFD, case folding, categories).
 *
 * Two forms of every word are kept:
 * - the caller's own text, NFC, as written (names keep the caller's script and spelling);
 * - a folded key used for matching: case folded, Latin accents removed, Devanagari nukta
 *   dropped (क़ → क, ड़ → ड), chandrabindu written as anusvara (पाँच → पांच), candra
 *   vowels as plain ones (डॉक्टर → डोक्टर), a nasal consonant + virama before a consonant
 *   as anusvara (पन्द्रह → पंद्रह), zero-width joiners removed, Devanagari digits as ASCII.
 * Words split at spaces, punctuation and at a change between digits and letters. */
#ifndef FORMDESK_TEXT_H
#define FORMDESK_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"

struct text_token {
	const char *key;   /* folded form, NUL-terminated, owned by the text */
	size_t key_len;    /* bytes */
	size_t start, end; /* byte span of the word in text.orig */
	bool digits;       /* key is ASCII digits only */
	bool latin;        /* the word is written in Latin letters */
	bool pause;        /* punctuation (, . ; ! ? … । -) stands between it and the word before */
	char sep;          /* '/', '-' or '.' when exactly that character joins it to the word
			      before (dates such as 15-8-24), else 0 */
	int id;            /* word-list id, -1 unknown; filled by lexicon_tag */
};

struct text {
	char *orig;               /* the input, NFC, invalid UTF-8 replaced by U+FFFD */
	struct text_token *tok;
	int n;
	char *keys;               /* storage of the keys */
	char **more;              /* key storage of words split by text_split */
	int nmore;
};

/* text_new: normalize and tokenize s (any bytes; NULL is taken as ""). Output: *out new
 * text (caller frees with text_free). Errors: ERR_NOMEM. */
enum err text_new(const char *s, struct text **out);
/* text_free: free t; NULL does nothing. */
void text_free(struct text *t);

/* text_split: replace token i of t by the parts of its key cut at the byte offsets
 * cuts[0..ncuts-1] (increasing, inside the key, on character boundaries): a word that ran
 * two together ("दोहजार"). The first part keeps the word's place in t->orig, the others
 * have an empty span at its end; parts are untagged (id -1). Errors: ERR_NOMEM (t is then
 * unchanged), ERR_INVALID for cuts that do not fit. */
enum err text_split(struct text *t, int i, const size_t *cuts, int ncuts);

/* text_span: a copy of the caller's words from token a to token b inclusive, written as
 * they were said but with the words joined by single spaces (punctuation between them
 * dropped). Output: new string (caller frees), NULL on ERR_NOMEM. */
char *text_span(const struct text *t, int a, int b);

/* text_fold_word: the folded key of one word, as text_new would make it, written into
 * buf (size bytes, NUL-terminated, truncated at a character boundary). Returns the key's
 * length in bytes. */
size_t text_fold_word(const char *w, size_t len, char *buf, size_t size);

#endif
