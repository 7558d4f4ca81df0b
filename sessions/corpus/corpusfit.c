/* corpusfit: does a corpus fit the form it is played with (see corpusfit.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corpusfit.h"

#include "base/file.h"

/* Whether files a and b can both be read and hold the same bytes. */
static bool same_content(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *x = NULL, *y = NULL;
	bool same = file_read(a, &x, &la) == ERR_OK && file_read(b, &y, &lb) == ERR_OK &&
		    la == lb && memcmp(x, y, la) == 0;
	free(x);
	free(y);
	return same;
}

/* The corpus's form file as a readable path into buf, or "" when none is found: absolute
 * as written, else against the current directory, else against the corpus folder's
 * parents (corpus/demo names forms/... relative to the project folder). */
static void locate(const struct corpus *c, char *buf, size_t n)
{
	*buf = 0;
	if (c->form[0] == '/' || access(c->form, R_OK) == 0) {
		snprintf(buf, n, "%s", c->form);
		return;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", c->dir ? c->dir : "");
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return;
		*slash = 0;
		snprintf(buf, n, "%s/%s", dir, c->form);
		if (access(buf, R_OK) == 0)
			return;
	}
	*buf = 0;
}

/* names: append name to a ", "-separated list in a memstream. */
static void add_name(FILE *list, int *count, const char *name)
{
	fprintf(list, "%s%s", *count ? ", " : "", name);
	(*count)++;
}

enum err corpusfit_check(const struct corpus *c, const struct form *f, const char *form_path,
			 struct form_issues *out)
{
	out->v = NULL;
	out->n = 0;
	char msg[4096];
	if (c->form && form_path && strcmp(c->form, form_path) != 0) {
		char found[PATH_MAX + 1];
		locate(c, found, sizeof found);
		if (!*found || !same_content(found, form_path)) {
			snprintf(msg, sizeof msg,
				 "corpus '%s' was made for the form %s%s, not %s: its callers answer "
				 "that form's questions.",
				 c->name ? c->name : "?", c->form, *found ? "" : " (not found here)",
				 form_path);
			if (form_issues_add(out, "corpus.json:form", msg) != ERR_OK)
				return ERR_NOMEM;
		}
	}
	bool any_expected = false;
	for (int i = 0; i < c->n_calls && !any_expected; i++)
		any_expected = c->calls[i].expected_status != NULL;
	if (!any_expected)
		return ERR_OK;

	/* Fields of the form no expected form answers or skips. */
	char *text = NULL;
	size_t len = 0;
	FILE *list = open_memstream(&text, &len);
	if (!list)
		return ERR_NOMEM;
	int count = 0;
	for (int q = 0; q < f->n_questions; q++) {
		bool answered = false;
		for (int i = 0; i < c->n_calls && !answered; i++) {
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(c->calls[i].expected_status,
									   f->questions[q].name);
			answered = cJSON_IsString(st) && strcmp(st->valuestring, "empty") != 0;
		}
		if (!answered)
			add_name(list, &count, f->questions[q].name);
	}
	fclose(list);
	enum err e = ERR_OK;
	if (count) {
		snprintf(msg, sizeof msg,
			 "corpus '%s' never answers %d of the form's %d fields (no expected form "
			 "answers or skips them): %s.",
			 c->name ? c->name : "?", count, f->n_questions, text);
		e = form_issues_add(out, "", msg);
	}
	free(text);
	if (e != ERR_OK)
		return e;

	/* Fields the expected forms give that the form does not have. */
	text = NULL;
	len = 0;
	if (!(list = open_memstream(&text, &len)))
		return ERR_NOMEM;
	count = 0;
	for (int i = 0; i < c->n_calls; i++) {
		const cJSON *it;
		cJSON_ArrayForEach(it, c->calls[i].expected_status) {
			if (!it->string || form_find(f, it->string) >= 0)
				continue;
			bool seen = false; /* listed once, at its first call */
			for (int j = 0; j < i && !seen; j++)
				seen = cJSON_GetObjectItemCaseSensitive(c->calls[j].expected_status,
									it->string) != NULL;
			if (!seen)
				add_name(list, &count, it->string);
		}
	}
	fclose(list);
	if (count) {
		snprintf(msg, sizeof msg,
			 "corpus '%s' expects %d field%s the form does not have: %s.",
			 c->name ? c->name : "?", count, count == 1 ? "" : "s", text);
		e = form_issues_add(out, "", msg);
	}
	free(text);
	return e;
}
