/* textcheck: the checks every string from outside passes before formdesk keeps it (a
 * model's or a speech provider's answer, a typed caller line): valid UTF-8 (RFC 3629) and
 * no NUL, whose text after it C strings would silently drop. */
#ifndef FORMDESK_TEXTCHECK_H
#define FORMDESK_TEXTCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* textcheck_json_nul: the offset of the first escaped NUL (\u0000) inside a string of the
 * JSON text json (len bytes; only its strings are looked at), or len when none. A JSON
 * reader gives C strings, which end there and drop the rest. */
size_t textcheck_json_nul(const char *json, size_t len);

/* textcheck_cut: the length of s (len bytes of UTF-8) cut to at most max bytes without
 * splitting a character (len when it fits). */
size_t textcheck_cut(const char *s, size_t len, size_t max);

/* textcheck_answer: whether a provider's answer body (len bytes, JSON or server-sent
 * events of JSON) is valid UTF-8 without NUL bytes or escaped NULs. Output: when not,
 * why (size n) says which and at which byte. */
bool textcheck_answer(const char *body, size_t len, char *why, size_t n);

#endif
