/* secret: the keys formdesk holds (each provider's key from its environment variable, a
 * service account's private key and the access tokens made from it), and the one scrub
 * applied where a provider's words enter formdesk (http.c: every response body and
 * transport error; the acknowledgement read early from a stream), before anything cuts,
 * stores, shows or logs them. A provider that quotes a key back, whole or in part, in an
 * error or in an answer, leaves "***" in its place.
 *
 * What is scrubbed: every run of 8 or more bytes that lies inside a secret (so a key cut
 * short by the provider is caught too), and every whole occurrence of a secret of 4 to 7
 * bytes; looked for in the text as it is and with its escapes decoded, two levels deep
 * (JSON's \uXXXX, \/, \" ..., and URLs' %XX: a provider that writes a key's characters
 * escaped quotes it all the same, and whoever parses the body decodes them), the escaped
 * bytes replaced. Thread-safe: a mutex guards the list. */
#ifndef FORMDESK_SECRET_H
#define FORMDESK_SECRET_H

#include <stddef.h>
#include "base/err.h"

/* secret_add: remember s (copied; NULL or shorter than 4 bytes: nothing to do) until
 * secret_forget_all. Adding the same secret twice keeps one. Errors: ERR_NOMEM. */
enum err secret_add(const char *s);

/* secret_scrub: replace, in s (len bytes, not necessarily NUL-terminated), every run
 * that shows a secret by "***". Returns the new length (never more than len); when it is
 * shorter, s[new length] is set to NUL (so s needs len + 1 bytes when shortened: a
 * NUL-terminated string or a body with its NUL). NULL s: 0. Out of memory (it needs
 * about 35 bytes a byte of s when s holds escapes): all of s becomes "***", since what
 * cannot be checked is not kept. */
size_t secret_scrub(char *s, size_t len);

/* secret_scrub_str: secret_scrub on a NUL-terminated string; NULL does nothing. */
void secret_scrub_str(char *s);

/* secret_forget_all: wipe and free every secret remembered (tests; the end of the
 * process). */
void secret_forget_all(void);

#endif
