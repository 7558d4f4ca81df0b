/* The offline understanding of answers, table-driven: every row of
 * tests/data/parse_functions.tsv (the parse_* functions alone) and of the extractor's
 * case files tests/data/parse_{phones,numbers,dates,yesno,names,options,multi}.tsv (on
 * tests/data/parse_form.json, through flow_check) is one cmocka test. Today is
 * 2025-03-15 throughout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "case_rows.h"
#include "agent/hindi/parse.h"
#include "agent/hindi/text.h"

static struct form *form;
static struct lexicon *lex;
static const struct ymd today = {2025, 3, 15};

static const char *const case_files[] = {
	"tests/data/parse_phones.tsv", "tests/data/parse_numbers.tsv", "tests/data/parse_dates.tsv",
	"tests/data/parse_yesno.tsv", "tests/data/parse_names.tsv", "tests/data/parse_options.tsv",
	"tests/data/parse_multi.tsv",
};

static void extract_row(void **state)
{
	const struct table_row *r = *state;
	char why[4096];
	if (!row_check(form, lex, today, r->col[1], r->col[2], r->col[3], r->ncol > 4 ? r->col[4] : NULL,
		       why, sizeof(why)))
		fail_msg("%s (line %d) %s: \"%s\": %s", r->col[0], r->line, r->col[1], r->col[2], why);
}

static void function_row(void **state)
{
	const struct table_row *r = *state;
	const char *fn = r->col[1], *in = r->ncol > 2 ? r->col[2] : "", *want = r->ncol > 3 ? r->col[3] : "";
	char got[128] = "none";
	if (strcmp(fn, "digits") == 0) {
		char *d = NULL;
		assert_int_equal(parse_digits(lex, in, &d), ERR_OK);
		if (d)
			snprintf(got, sizeof(got), "%s", d);
		free(d);
	} else if (strcmp(fn, "number") == 0) {
		bool found;
		double v = 0;
		assert_int_equal(parse_number(lex, in, &found, &v), ERR_OK);
		if (found)
			snprintf(got, sizeof(got), "%.15g", v);
	} else if (strcmp(fn, "yesno") == 0) {
		snprintf(got, sizeof(got), "%d", parse_yesno(lex, in));
	} else if (strcmp(fn, "date_past") == 0 || strcmp(fn, "date_any") == 0) {
		bool found, valid;
		struct ymd d;
		assert_int_equal(parse_date(lex, in, today, fn[5] == 'p', &found, &valid, &d), ERR_OK);
		if (found && !valid)
			snprintf(got, sizeof(got), "invalid");
		else if (found)
			ymd_format(d, got);
	} else {
		fail_msg("line %d: unknown function '%s'", r->line, fn);
	}
	if (strcmp(got, want) != 0)
		fail_msg("%s (line %d) %s(\"%s\"): want %s, got %s", r->col[0], r->line, fn, in, want, got);
}

/* Whatever bytes come in, the parsers answer without crashing and without a value made
 * of nothing. */
static void any_text(void **state)
{
	(void)state;
	static const char *const odd[] = {
		"", " ", "\xff\xfe\x80", "\xe0\xa4", "्््", "ँ", "\t\n", "9999999999999999999999999999",
		"double", "triple triple double", "nahi nahi nahi", "saadhe", "paune sau lakh crore",
		"tarikh tarikh", "pichle pichle mahine", "\u200d\u200c", "31/31/31", "0/0/0", "99-99-9999",
		"१२३४५६७८९०१२३४५६७८९०१२३४५६७८९०", "S U M I T A", "a b c d e f g h i j k l m n o p",
	};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		char *d = NULL;
		bool found, valid;
		double v;
		struct ymd y;
		assert_int_equal(parse_digits(lex, odd[i], &d), ERR_OK);
		if (d)
			assert_true(strlen(d) > 0);
		free(d);
		assert_int_equal(parse_number(lex, odd[i], &found, &v), ERR_OK);
		assert_int_equal(parse_date(lex, odd[i], today, true, &found, &valid, &y), ERR_OK);
		if (found && valid)
			assert_true(ymd_valid(y));
		int yn = parse_yesno(lex, odd[i]);
		assert_true(yn >= -1 && yn <= 1);
		for (int q = 0; q < form->n_questions; q++) {
			char why[4096];
			(void)row_check(form, lex, today, form->questions[q].name, odd[i], "empty", NULL,
					why, sizeof(why));
		}
	}
	/* no word lists: nothing understood, nothing broken */
	char *d = NULL;
	assert_int_equal(parse_digits(NULL, "nau aath", &d), ERR_OK);
	assert_null(d);
	assert_int_equal(parse_yesno(NULL, "haan"), -1);
}

/* The normalized key: nukta, chandrabindu, half-nasal, joiners and Devanagari digits. */
static void folding(void **state)
{
	(void)state;
	static const char *const same[][2] = {
		{"पाँच", "पांच"}, {"हज़ार", "हजार"}, {"पन्द्रह", "पंद्रह"}, {"क्\u200dष", "क्ष"},
		{"१२", "12"}, {"Sunita", "SUNITA"}, {"José", "jose"}, {"डॉक्टर", "डोक्टर"},
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char a[64], b[64];
		text_fold_word(same[i][0], strlen(same[i][0]), a, sizeof(a));
		text_fold_word(same[i][1], strlen(same[i][1]), b, sizeof(b));
		if (strcmp(a, b) != 0)
			fail_msg("fold(%s) = %s, fold(%s) = %s", same[i][0], a, same[i][1], b);
	}
	struct text *t = NULL;
	assert_int_equal(text_new("मेरा नाम गुड़िया, 15-8-24", &t), ERR_OK);
	assert_int_equal(t->n, 6);
	assert_string_equal(t->orig + t->tok[2].start, "गुड़िया, 15-8-24"); /* caller's text kept */
	assert_true(t->tok[3].pause);
	assert_int_equal(t->tok[4].sep, '-');
	char *s = text_span(t, 1, 2);
	assert_string_equal(s, "नाम गुड़िया");
	free(s);
	text_free(t);
	text_free(NULL);
}

/* Devanagari words typed together are split into the listed words they are made of; a
 * split part keeps no text of its own, and cuts that do not fit are refused. */
static void run_together(void **state)
{
	(void)state;
	struct text *t = NULL;
	assert_int_equal(text_new("दोहज़ारचौबीस, Ektaa", &t), ERR_OK);
	lexicon_tag_text(lex, t);
	assert_int_equal(t->n, 4); /* दो हजार चौबीस Ektaa: Latin words are never split */
	char dh[64];
	text_fold_word("हज़ार", strlen("हज़ार"), dh, sizeof(dh));
	assert_string_equal(t->tok[1].key, dh);
	assert_true(t->tok[1].id >= 0 && t->tok[2].id >= 0);
	assert_int_equal(t->tok[1].start, t->tok[1].end);
	char *s = text_span(t, 0, 3);
	assert_string_equal(s, "दोहज़ारचौबीस Ektaa");
	free(s);
	size_t bad[] = {0, 3, 3};
	assert_int_equal(text_split(t, 3, bad, 1), ERR_INVALID);
	assert_int_equal(text_split(t, 3, bad + 1, 2), ERR_INVALID);
	assert_int_equal(text_split(t, 9, bad + 1, 1), ERR_INVALID);
	assert_int_equal(t->n, 4);
	text_free(t);
	/* an unknown Devanagari word that is no two listed words stays whole, as does a
	 * number and a place word (a village's name) */
	static const char *const whole[] = {"सुनीतादेवी", "पांचगांव"};
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		assert_int_equal(text_new(whole[i], &t), ERR_OK);
		lexicon_tag_text(lex, t);
		assert_int_equal(t->n, 1);
		text_free(t);
	}
}

/* A word list line that is wrong is named with its file and line: one case per row, the
 * line appended to a copy of the word lists. */
static void bad_word_list(void **state)
{
	static const struct {
		const char *file, *line;
		size_t len;         /* bytes of line (it may hold a NUL) */
		const char *want;   /* in the message */
	} cases[] = {
#define ROW(file, line, want) {file, line, sizeof(line) - 1, want}
		ROW("numbers.tsv", "saat\tnmu\t7\n", "unknown tag 'nmu'"),
		ROW("numbers.tsv", "saat\tnum\n", "tag 'num' needs a number in the third column"),
		ROW("numbers.tsv", "saat\tnum\tinf\n", "tag 'num' needs a number in the third column"),
		ROW("numbers.tsv", "saat\tnum\tnan\n", "tag 'num' needs a number in the third column"),
		ROW("numbers.tsv", "saat\tnum\t7\textra\n", "got 4 column(s)"),
		ROW("numbers.tsv", "sa\xff" "at\tnum\t7\n", "not UTF-8 text (byte 0xFF)"),
		ROW("numbers.tsv", "sa\0at\tnum\t7\n", "the line holds a NUL byte"),
		ROW("calendar.tsv", "terahvaan\tmonth\t13\n", "tag 'month' needs a month number from 1 to 12, got '13'"),
		ROW("calendar.tsv", "zero\tmonth\t0\n", "got '0'"),
		ROW("numbers.tsv", "* saat\tnum\t7\n", "not start or end with '*'"),
		ROW("numbers.tsv", "oh\tdigitword\n", "tag 'digitword' needs a number in the third column"),
		ROW("calendar.tsv", "ke\tanchor\n", "tag 'anchor' needs a number in the third column"),
		ROW("yesno.tsv", "na\tyestag\t1\n", "tag 'yestag' takes no third column"),
#undef ROW
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/formdesk-words-XXXXXX";
		assert_non_null(mkdtemp(dir));
		char cmd[512], path[512];
		snprintf(cmd, sizeof(cmd), "cp %s/*.tsv %s/", lexicon_default_dir(), dir);
		assert_int_equal(system(cmd), 0);
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].file);
		FILE *fp = fopen(path, "ab");
		assert_non_null(fp);
		assert_int_equal(fwrite(cases[i].line, 1, cases[i].len, fp), cases[i].len);
		fclose(fp);
		struct lexicon *l = NULL;
		char *msg = NULL;
		enum err e = lexicon_load(dir, &l, &msg);
		char where[64];
		snprintf(where, sizeof(where), "%s line", cases[i].file);
		if (e != ERR_PARSE || !msg || !strstr(msg, where) || !strstr(msg, cases[i].want))
			fail_msg("case %zu: got %s '%s', want ERR_PARSE '%s line ...%s'", i, err_str(e),
				 msg ? msg : "(none)", cases[i].file, cases[i].want);
		assert_null(l);
		free(msg);
		snprintf(cmd, sizeof(cmd), "rm -f %s/*.tsv && rmdir %s", dir, dir);
		assert_int_equal(system(cmd), 0);
	}

	/* a missing word list, and a folder in a word list's place */
	struct lexicon *l = NULL;
	char *msg = NULL;
	assert_int_equal(lexicon_load("/nonexistent-formdesk-words", &l, &msg), ERR_IO);
	assert_non_null(strstr(msg, "numbers.tsv"));
	free(msg);
	char dir[] = "/tmp/formdesk-words-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp %s/*.tsv %s/ && rm %s/numbers.tsv && mkdir %s/numbers.tsv",
		 lexicon_default_dir(), dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	msg = NULL;
	assert_int_equal(lexicon_load(dir, &l, &msg), ERR_IO);
	assert_null(l);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "numbers.tsv: Is a directory"));
	free(msg);
	snprintf(cmd, sizeof(cmd), "rmdir %s/numbers.tsv && rm -f %s/*.tsv && rmdir %s", dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	lexicon_free(NULL);
}

int main(void)
{
	struct form_issues is = {0};
	if (form_load("tests/data/parse_form.json", &form, &is) != ERR_OK) {
		fprintf(stderr, "tests/data/parse_form.json: %s\n", is.n ? is.v[0].message : "error");
		return 1;
	}
	form_issues_free(&is);
	char *msg = NULL;
	if (lexicon_load(lexicon_default_dir(), &lex, &msg) != ERR_OK) {
		fprintf(stderr, "word lists: %s\n", msg ? msg : "error");
		return 1;
	}
	const size_t nfiles = sizeof(case_files) / sizeof(case_files[0]);
	struct table_row *rows[8];
	int nrows[8];
	int nf;
	struct table_row *fns;
	table_load("tests/data/parse_functions.tsv", 3, 0, 0, &fns, &nf);
	for (size_t i = 0; i < nfiles; i++)
		table_load(case_files[i], 4, 0, 0, &rows[i], &nrows[i]);
	struct CMUnitTest *tests = NULL;
	size_t k = 0;
	table_add(&tests, &k, (struct CMUnitTest){.name = "folding", .test_func = folding});
	table_add(&tests, &k, (struct CMUnitTest){.name = "any text", .test_func = any_text});
	table_add(&tests, &k, (struct CMUnitTest){.name = "run together", .test_func = run_together});
	table_add(&tests, &k, (struct CMUnitTest){.name = "bad word list", .test_func = bad_word_list});
	for (int i = 0; i < nf; i++)
		snprintf(fns[i].name, sizeof(fns[i].name), "%s %s: %.100s", fns[i].col[0], fns[i].col[1],
			 fns[i].ncol > 2 ? fns[i].col[2] : "");
	table_tests(&tests, &k, fns, nf, function_row);
	for (size_t f = 0; f < nfiles; f++) {
		for (int i = 0; i < nrows[f]; i++) {
			struct table_row *r = &rows[f][i];
			snprintf(r->name, sizeof(r->name), "%s %s: %.120s", r->col[0], r->col[1], r->col[2]);
		}
		table_tests(&tests, &k, rows[f], nrows[f], extract_row);
	}
	int failed = _cmocka_run_group_tests("understanding", tests, k, NULL, NULL);
	free(tests);
	table_free(fns, nf);
	for (size_t i = 0; i < nfiles; i++)
		table_free(rows[i], nrows[i]);
	lexicon_free(lex);
	form_free(form);
	return failed;
}
