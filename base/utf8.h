/* utf8: whether bytes are text, for the loaders of every folder (forms, word lists, CSV
 * manifests) that refuse a file naming the first bad byte. */
#ifndef FORMDESK_UTF8_H
#define FORMDESK_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* utf8_bad: the first byte of s[0..len) that does not start a valid UTF-8 character, or
 * (nul_ok false) the first NUL; NULL when all of it is text. Input: s, len bytes
 * (borrowed). Output: a pointer into s, or NULL. */
const char *utf8_bad(const char *s, size_t len, bool nul_ok);

#endif
