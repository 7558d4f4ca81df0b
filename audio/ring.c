/* ring: single-producer single-consumer float ring (see ring.h).
 *
 * head counts samples ever written, tail samples ever read; both only grow (size_t wraps
 * harmlessly because the capacity is a power of two). The producer owns head, the
 * consumer owns tail. The producer publishes samples with a release store of head after
 * copying them, and the consumer reads head with acquire before copying them out; the
 * same pairing on tail hands freed space back. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

#define RING_MAX ((size_t)1 << 26)

struct ring {
	float *buf;
	size_t cap;  /* power of two */
	size_t mask;
	/* On separate cache lines so the two threads do not share one. */
	_Alignas(64) atomic_size_t head;
	_Alignas(64) atomic_size_t tail;
	_Alignas(64) atomic_uint_fast64_t overruns;
	atomic_uint_fast64_t dropped;
};

enum err ring_new(size_t capacity, struct ring **out)
{
	struct ring *r = NULL;
	size_t cap = 2;
	enum err e = ERR_OK;

	if (capacity == 0 || capacity > RING_MAX) {
		e = ERR_INVALID;
		goto out;
	}
	while (cap < capacity)
		cap <<= 1;
	r = aligned_alloc(64, (sizeof(*r) + 63) / 64 * 64);
	if (!r) {
		e = ERR_NOMEM;
		goto out;
	}
	memset(r, 0, sizeof(*r));
	r->buf = calloc(cap, sizeof(float));
	if (!r->buf) {
		free(r);
		r = NULL;
		e = ERR_NOMEM;
		goto out;
	}
	r->cap = cap;
	r->mask = cap - 1;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	atomic_init(&r->overruns, 0);
	atomic_init(&r->dropped, 0);
	*out = r;
out:
	return e;
}

void ring_free(struct ring *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

size_t ring_capacity(const struct ring *r)
{
	return r->cap;
}

/* Copies n samples from flat into the ring at position pos, in at most two pieces (the
 * ring wraps). */
static void copy_in(struct ring *r, size_t pos, const float *flat, size_t n)
{
	size_t at = pos & r->mask;
	size_t first = r->cap - at < n ? r->cap - at : n;

	memcpy(r->buf + at, flat, first * sizeof(float));
	memcpy(r->buf, flat + first, (n - first) * sizeof(float));
}

/* Copies n samples from the ring at position pos into flat. */
static void copy_out(const struct ring *r, size_t pos, float *flat, size_t n)
{
	size_t at = pos & r->mask;
	size_t first = r->cap - at < n ? r->cap - at : n;

	memcpy(flat, r->buf + at, first * sizeof(float));
	memcpy(flat + first, r->buf, (n - first) * sizeof(float));
}

size_t ring_write(struct ring *r, const float *samples, size_t n)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	size_t space = r->cap - (head - tail);
	size_t k = n < space ? n : space;

	if (k)
		copy_in(r, head, samples, k);
	atomic_store_explicit(&r->head, head + k, memory_order_release);
	if (k < n) {
		atomic_fetch_add_explicit(&r->overruns, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&r->dropped, n - k, memory_order_relaxed);
	}
	return k;
}

size_t ring_read(struct ring *r, float *out, size_t max)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t avail = head - tail;
	size_t k = max < avail ? max : avail;

	if (k)
		copy_out(r, tail, out, k);
	atomic_store_explicit(&r->tail, tail + k, memory_order_release);
	return k;
}

size_t ring_available(const struct ring *r)
{
	size_t head = atomic_load_explicit(&((struct ring *)r)->head, memory_order_acquire);
	size_t tail = atomic_load_explicit(&((struct ring *)r)->tail, memory_order_relaxed);

	return head - tail;
}

size_t ring_discard(struct ring *r)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	atomic_store_explicit(&r->tail, head, memory_order_release);
	return head - tail;
}

uint64_t ring_overruns(const struct ring *r, uint64_t *dropped)
{
	struct ring *w = (struct ring *)r; /* atomic loads take non-const pointers in C11 */

	if (dropped)
		*dropped = atomic_load_explicit(&w->dropped, memory_order_relaxed);
	return atomic_load_explicit(&w->overruns, memory_order_relaxed);
}
