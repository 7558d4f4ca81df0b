/* numconv: checked conversion of a number from outside (a model's JSON, a file, a
 * transcript) to an integer type. Converting a double that is NaN, infinite or outside the
 * target's range is undefined behaviour in C (C11 6.3.1.4), so every such conversion goes
 * through here and the caller says what to do with a number out of range. */
#ifndef FORMDESK_NUMCONV_H
#define FORMDESK_NUMCONV_H

#include <stdbool.h>

/* The largest token, word or item count formdesk takes from outside: far above any real
 * count, far below LONG_MAX. */
#define NUMCONV_COUNT_MAX 1000000000000L

/* numconv_long: v truncated toward zero into *out when v is a finite number from lo to hi
 * (both included; lo <= hi, both within long). Output: *out, written only on success.
 * Returns false (and leaves *out) for NaN, infinities and numbers outside [lo, hi]. */
bool numconv_long(double v, long lo, long hi, long *out);

/* numconv_int: the same for int. */
bool numconv_int(double v, int lo, int hi, int *out);

#endif
