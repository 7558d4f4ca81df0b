/* table: the tests' case tables (see table.h). */
#include "table.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static void *need(void *p)
{
	if (!p) {
		fprintf(stderr, "out of memory reading a case table\n");
		exit(1);
	}
	return p;
}

/* Are the n characters at s all hex digits? */
static int hex_digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* s with its escapes decoded (see TABLE_UNESCAPE). New string. */
static char *unescape(const char *s)
{
	if (!strcmp(s, "<empty>"))
		return need(strdup(""));
	char *out = need(malloc(strlen(s) * 4 + 1)), *o = out;
	unsigned v;
	while (*s) {
		if (s[0] == '\\' && s[1] == 'u' && hex_digits(s + 2, 4)) {
			sscanf(s + 2, "%4x", &v);
			o += utf8proc_encode_char((utf8proc_int32_t)v, (utf8proc_uint8_t *)o);
			s += 6;
		} else if (s[0] == '\\' && s[1] == 'x' && hex_digits(s + 2, 2)) {
			sscanf(s + 2, "%2x", &v);
			*o++ = (char)v;
			s += 4;
		} else if (s[0] == '\\' && (s[1] == 't' || s[1] == 'n' || s[1] == '\\')) {
			*o++ = s[1] == 't' ? '\t' : s[1] == 'n' ? '\n' : '\\';
			s += 2;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* Splits line (changed in place) at tabs into a new row. */
static struct table_row split(const char *path, int lineno, char *line, unsigned flags)
{
	struct table_row r = {.line = lineno, .ncol = 1};
	r.file = need(strdup(path));
	snprintf(r.name, sizeof r.name, "%s:%d", path, lineno);
	for (const char *p = line; (p = strchr(p, '\t')); p++)
		r.ncol++;
	r.col = need(calloc((size_t)r.ncol, sizeof *r.col));
	char *p = line;
	for (int c = 0; c < r.ncol; c++) {
		char *t = strchr(p, '\t');
		if (t)
			*t = '\0';
		r.col[c] = flags & TABLE_UNESCAPE ? unescape(p) : need(strdup(p));
		p = t ? t + 1 : NULL;
	}
	return r;
}

void table_load(const char *path, int min_cols, int max_cols, unsigned flags,
		struct table_row **rows, int *n)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		fprintf(stderr, "cannot open %s (run from the source tree)\n", path);
		exit(1);
	}
	struct table_row *v = NULL;
	int count = 0, lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, fp) >= 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		struct table_row r = split(path, lineno, line, flags);
		if (r.ncol < min_cols || (max_cols > 0 && r.ncol > max_cols)) {
			if (min_cols == max_cols)
				fprintf(stderr, "%s: %d columns, want %d\n", r.name, r.ncol, min_cols);
			else if (max_cols > 0)
				fprintf(stderr, "%s: %d columns, want %d to %d\n", r.name, r.ncol,
					min_cols, max_cols);
			else
				fprintf(stderr, "%s: %d columns, want at least %d\n", r.name, r.ncol,
					min_cols);
			exit(1);
		}
		v = need(realloc(v, (size_t)(count + 1) * sizeof *v));
		v[count++] = r;
	}
	free(line);
	fclose(fp);
	*rows = v;
	*n = count;
}

double table_num(const struct table_row *r, int c)
{
	char *end = NULL;
	double v = c < r->ncol ? strtod(r->col[c], &end) : 0;
	if (!end || end == r->col[c] || *end)
		fail_msg("%s: column %d is not a number", r->name, c + 1);
	return v;
}

void table_free(struct table_row *rows, int n)
{
	if (!rows)
		return;
	for (int i = 0; i < n; i++) {
		for (int c = 0; c < rows[i].ncol; c++)
			free(rows[i].col[c]);
		free(rows[i].col);
		free(rows[i].file);
	}
	free(rows);
}

int table_each(const char *path, int min_cols, int max_cols, unsigned flags,
	       void (*fn)(struct table_row *r, const void *ud), const void *ud)
{
	struct table_row *rows;
	int nrows;
	table_load(path, min_cols, max_cols, flags, &rows, &nrows);
	for (int i = 0; i < nrows; i++)
		fn(&rows[i], ud);
	table_free(rows, nrows);
	return nrows;
}

void table_add(struct CMUnitTest **tests, size_t *n, struct CMUnitTest t)
{
	*tests = need(realloc(*tests, (*n + 1) * sizeof **tests));
	(*tests)[(*n)++] = t;
}

void table_tests(struct CMUnitTest **tests, size_t *n, struct table_row *rows, int nrows,
		 CMUnitTestFunction fn)
{
	for (int i = 0; i < nrows; i++)
		table_add(tests, n, (struct CMUnitTest){rows[i].name, fn, NULL, NULL, &rows[i]});
}

int table_run_group(const char *group, struct CMUnitTest *tests, size_t n, struct table_row *rows,
		    int nrows)
{
	int rc = _cmocka_run_group_tests(group, tests, n, NULL, NULL);
	free(tests);
	table_free(rows, nrows);
	return rc;
}

int table_run(const char *group, const char *path, int min_cols, int max_cols, unsigned flags,
	      CMUnitTestFunction fn, const struct CMUnitTest *extra, size_t n_extra)
{
	struct table_row *rows;
	int nrows;
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	table_load(path, min_cols, max_cols, flags, &rows, &nrows);
	table_tests(&tests, &n, rows, nrows, fn);
	for (size_t i = 0; i < n_extra; i++)
		table_add(&tests, &n, extra[i]);
	return table_run_group(group, tests, n, rows, nrows);
}
