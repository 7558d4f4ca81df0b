#include "ttscache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "audio/audiofile.h"
#include "audio/resample.h"

/* A sentence being written on a thread of its own (the loop's misses): its audio serves
 * hits until the file is in place. */
struct write {
	struct ttscache *c;
	char path[1100];
	float *s;
	size_t n;
	bool done;         /* guarded by c->mu */
	pthread_t th;
	struct write *next;
};

struct ttscache {
	char *dir;
	struct backend inner;
	char voice[300];    /* backend_tts_voice of inner: the key's first part */
	long hits, misses;
	pthread_mutex_t mu;
	struct write *writes; /* the list is the loop's; each done flag is under mu */
};

const char *ttscache_dir(const char *db_path, char *buf, size_t n)
{
	snprintf(buf, n, "%s.tts", db_path);
	return buf;
}

enum err ttscache_new(const char *dir, const struct backend *inner, struct ttscache **out)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return ERR_IO;
	struct ttscache *c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir))) {
		free(c);
		return ERR_NOMEM;
	}
	c->inner = *inner;
	backend_tts_voice(inner, c->voice, sizeof(c->voice));
	pthread_mutex_init(&c->mu, NULL);
	*out = c;
	return ERR_OK;
}

static void reap(struct ttscache *c, bool all);

void ttscache_free(struct ttscache *c)
{
	if (!c)
		return;
	reap(c, true); /* what is being written is written whole before the cache goes */
	pthread_mutex_destroy(&c->mu);
	free(c->dir);
	free(c);
}

void ttscache_counts(const struct ttscache *c, long *hits, long *misses)
{
	*hits = c->hits;
	*misses = c->misses;
}

/* path_of: the file of sentence s (len bytes): DIR/SHA256(voice "\n" sentence).wav. */
static void path_of(const struct ttscache *c, const char *s, size_t len, char *buf, size_t n)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char hex[2 * EVP_MAX_MD_SIZE + 1];
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	if (!x || EVP_DigestInit_ex(x, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(x, c->voice, strlen(c->voice) + 1) != 1 ||
	    EVP_DigestUpdate(x, s, len) != 1 || EVP_DigestFinal_ex(x, md, &mdlen) != 1)
		mdlen = 0;
	EVP_MD_CTX_free(x);
	for (unsigned int i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[2 * mdlen] = '\0';
	snprintf(buf, n, "%s/%s.wav", c->dir, hex);
}

/* keep: write n samples (16 kHz) to path whole: a temporary file, flushed, then renamed.
 * Errors: ERR_IO, ERR_AUDIO. */
static enum err keep(const char *path, const float *s, size_t n)
{
	char tmp[1200];
	snprintf(tmp, sizeof(tmp), "%.1100s.%ld.tmp.wav", path, (long)getpid());
	enum err e = audiofile_write(tmp, s, n, TTSCACHE_RATE, NULL);
	int fd = e ? -1 : open(tmp, O_RDONLY);
	if (!e && (fd < 0 || fsync(fd) != 0))
		e = ERR_IO;
	if (fd >= 0)
		close(fd);
	if (!e && rename(tmp, path) != 0)
		e = ERR_IO;
	if (e)
		unlink(tmp);
	return e;
}

/* ---- writes off the loop ---- */

static void *writer(void *ud)
{
	struct write *w = ud;
	keep(w->path, w->s, w->n); /* a file that would not write is a miss next time */
	pthread_mutex_lock(&w->c->mu);
	w->done = true;
	pthread_mutex_unlock(&w->c->mu);
	return NULL;
}

/* reap: join the writes that are done (all: every write, waiting for them). */
static void reap(struct ttscache *c, bool all)
{
	for (struct write **pw = &c->writes; *pw;) {
		struct write *w = *pw;
		pthread_mutex_lock(&c->mu);
		bool done = w->done;
		pthread_mutex_unlock(&c->mu);
		if (!done && !all) {
			pw = &w->next;
			continue;
		}
		pthread_join(w->th, NULL);
		*pw = w->next;
		free(w->s);
		free(w);
	}
}

/* keep_later: keep n samples (taken over) at path on a thread of its own, so the loop
 * never waits for the disk; until written they serve hits (pending). Errors: ERR_IO,
 * ERR_AUDIO (written here when no thread would start), ERR_NOMEM. */
static enum err keep_later(struct ttscache *c, const char *path, float *s, size_t n)
{
	struct write *w = calloc(1, sizeof(*w));
	enum err e;
	reap(c, false);
	if (!w) {
		e = keep(path, s, n);
		free(s);
		return e;
	}
	*w = (struct write){.c = c, .s = s, .n = n, .next = c->writes};
	snprintf(w->path, sizeof(w->path), "%s", path);
	if (pthread_create(&w->th, NULL, writer, w) != 0) {
		e = keep(path, s, n);
		free(s);
		free(w);
		return e;
	}
	c->writes = w;
	return ERR_OK;
}

/* pending: a copy of the audio being written at path. Output: *out (caller frees), *n.
 * Returns false when none is. */
static bool pending(struct ttscache *c, const char *path, float **out, size_t *n)
{
	for (struct write *w = c->writes; w; w = w->next) {
		if (strcmp(w->path, path) != 0)
			continue;
		if (!(*out = malloc((w->n ? w->n : 1) * sizeof(float))))
			return false;
		memcpy(*out, w->s, w->n * sizeof(float));
		*n = w->n;
		return true;
	}
	return false;
}

/* A sentence being synthesized: its pieces converted to 16 kHz as they arrive, handed on
 * (fn, may be NULL) and gathered for the cache file. */
struct pieces {
	backend_piece_fn fn;
	void *ud;
	struct resample_stream *rs;
	float *s;
	size_t n;
	enum err e;
};

/* piece_put: m samples at 16 kHz (taken over) handed on and gathered. */
static void piece_put(struct pieces *p, float *s, size_t m, double at_ms)
{
	float *all = m ? realloc(p->s, (p->n + m) * sizeof(float)) : p->s;
	if (m && !all)
		p->e = ERR_NOMEM;
	if (m && all) {
		memcpy(all + p->n, s, m * sizeof(float));
		p->s = all;
		p->n += m;
		if (p->fn)
			p->fn(p->ud, s, m, TTSCACHE_RATE, at_ms);
	}
	free(s);
}

static void on_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	struct pieces *p = ud;
	float *o = NULL;
	size_t m = 0;
	if (p->e || (!p->rs && (p->e = resample_stream_new(rate, TTSCACHE_RATE, &p->rs))))
		return;
	if (!(p->e = resample_stream_push(p->rs, s, n, false, &o, &m)))
		piece_put(p, o, m, at_ms);
}

/* sentence: the audio of one sentence (16 kHz) from the cache or the inner backend,
 * handed to fn (may be NULL) as it arrives; hit says which. Errors: as ttscache_speak. */
static enum err sentence(struct ttscache *c, const char *s, size_t len, backend_piece_fn fn,
			 void *ud, float **out, size_t *n, bool *hit)
{
	char path[1100];
	path_of(c, s, len, path, sizeof(path));
	if (pending(c, path, out, n) ||
	    (access(path, R_OK) == 0 && audiofile_read(path, TTSCACHE_RATE, out, n, NULL) == ERR_OK)) {
		c->hits++;
		*hit = true;
		if (fn && *n)
			fn(ud, *out, *n, TTSCACHE_RATE, 0);
		return ERR_OK;
	}
	char *text = strndup(s, len);
	struct tts_audio a = {0};
	struct pieces p = {.fn = fn, .ud = ud};
	enum err e = text ? backend_speak_stream(&c->inner, text, on_piece, &p, &a) : ERR_NOMEM;
	free(text);
	free(a.samples);
	float *o = NULL;
	size_t m = 0;
	if (!e && p.rs && !p.e && !(p.e = resample_stream_push(p.rs, NULL, 0, true, &o, &m)))
		piece_put(&p, o, m, 0);
	resample_stream_free(p.rs);
	if (!e)
		e = p.e;
	if (!e) {
		c->misses++;
		*hit = false;
		e = keep(path, p.s, p.n);
	}
	if (e) {
		free(p.s);
		return e;
	}
	*out = p.s;
	*n = p.n;
	return ERR_OK;
}

enum err ttscache_sentences(const char *text, enum err (*fn)(void *ud, const char *s, size_t len),
			    void *ud)
{
	static const char *const ends[] = {"\xe0\xa5\xa4", "\xe0\xa5\xa5", "?", "!", "."};
	const char *start = text, *p = text;
	while (*p) {
		size_t k = 0;
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]) && !k; i++)
			if (strncmp(p, ends[i], strlen(ends[i])) == 0)
				k = strlen(ends[i]);
		const char *after = p + (k ? k : 1);
		if (k && (*after == '\0' || *after == ' ' || *after == '\n')) {
			const char *a = start, *b = after;
			while (a < b && (*a == ' ' || *a == '\n'))
				a++;
			enum err e = a < b ? fn(ud, a, (size_t)(b - a)) : ERR_OK;
			if (e)
				return e;
			start = after;
		}
		p = after;
	}
	while (*start == ' ' || *start == '\n')
		start++;
	size_t len = strlen(start);
	while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\n'))
		len--;
	return len ? fn(ud, start, len) : ERR_OK;
}

/* A walk over sentences: the audio gathered so far (keep), the sentences made and already
 * kept, and the sentence it failed on (why, size n). */
struct walk {
	struct ttscache *c;
	backend_piece_fn fn;     /* each sentence's audio as it arrives, may be NULL */
	void *ud;
	bool keep, skip_placeholders;
	float *s;
	size_t n;
	int made, had;
	char *why;
	size_t why_n;
};

static enum err walk_one(void *ud, const char *s, size_t len)
{
	struct walk *w = ud;
	float *f = NULL;
	size_t n = 0;
	bool hit = false;
	if (w->skip_placeholders && memmem(s, len, "{error}", 7))
		return ERR_OK;
	enum err e = sentence(w->c, s, len, w->fn, w->ud, &f, &n, &hit);
	if (e) {
		struct backend_usage u;
		if (w->why_n)
			snprintf(w->why, w->why_n, "\"%.*s\": %s", (int)(len < 120 ? len : 120), s,
				 backend_last_usage(&w->c->inner, &u) && u.error[0] ? u.error : err_str(e));
		return e;
	}
	w->made += !hit;
	w->had += hit;
	float *all = w->keep ? realloc(w->s, (w->n + n + 1) * sizeof(float)) : NULL;
	if (all) {
		if (n)
			memcpy(all + w->n, f, n * sizeof(float));
		w->s = all;
		w->n += n;
	}
	free(f);
	return w->keep && !all ? ERR_NOMEM : ERR_OK;
}

enum err ttscache_speak_stream(struct ttscache *c, const char *text, backend_piece_fn fn, void *ud,
			       struct tts_audio *out)
{
	struct walk w = {.c = c, .fn = fn, .ud = ud, .keep = true};
	enum err e = ttscache_sentences(text ? text : "", walk_one, &w);
	if (e || !w.n) {
		free(w.s);
		w.s = NULL;
	}
	if (!e)
		*out = (struct tts_audio){w.s, w.n, TTSCACHE_RATE};
	return e;
}

enum err ttscache_warm(struct ttscache *c, const struct form *f, int *made, int *had, char *why,
		       size_t n)
{
	struct walk w = {.c = c, .skip_placeholders = true, .why = why, .why_n = n};
	enum err e = ERR_OK;
	const char *fixed[] = {f->intro, f->outro, f->outro_incomplete};
	if (n)
		why[0] = '\0';
	for (size_t i = 0; i < 3 && !e; i++)
		if (fixed[i])
			e = ttscache_sentences(fixed[i], walk_one, &w);
	for (int q = 0; q < f->n_questions && !e; q++) {
		const struct form_question *qq = &f->questions[q];
		const char *ask = qq->script && strspn(qq->script, " \n") < strlen(qq->script) ? qq->script
											: qq->label;
		if (ask)
			e = ttscache_sentences(ask, walk_one, &w);
		if (!e && qq->skip_message)
			e = ttscache_sentences(qq->skip_message, walk_one, &w);
		for (int r = 0; r < qq->n_retry_messages && !e; r++)
			if (qq->retry_messages[r])
				e = ttscache_sentences(qq->retry_messages[r], walk_one, &w);
	}
	if (made)
		*made = w.made;
	if (had)
		*had = w.had;
	return e;
}

enum err ttscache_speak(struct ttscache *c, const char *text, struct tts_audio *out)
{
	return ttscache_speak_stream(c, text, NULL, NULL, out);
}

/* ---- saying text without blocking (backend_speak_start) ---- */

/* A text being said through the cache: its sentences in order, each from the cache at
 * once or else from the voice's request, started on the loop's client; the one in
 * flight is gathered (p) to be kept when it is complete. */
struct job {
	struct ttscache *c;
	struct http_client *hc;
	char **sent;
	size_t n_sent, at;
	backend_piece_fn fn;
	backend_spoken_fn done;
	void *ud;
	struct backend_speech *inner;  /* the sentence's request in flight, NULL none */
	struct pieces p;
	char path[1100];
	bool walking;                  /* advance() runs: a done that comes inside it returns */
	enum err e;
};

static void job_free(struct job *j)
{
	for (size_t i = 0; i < j->n_sent; i++)
		free(j->sent[i]);
	free(j->sent);
	free(j->p.s);
	resample_stream_free(j->p.rs);
	free(j);
}

static enum err job_add(void *ud, const char *s, size_t len)
{
	struct job *j = ud;
	char **a = realloc(j->sent, (j->n_sent + 1) * sizeof(*a));
	if (!a)
		return ERR_NOMEM;
	j->sent = a;
	if (!(a[j->n_sent] = strndup(s, len)))
		return ERR_NOMEM;
	j->n_sent++;
	return ERR_OK;
}

/* sentence_done: the voice's request for the sentence in flight ended (err e): its last
 * samples handed on, the whole sentence kept. */
static void sentence_done(void *ud, enum err e);

static void job_piece(void *ud, const float *s, size_t n, int rate, double at_ms)
{
	struct job *j = ud;
	on_piece(&j->p, s, n, rate, at_ms);
}

/* advance: say the sentences from j->at on: kept ones at once, the first new one by a
 * request. At the end (or on an error) the owner is told and j is freed. Returns true
 * when j is gone. */
static bool advance(struct job *j)
{
	j->walking = true;
	while (!j->e && j->at < j->n_sent && !j->inner) {
		const char *s = j->sent[j->at];
		float *f = NULL;
		size_t n = 0;
		path_of(j->c, s, strlen(s), j->path, sizeof(j->path));
		if (pending(j->c, j->path, &f, &n) ||
		    (access(j->path, R_OK) == 0 &&
		     audiofile_read(j->path, TTSCACHE_RATE, &f, &n, NULL) == ERR_OK)) {
			j->c->hits++;
			if (n)
				j->fn(j->ud, f, n, TTSCACHE_RATE, 0);
			free(f);
			j->at++;
			continue;
		}
		j->p = (struct pieces){.fn = j->fn, .ud = j->ud};
		j->e = backend_speak_start(&j->c->inner, j->hc, s, job_piece, sentence_done, j,
					   &j->inner);
	}
	j->walking = false;
	if (!j->inner && (j->e || j->at == j->n_sent)) {
		backend_spoken_fn done = j->done;
		void *owner = j->ud;
		enum err e = j->e;
		job_free(j);
		done(owner, e);
		return true;
	}
	return false;
}

static void sentence_done(void *ud, enum err e)
{
	struct job *j = ud;
	float *o = NULL;
	size_t m = 0;
	j->inner = NULL;
	if (!e && j->p.rs && !j->p.e && !(j->p.e = resample_stream_push(j->p.rs, NULL, 0, true, &o, &m)))
		piece_put(&j->p, o, m, 0);
	resample_stream_free(j->p.rs);
	j->p.rs = NULL;
	if (!e)
		e = j->p.e;
	if (!e) {
		j->c->misses++;
		e = keep_later(j->c, j->path, j->p.s, j->p.n);
	} else {
		free(j->p.s);
	}
	j->p.s = NULL;
	j->e = e;
	j->at++;
	if (!j->walking)
		advance(j);
}

static enum err ops_speak_start(void *ctx, struct http_client *hc, const char *text,
				backend_piece_fn fn, backend_spoken_fn done, void *ud, void **out)
{
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		return ERR_NOMEM;
	*j = (struct job){.c = ctx, .hc = hc, .fn = fn, .done = done, .ud = ud};
	enum err e = ttscache_sentences(text ? text : "", job_add, j);
	if (e) {
		job_free(j);
		return e;
	}
	if (!advance(j))
		*out = j;
	return ERR_OK;
}

static void ops_speak_cancel(void *ctx, void *job)
{
	struct job *j = job;
	(void)ctx;
	backend_speak_cancel(j->inner);
	job_free(j);
}

/* ---- the cache as a TTS backend (backend.h) ---- */

static enum err ops_call(void *ctx, const void *req, void *out)
{
	return ttscache_speak(ctx, req, out);
}

static const struct backend_usage *ops_usage(const void *ctx)
{
	const struct ttscache *c = ctx;
	return c->inner.ops && c->inner.ops->usage ? c->inner.ops->usage(c->inner.ctx) : NULL;
}

static enum err ops_stream(void *ctx, const char *text, backend_piece_fn fn, void *ud,
			   struct tts_audio *out)
{
	return ttscache_speak_stream(ctx, text, fn, ud, out);
}

static const struct backend_ops ttscache_ops = {
	.stage = BACKEND_TTS,
	.call = ops_call,
	.usage = ops_usage,
	.stream = ops_stream,
	.speak_start = ops_speak_start,
	.speak_cancel = ops_speak_cancel,
};

struct backend ttscache_backend(struct ttscache *c)
{
	return (struct backend){c->inner.name, &ttscache_ops, c};
}

enum err ttscache_voice(const char *spec, const char *db_path, struct backend *b,
			struct ttscache **cache, const char **why)
{
	struct backend v;
	const char *w = NULL;
	enum err e = backend_tts(spec, &v, &w);
	*cache = NULL;
	if (!e && (e = ttscache_wrap(db_path, &v, cache)) != ERR_OK)
		w = "cannot make the TTS cache folder beside the database";
	if (why)
		*why = w ? w : err_str(e);
	if (!e)
		*b = v;
	return e;
}

enum err ttscache_wrap(const char *db_path, struct backend *b, struct ttscache **out)
{
	char dir[1024];
	*out = NULL;
	if (!db_path || !backend_is_network(b))
		return ERR_OK;
	enum err e = ttscache_new(ttscache_dir(db_path, dir, sizeof(dir)), b, out);
	if (!e)
		*b = ttscache_backend(*out);
	return e;
}
