/* failalloc: an allocator that fails the Nth allocation (curl's habit, tests/test_failalloc.c).
 * Sources compiled with `-include tests/support/failalloc.h` have malloc, calloc, realloc,
 * strdup, strndup, asprintf and vasprintf replaced by the counting versions below; cJSON's
 * and SQLite's allocations are routed through them too by failalloc_install. */
#ifndef FORMDESK_TESTS_FAILALLOC_H
#define FORMDESK_TESTS_FAILALLOC_H

/* the system's declarations first, so the names below replace only the calls */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* failalloc_fail_at: fail the nth allocation from now on (1 the next; 0 never) and reset
 * the count; sqlite: count SQLite's own allocations instead of everything else's.
 * failalloc_count: allocations counted since; failalloc_failed: whether the nth one came
 * (and failed). */
void failalloc_fail_at(long n, int sqlite);
long failalloc_count(void);
int failalloc_failed(void);
/* failalloc_install: route cJSON's and SQLite's allocations through the counter (once,
 * before either is used). Returns 0, -1 on failure. */
int failalloc_install(void);

void *failalloc_malloc(size_t n);
void *failalloc_calloc(size_t a, size_t b);
void *failalloc_realloc(void *p, size_t n);
char *failalloc_strdup(const char *s);
char *failalloc_strndup(const char *s, size_t n);
int failalloc_vasprintf(char **out, const char *fmt, va_list ap);
int failalloc_asprintf(char **out, const char *fmt, ...);

#ifndef FAILALLOC_IMPL
#define malloc(n) failalloc_malloc(n)
#define calloc(a, b) failalloc_calloc(a, b)
#define realloc(p, n) failalloc_realloc(p, n)
#define strdup(s) failalloc_strdup(s)
#define strndup(s, n) failalloc_strndup(s, n)
#define vasprintf(o, f, a) failalloc_vasprintf(o, f, a)
#define asprintf(...) failalloc_asprintf(__VA_ARGS__)
#endif

#endif
