/* WER, CER and LLM-WER (sessions/wer.c), one case per row of tests/data/wer_norm.tsv,
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
#include <utf8proc.h>

#include "sessions/wer.h"

#define MAX_ROWS 128
#define MAX_COLS 10

struct row {
	const char *file;
	int line;
	char name[96];
	char *col[MAX_COLS];
	int n;
};

static struct row rows[MAX_ROWS];
static int n_rows;

/* Field text with \uXXXX, \t, \n, \\ decoded; "<empty>" is "". New string. */
static char *unescape(const char *s)
{
	if (!strcmp(s, "<empty>"))
		return strdup("");
	char *out = malloc(strlen(s) * 4 + 1), *o = out;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'u') {
			unsigned cp = 0;
			sscanf(s + 2, "%4x", &cp);
			o += utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)o);
			s += 5;
		} else if (s[0] == '\\' && s[1] == 't') {
			*o++ = '\t', s++;
		} else if (s[0] == '\\' && s[1] == 'n') {
			*o++ = '\n', s++;
		} else if (s[0] == '\\' && s[1] == '\\') {
			*o++ = '\\', s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

static void load(const char *file, int want_cols)
{
	FILE *fp = fopen(file, "r");
	if (!fp) {
		fprintf(stderr, "cannot open %s (run from the source tree)\n", file);
		exit(1);
	}
	char buf[4096];
	int line = 0;
	while (fgets(buf, sizeof buf, fp)) {
		line++;
		buf[strcspn(buf, "\n")] = '\0';
		if (!buf[0] || buf[0] == '#')
			continue;
		if (n_rows == MAX_ROWS) {
			fprintf(stderr, "%s:%d: too many rows\n", file, line);
			exit(1);
		}
		struct row *r = &rows[n_rows++];
		r->file = file;
		r->line = line;
		snprintf(r->name, sizeof r->name, "%s:%d", file, line);
		char *p = buf;
		for (;;) {
			char *t = strchr(p, '\t');
			if (t)
				*t = '\0';
			if (r->n < MAX_COLS)
				r->col[r->n] = unescape(p);
			r->n++;
			if (!t)
				break;
			p = t + 1;
		}
		if (r->n != want_cols) {
			fprintf(stderr, "%s:%d: %d columns, want %d\n", file, line, r->n, want_cols);
			exit(1);
		}
	}
	fclose(fp);
}

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
	const struct row *r = *state;
	char *got = NULL;
	assert_int_equal(wer_normalize(r->col[0], &got), ERR_OK);
	if (strcmp(got, r->col[1]))
		fail_msg("%s: got \"%s\", want \"%s\"", r->name, got, r->col[1]);
	free(got);
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
	const struct row *r = *state;
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
	const struct row *r = *state;
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
	int first[3], count[3];
	first[0] = n_rows;
	load("tests/data/wer_norm.tsv", 2);
	count[0] = n_rows - first[0];
	first[1] = n_rows;
	load("tests/data/wer_align.tsv", 9);
	count[1] = n_rows - first[1];
	first[2] = n_rows;
	load("tests/data/wer_llm.tsv", 6);
	count[2] = n_rows - first[2];
	void (*fn[3])(void **) = {norm_row, align_row, llm_row};

	struct CMUnitTest tests[MAX_ROWS + 3];
	int n = 0;
	for (int k = 0; k < 3; k++)
		for (int i = first[k]; i < first[k] + count[k]; i++)
			tests[n++] = (struct CMUnitTest){rows[i].name, fn[k], NULL, NULL, &rows[i]};
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(judge_error);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(invalid_utf8);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(sum);
	int rc = _cmocka_run_group_tests("wer", tests, (size_t)n, NULL, NULL);
	for (int i = 0; i < n_rows; i++)
		for (int c = 0; c < rows[i].n && c < MAX_COLS; c++)
			free(rows[i].col[c]);
	return rc;
}
