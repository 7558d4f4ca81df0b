/* test_vec: base/vec.c, the array growth the loaders, reports and screens share: room is
 * made by doubling from the first size, the elements are kept, an array with room is left
 * where it is, and the element made room for is zeroed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/vec.h"
#include "tests/support/testmain.h"

static void test_doubles_from_first(void **state)
{
	int *v = NULL, n = 0, cap = 0;
	int caps[] = {0, 0, 0};
	for (int i = 0; i < 20; i++) {
		int *nv = vec_grow(v, n, &cap, sizeof *v, 4);
		assert_non_null(nv);
		v = nv;
		v[n++] = i;
		if (n == 1)
			caps[0] = cap;
		if (n == 5)
			caps[1] = cap;
		if (n == 20)
			caps[2] = cap;
	}
	assert_int_equal(caps[0], 4);
	assert_int_equal(caps[1], 8);
	assert_int_equal(caps[2], 32);
	for (int i = 0; i < n; i++)
		assert_int_equal(v[i], i);
	free(v);

	/* each element made room for is zeroed before it is filled */
	struct pt {
		int x, y;
		const char *name;
	} *p = NULL;
	n = cap = 0;
	for (int i = 0; i < 9; i++) {
		struct pt *np = vec_grow(p, n, &cap, sizeof *np, 2);
		assert_non_null(np);
		p = np;
		assert_int_equal(p[n].x, 0);
		assert_int_equal(p[n].y, 0);
		assert_null(p[n].name);
		p[n++] = (struct pt){i, -i, "set"};
	}
	assert_int_equal(cap, 16);
	free(p);
}

static void test_room_left_in_place(void **state)
{
	int cap = 8;
	int *v = malloc((size_t)cap * sizeof *v);
	assert_non_null(v);
	for (int i = 0; i < cap; i++)
		v[i] = -1;
	assert_ptr_equal(vec_grow(v, 6, &cap, sizeof *v, 4), v);
	assert_int_equal(cap, 8);
	/* the new element is zeroed, its neighbours are not touched */
	assert_int_equal(v[5], -1);
	assert_int_equal(v[6], 0);
	assert_int_equal(v[7], -1);
	free(v);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_doubles_from_first),
	  cmocka_unit_test(test_room_left_in_place))
