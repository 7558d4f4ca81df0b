#include "svcacct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "agent/stages/backend.h"
#include "envclear.h"
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
