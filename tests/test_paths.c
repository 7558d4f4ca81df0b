/* Path enumeration (sessions/corpus/paths.c), one case per row of tests/data/paths_cases.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/rules/form.h"
#include "sessions/corpus/paths.h"
#include "tests/support/table.h"

#define DATA "tests/data/paths_cases.tsv"

/* One row's columns by name. */
struct row {
	int line;
	const char *form, *unknown, *result, *path, *json;
};

struct seen {
	long want;      /* path number to capture */
	char *json;     /* its JSON */
};

static int capture(void *ctx, long number, const enum paths_answer *answers)
{
	(void)answers;
	(void)number;
	return 0;
}

struct capture_ctx {
	const struct form *f;
	struct seen s;
};

static int capture_json(void *ctx, long number, const enum paths_answer *answers)
{
	struct capture_ctx *c = ctx;
	if (number == c->s.want)
		c->s.json = paths_json(c->f, number, answers);
	return 0;
}

static void run_row(void **state)
{
	const struct table_row *t = *state;
	const struct row row = {t->line, t->col[0], t->col[1], t->col[2], t->col[3], t->col[4]};
	const struct row *r = &row;
	for (int c = 0; c < 5; c++)
		if (!*t->col[c])
			fail_msg("%s: want 5 tab-separated columns", t->name);
	struct form *f = NULL;
	struct form_issues is = {0};
	enum err e = form_load(r->form, &f, &is);
	if (e != ERR_OK)
		fail_msg("%s:%d: cannot load %s: %s", DATA, r->line, r->form, err_str(e));
	bool *unknown = calloc((size_t)f->n_questions, sizeof *unknown);
	assert_non_null(unknown);
	char *why = NULL;
	e = paths_parse_unknown(f, strcmp(r->unknown, "-") ? r->unknown : NULL, unknown, &why);
	if (!strncmp(r->result, "ERR_", 4) && e == ERR_OK) {
		/* the list is fine, the enumeration refuses (too many paths) */
		long count = -1;
		e = paths_each(f, unknown, capture, NULL, &count);
		if (strcmp(r->result, "ERR_INVALID") || e != ERR_INVALID || count != -1)
			fail_msg("%s:%d: paths_each gave %s (%ld paths), want %s", DATA, r->line,
				 err_str(e), count, r->result);
	} else if (!strncmp(r->result, "ERR_", 4)) {
		enum err want = !strcmp(r->result, "ERR_INVALID") ? ERR_INVALID
				: !strcmp(r->result, "ERR_NOTFOUND") ? ERR_NOTFOUND : ERR_OK;
		if (e != want)
			fail_msg("%s:%d: got %s, want %s", DATA, r->line, err_str(e), r->result);
		assert_non_null(why); /* every refusal says what is wrong */
	} else {
		if (e != ERR_OK)
			fail_msg("%s:%d: --unknown refused: %s", DATA, r->line, why ? why : "");
		long count = 0;
		assert_int_equal(paths_each(f, unknown, capture, NULL, &count), ERR_OK);
		if (count != atol(r->result))
			fail_msg("%s:%d: %ld paths, want %s", DATA, r->line, count, r->result);
		if (strcmp(r->path, "-")) {
			struct capture_ctx c = {.f = f, .s = {.want = atol(r->path)}};
			assert_int_equal(paths_each(f, unknown, capture_json, &c, NULL), ERR_OK);
			if (!c.s.json || strcmp(c.s.json, r->json))
				fail_msg("%s:%d:\n got  %s\n want %s", DATA, r->line,
					 c.s.json ? c.s.json : "(none)", r->json);
			free(c.s.json);
		}
	}
	free(why);
	free(unknown);
	form_free(f);
	form_issues_free(&is);
}

static int stop_at_two(void *ctx, long number, const enum paths_answer *answers)
{
	(void)ctx;
	(void)answers;
	return number == 2;
}

/* The callback can stop the walk; the count includes the path that stopped it. */
static void stop_early(void **state)
{
	(void)state;
	struct form *f = NULL;
	assert_int_equal(form_load("forms/armman_enrollment.json", &f, NULL), ERR_OK);
	long count = 0;
	assert_int_equal(paths_each(f, NULL, stop_at_two, NULL, &count), ERR_CANCELLED);
	assert_int_equal(count, 2);
	form_free(f);
}

/* A form built in memory: no branches, nothing unknown gives exactly one path. */
static void one_path(void **state)
{
	(void)state;
	struct form_question q[2] = {
		{.name = "a", .type = FORM_STRING, .required = true, .branch = -1},
		{.name = "b", .type = FORM_BOOLEAN, .required = false, .branch = -1},
	};
	struct form f = {.questions = q, .n_questions = 2};
	struct capture_ctx c = {.f = &f, .s = {.want = 1}};
	long count = 0;
	assert_int_equal(paths_each(&f, NULL, capture_json, &c, &count), ERR_OK);
	assert_int_equal(count, 1);
	/* b controls nothing, so it is simply answered. */
	assert_string_equal(c.s.json, "{\"path\":1,\"answers\":{\"a\":\"answered\",\"b\":\"answered\"}}");
	free(c.s.json);
}

int main(void)
{
	const struct CMUnitTest more[] = {cmocka_unit_test(stop_early), cmocka_unit_test(one_path)};
	return table_run("paths", DATA, 5, 0, 0, run_row, more, 2);
}
