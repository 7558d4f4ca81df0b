/* table: the tests' case tables. A table is a text file of rows, one a line, columns
 * separated by tabs; lines starting with '#' and blank lines are skipped. Each row keeps
 * its file, its line number and a name "FILE:LINE" for the cmocka test made from it.
 * The reader exits the program with a message when a table cannot be read or a row has
 * the wrong number of columns, so a broken table fails the test program. */
#ifndef FORMDESK_TESTS_TABLE_H
#define FORMDESK_TESTS_TABLE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* table_load flag: decode escapes in every column: \uXXXX (a code point, written as
 * UTF-8), \xHH (a raw byte), \t, \n and \\; a column that is exactly "<empty>" is "". */
#define TABLE_UNESCAPE 1u

struct table_row {
	char *file;     /* the table's path */
	int line;       /* line number in file, from 1 */
	char name[200]; /* "FILE:LINE"; a test may write a name of its own here */
	int ncol;       /* tab-separated columns on the line (at least 1) */
	char **col;     /* the ncol columns */
};

/* table_load: reads the rows of the table at path into a new array *rows of *n rows
 * (free it with table_free). Every row must have at least min_cols columns and, when
 * max_cols > 0, at most max_cols. flags: 0 or TABLE_UNESCAPE. Lines end at '\n' (a '\r'
 * before it is dropped) and may be of any length. Errors: an unreadable file, a row
 * with a wrong column count or no memory print a message and exit(1). */
void table_load(const char *path, int min_cols, int max_cols, unsigned flags,
		struct table_row **rows, int *n);

/* table_num: column c of row r as a number (strtod's syntax, the whole column). A column
 * that is missing or not a number fails the running test, naming the row and column. */
double table_num(const struct table_row *r, int c);

/* table_each: one test over a whole table: the table at path loaded as table_load does
 * (min_cols, max_cols, flags), fn(row, ud) called on each row in order (fn may change the
 * row), the rows freed. Returns how many rows there were. Exits as table_load does on a
 * broken table. */
int table_each(const char *path, int min_cols, int max_cols, unsigned flags,
	       void (*fn)(struct table_row *r, const void *ud), const void *ud);

/* table_free: frees rows (n of them) and everything in them; NULL does nothing. */
void table_free(struct table_row *rows, int n);

/* table_tests: appends to the array *tests (n entries, grown with realloc; the caller
 * frees it) one test per row, named by the row's name, running fn with the row as its
 * state. The rows must outlive the tests. Exits when memory runs out. */
void table_tests(struct CMUnitTest **tests, size_t *n, struct table_row *rows, int nrows,
		 CMUnitTestFunction fn);

/* table_add: appends the test t to the array *tests as table_tests does. */
void table_add(struct CMUnitTest **tests, size_t *n, struct CMUnitTest t);

/* table_run_group: runs tests (n of them, made by table_tests / table_add) as the cmocka
 * group named group, then frees tests and the nrows rows they ran on. Returns cmocka's
 * count of failed tests (0: all passed), a test program's exit status. */
int table_run_group(const char *group, struct CMUnitTest *tests, size_t n, struct table_row *rows,
		    int nrows);

/* table_run: a case-table test program whole: the table at path loaded as table_load does
 * (min_cols, max_cols, flags), one test per row running fn, then the n_extra tests of extra
 * (NULL when n_extra is 0), run as table_run_group does. Returns cmocka's count of failed
 * tests. Exits as table_load does on a broken table. */
int table_run(const char *group, const char *path, int min_cols, int max_cols, unsigned flags,
	      CMUnitTestFunction fn, const struct CMUnitTest *extra, size_t n_extra);

#endif
