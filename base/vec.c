#include "vec.h"

#include <stdlib.h>
#include <string.h>

void *vec_grow(void *v, int n, int *cap, size_t size, int first)
{
	if (n >= *cap) {
		int ncap = *cap ? *cap * 2 : first;
		void *nv = realloc(v, (size_t)ncap * size);
		if (!nv)
			return NULL;
		v = nv;
		*cap = ncap;
	}
	memset((char *)v + (size_t)n * size, 0, size);
	return v;
}
