/* turnkind: backchannels, unfinished turns and what was heard of the agent (turnkind.h). */
#include "turnkind.h"

#include <string.h>

#include "lexicon.h"
#include "text.h"

/* covered: whether every word of t is in a phrase tagged tag, the phrases one after
 * another. */
static bool covered(const struct lexicon *lex, const struct text *t, enum lexicon_tag tag)
{
	int i = 0;
	while (i < t->n) {
		int k = lexicon_match(lex, t, i, t->n, tag, NULL);
		if (k <= 0)
			return false;
		i += k;
	}
	return t->n > 0;
}

/* words: said tokenized and looked up; NULL when out of memory or said has no words. */
static struct text *words(const struct lexicon *lex, const char *said)
{
	struct text *t = NULL;
	if (!lex || !said || !said[0] || text_new(said, &t) != ERR_OK)
		return NULL;
	lexicon_tag_text(lex, t);
	if (t->n == 0) {
		text_free(t);
		return NULL;
	}
	return t;
}

bool turnkind_backchannel(const struct lexicon *lex, const char *said)
{
	struct text *t = words(lex, said);
	bool yes = t && covered(lex, t, LEX_BACKCHANNEL);
	text_free(t);
	return yes;
}

/* trails_off: said ends on "..." or "…", spaces after it aside. */
static bool trails_off(const char *said)
{
	size_t n = strlen(said);
	while (n && strchr(" \t\r\n", said[n - 1]))
		n--;
	return (n >= 3 && memcmp(said + n - 3, "...", 3) == 0) ||
	       (n >= 3 && memcmp(said + n - 3, "\xE2\x80\xA6", 3) == 0);
}

bool turnkind_unfinished(const struct lexicon *lex, const char *said)
{
	static const enum lexicon_tag ends[] = {LEX_UNFINISHED, LEX_NAME_BEFORE};
	struct text *t = words(lex, said);
	bool yes = false;

	if (!t)
		return false;
	if (trails_off(said) || covered(lex, t, LEX_FILLER))
		yes = true;
	for (int i = 0; !yes && i < t->n; i++)
		for (size_t k = 0; !yes && k < sizeof ends / sizeof ends[0]; k++) {
			int m = lexicon_match(lex, t, i, t->n, ends[k], NULL);
			yes = m > 0 && i + m == t->n;
		}
	text_free(t);
	return yes;
}

/* A code point begins at every byte that is not a continuation byte. */
static bool starts_char(unsigned char c)
{
	return (c & 0xC0) != 0x80;
}

/* Sentence ends: the danda, the double danda, '?', '!', '.'. */
static size_t sentence_end(const char *s)
{
	if (strncmp(s, "\xE0\xA5\xA4", 3) == 0 || strncmp(s, "\xE0\xA5\xA5", 3) == 0)
		return 3;
	return *s == '?' || *s == '!' || *s == '.' ? 1 : 0;
}

size_t turnkind_heard(const char *text, long played_ms, long total_ms, size_t *resume)
{
	size_t len = strlen(text), chars = 0, at, cut;

	for (size_t i = 0; i < len; i++)
		chars += starts_char((unsigned char)text[i]);
	if (total_ms <= 0)
		total_ms = (long)chars * TURNKIND_MS_PER_CHAR;
	if (played_ms < 0)
		played_ms = 0;
	if (played_ms >= total_ms || chars == 0) {
		if (resume)
			*resume = len;
		return len;
	}
	/* the byte where the character at played_ms / total_ms of the words begins */
	size_t want = (size_t)((double)chars * (double)played_ms / (double)total_ms), seen = 0;
	for (at = 0; at < len; at++)
		if (starts_char((unsigned char)text[at]) && seen++ == want)
			break;
	/* heard whole: up to the last space at or before it (the word cut is not heard) */
	cut = at;
	if (cut < len && text[cut] != ' ')
		while (cut > 0 && text[cut - 1] != ' ')
			cut--;
	while (cut > 0 && text[cut - 1] == ' ')
		cut--;
	if (resume) {
		size_t from = 0;
		for (size_t i = 0; i < at;) {
			size_t k = sentence_end(text + i);
			if (k) {
				i += k;
				while (i < len && text[i] == ' ')
					i++;
				if (i <= at)
					from = i;
			} else {
				i++;
			}
		}
		*resume = from;
	}
	return cut;
}
