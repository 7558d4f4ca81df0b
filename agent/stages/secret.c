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

/* A view of a text with one level of escapes decoded: JSON's (\" \\ \/ \b \f \n \r \t
 * \uXXXX, a surrogate pair as one character) and URLs' (%XX). Byte k of the view came
 * from bytes [from[k], to[k]) of the text scrubbed (not of the view it was decoded from:
 * a view of a view maps back through both). */
struct view {
	char *s;
	size_t *from, *to;
	size_t len;
};

static void view_free(struct view *v)
{
	free(v->s);
	free(v->from);
	free(v->to);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The value of the 4 hex digits at p (n bytes left), -1 when they are not. */
static long hex4(const char *p, size_t n)
{
	long v = 0;
	if (n < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hexval(p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* The escape at s[i] (len bytes in all): its decoded bytes into out (up to 4), their
 * count returned (0: no escape here), *used the bytes it took. */
static int unescape(const char *s, size_t len, size_t i, char out[4], size_t *used)
{
	if (s[i] == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
		out[0] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
		*used = 3;
		return 1;
	}
	if (s[i] != '\\' || i + 1 >= len)
		return 0;
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = memchr(from, s[i + 1], sizeof(from) - 1);
	if (k) {
		out[0] = to[k - from];
		*used = 2;
		return 1;
	}
	long c = s[i + 1] == 'u' ? hex4(s + i + 2, len - i - 2) : -1;
	if (c < 0)
		return 0;
	*used = 6;
	if (c >= 0xd800 && c < 0xdc00 && i + 12 <= len && s[i + 6] == '\\' && s[i + 7] == 'u') {
		long lo = hex4(s + i + 8, len - i - 8);
		if (lo >= 0xdc00 && lo < 0xe000) {
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			*used = 12;
		}
	}
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* view_decode: the view of in (a view, or the text itself when in->from is NULL) with
 * its escapes decoded. Returns 1 made, 0 nothing to decode (*out untouched), -1 out of
 * memory. */
static int view_decode(const struct view *in, struct view *out)
{
	if (!memchr(in->s, '\\', in->len) && !memchr(in->s, '%', in->len))
		return 0;
	struct view v = {malloc(in->len + 1), malloc(in->len * sizeof(size_t) + 1),
			 malloc(in->len * sizeof(size_t) + 1), 0};
	if (!v.s || !v.from || !v.to) {
		view_free(&v);
		return -1;
	}
	for (size_t i = 0; i < in->len;) {
		char dec[4];
		size_t used = 1;
		int n = unescape(in->s, in->len, i, dec, &used);
		if (n == 0) {
			dec[0] = in->s[i];
			n = 1;
		}
		size_t a = in->from ? in->from[i] : i, b = in->from ? in->to[i + used - 1] : i + used;
		for (int k = 0; k < n; k++) {
			v.s[v.len] = dec[k];
			v.from[v.len] = a;
			v.to[v.len++] = b;
		}
		i += used;
	}
	*out = v;
	return 1;
}

/* mark: every run of v that shows a secret, marked in hit (one flag a byte of the text
 * scrubbed, through v's map when it has one). */
static void mark(const struct view *v, bool *hit)
{
	for (size_t i = 0; i < v->len; i++) {
		size_t c = cover_from(v->s, v->len, i);
		for (size_t k = i; k < c; k++) {
			size_t a = v->from ? v->from[k] : k, b = v->from ? v->to[k] : k + 1;
			memset(hit + a, 1, b - a);
		}
	}
}

/* How deep escapes are decoded: 2 catches a key escaped inside a JSON string that is
 * itself inside a JSON string (a model's answer in a chat-completions body). */
#define DEPTH 2

size_t secret_scrub(char *s, size_t len)
{
	if (!s)
		return 0;
	pthread_mutex_lock(&lock);
	if (!n_secrets) {
		pthread_mutex_unlock(&lock);
		return len;
	}
	/* Which bytes show a secret: in the text as it is, and in the text with its escapes
	 * decoded (a provider that writes a key's characters as \u0073 or / as \/ quotes it
	 * all the same; what reads the body later decodes them). */
	bool *hit = calloc(len + 1, sizeof(*hit));
	struct view views[DEPTH + 1] = {{s, NULL, NULL, len}};
	int depth = 0, made = 0;
	size_t o = 0;
	if (!hit)
		goto fail;
	mark(&views[0], hit);
	while (depth < DEPTH && (made = view_decode(&views[depth], &views[depth + 1])) == 1) {
		depth++;
		mark(&views[depth], hit);
	}
	for (int d = 1; d <= depth; d++)
		view_free(&views[d]);
	if (made < 0)
		goto fail;
	pthread_mutex_unlock(&lock);
	/* Each run of marked bytes becomes "***" (a run is at least 4 bytes, so the text
	 * never grows). */
	for (size_t i = 0; i < len;) {
		if (!hit[i]) {
			s[o++] = s[i++];
			continue;
		}
		while (i < len && hit[i])
			i++;
		memcpy(s + o, "***", 3);
		o += 3;
	}
	free(hit);
	if (o < len)
		s[o] = '\0';
	return o;
fail:
	/* Out of memory: what cannot be checked is not kept. */
	pthread_mutex_unlock(&lock);
	free(hit);
	o = len < 3 ? 0 : 3;
	memcpy(s, "***", o);
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
