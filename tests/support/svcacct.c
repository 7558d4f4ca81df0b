#include "svcacct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "agent/stages/backend.h"
#include "agent/stages/http.h"
#include "envclear.h"
#include "loopwait.h"
#include "mockserver.h"

int svcacct_write(const struct mockserver *ms, char *path, size_t n, EVP_PKEY **key, char **pem)
{
	char token_uri[128];
	snprintf(token_uri, sizeof token_uri, "%s/token", mockserver_url(ms));
	EVP_PKEY *k = EVP_RSA_gen(2048);
	BIO *b = BIO_new(BIO_s_mem());
	if (!k || !b) {
		EVP_PKEY_free(k);
		BIO_free(b);
		return -1;
	}
	PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
	char *p = NULL;
	long len = BIO_get_mem_data(b, &p);
	char *text_key = strndup(p, (size_t)len);
	BIO_free(b);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "service_account");
	cJSON_AddStringToObject(o, "project_id", "demo-project");
	cJSON_AddStringToObject(o, "private_key_id", "k1");
	cJSON_AddStringToObject(o, "private_key", text_key ? text_key : "");
	cJSON_AddStringToObject(o, "client_email", "desk@demo-project.iam.gserviceaccount.com");
	cJSON_AddStringToObject(o, "token_uri", token_uri);
	char *text = cJSON_Print(o);
	cJSON_Delete(o);
	snprintf(path, n, "/tmp/formdesk-cred-XXXXXX");
	int fd = text && text_key ? mkstemp(path) : -1;
	ssize_t w = fd >= 0 ? write(fd, text, strlen(text)) : -1;
	if (fd >= 0)
		close(fd);
	cJSON_free(text);
	if (w <= 0) {
		EVP_PKEY_free(k);
		free(text_key);
		return -1;
	}
	*key = k;
	if (pem)
		*pem = text_key;
	else
		free(text_key);
	return 0;
}

/* What svcacct_open made, for the teardown: a test program opens one. */
static const char *const *opened_env;
static struct mockserver **opened_ms;
static char *opened_path;
static EVP_PKEY **opened_key;

int svcacct_open(const char *const *env, struct mockserver **ms, char *path, size_t n,
		 EVP_PKEY **key)
{
	opened_env = env;
	opened_ms = ms;
	opened_path = path;
	opened_key = key;
	envclear(env);
	*ms = mockserver_start();
	return *ms && svcacct_write(*ms, path, n, key, NULL) == 0 ? 0 : -1;
}

int svcacct_teardown(void **state)
{
	(void)state;
	mockserver_stop(*opened_ms);
	backend_cleanup();
	EVP_PKEY_free(*opened_key);
	unlink(opened_path);
	envclear(opened_env);
	return 0;
}

static size_t b64url_decode(const char *in, size_t n, unsigned char *out)
{
	char buf[4096] = {0};
	size_t k = 0;
	for (size_t i = 0; i < n && k < sizeof(buf) - 4; i++)
		buf[k++] = in[i] == '-' ? '+' : in[i] == '_' ? '/' : in[i];
	while (k % 4)
		buf[k++] = '=';
	int len = EVP_DecodeBlock(out, (unsigned char *)buf, (int)k);
	size_t pad = 0;
	while (pad < 2 && k > pad && buf[k - 1 - pad] == '=')
		pad++;
	return len < 0 ? 0 : (size_t)len - pad;
}

/* Check the JWT bearer grant: form fields, claims, RS256 signature by the account's key. */
static int check_jwt(const char *body)
{
	static const char pre[] = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";
	if (strncmp(body, pre, strlen(pre)) != 0)
		return 0;
	const char *jwt = body + strlen(pre);
	const char *d1 = strchr(jwt, '.');
	const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d2)
		return 0;
	unsigned char hdr[256], claims[1024], sig[512];
	size_t hl = b64url_decode(jwt, (size_t)(d1 - jwt), hdr);
	size_t cl = b64url_decode(d1 + 1, (size_t)(d2 - d1 - 1), claims);
	size_t sl = b64url_decode(d2 + 1, strlen(d2 + 1), sig);
	cJSON *h = cJSON_ParseWithLength((char *)hdr, hl);
	cJSON *c = cJSON_ParseWithLength((char *)claims, cl);
	const cJSON *alg = cJSON_GetObjectItemCaseSensitive(h, "alg");
	const cJSON *iss = cJSON_GetObjectItemCaseSensitive(c, "iss");
	const cJSON *scope = cJSON_GetObjectItemCaseSensitive(c, "scope");
	const cJSON *aud = cJSON_GetObjectItemCaseSensitive(c, "aud");
	const cJSON *iat = cJSON_GetObjectItemCaseSensitive(c, "iat");
	const cJSON *exp = cJSON_GetObjectItemCaseSensitive(c, "exp");
	int ok = cJSON_IsString(alg) && strcmp(alg->valuestring, "RS256") == 0 && cJSON_IsString(iss) &&
		 strcmp(iss->valuestring, "desk@demo-project.iam.gserviceaccount.com") == 0 &&
		 cJSON_IsString(scope) &&
		 strcmp(scope->valuestring, "https://www.googleapis.com/auth/cloud-platform") == 0 &&
		 cJSON_IsString(aud) && strstr(aud->valuestring, "/token") && cJSON_IsNumber(iat) &&
		 cJSON_IsNumber(exp) && exp->valuedouble - iat->valuedouble <= 3600;
	cJSON_Delete(h);
	cJSON_Delete(c);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	ok = ok && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, *opened_key) == 1 &&
	     EVP_DigestVerify(md, sig, sl, (const unsigned char *)jwt, (size_t)(d2 - jwt)) == 1;
	EVP_MD_CTX_free(md);
	return ok;
}

static const char *serve_answer;
static int serve_token_delay_ms;
static volatile int grant_ok = -1;

static void google_handler(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	(void)ud;
	if (strcmp(req->path, "/token") == 0) {
		grant_ok = check_jwt(req->body) &&
			   strcmp(mock_header(req, "content-type"), "application/x-www-form-urlencoded") == 0;
		*out = (struct mock_reply){200, NULL,
			"{\"access_token\":\"ya29.test-token\",\"expires_in\":3599,\"token_type\":\"Bearer\"}", NULL,
			serve_token_delay_ms};
		return;
	}
	*out = (struct mock_reply){200, NULL, serve_answer, NULL, 0};
}

void svcacct_serve(const char *answer, int token_delay_ms)
{
	mockserver_clear(*opened_ms);
	setenv("GOOGLE_APPLICATION_CREDENTIALS", opened_path, 1);
	serve_answer = answer;
	serve_token_delay_ms = token_delay_ms;
	mockserver_set_handler(*opened_ms, google_handler, NULL);
}

int svcacct_grant_ok(void)
{
	return grant_ok;
}

struct http_result *svcacct_slow_token(enum err (*make)(const char *, struct backend *, const char **),
				       const char *spec, const char *answer, const void *req,
				       struct backend *be, struct backend_usage *u)
{
	const int token_ms = 1500;
	const char *why = NULL;
	svcacct_serve(answer, token_ms);
	if (make(spec, be, &why) != ERR_OK)
		fail_msg("%s: %s", spec, why);
	struct http_client *c;
	assert_int_equal(http_client_new(&c), ERR_OK);
	struct loopwait w;
	struct http_result *res = loopwait_backend(c, be, req, u, &w);
	http_client_free(c);
	if (w.worst_ms > 250)
		fail_msg("the loop waited %.0f ms at once (the token took %d ms)", w.worst_ms, token_ms);
	assert_true(w.total_ms >= token_ms);
	assert_true(w.ticks > 20);
	return res;
}
