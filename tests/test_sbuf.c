/* test_sbuf: base/sbuf.c, the growing byte string shared by the stream reader, the WER
 * normalizer and the SVG writer: appends keep a NUL after the bytes, grow past the first
 * room, take zero bytes from NULL, and a clear empties it while keeping the room. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/sbuf.h"
#include "tests/support/testmain.h"

static void test_append_and_grow(void **state)
{
	struct sbuf b = {0};
	assert_true(sbuf_add(&b, NULL, 0));
	assert_non_null(b.p);
	assert_string_equal(b.p, "");
	char piece[100];
	memset(piece, 'x', sizeof piece);
	for (int i = 0; i < 10; i++)
		assert_true(sbuf_add(&b, piece, sizeof piece));
	assert_int_equal(b.n, 1000);
	assert_true(b.cap >= 1001);
	assert_int_equal(strlen(b.p), 1000);
	assert_true(sbuf_add(&b, "ab", 1));
	assert_int_equal(b.p[1000], 'a');
	assert_int_equal(b.p[1001], '\0');
	free(b.p);
}

static void test_clear_keeps_room(void **state)
{
	struct sbuf b = {0};
	sbuf_clear(&b); /* empty and never grown: nothing to do */
	assert_null(b.p);
	assert_true(sbuf_add(&b, "hello", 5));
	size_t cap = b.cap;
	sbuf_clear(&b);
	assert_int_equal(b.n, 0);
	assert_string_equal(b.p, "");
	assert_int_equal(b.cap, cap);
	assert_true(sbuf_add(&b, "hi", 2));
	assert_string_equal(b.p, "hi");
	free(b.p);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_append_and_grow),
	  cmocka_unit_test(test_clear_keeps_room))
