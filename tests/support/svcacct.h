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

#endif
