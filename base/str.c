#include "str.h"

#include <stdio.h>

char *str_vprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return s;
}

char *str_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = str_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

void str_setf(char **slot, const char *fmt, ...)
{
	va_list ap;
	if (!slot)
		return;
	va_start(ap, fmt);
	*slot = str_vprintf(fmt, ap);
	va_end(ap);
}
