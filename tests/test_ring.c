/* test_ring: the lock-free sample ring. Table-driven cases from tests/data/ring_ops.tsv
 * checked against a model queue, argument errors, and two-thread stress tests: a lossless
 * one (the producer retries what did not fit; the consumer must see the exact sequence)
 * and a lossy one (the producer never waits; what the consumer sees must be an increasing
 * subsequence and seen + dropped must equal everything written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio/ring.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

/* ring row: NAME CAPACITY OPS AVAILABLE OVERRUNS DROPPED (tests/data/ring_ops.tsv): the
 * operations run on a ring and on a model queue, which must agree at every read. */
static void ops_row(struct table_row *row, const void *ud)
{
	(void)ud;
	const char *name = row->col[0];
	size_t cap = (size_t)table_num(row, 1), want_avail = (size_t)table_num(row, 3);
	unsigned long long want_over = (unsigned long long)table_num(row, 4);
	unsigned long long want_drop = (unsigned long long)table_num(row, 5);
	char *ops = row->col[2];
	struct ring *r = NULL;
	float *model, *buf;
	size_t mhead = 0, mtail = 0, mcap;
	float next = 0;
	uint64_t dropped;

	assert_int_equal(ring_new(cap, &r), ERR_OK);
	mcap = ring_capacity(r);
	assert_true(mcap >= cap);
	assert_int_equal(mcap & (mcap - 1), 0);
	model = calloc(1 << 20, sizeof(float));
	buf = calloc(1 << 18, sizeof(float));
	assert_non_null(model);
	assert_non_null(buf);
	for (char *tok = strtok(ops, ","); tok && strcmp(tok, "-"); tok = strtok(NULL, ",")) {
		size_t n = (size_t)atol(tok + 1), got;

		if (tok[0] == 'w') {
			size_t fit = mcap - (mhead - mtail);
			for (size_t i = 0; i < n; i++)
				buf[i] = next++;
			got = ring_write(r, buf, n);
			assert_int_equal(got, n < fit ? n : fit);
			for (size_t i = 0; i < got; i++)
				model[mhead++] = buf[i];
		} else if (tok[0] == 'r') {
			got = ring_read(r, buf, n);
			assert_int_equal(got, n < mhead - mtail ? n : mhead - mtail);
			for (size_t i = 0; i < got; i++)
				if (buf[i] != model[mtail++])
					fail_msg("%s: sample %zu of %s wrong", name, i, tok);
		} else if (tok[0] == 'd') {
			assert_int_equal(ring_discard(r), mhead - mtail);
			mtail = mhead;
		} else {
			fail_msg("%s: unknown operation %s", name, tok);
		}
	}
	if (ring_available(r) != want_avail)
		fail_msg("%s: %zu waiting, expected %zu", name, ring_available(r), want_avail);
	if (ring_overruns(r, &dropped) != want_over || dropped != want_drop)
		fail_msg("%s: %llu overruns / %llu dropped, expected %llu / %llu", name,
			 (unsigned long long)ring_overruns(r, NULL), (unsigned long long)dropped,
			 want_over, want_drop);
	free(model);
	free(buf);
	ring_free(r);
}

static void test_table(void **state)
{
	(void)state;
	assert_true(table_each("tests/data/ring_ops.tsv", 6, 6, 0, ops_row, NULL) >= 10);
}

static void test_errors(void **state)
{
	struct ring *r = (struct ring *)0x1;

	(void)state;
	assert_int_equal(ring_new(0, &r), ERR_INVALID);
	assert_ptr_equal(r, (struct ring *)0x1); /* untouched on failure */
	assert_int_equal(ring_new(((size_t)1 << 26) + 1, &r), ERR_INVALID);
	ring_free(NULL);
}

#define STRESS_TOTAL 4000000u

struct stress {
	struct ring *r;
	int lossless;
	atomic_int done;
};

/* Writes 0..STRESS_TOTAL-1 in chunks of 1..509 samples, like audio callbacks. */
static void *producer(void *arg)
{
	struct stress *s = arg;
	float chunk[512];
	uint32_t v = 0, seed = 12345;

	while (v < STRESS_TOTAL) {
		size_t n, off = 0;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % 509;
		if (n > STRESS_TOTAL - v)
			n = STRESS_TOTAL - v;
		for (size_t i = 0; i < n; i++)
			chunk[i] = (float)(v + i);
		if (s->lossless) {
			while (off < n) {
				off += ring_write(s->r, chunk + off, n - off);
				if (off < n)
					sched_yield();
			}
		} else {
			ring_write(s->r, chunk, n);
		}
		v += (uint32_t)n;
	}
	atomic_store(&s->done, 1);
	return NULL;
}

/* Float holds every integer below 2^24 exactly; STRESS_TOTAL is below that. */
static void run_stress(int lossless)
{
	struct stress s = {0};
	pthread_t th;
	float buf[300];
	uint64_t seen = 0, dropped = 0, overruns;
	double last = -1;
	uint32_t seed = 99;

	assert_true(STRESS_TOTAL < (1u << 24));
	assert_int_equal(ring_new(lossless ? 1024 : 4096, &s.r), ERR_OK);
	s.lossless = lossless;
	atomic_init(&s.done, 0);
	assert_int_equal(pthread_create(&th, NULL, producer, &s), 0);
	for (;;) {
		int finished = atomic_load(&s.done);
		size_t n;

		seed = seed * 1103515245u + 12345u;
		n = ring_read(s.r, buf, 1 + (seed >> 16) % 300);
		for (size_t i = 0; i < n; i++) {
			if (lossless ? buf[i] != (float)(last + 1) : buf[i] <= last)
				fail_msg("sample %llu: %.0f after %.0f", (unsigned long long)seen, buf[i], last);
			last = buf[i];
		}
		seen += n;
		if (!n && finished && ring_available(s.r) == 0)
			break;
		if (!lossless && (seed >> 20) % 8 == 0)
			sched_yield(); /* a slow consumer, so the ring overruns */
	}
	pthread_join(th, NULL);
	overruns = ring_overruns(s.r, &dropped);
	if (lossless) {
		/* Every retried write counted as an overrun, but nothing was lost. */
		assert_int_equal(seen, STRESS_TOTAL);
		assert_true(overruns <= dropped); /* each overrun dropped at least one */
	} else {
		assert_int_equal(seen + dropped, STRESS_TOTAL);
		assert_true(dropped == 0 || overruns > 0);
		print_message("lossy stress: %llu seen, %llu dropped in %llu overruns\n",
			      (unsigned long long)seen, (unsigned long long)dropped,
			      (unsigned long long)overruns);
	}
	ring_free(s.r);
}

static void test_stress_lossless(void **state)
{
	(void)state;
	run_stress(1);
}

static void test_stress_lossy(void **state)
{
	(void)state;
	run_stress(0);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_table),
	  cmocka_unit_test(test_errors),
	  cmocka_unit_test(test_stress_lossless),
	  cmocka_unit_test(test_stress_lossy))
