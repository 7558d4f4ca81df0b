/* ring: a lock-free ring of float samples for one producer thread (the PortAudio
 * callback) and one consumer thread (the main loop), with C11 atomics. Writing never
 * blocks, allocates or locks: samples that do not fit are dropped and counted as an
 * overrun, so a slow consumer loses the newest audio, never corrupts the ring. */
#ifndef FORMDESK_RING_H
#define FORMDESK_RING_H

#include <stddef.h>
#include <stdint.h>
#include "base/err.h"

struct ring;

/* ring_new: a ring holding at least capacity samples (rounded up to a power of two,
 * 2..2^26). Output: *out (caller frees with ring_free). Errors: ERR_INVALID (capacity 0
 * or above 2^26), ERR_NOMEM. */
enum err ring_new(size_t capacity, struct ring **out);

/* ring_free: release r; ring_free(NULL) does nothing. No thread may be using r. */
void ring_free(struct ring *r);

/* ring_capacity: the number of samples the ring holds when full. */
size_t ring_capacity(const struct ring *r);

/* ring_write: producer side. Copies up to n samples (borrowed) in; what does not fit is
 * dropped and counted (ring_overruns). Wait-free, no allocation, no locks: safe in an
 * audio callback. Output: samples written (0..n). */
size_t ring_write(struct ring *r, const float *samples, size_t n);

/* ring_read: consumer side. Moves up to max samples into out (caller's buffer of max
 * floats). Output: samples read (0..max). */
size_t ring_read(struct ring *r, float *out, size_t max);

/* ring_available: consumer side: samples waiting to be read now. */
size_t ring_available(const struct ring *r);

/* ring_discard: consumer side: drop every sample waiting (e.g. the agent's own voice
 * heard while muted). Output: samples dropped. */
size_t ring_discard(struct ring *r);

/* ring_overruns: from either side: the number of writes that could not store all their
 * samples, and (if dropped is not NULL) the total samples dropped, since ring_new. */
uint64_t ring_overruns(const struct ring *r, uint64_t *dropped);

#endif
