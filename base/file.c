#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

enum err file_read(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	enum err e = ERR_IO;
	int saved;

	if (!f)
		return ERR_IO;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *b = realloc(buf, cap);
			if (!b) {
				e = ERR_NOMEM;
				goto out;
			}
			buf = b;
		}
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got == 4096);
	if (ferror(f))
		goto out;
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	buf = NULL;
	e = ERR_OK;
out:
	saved = errno; /* the read's reason, not fclose's */
	fclose(f);
	free(buf);
	errno = saved;
	return e;
}
