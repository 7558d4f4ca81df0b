/* sbuf: a growing byte string kept NUL-terminated, the one home of the append step that
 * the stream reader, the WER normalizer and the SVG writer each wrote for themselves. */
#ifndef FORMDESK_SBUF_H
#define FORMDESK_SBUF_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialized it is empty (p NULL); p is the caller's to free. */
struct sbuf {
	char *p;    /* n bytes and a NUL after them, or NULL before the first append */
	size_t n;   /* bytes held, without the NUL */
	size_t cap; /* bytes allocated at p */
};

/* sbuf_add: append the n bytes at s (s may be NULL when n is 0) and keep a NUL after
 * them, doubling the room as needed (256 bytes first). Returns false when out of memory,
 * and then b is unchanged. */
bool sbuf_add(struct sbuf *b, const char *s, size_t n);

/* sbuf_clear: empty b, keeping its room for the next appends. */
void sbuf_clear(struct sbuf *b);

#endif
