/* WER, CER and LLM-WER (sessions/eval/wer.c), one case per row of tests/data/wer_norm.tsv,
 * wer_align.tsv and wer_llm.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sessions/eval/wer.h"
#include "tests/support/table.h"

/* "2/5" or "0.4". */
static double ratio(const char *s)
{
	const char *slash = strchr(s, '/');
	if (slash)
		return atof(s) / atof(slash + 1);
	return atof(s);
}

static void norm_row(void **state)
{
	const struct table_row *r = *state;
	char *got = NULL;
	/* twice: the second time the text is remembered (wer_normalize's memo) */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(wer_normalize(r->col[0], &got), ERR_OK);
		if (strcmp(got, r->col[1]))
			fail_msg("%s: got \"%s\", want \"%s\"", r->name, got, r->col[1]);
		free(got);
	}
}

/* More texts than the memo has slots, twice over: each still gets its own result (the
 * slot a text shares with another never answers for it). */
static void memo_collisions(void **state)
{
	(void)state;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3000; i++) {
			char in[32], want[32], *got = NULL;
			snprintf(in, sizeof in, "Word%d, KA!", i);
			snprintf(want, sizeof want, "word%d ka", i);
			assert_int_equal(wer_normalize(in, &got), ERR_OK);
			assert_string_equal(got, want);
			free(got);
		}
}

/* The segments as "ref>hyp|ref>hyp", "-" when none. New string. */
static char *segments(const struct wer *w)
{
	size_t cap = 16;
	for (int i = 0; i < w->n_segments; i++)
		cap += strlen(w->segments[i].ref) + strlen(w->segments[i].hyp) + 2;
	char *s = malloc(cap);
	strcpy(s, w->n_segments ? "" : "-");
	for (int i = 0; i < w->n_segments; i++) {
		if (i)
			strcat(s, "|");
		strcat(s, w->segments[i].ref);
		strcat(s, ">");
		strcat(s, w->segments[i].hyp);
	}
	return s;
}

static void align_row(void **state)
{
	const struct table_row *r = *state;
	enum wer_unit unit = !strcmp(r->col[0], "chars") ? WER_CHARS : WER_WORDS;
	struct wer *w = NULL;
	assert_int_equal(wer_align(r->col[1], r->col[2], unit, &w), ERR_OK);
	char *seg = segments(w);
	if (w->n_ref != atoi(r->col[3]) || w->subs != atoi(r->col[4]) ||
	    w->dels != atoi(r->col[5]) || w->ins != atoi(r->col[6]) ||
	    fabs(wer_rate(w) - ratio(r->col[7])) > 1e-12 || strcmp(seg, r->col[8]))
		fail_msg("%s: got N=%d S=%d D=%d I=%d rate=%.6f segments %s (ops %s); "
			 "want N=%s S=%s D=%s I=%s rate=%s segments %s", r->name, w->n_ref,
			 w->subs, w->dels, w->ins, wer_rate(w), seg, w->ops, r->col[3],
			 r->col[4], r->col[5], r->col[6], r->col[7], r->col[8]);
	/* Every step is counted once. */
	assert_int_equal(w->hits + w->subs + w->dels, w->n_ref);
	assert_int_equal(w->hits + w->subs + w->ins, w->n_hyp);
	free(seg);
	wer_free(w);
}

/* Stand-in judge: forgives the segments listed as "ref=hyp|ref=hyp". */
static enum err table_judge(void *ctx, const char *ref, const char *hyp, bool *equivalent)
{
	const char *list = ctx;
	char *pair = NULL;
	if (asprintf(&pair, "%s=%s", ref, hyp) < 0)
		return ERR_NOMEM;
	*equivalent = false;
	size_t n = strlen(pair);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, "|");
		if (len == n && !memcmp(p, pair, n))
			*equivalent = true;
		p += len;
		if (*p == '|')
			p++;
	}
	free(pair);
	return ERR_OK;
}

static void llm_row(void **state)
{
	const struct table_row *r = *state;
	struct wer *w = NULL;
	assert_int_equal(wer_align(r->col[0], r->col[1], WER_WORDS, &w), ERR_OK);
	const char *list = strcmp(r->col[2], "-") ? r->col[2] : "";
	assert_int_equal(wer_judge(w, table_judge, (void *)list), ERR_OK);
	if (wer_errors(w) != atoi(r->col[3]) || wer_genuine_errors(w) != atoi(r->col[4]) ||
	    fabs(wer_genuine_rate(w) - ratio(r->col[5])) > 1e-12) {
		char *seg = segments(w);
		fail_msg("%s: got errors=%d genuine=%d llm_wer=%.6f (segments %s); want %s %s %s",
			 r->name, wer_errors(w), wer_genuine_errors(w), wer_genuine_rate(w), seg,
			 r->col[3], r->col[4], r->col[5]);
	}
	wer_free(w);
}

static enum err failing_judge(void *ctx, const char *ref, const char *hyp, bool *equivalent)
{
	int *calls = ctx;
	(*calls)++;
	*equivalent = true;
	return *calls == 2 ? ERR_BACKEND : ERR_OK;
}

/* A judge's error stops the judging and is returned; segments judged before stay set. */
static void judge_error(void **state)
{
	(void)state;
	struct wer *w = NULL;
	assert_int_equal(wer_align("a b c d e", "x b y d z", WER_WORDS, &w), ERR_OK);
	assert_int_equal(w->n_segments, 3);
	int calls = 0;
	assert_int_equal(wer_judge(w, failing_judge, &calls), ERR_BACKEND);
	assert_int_equal(calls, 2);
	assert_true(w->segments[0].forgiven);
	assert_int_equal(wer_genuine_errors(w), 2);
	wer_free(w);
}

static void invalid_utf8(void **state)
{
	(void)state;
	char *out = (char *)"unchanged";
	assert_int_equal(wer_normalize("ab\xff", &out), ERR_PARSE);
	assert_string_equal(out, "unchanged");
	struct wer *w = NULL;
	assert_int_equal(wer_align("ok", "\xc3", WER_WORDS, &w), ERR_PARSE);
	assert_null(w);
	wer_free(NULL);
}

/* Corpus totals weigh utterances by their length: (1 + 0) / (2 + 8), not (1/2 + 0) / 2. */
static void sum(void **state)
{
	(void)state;
	struct wer_sum s = {0};
	struct wer *a = NULL, *b = NULL;
	assert_int_equal(wer_align("एक दो", "एक तीन", WER_WORDS, &a), ERR_OK);
	assert_int_equal(wer_align("a b c d e f g h", "a b c d e f g h", WER_WORDS, &b), ERR_OK);
	a->segments[0].forgiven = true;
	wer_sum_add(&s, a);
	wer_sum_add(&s, b);
	assert_int_equal(s.n_ref, 10);
	assert_int_equal(s.utterances, 2);
	assert_true(fabs(wer_sum_rate(&s) - 0.1) < 1e-12);
	assert_true(wer_sum_genuine_rate(&s) == 0.0);
	wer_free(a);
	wer_free(b);
}

int main(void)
{
	static const char *const files[3] = {"tests/data/wer_norm.tsv", "tests/data/wer_align.tsv",
					     "tests/data/wer_llm.tsv"};
	static const int cols[3] = {2, 9, 6};
	void (*fn[3])(void **) = {norm_row, align_row, llm_row};
	struct table_row *rows[3];
	int n_rows[3];
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	for (int k = 0; k < 3; k++) {
		table_load(files[k], cols[k], cols[k], TABLE_UNESCAPE, &rows[k], &n_rows[k]);
		table_tests(&tests, &n, rows[k], n_rows[k], fn[k]);
	}
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(judge_error));
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(invalid_utf8));
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(sum));
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(memo_collisions));
	int rc = _cmocka_run_group_tests("wer", tests, n, NULL, NULL);
	free(tests);
	for (int k = 0; k < 3; k++)
		table_free(rows[k], n_rows[k]);
	return rc;
}
