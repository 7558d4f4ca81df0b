/* test_corpus: the corpus loader on the fixtures in tests/data/corpus_*: the good ones
 * read back in full, and each bad one (tests/data/corpus_bad_*) fails with the error and
 * the exact message its error.txt gives (line 1: the enum err name; line 2: the message,
 * "{dir}" standing for the fixture's absolute folder). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions/corpus/corpus.h"
#include "sessions/corpus/csv.h"
#include "tests/support/testmain.h"

static const char *err_name(enum err e)
{
	switch (e) {
	case ERR_OK: return "ERR_OK";
	case ERR_NOMEM: return "ERR_NOMEM";
	case ERR_IO: return "ERR_IO";
	case ERR_PARSE: return "ERR_PARSE";
	case ERR_INVALID: return "ERR_INVALID";
	case ERR_NOTFOUND: return "ERR_NOTFOUND";
	default: return "other";
	}
}

static void test_good(void **state)
{
	struct corpus *c = NULL;
	char *msg = NULL;
	char want_dir[PATH_MAX];
	(void)state;

	assert_non_null(realpath("tests/data/corpus_good", want_dir));
	assert_int_equal(corpus_load("tests/data/corpus_good", &c, &msg), ERR_OK);
	assert_null(msg);
	assert_string_equal(c->dir, want_dir);
	assert_string_equal(c->name, "fixture");
	assert_string_equal(c->form, "forms/armman_enrollment.json");
	assert_string_equal(c->attribution, "Invented for the tests.");
	assert_string_equal(c->licence, "CC0-1.0");
	assert_true(c->synthetic);
	assert_true(c->has_today);
	assert_int_equal(c->today.y, 2025);
	assert_int_equal(c->today.m, 3);
	assert_int_equal(c->today.d, 15);
	assert_int_equal(c->n_calls, 2);

	const struct corpus_call *a = &c->calls[0], *b = &c->calls[1];
	assert_string_equal(a->id, "call1");
	assert_string_equal(a->caller, "sunita");
	assert_string_equal(a->path, "pregnant/linked");
	assert_int_equal(a->n_turns, 2);
	assert_string_equal(a->turns[0].utterance_id, "u_name");
	assert_string_equal(a->turns[0].transcript, "mera naam Sunita Devi hai");
	assert_string_equal(a->turns[0].condition, "ideal");
	assert_true(a->turns[0].synthetic);
	/* RFC 4180: a quoted comma, a doubled quote, a line break inside quotes; CRLF ends. */
	assert_string_equal(a->turns[1].transcript, "Gaya, Bihar");
	assert_string_equal(a->turns[1].condition, "noise");
	char want_audio[PATH_MAX + 32];
	snprintf(want_audio, sizeof want_audio, "%s/audios/u_district.flac", want_dir);
	assert_string_equal(a->turns[1].audio, want_audio);
	assert_string_equal(a->expected_call_status, "in_progress");
	assert_string_equal(cJSON_GetObjectItem(a->expected_data, "district")->valuestring, "Gaya");
	assert_string_equal(cJSON_GetObjectItem(a->expected_status, "name")->valuestring,
			    "answered");

	assert_null(b->caller);
	assert_null(b->path);
	assert_int_equal(b->n_turns, 3);
	assert_string_equal(b->turns[0].transcript, "she said \"haan\"");
	snprintf(want_audio, sizeof want_audio, "%s/audios/u_quote.mp3", want_dir);
	assert_string_equal(b->turns[0].audio, want_audio);
	assert_string_equal(b->turns[1].transcript, "पहली पंक्ति\nदूसरी पंक्ति");
	assert_string_equal(b->turns[2].utterance_id, "u_name");
	assert_string_equal(b->expected_call_status, "failed");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(b->expected_data, "name")));
	corpus_free(c);
	corpus_free(NULL);
}

static void test_paths_no_expected(void **state)
{
	struct corpus *c = NULL;
	char want[PATH_MAX + 32], dir[PATH_MAX];
	(void)state;

	assert_int_equal(corpus_load("tests/data/corpus_paths", &c, NULL), ERR_OK);
	assert_non_null(realpath("tests/data/corpus_paths", dir));
	assert_false(c->synthetic);
	assert_false(c->has_today);
	assert_null(c->form);
	assert_null(c->licence);
	assert_int_equal(c->n_calls, 1);
	assert_int_equal(c->calls[0].n_turns, 2);
	snprintf(want, sizeof want, "%s/clips/b.mp3", dir);
	assert_string_equal(c->calls[0].turns[1].audio, want);
	assert_string_equal(c->calls[0].turns[1].condition, "real");
	assert_false(c->calls[0].turns[1].synthetic);
	assert_null(c->calls[0].expected_data);
	assert_null(c->calls[0].expected_call_status);
	corpus_free(c);
}

/* replace_dir: msg with every "{dir}" replaced by dir (new string). */
static char *replace_dir(const char *msg, const char *dir)
{
	size_t cap = strlen(msg) + 8 * strlen(dir) + 1;
	char *out = calloc(1, cap);
	const char *p = msg, *q;
	while ((q = strstr(p, "{dir}"))) {
		strncat(out, p, (size_t)(q - p));
		strcat(out, dir);
		p = q + 5;
	}
	strcat(out, p);
	return out;
}

static void test_bad_fixtures(void **state)
{
	glob_t g;
	int checked = 0;
	(void)state;

	assert_int_equal(glob("tests/data/corpus_bad_*", GLOB_ONLYDIR, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char path[PATH_MAX + 16], dir[PATH_MAX], want_err[64] = "", line[2048] = "";
		FILE *f;
		struct corpus *c = NULL;
		char *msg = NULL, *want;
		enum err e;

		snprintf(path, sizeof path, "%s/error.txt", g.gl_pathv[i]);
		assert_non_null(f = fopen(path, "r"));
		assert_non_null(fgets(want_err, sizeof want_err, f));
		assert_non_null(fgets(line, sizeof line, f));
		fclose(f);
		want_err[strcspn(want_err, "\n")] = '\0';
		line[strcspn(line, "\n")] = '\0';
		assert_non_null(realpath(g.gl_pathv[i], dir));
		want = replace_dir(line, dir);

		e = corpus_load(g.gl_pathv[i], &c, &msg);
		if (strcmp(err_name(e), want_err) != 0 || !msg || strcmp(msg, want) != 0)
			fail_msg("%s:\n  got:  %s %s\n  want: %s %s", g.gl_pathv[i], err_name(e),
				 msg ? msg : "(no message)", want_err, want);
		assert_null(c);
		free(msg);
		free(want);
		checked++;
	}
	globfree(&g);
	assert_true(checked >= 10);
}

static void test_missing_folders(void **state)
{
	struct corpus *c = NULL;
	char *msg = NULL;
	(void)state;

	assert_int_equal(corpus_load("tests/data/no_such_corpus", &c, &msg), ERR_IO);
	assert_string_equal(msg, "tests/data/no_such_corpus: no such corpus folder");
	free(msg);
	msg = NULL;
	/* A bundled corpus that was never made says where its clips come from. */
	assert_int_equal(corpus_load("/nonexistent/corpus/respin", &c, &msg), ERR_IO);
	assert_non_null(strstr(msg, "/nonexistent/corpus/respin: the real-speech corpus has not been made"));
	assert_non_null(strstr(msg, "FORMDESK_RESPIN"));
	assert_non_null(strstr(msg, "CC-BY-4.0"));
	free(msg);
	assert_null(c);
}

static void test_resolve(void **state)
{
	char *s;
	(void)state;
	s = corpus_resolve("some/folder");
	assert_string_equal(s, "some/folder");
	free(s);
	/* The test binary's folder holds no corpus, so the current directory is used. */
	s = corpus_resolve("demo");
	assert_string_equal(s, "corpus/demo");
	free(s);
	s = corpus_resolve("respin");
	assert_non_null(strstr(s, "corpus/respin"));
	free(s);
}

static void test_csv_write_read(void **state)
{
	static const char *const fields[] = {"plain", "a,b", "say \"haan\"", "two\nlines", ""};
	char path[] = "/tmp/test_corpus_csv.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct csv *c = NULL;
	char **got = NULL;
	int n = 0, line = 0;
	(void)state;

	assert_non_null(f);
	for (int i = 0; i < 5; i++) {
		if (i)
			fputc(',', f);
		csv_write_field(f, fields[i]);
	}
	fputs("\nnext,row\n", f);
	fclose(f);
	assert_int_equal(csv_open(path, &c, NULL), ERR_OK);
	assert_int_equal(csv_next(c, &got, &n, &line, NULL), ERR_OK);
	assert_int_equal(n, 5);
	assert_int_equal(line, 1);
	for (int i = 0; i < 5; i++)
		assert_string_equal(got[i], fields[i]);
	csv_fields_free(got, n);
	assert_int_equal(csv_next(c, &got, &n, &line, NULL), ERR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(line, 3);
	csv_fields_free(got, n);
	assert_int_equal(csv_next(c, &got, &n, &line, NULL), ERR_OK);
	assert_int_equal(n, 0);
	csv_free(c);
	remove(path);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_good),
	  cmocka_unit_test(test_paths_no_expected),
	  cmocka_unit_test(test_bad_fixtures),
	  cmocka_unit_test(test_missing_folders),
	  cmocka_unit_test(test_resolve),
	  cmocka_unit_test(test_csv_write_read))
