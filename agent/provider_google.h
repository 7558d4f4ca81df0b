/* provider_google: an OAuth 2.0 access token for Google Cloud from a service-account key
 * file (GOOGLE_APPLICATION_CREDENTIALS), by the JWT bearer grant
 * (developers.google.com/identity/protocols/oauth2/service-account#httprest): a JWT with
 * iss = client_email, scope, aud = token_uri, iat and exp (at most one hour later),
 * signed RS256 with the account's private key (OpenSSL libcrypto), POSTed to token_uri as
 * grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=JWT. The token is
 * kept until a minute before it expires. */
#ifndef FORMDESK_PROVIDER_GOOGLE_H
#define FORMDESK_PROVIDER_GOOGLE_H

#include <stddef.h>
#include "err.h"

#define PROVIDER_GOOGLE_SCOPE "https://www.googleapis.com/auth/cloud-platform"

struct provider_google;

/* provider_google_load: read the service-account key file at path. Output: *out (caller
 * frees with provider_google_free). why (size n) says what is wrong, never the key.
 * Errors: ERR_IO, ERR_PARSE (not a service-account key file), ERR_NOMEM. */
enum err provider_google_load(const char *path, struct provider_google **out, char *why, size_t n);
void provider_google_free(struct provider_google *g);

/* provider_google_project: the key file's project_id, NULL if it has none. */
const char *provider_google_project(const struct provider_google *g);

/* provider_google_token: a valid access token (borrowed: valid until the next call or
 * provider_google_free), fetched blocking when the kept one is missing or about to
 * expire; timeout_ms bounds the request. Errors: ERR_BACKEND (why says the HTTP status or
 * transport error), ERR_NOMEM. */
enum err provider_google_token(struct provider_google *g, long timeout_ms, const char **token,
			       char *why, size_t n);

/* provider_google_jwt: the signed assertion for time now (seconds since the epoch).
 * Output: *out (caller frees with free()). Errors: ERR_BACKEND (signing failed), ERR_NOMEM. */
enum err provider_google_jwt(const struct provider_google *g, long long now, char **out);

#endif
