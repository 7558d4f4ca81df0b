/* tmpdir: a private folder under /tmp for a test program's files, made in its setup and
 * removed with everything in it in its teardown. */
#ifndef FORMDESK_TESTS_TMPDIR_H
#define FORMDESK_TESTS_TMPDIR_H

#include <stddef.h>

/* tmpdir_make: create a new folder /tmp/formdesk-test-NAME-XXXXXX and write its path to
 * dir (size n, at least 64). Returns 0, or -1 when it cannot be made (a cmocka setup's
 * answer). */
int tmpdir_make(char *dir, size_t n, const char *name);

/* tmpdir_remove: remove dir and everything in it. Returns 0, or -1 when that failed. */
int tmpdir_remove(const char *dir);

#endif
