#include "provider_google.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/file.h"
#include "http.h"
#include "base/numconv.h"
#include "secret.h"

struct provider_google {
	char *email, *token_uri, *project;
	EVP_PKEY *pkey;
	char *token;
	long long expires; /* seconds since the epoch */
};

void provider_google_free(struct provider_google *g)
{
	if (!g)
		return;
	free(g->email);
	free(g->token_uri);
	free(g->project);
	EVP_PKEY_free(g->pkey);
	if (g->token) {
		memset(g->token, 0, strlen(g->token));
		free(g->token);
	}
	free(g);
}

enum err provider_google_load(const char *path, struct provider_google **out, char *why, size_t n)
{
	char *text = NULL;
	if (file_read(path, &text, NULL) != ERR_OK) {
		snprintf(why, n, "cannot read the credentials file %s", path);
		return ERR_IO;
	}
	enum err e = ERR_PARSE;
	struct provider_google *g = NULL;
	cJSON *root = cJSON_Parse(text);
	memset(text, 0, strlen(text));
	free(text);
	const cJSON *email = cJSON_GetObjectItemCaseSensitive(root, "client_email");
	const cJSON *key = cJSON_GetObjectItemCaseSensitive(root, "private_key");
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(root, "token_uri");
	const cJSON *proj = cJSON_GetObjectItemCaseSensitive(root, "project_id");
	if (!cJSON_IsString(email) || !cJSON_IsString(key)) {
		snprintf(why, n, "%s is not a service-account key file (client_email, private_key)", path);
		goto out;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		e = ERR_NOMEM;
		goto out;
	}
	/* the private key's text, should a server ever quote it (secret.h) */
	if (secret_add(key->valuestring) != ERR_OK) {
		e = ERR_NOMEM;
		goto out;
	}
	BIO *bio = BIO_new_mem_buf(key->valuestring, -1);
	g->pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	if (!g->pkey) {
		snprintf(why, n, "%s: the private key cannot be read", path);
		goto out;
	}
	g->email = strdup(email->valuestring);
	g->token_uri = strdup(cJSON_IsString(uri) ? uri->valuestring : "https://oauth2.googleapis.com/token");
	g->project = cJSON_IsString(proj) ? strdup(proj->valuestring) : NULL;
	if (!g->email || !g->token_uri || (cJSON_IsString(proj) && !g->project)) {
		e = ERR_NOMEM;
		goto out;
	}
	*out = g;
	g = NULL;
	e = ERR_OK;
out:
	/* wipe the key text before freeing it */
	if (cJSON_IsString(key))
		memset(key->valuestring, 0, strlen(key->valuestring));
	cJSON_Delete(root);
	provider_google_free(g);
	return e;
}

const char *provider_google_project(const struct provider_google *g)
{
	return g->project;
}

/* base64url without padding (RFC 7515, section 2) */
static char *b64url(const unsigned char *data, size_t len)
{
	size_t cap = 4 * ((len + 2) / 3) + 1;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	int k = EVP_EncodeBlock((unsigned char *)s, data, (int)len);
	for (int i = 0; i < k; i++)
		if (s[i] == '+')
			s[i] = '-';
		else if (s[i] == '/')
			s[i] = '_';
	while (k > 0 && s[k - 1] == '=')
		k--;
	s[k] = '\0';
	return s;
}

enum err provider_google_jwt(const struct provider_google *g, long long now, char **out)
{
	enum err e = ERR_NOMEM;
	char *h64 = NULL, *c64 = NULL, *s64 = NULL, *claims_text = NULL, *input = NULL;
	unsigned char *sig = NULL;
	EVP_MD_CTX *md = NULL;
	cJSON *claims = cJSON_CreateObject();
	if (!claims)
		goto out;
	cJSON_AddStringToObject(claims, "iss", g->email);
	cJSON_AddStringToObject(claims, "scope", PROVIDER_GOOGLE_SCOPE);
	cJSON_AddStringToObject(claims, "aud", g->token_uri);
	cJSON_AddNumberToObject(claims, "iat", (double)now);
	cJSON_AddNumberToObject(claims, "exp", (double)(now + 3600));
	claims_text = cJSON_PrintUnformatted(claims);
	static const char header[] = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
	h64 = b64url((const unsigned char *)header, strlen(header));
	c64 = claims_text ? b64url((const unsigned char *)claims_text, strlen(claims_text)) : NULL;
	if (!h64 || !c64)
		goto out;
	size_t in_len = strlen(h64) + 1 + strlen(c64);
	input = malloc(in_len + 1);
	if (!input)
		goto out;
	snprintf(input, in_len + 1, "%s.%s", h64, c64);
	e = ERR_BACKEND;
	size_t sig_len = 0;
	md = EVP_MD_CTX_new();
	if (!md || EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, g->pkey) != 1 ||
	    EVP_DigestSign(md, NULL, &sig_len, (const unsigned char *)input, in_len) != 1)
		goto out;
	sig = malloc(sig_len);
	if (!sig) {
		e = ERR_NOMEM;
		goto out;
	}
	if (EVP_DigestSign(md, sig, &sig_len, (const unsigned char *)input, in_len) != 1)
		goto out;
	s64 = b64url(sig, sig_len);
	if (!s64) {
		e = ERR_NOMEM;
		goto out;
	}
	size_t total = in_len + 1 + strlen(s64) + 1;
	char *jwt = malloc(total);
	if (!jwt) {
		e = ERR_NOMEM;
		goto out;
	}
	snprintf(jwt, total, "%s.%s", input, s64);
	*out = jwt;
	e = ERR_OK;
out:
	EVP_MD_CTX_free(md);
	free(sig);
	free(s64);
	free(input);
	free(h64);
	free(c64);
	cJSON_free(claims_text);
	cJSON_Delete(claims);
	return e;
}

const char *provider_google_cached(const struct provider_google *g)
{
	return g->token && (long long)time(NULL) < g->expires - 60 ? g->token : NULL;
}

enum err provider_google_token_req(struct provider_google *g, long timeout_ms,
				   struct http_req **out, char *why, size_t n)
{
	static const char grant[] = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";
	char *jwt = NULL, *body = NULL;
	struct http_req *req = NULL;
	enum err e = provider_google_jwt(g, (long long)time(NULL), &jwt);

	if (e) {
		snprintf(why, n, "google: cannot sign the token request");
		goto out;
	}
	size_t len = strlen(grant) + strlen(jwt);
	e = ERR_NOMEM;
	if (!(body = malloc(len + 1)))
		goto out;
	snprintf(body, len + 1, "%s%s", grant, jwt); /* a JWT is URL-safe as it is */
	if ((e = http_req_new("POST", g->token_uri, &req)) ||
	    (e = http_req_body(req, body, len, "application/x-www-form-urlencoded")))
		goto out;
	http_req_limits(req, timeout_ms, 2, 0);
	*out = req;
	req = NULL;
out:
	http_req_free(req);
	free(body);
	free(jwt);
	return e;
}

enum err provider_google_token_take(struct provider_google *g, const struct http_result *res,
				    const char **token, char *why, size_t n)
{
	long long now = (long long)time(NULL);
	cJSON *root = NULL;
	enum err e = ERR_BACKEND;

	if (res->err) {
		snprintf(why, n, "google token: %s", res->error);
		goto out;
	}
	if (res->status != 200) {
		snprintf(why, n, "google token: HTTP %ld", res->status);
		goto out;
	}
	root = cJSON_ParseWithLength(res->body, res->body_len);
	const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, "access_token");
	const cJSON *exp = cJSON_GetObjectItemCaseSensitive(root, "expires_in");
	if (!cJSON_IsString(at)) {
		snprintf(why, n, "google token: no access_token in the answer");
		goto out;
	}
	long life = 3600; /* seconds; the token endpoint's default */
	if (cJSON_IsNumber(exp) && !numconv_long(exp->valuedouble, 0, 366L * 86400, &life)) {
		snprintf(why, n, "google token: expires_in %g is not a number of seconds up to a year",
			 exp->valuedouble);
		goto out;
	}
	char *t = strdup(at->valuestring);
	if (!t || secret_add(t) != ERR_OK) {
		free(t);
		e = ERR_NOMEM;
		goto out;
	}
	if (g->token) {
		memset(g->token, 0, strlen(g->token));
		free(g->token);
	}
	g->token = t;
	g->expires = now + life;
	*token = g->token;
	e = ERR_OK;
out:
	/* the answer held the token: wipe it (the result is the caller's, its bytes are not) */
	if (res->body)
		memset(res->body, 0, res->body_len);
	cJSON_Delete(root);
	return e;
}

enum err provider_google_token(struct provider_google *g, long timeout_ms, const char **token,
			       char *why, size_t n)
{
	struct http_req *req = NULL;
	struct http_result *res = NULL;
	enum err e;

	if ((*token = provider_google_cached(g)))
		return ERR_OK;
	if ((e = provider_google_token_req(g, timeout_ms, &req, why, n)) ||
	    (e = http_perform(req, &res)))
		return e;
	e = provider_google_token_take(g, res, token, why, n);
	http_result_free(res);
	return e;
}

/* bearer: "Authorization: Bearer TOKEN" on r (the header line wiped after). */
static enum err bearer(struct http_req *r, const char *token)
{
	size_t n = strlen(token) + 8;
	char *v = malloc(n);
	enum err e;

	if (!v)
		return ERR_NOMEM;
	snprintf(v, n, "Bearer %s", token);
	e = http_req_header(r, "Authorization", v);
	memset(v, 0, n);
	free(v);
	return e;
}

/* after_token: the token request before r has ended: keep the token, authorize r. */
static enum err after_token(void *ud, const struct http_result *res, struct http_req *r,
			    char *why, size_t n)
{
	const char *token;
	enum err e = provider_google_token_take(ud, res, &token, why, n);

	return e ? e : bearer(r, token);
}

enum err provider_google_authorize(struct provider_google *g, long timeout_ms,
				   struct http_req *r, char *why, size_t n)
{
	const char *token = provider_google_cached(g);
	struct http_req *first = NULL;
	enum err e;

	if (token)
		return bearer(r, token);
	if ((e = provider_google_token_req(g, timeout_ms, &first, why, n)))
		return e;
	http_req_after(r, first, after_token, g);
	return ERR_OK;
}
