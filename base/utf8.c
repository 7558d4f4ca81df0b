#include "utf8.h"

#include <utf8proc.h>

const char *utf8_bad(const char *s, size_t len, bool nul_ok)
{
	size_t i = 0;
	while (i < len) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
						      (utf8proc_ssize_t)(len - i), &cp);
		if (k <= 0 || (cp == 0 && !nul_ok))
			return s + i;
		i += (size_t)k;
	}
	return NULL;
}
