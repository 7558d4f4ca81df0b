#include "sbuf.h"

#include <stdlib.h>
#include <string.h>

bool sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return false;
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return true;
}

void sbuf_clear(struct sbuf *b)
{
	b->n = 0;
	if (b->p)
		b->p[0] = '\0';
}
