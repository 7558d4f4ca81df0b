/* testmain: the main of a cmocka test program, written once instead of in every file. */
#ifndef FORMDESK_TESTMAIN_H
#define FORMDESK_TESTMAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* TESTMAIN(setup, teardown, tests...): main runs the cmocka tests given (each a
 * cmocka_unit_test(...) or cmocka_unit_test_setup_teardown(...)) in order as one group,
 * with the group's setup and teardown functions (NULL for none), and returns the number
 * of tests that failed (cmocka_run_group_tests), so the program exits 0 when all passed. */
#define TESTMAIN(setup, teardown, ...)                                                 \
	int main(void)                                                                  \
	{                                                                               \
		const struct CMUnitTest tests[] = {__VA_ARGS__};                       \
		return cmocka_run_group_tests(tests, setup, teardown);                 \
	}

#endif
