/* mockdir: what the tests of a model backend over a local server set up alike: no
 * provider config from the environment, a private folder, and the server; and all of it
 * undone by one group teardown. */
#ifndef FORMDESK_TESTS_MOCKDIR_H
#define FORMDESK_TESTS_MOCKDIR_H

#include <stddef.h>

struct mockserver;

/* mockdir_open: unset FORMDESK_CONFIG (no provider config but the test's own), make the
 * folder /tmp/formdesk-test-NAME-XXXXXX (its path in dir, size n, at least 64) and start a
 * server with start (mockserver_start, sse_openai_server, ...) into *ms; both are
 * remembered (dir and ms stay the caller's, alive to the end) for mockdir_teardown.
 * Returns 0, or -1 when the folder or the server could not be made (a cmocka setup's
 * answer). */
int mockdir_open(char *dir, size_t n, const char *name, struct mockserver *(*start)(void),
		 struct mockserver **ms);

/* mockdir_provider: point the provider whose variables begin with prefix ("OPENAI",
 * "SARVAM", ...) at the server the last mockdir_open started: PREFIX_BASE_URL its URL,
 * PREFIX_API_KEY key; mockdir_teardown unsets both (one provider a program). */
void mockdir_provider(const char *prefix, const char *key);

/* mockdir_teardown: a cmocka group teardown (state unused) for what the last mockdir_open
 * made: stop its server, free the backends' instances (backend_cleanup), forget the
 * provider config a test loaded and the provider variables mockdir_provider set, and
 * remove its folder and everything in it. Returns 0. */
int mockdir_teardown(void **state);

#endif
