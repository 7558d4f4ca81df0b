/* str: printf into a new string, the one home of what several modules wrote for
 * themselves (messages naming the file and line at fault, report lines, JSON keys). */
#ifndef FORMDESK_STR_H
#define FORMDESK_STR_H

#include <stdarg.h>

/* str_printf: printf into a new string (caller frees); NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* str_vprintf: str_printf with the arguments as a va_list (used up). */
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* str_setf: *slot = str_printf(fmt, ...), for an out-parameter message (caller frees;
 * NULL when out of memory); slot NULL does nothing. What *slot held is not freed. */
void str_setf(char **slot, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
