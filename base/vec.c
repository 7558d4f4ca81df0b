#include "vec.h"

#include <stdlib.h>

void *vec_grow(void *v, int n, int *cap, size_t size, int first)
{
	if (n < *cap)
		return v;
	int ncap = *cap ? *cap * 2 : first;
	void *nv = realloc(v, (size_t)ncap * size);
	if (nv)
		*cap = ncap;
	return nv;
}
