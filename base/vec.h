/* vec: growing an array by doubling, the one home of the "n == cap: realloc twice the
 * room" step that loaders, reports and screens wrote for themselves. */
#ifndef FORMDESK_VEC_H
#define FORMDESK_VEC_H

#include <stddef.h>

/* vec_grow: room for one element after the first n of the array v (*cap elements of size
 * bytes each; v may be NULL with *cap 0), doubling *cap, or making it first when it is 0;
 * that element (index n) is zeroed, ready to be filled and counted. Returns v when it had
 * room already, else its new place with *cap updated; NULL when out of memory, and then v
 * is unchanged and still the caller's, and *cap too. The caller stores the result back
 * into its array pointer. */
void *vec_grow(void *v, int n, int *cap, size_t size, int first);

#endif
