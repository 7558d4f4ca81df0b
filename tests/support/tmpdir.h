/* tmpdir: a private folder under /tmp for a test program's files, made in its setup and
 * removed with everything in it in its teardown, and the files a test writes into it. */
#ifndef FORMDESK_TESTS_TMPDIR_H
#define FORMDESK_TESTS_TMPDIR_H

#include <stddef.h>

/* tmpdir_make: create a new folder /tmp/formdesk-test-NAME-XXXXXX and write its path to
 * dir (size n, at least 64); dir is remembered (it stays the caller's, alive to the end)
 * for tmpdir_teardown. Returns 0, or -1 when it cannot be made (a cmocka setup's
 * answer). */
int tmpdir_make(char *dir, size_t n, const char *name);

/* tmpdir_remove: remove dir and everything in it. Returns 0, or -1 when that failed. */
int tmpdir_remove(const char *dir);

/* tmpdir_teardown: a cmocka group teardown (state unused): tmpdir_remove on the folder
 * the last tmpdir_make made. Returns 0, or -1 when that failed. */
int tmpdir_teardown(void **state);

/* tmpdir_write: write text to the file at path (created or truncated), a test's input
 * file; a file that cannot be opened fails the running test. */
void tmpdir_write(const char *path, const char *text);

#endif
