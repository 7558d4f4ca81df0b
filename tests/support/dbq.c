/* dbq: see dbq.h. */
#include "dbq.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <unistd.h>

char *dbq_text(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *q = NULL;
	char *s;
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
	s = strdup(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0)
			   ? (const char *)sqlite3_column_text(q, 0) : "");
	sqlite3_finalize(q);
	sqlite3_close(h);
	assert_non_null(s);
	return s;
}

void dbq_expect(const char *path, const char *sql, const char *want)
{
	char *got = dbq_text(path, sql);
	if (strcmp(got, want) != 0)
		fail_msg("%s\n  got:  %s\n  want: %s", sql, got, want);
	free(got);
}

void dbq_remove(const char *path)
{
	char p[512];
	unlink(path);
	snprintf(p, sizeof p, "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", path);
	unlink(p);
}

void dbq_exec_file(const char *path, const char *sql_file)
{
	static char sql[65536];
	sqlite3 *h = NULL;
	char *msg = NULL;
	FILE *f = fopen(sql_file, "r");
	size_t n;

	if (!f)
		fail_msg("cannot open %s (run from the source tree)", sql_file);
	n = fread(sql, 1, sizeof sql - 1, f);
	sql[n] = '\0';
	fclose(f);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql_file, msg);
	sqlite3_close(h);
}
