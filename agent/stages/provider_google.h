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
#include "base/err.h"
#include "http.h"

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

/* provider_google_cached: the kept access token while it is good for a minute more
 * (borrowed, as provider_google_token's), else NULL. */
const char *provider_google_cached(const struct provider_google *g);

/* provider_google_token_req: the token endpoint's request (a freshly signed JWT bearer
 * grant), timeout_ms per attempt, 2 retries. Output: *out (caller owns, or hands it to
 * http_start / http_perform). Errors: ERR_BACKEND (signing failed), ERR_NOMEM. */
enum err provider_google_token_req(struct provider_google *g, long timeout_ms,
				   struct http_req **out, char *why, size_t n);

/* provider_google_token_take: read the token endpoint's answer res (borrowed; its body is
 * wiped) and keep the token. Output: *token (borrowed, as provider_google_token's).
 * Errors: ERR_BACKEND (transport, HTTP status, no access_token, a bad expires_in: why
 * says which), ERR_NOMEM. */
enum err provider_google_token_take(struct provider_google *g, const struct http_result *res,
				    const char **token, char *why, size_t n);

/* provider_google_authorize: give r (not yet sent) "Authorization: Bearer TOKEN" without
 * blocking: at once with a kept token, else the token request is made to go before r on
 * r's own transfer (http_req_after), which adds the header when the token arrives; a
 * failed token fetch ends r's transfer with its reason. g is borrowed and must outlive
 * r's transfer. Errors: ERR_BACKEND (signing failed), ERR_NOMEM. */
enum err provider_google_authorize(struct provider_google *g, long timeout_ms,
				   struct http_req *r, char *why, size_t n);

/* provider_google_jwt: the signed assertion for time now (seconds since the epoch).
 * Output: *out (caller frees with free()). Errors: ERR_BACKEND (signing failed), ERR_NOMEM. */
enum err provider_google_jwt(const struct provider_google *g, long long now, char **out);

#endif
