/* svcacct: a Google service-account key file for tests: a fresh RSA key and the file's
 * JSON (project demo-project, client desk@demo-project.iam.gserviceaccount.com). */
#ifndef FORMDESK_TESTS_SVCACCT_H
#define FORMDESK_TESTS_SVCACCT_H

#include <stddef.h>
#include <openssl/evp.h>

#include "base/err.h"

struct backend;
struct backend_usage;
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

/* svcacct_serve: the server svcacct_open started answers as Google does: the queue
 * cleared, GOOGLE_APPLICATION_CREDENTIALS set to the account's file, a POST to /token
 * answered after token_delay_ms with the access token "ya29.test-token" (its grant checked,
 * svcacct_grant_ok), every other request with the JSON answer (borrowed: alive until the
 * server answers otherwise). Undo with mockserver_set_handler(ms, NULL, NULL). */
void svcacct_serve(const char *answer, int token_delay_ms);

/* svcacct_grant_ok: whether the last token request svcacct_serve answered carried a valid
 * JWT bearer grant: the form's fields, the claims (issuer, scope, audience, at most an hour)
 * and an RS256 signature by the account's key. 1 yes, 0 no, -1 no token request yet. */
int svcacct_grant_ok(void);

/* svcacct_slow_token: a Google row's access token fetched without blocking the loop: with
 * the server answering as svcacct_serve(answer, 1500) does, make the backend spec by make
 * (backend_stt, backend_tts, ...) into *be, start it on req (its stage's request) and poll
 * its transfer to the end by loopwait_backend on a client of its own. Output: the result
 * (caller frees with http_result_free; hand it to backend_finish); *u the usage. The
 * running test fails when the backend cannot be made, the loop waited more than 250 ms at
 * once, the whole took less than the token's 1500 ms or the loop ticked 20 times or
 * fewer. */
struct http_result *svcacct_slow_token(enum err (*make)(const char *, struct backend *, const char **),
				       const char *spec, const char *answer, const void *req,
				       struct backend *be, struct backend_usage *u);

#endif
