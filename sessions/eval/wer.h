/* wer: word and character error rates of an STT transcript against its reference, after
 * Indic normalization, with the Levenshtein alignment, its substitution / deletion /
 * insertion counts and the aligned segments where the two differ; and LLM-WER, the FormBharo
 * paper's measure: each differing segment is judged, segments the judge calls equivalent
 * (same meaning, or phonetically similar spellings of the same word) are forgiven, and the
 * rate is recomputed over the genuine errors only.
 *
 * Normalization (wer_normalize), in this order:
 *   1. Unicode NFC with case folding (utf8proc: UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD), so
 *      Latin text compares without case;
 *   2. nukta folding: the nukta sign U+093C is removed (NFC leaves क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़ decomposed,
 *      Unicode's composition exclusions), and the precomposed ऩ ऱ ऴ become न र ळ;
 *   3. chandrabindu U+0901 becomes anusvara U+0902 (spoken alike; STT systems pick either);
 *   4. Devanagari digits U+0966..U+096F become ASCII 0..9;
 *   5. apostrophes (U+0027, U+2019) and format characters (category Cf: ZWJ, ZWNJ, soft
 *      hyphen) are deleted; every other punctuation character (categories P*, including
 *      danda । and double danda ॥) becomes a space;
 *   6. runs of white space become one space; leading and trailing space is dropped.
 *
 * Tokens: words are the space-separated pieces of the normalized text; characters are its
 * code points, the single spaces between words included (so a word split or joined costs
 * one character edit).
 *
 * Alignment: Levenshtein distance with unit costs (Levenshtein 1966). The backtrace runs
 * from the end and prefers, on ties, the diagonal (match or substitution), then deletion,
 * then insertion, so the alignment is deterministic. Rate = (S + D + I) / N, N the number
 * of reference tokens; with N = 0 the rate is 0 when the hypothesis is empty too, else 1.
 *
 * Segments: maximal runs of consecutive non-match steps of the alignment. Each segment's
 * ref and hyp texts are its tokens joined by single spaces (words) or concatenated
 * (characters); either may be "" (pure insertions, pure deletions). */
#ifndef FORMDESK_WER_H
#define FORMDESK_WER_H

#include <stdbool.h>
#include "base/err.h"

enum wer_unit {
	WER_WORDS,
	WER_CHARS,
};

struct wer_segment {
	char *ref;            /* reference text of the segment, "" when none */
	char *hyp;            /* hypothesis text, "" when none */
	int ref_start, ref_len; /* token span in the normalized reference */
	int hyp_start, hyp_len; /* token span in the normalized hypothesis */
	int subs, dels, ins;  /* edit steps inside the segment */
	bool forgiven;        /* set by wer_judge (or the caller): judged equivalent */
};

/* The alignment of one hypothesis against one reference. Read-only for callers, except
 * segments[i].forgiven. */
struct wer {
	enum wer_unit unit;
	char *ref_norm, *hyp_norm;    /* the normalized texts */
	int n_ref, n_hyp;             /* tokens */
	int hits, subs, dels, ins;
	char *ops;                    /* one step per char: '=' match, 'S', 'D', 'I'; NUL-ended */
	struct wer_segment *segments;
	int n_segments;
};

/* wer_normalize: text after the normalization above. Inputs: text (UTF-8, borrowed).
 * Output: *out new NUL-terminated string (caller frees with free()), written only on
 * success. Errors: ERR_PARSE (text is not valid UTF-8), ERR_NOMEM. */
enum err wer_normalize(const char *text, char **out);

/* wer_align: normalize ref and hyp (both UTF-8, borrowed) and align their tokens.
 * Output: *out a new struct wer (caller frees with wer_free), written only on success.
 * Errors: ERR_PARSE (invalid UTF-8), ERR_NOMEM (also when the alignment table would not
 * fit in memory). */
enum err wer_align(const char *ref, const char *hyp, enum wer_unit unit, struct wer **out);

/* wer_free: free w and everything it owns. wer_free(NULL) does nothing. */
void wer_free(struct wer *w);

/* wer_errors: S + D + I. */
int wer_errors(const struct wer *w);

/* wer_rate: (S + D + I) / N as a fraction (0.25 = 25%); the N = 0 rule above. */
double wer_rate(const struct wer *w);

/* wer_judge_fn: decide whether a differing segment is a genuine error. Inputs: ref and hyp
 * texts of the segment (normalized, borrowed, either may be ""). Output: *equivalent true
 * to forgive it. Returns ERR_OK, or an error that stops wer_judge. */
typedef enum err (*wer_judge_fn)(void *ctx, const char *ref, const char *hyp,
				 bool *equivalent);

/* wer_judge: ask judge(ctx, ...) about every segment of w in order and set its forgiven
 * flag (the paper's LLM-WER; an asynchronous caller may instead set the flags itself).
 * Errors: whatever judge returns, at the first failing segment (flags of the segments
 * already judged stay set). */
enum err wer_judge(struct wer *w, wer_judge_fn judge, void *ctx);

/* wer_genuine_errors: the edit steps of the segments not forgiven. */
int wer_genuine_errors(const struct wer *w);

/* wer_genuine_rate: LLM-WER, wer_genuine_errors / N (the N = 0 rule above). */
double wer_genuine_rate(const struct wer *w);

/* Corpus totals: rates over many utterances are total errors over total reference tokens
 * (not a mean of per-utterance rates). */
struct wer_sum {
	long n_ref;
	long errors;
	long genuine;
	long utterances;
};

/* wer_sum_add: add w's counts to s. */
void wer_sum_add(struct wer_sum *s, const struct wer *w);

/* wer_sum_rate, wer_sum_genuine_rate: errors / n_ref and genuine / n_ref; 0 when n_ref is
 * 0 and there are no errors, else 1 (as wer_rate). */
double wer_sum_rate(const struct wer_sum *s);
double wer_sum_genuine_rate(const struct wer_sum *s);

#endif
