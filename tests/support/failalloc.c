#define FAILALLOC_IMPL
#include "failalloc.h"

#include <cjson/cJSON.h>
#include <sqlite3.h>

static long fail_at, count;
static int failed, in_sqlite;

void failalloc_fail_at(long n, int sqlite)
{
	fail_at = n;
	count = 0;
	failed = 0;
	in_sqlite = sqlite;
}

long failalloc_count(void)
{
	return count;
}

int failalloc_failed(void)
{
	return failed;
}

/* Whether this allocation (SQLite's when sqlite) is the one to fail. */
static int fail_in(int sqlite)
{
	if (sqlite != in_sqlite)
		return 0;
	if (++count == fail_at) {
		failed = 1;
		return 1;
	}
	return 0;
}

static int fail_now(void)
{
	return fail_in(0);
}

void *failalloc_malloc(size_t n)
{
	return fail_now() ? NULL : malloc(n);
}

void *failalloc_calloc(size_t a, size_t b)
{
	return fail_now() ? NULL : calloc(a, b);
}

void *failalloc_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : realloc(p, n);
}

char *failalloc_strdup(const char *s)
{
	return fail_now() ? NULL : strdup(s);
}

char *failalloc_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : strndup(s, n);
}

int failalloc_vasprintf(char **out, const char *fmt, va_list ap)
{
	if (fail_now())
		return -1; /* as glibc: *out is then undefined */
	return vasprintf(out, fmt, ap);
}

int failalloc_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = failalloc_vasprintf(out, fmt, ap);
	va_end(ap);
	return r;
}

/* SQLite's own allocator, wrapped: its sizes and bookkeeping stay its own. */
static sqlite3_mem_methods base;

static void *sq_malloc(int n)
{
	return fail_in(1) ? NULL : base.xMalloc(n);
}

static void *sq_realloc(void *p, int n)
{
	return fail_in(1) ? NULL : base.xRealloc(p, n);
}

int failalloc_install(void)
{
	cJSON_Hooks hooks = {failalloc_malloc, free};
	cJSON_InitHooks(&hooks);
	sqlite3_mem_methods m;
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base) != SQLITE_OK)
		return -1;
	m = base;
	m.xMalloc = sq_malloc;
	m.xRealloc = sq_realloc;
	return sqlite3_config(SQLITE_CONFIG_MALLOC, &m) == SQLITE_OK ? 0 : -1;
}
