#include "secret.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The window: a provider that quotes 8 bytes of a key in a row has quoted too much. */
#define WINDOW 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **secrets;      /* every secret, whole */
static size_t *lens;        /* their lengths */
static int n_secrets;
static uint64_t *grams;     /* every WINDOW-byte run of the secrets, sorted */
static size_t n_grams;

static int cmp_gram(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t gram_at(const char *p)
{
	uint64_t g;
	memcpy(&g, p, WINDOW);
	return g;
}

enum err secret_add(const char *s)
{
	size_t k = s ? strlen(s) : 0;
	if (k < 4)
		return ERR_OK;
	enum err e = ERR_NOMEM;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_secrets; i++)
		if (strcmp(secrets[i], s) == 0) {
			e = ERR_OK;
			goto out;
		}
	char **v = realloc(secrets, (size_t)(n_secrets + 1) * sizeof(*v));
	if (!v)
		goto out;
	secrets = v;
	size_t *lv = realloc(lens, (size_t)(n_secrets + 1) * sizeof(*lv));
	if (!lv)
		goto out;
	lens = lv;
	lens[n_secrets] = k;
	if (!(secrets[n_secrets] = strdup(s)))
		goto out;
	if (k >= WINDOW) {
		size_t add = k - WINDOW + 1;
		uint64_t *g = realloc(grams, (n_grams + add) * sizeof(*g));
		if (!g) {
			free(secrets[n_secrets]);
			goto out;
		}
		grams = g;
		for (size_t i = 0; i < add; i++)
			grams[n_grams++] = gram_at(s + i);
		qsort(grams, n_grams, sizeof(*grams), cmp_gram);
	}
	n_secrets++;
	e = ERR_OK;
out:
	pthread_mutex_unlock(&lock);
	return e;
}

/* The end of the secret run that covers a window starting at i, or i when none does. */
static size_t cover_from(const char *s, size_t len, size_t i)
{
	size_t end = i;
	if (n_grams && i + WINDOW <= len) {
		uint64_t g = gram_at(s + i);
		if (bsearch(&g, grams, n_grams, sizeof(*grams), cmp_gram))
			end = i + WINDOW;
	}
	for (int k = 0; k < n_secrets; k++) {
		size_t l = lens[k];
		if (l < WINDOW && i + l <= len && i + l > end && memcmp(s + i, secrets[k], l) == 0)
			end = i + l;
	}
	return end;
}

size_t secret_scrub(char *s, size_t len)
{
	if (!s)
		return 0;
	pthread_mutex_lock(&lock);
	if (!n_secrets) {
		pthread_mutex_unlock(&lock);
		return len;
	}
	/* One pass in place: "***" is written when a run ends, so every window of the run
	 * was read before anything was written over it (a run is at least 4 bytes). */
	size_t o = 0, run_end = 0;
	bool in_run = false;
	for (size_t i = 0; i < len; i++) {
		size_t c = cover_from(s, len, i);
		if (c > run_end)
			run_end = c;
		if (i < run_end) {
			in_run = true;
			continue;
		}
		if (in_run) {
			memcpy(s + o, "***", 3);
			o += 3;
			in_run = false;
		}
		s[o++] = s[i];
	}
	if (in_run) {
		memcpy(s + o, "***", 3);
		o += 3;
	}
	pthread_mutex_unlock(&lock);
	if (o < len)
		s[o] = '\0';
	return o;
}

void secret_scrub_str(char *s)
{
	if (s)
		secret_scrub(s, strlen(s));
}

void secret_forget_all(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_secrets; i++) {
		memset(secrets[i], 0, strlen(secrets[i]));
		free(secrets[i]);
	}
	free(secrets);
	free(lens);
	lens = NULL;
	if (grams)
		memset(grams, 0, n_grams * sizeof(*grams));
	free(grams);
	secrets = NULL;
	grams = NULL;
	n_secrets = 0;
	n_grams = 0;
	pthread_mutex_unlock(&lock);
}
