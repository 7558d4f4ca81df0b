#include "tmpdir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

int tmpdir_make(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "/tmp/formdesk-test-%s-XXXXXX", name);
	return mkdtemp(dir) ? 0 : -1;
}

int tmpdir_remove(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

void tmpdir_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}
