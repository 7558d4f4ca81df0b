/* dbq: what a test reads back from a database file the code under test wrote. */
#ifndef FORMDESK_TESTS_DBQ_H
#define FORMDESK_TESTS_DBQ_H

/* dbq_text: the first column of the first row of sql on the SQLite database at path,
 * opened read-only, as text ("" for no row or NULL). Output: new string (caller frees).
 * A query that does not prepare fails the test, naming it. */
char *dbq_text(const char *path, const char *sql);

/* dbq_expect: fail the test, showing both, unless dbq_text(path, sql) is want. */
void dbq_expect(const char *path, const char *sql, const char *want);

/* dbq_exec_file: run the SQL file at sql_file (at most 64 KiB) on the SQLite database at
 * path, created when missing: a fixture written as SQL. A file that cannot be read or does
 * not run fails the test, naming it and SQLite's message. */
void dbq_exec_file(const char *path, const char *sql_file);

/* dbq_remove: remove the database file at path with its write-ahead log and shared-memory
 * files (path-wal, path-shm), so the next open starts empty; files already gone are no
 * error. */
void dbq_remove(const char *path);

#endif
