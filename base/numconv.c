#include "numconv.h"

#include <limits.h>

bool numconv_long(double v, long lo, long hi, long *out)
{
	/* -(double)LONG_MIN is 2^63 exactly, the first double past long's range; lo and hi
	 * may round when made doubles, so the result is compared again as a long. NaN fails
	 * every comparison. */
	if (!(v >= (double)LONG_MIN) || !(v < -(double)LONG_MIN) ||
	    !(v >= (double)lo && v <= (double)hi))
		return false;
	long r = (long)v;
	if (r < lo || r > hi)
		return false;
	*out = r;
	return true;
}

bool numconv_int(double v, int lo, int hi, int *out)
{
	long r;
	if (!numconv_long(v, lo, hi, &r))
		return false;
	*out = (int)r;
	return true;
}
