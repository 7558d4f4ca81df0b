#include "tmpdir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

/* the folder the last tmpdir_make made, for tmpdir_teardown */
static const char *made;

int tmpdir_make(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "/tmp/formdesk-test-%s-XXXXXX", name);
	if (!mkdtemp(dir))
		return -1;
	made = dir;
	return 0;
}

int tmpdir_remove(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int tmpdir_teardown(void **state)
{
	(void)state;
	return made ? tmpdir_remove(made) : 0;
}

void tmpdir_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}
