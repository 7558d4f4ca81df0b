/* replycheck: five-dimension grading of a REPLY line (replycheck.h). */
#include "replycheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "wer.h"

/* Acknowledgement openings REPLY must not say (the paper: the acknowledgement is
 * EXTRACT's, spoken at once; REPLY only asks). Written as wer_normalize leaves them. */
static const char *const REPLYCHECK_ACKS[] = {
	"ठीक है", "ठीक", "धन्यवाद", "शुक्रिया", "अच्छा", "बहुत अच्छा", "बहुत बढ़िया", "बढ़िया",
	"समझ गई", "समझ गया", "जी हाँ", "जी हां", "नोट कर लिया", "बहुत बढिया", "theek hai",
	"thik hai", "dhanyavaad", "dhanyavad", "shukriya", "accha", "achha", "okay", "ok",
	"thank you", "thanks", "got it", "great", "noted", "alright", "sure",
};

/* words: the normalized words of s (space separated, new string in *out) and their
 * count. */
static enum err norm(const char *s, char **out)
{
	return wer_normalize(s ? s : "", out);
}

/* has_words: whether the words w (normalized) occur in text (normalized) as whole words. */
static bool has_words(const char *text, const char *w)
{
	size_t n = strlen(w);
	if (!n)
		return false;
	for (const char *p = strstr(text, w); p; p = strstr(p + 1, w))
		if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

/* overlap: the fraction of ref's words found in text (both normalized); 0 for no words. */
static double overlap(const char *text, const char *ref)
{
	char *copy = strdup(ref), *save = NULL;
	int n = 0, hit = 0;
	if (!copy)
		return 0;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		n++;
		hit += has_words(text, w);
	}
	free(copy);
	return n ? (double)hit / n : 0;
}

static bool starts_with_words(const char *text, const char *w)
{
	size_t n = strlen(w);
	return strncmp(text, w, n) == 0 && (text[n] == '\0' || text[n] == ' ');
}

/* hindi_share: of the words of s (split at white space) that have letters (Unicode
 * categories L*), the share written mostly in Devanagari (U+0900..U+097F); -1 without such
 * words or on bad UTF-8. Vowel signs are marks, not letters: they belong to theirs. */
static double hindi_share(const char *s)
{
	const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
	long words = 0, deva_words = 0, letters = 0, deva = 0;
	utf8proc_int32_t cp;
	utf8proc_ssize_t n;
	for (;;) {
		bool end = !*p;
		if (!end) {
			if ((n = utf8proc_iterate(p, -1, &cp)) <= 0)
				return -1;
			p += n;
		}
		if (end || utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS || cp == '\t' ||
		    cp == '\n' || cp == '\r') {
			if (letters) {
				words++;
				deva_words += deva * 2 > letters;
			}
			letters = deva = 0;
			if (end)
				break;
			continue;
		}
		utf8proc_category_t c = utf8proc_category(cp);
		if (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) {
			letters++;
			deva += cp >= 0x0900 && cp <= 0x097F;
		}
	}
	return words ? (double)deva_words / words : -1;
}

static bool multi_line(const char *s)
{
	size_t a = strspn(s, " \t\r\n"), b = strlen(s);
	while (b > a && strchr(" \t\r\n", s[b - 1]))
		b--;
	for (size_t i = a; i < b; i++)
		if (s[i] == '\n' || s[i] == '\r')
			return true;
	/* U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR: E2 80 A8 / A9 */
	for (size_t i = a; i + 2 < b; i++)
		if ((unsigned char)s[i] == 0xE2 && (unsigned char)s[i + 1] == 0x80 &&
		    ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
			return true;
	return false;
}

static void why(struct replycheck *r, const char *fmt, const char *arg)
{
	if (!r->why[0])
		snprintf(r->why, sizeof r->why, fmt, arg);
}

enum err replycheck_grade(const struct replycheck_input *in, struct replycheck *out)
{
	char *text = NULL, *ref = NULL, *label = NULL, *ans = NULL, *said = NULL;
	struct replycheck r = {0};
	enum err e;
	double share;

	if ((e = norm(in->text, &text)) != ERR_OK || (e = norm(in->reference, &ref)) != ERR_OK ||
	    (e = norm(in->label, &label)) != ERR_OK || (e = norm(in->answer, &ans)) != ERR_OK ||
	    (e = norm(in->transcript, &said)) != ERR_OK)
		goto out;

	double ov_ref = ref[0] ? overlap(text, ref) : 0, ov_label = label[0] ? overlap(text, label) : 0;
	r.asks = ov_ref >= 0.5 || ov_label >= 0.5;
	if (!r.asks && text[0]) {
		const char *t = in->text ? in->text : "";
		size_t tl = strlen(t);
		while (tl > 0 && strchr(" \t\r\n", t[tl - 1]))
			tl--;
		r.asks_unsure = ov_ref > 0 || ov_label > 0 || (tl > 0 && t[tl - 1] == '?');
	}
	if (!r.asks)
		why(&r, "asks: the reply shares under half the words of the decided question%s", "");

	share = hindi_share(in->text ? in->text : "");
	r.hindi = share >= 0.75;
	if (!r.hindi)
		why(&r, "hindi: %s", share < 0 ? "no letters" : "under 75% of the words are Devanagari");

	r.single_line = !multi_line(in->text ? in->text : "");
	if (!r.single_line)
		why(&r, "single_line: the reply has a line break%s", "");

	r.no_ack = true;
	for (size_t i = 0; i < sizeof REPLYCHECK_ACKS / sizeof *REPLYCHECK_ACKS; i++)
		if (starts_with_words(text, REPLYCHECK_ACKS[i]) &&
		    !starts_with_words(ref, REPLYCHECK_ACKS[i])) {
			r.no_ack = false;
			why(&r, "no_ack: the reply opens with '%s'", REPLYCHECK_ACKS[i]);
			break;
		}

	r.no_echo = true;
	if (strlen(ans) >= 2 && has_words(text, ans) && !has_words(ref, ans)) {
		r.no_echo = false;
		why(&r, "no_echo: the reply repeats the answer '%s'", ans);
	} else if (strchr(said, ' ') && has_words(text, said) && !has_words(ref, said)) {
		r.no_echo = false;
		why(&r, "no_echo: the reply repeats the caller's words '%s'", said);
	}
	r.pass = r.asks && r.hindi && r.single_line && r.no_ack && r.no_echo;
	*out = r;
out:
	free(text);
	free(ref);
	free(label);
	free(ans);
	free(said);
	return e;
}
