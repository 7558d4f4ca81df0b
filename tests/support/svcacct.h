/* svcacct: a Google service-account key file for tests: a fresh RSA key and the file's
 * JSON (project demo-project, client desk@demo-project.iam.gserviceaccount.com). */
#ifndef FORMDESK_TESTS_SVCACCT_H
#define FORMDESK_TESTS_SVCACCT_H

#include <stddef.h>
#include <openssl/evp.h>

struct mockserver;

/* svcacct_write: write the file under /tmp naming the test server ms's /token as the token
 * endpoint.
 * Outputs: its path in path (size n, at least 32; the caller unlinks it); *key the private
 * key (caller frees with EVP_PKEY_free); *pem its PEM text (caller frees; pem may be NULL).
 * Returns 0, or -1 on failure. */
int svcacct_write(const struct mockserver *ms, char *path, size_t n, EVP_PKEY **key, char **pem);

/* svcacct_open: a cmocka setup step for a Google backend's test: unset the provider
 * variables env (a NULL-ended list, envclear), start a server into *ms, and write a
 * service-account file naming it (svcacct_write: its path in path, size n; the key in
 * *key). All of it is remembered (env, ms, path and key stay the caller's, alive to the
 * end) for svcacct_teardown. Returns 0, or -1 on failure (a cmocka setup's answer). */
int svcacct_open(const char *const *env, struct mockserver **ms, char *path, size_t n,
		 EVP_PKEY **key);

/* svcacct_teardown: a cmocka group teardown (state unused) for what svcacct_open made:
 * stop the server, free the backends' instances and tokens (backend_cleanup), free the
 * key, remove the file and unset env again. Returns 0. */
int svcacct_teardown(void **state);

#endif
