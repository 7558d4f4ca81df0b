/* recorder: a call's caller and agent audio, crash-safe per turn (see recorder.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "recorder.h"

struct side {
	SNDFILE *f;
	char path[4096];
	size_t written;     /* samples */
	size_t turn_start;  /* samples, at the last turn end */
};

/* A piece of work for the writer thread: samples to append to a side (samples NULL:
 * n samples of silence), or a commit of both sides (n == 0, side -1). */
struct job {
	int side;
	float *samples;
	size_t n;
	struct job *next;
};

struct recorder {
	int rate;
	int turns;
	struct side s[2];
	/* the writer thread (recorder_background): jobs in order, from head to tail */
	bool bg;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* a job was queued, or stop */
	pthread_cond_t idle;    /* the queue ran empty */
	struct job *head, *tail;
	bool busy, stop;
	atomic_bool failed;     /* a write or commit on the thread failed */
	void (*before_commit)(void);
};

static void set_msg(char **errmsg, const char *what, const char *path, const char *why)
{
	char buf[4400];

	if (!errmsg)
		return;
	snprintf(buf, sizeof(buf), "%s %s: %s", what, path, why);
	*errmsg = strdup(buf);
}

int recorder_dir(const char *db_path, long long call_id, char *buf, size_t size)
{
	size_t len = strlen(db_path);
	int k;

	if (len > 3 && strcmp(db_path + len - 3, ".db") == 0)
		len -= 3;
	k = snprintf(buf, size, "%.*s.audio/call-%lld", (int)len, db_path, call_id);
	return k < 0 || (size_t)k >= size ? -1 : 0;
}

/* mkdir -p. Returns 0 or -1 (errno set). */
static int make_dirs(const char *dir)
{
	char p[4096];
	size_t len = strlen(dir);

	if (len >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(p, dir, len + 1);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			return -1;
		*c = '/';
	}
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static void close_sides(struct recorder *r)
{
	for (int i = 0; i < 2; i++) {
		if (r->s[i].f)
			sf_close(r->s[i].f);
		r->s[i].f = NULL;
	}
}

enum err recorder_open(const char *dir, int rate, struct recorder **out, char **errmsg)
{
	static const char *names[2] = {"caller.wav", "agent.wav"};
	struct recorder *r;

	if (rate < 8000 || rate > 48000) {
		set_msg(errmsg, "recorder: rate must be 8000..48000 Hz for", dir, "");
		return ERR_INVALID;
	}
	if (make_dirs(dir) != 0) {
		set_msg(errmsg, "cannot create folder", dir, strerror(errno));
		return ERR_IO;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return ERR_NOMEM;
	r->rate = rate;
	for (int i = 0; i < 2; i++) {
		SF_INFO info = {.samplerate = rate, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
		int k = snprintf(r->s[i].path, sizeof(r->s[i].path), "%s/%s", dir, names[i]);
		if (k < 0 || (size_t)k >= sizeof(r->s[i].path)) {
			set_msg(errmsg, "path too long:", dir, names[i]);
			close_sides(r);
			free(r);
			return ERR_IO;
		}
		r->s[i].f = sf_open(r->s[i].path, SFM_WRITE, &info);
		if (!r->s[i].f) {
			set_msg(errmsg, "cannot create", r->s[i].path, sf_strerror(NULL));
			close_sides(r);
			free(r);
			return ERR_IO;
		}
		/* Values outside [-1, 1] are clipped, not wrapped. */
		sf_command(r->s[i].f, SFC_SET_CLIPPING, NULL, SF_TRUE);
		/* The header's sizes follow every write (SFC_SET_UPDATE_HEADER_AUTO): a kill
		 * mid-turn leaves a file whose header covers what was written, up to the one
		 * block being written, for every reader; a repair on open would mend only the
		 * files formdesk itself opens, and would write into a recording still open. */
		sf_command(r->s[i].f, SFC_SET_UPDATE_HEADER_AUTO, NULL, SF_TRUE);
		/* a header that says "no samples yet", on disk now: the first one libsndfile
		 * writes gives RIFF size 8, which readers refuse if the call dies before a turn */
		sf_command(r->s[i].f, SFC_UPDATE_HEADER_NOW, NULL, 0);
		sf_write_sync(r->s[i].f);
	}
	*out = r;
	return ERR_OK;
}

/* put: append n samples (NULL: silence) to side's file, where the file is written. */
static enum err put(struct side *s, const float *samples, size_t n)
{
	static const float zeros[1024];

	while (!samples && n) {
		size_t k = n < 1024 ? n : 1024;
		if (sf_write_float(s->f, zeros, (sf_count_t)k) != (sf_count_t)k)
			return ERR_IO;
		n -= k;
	}
	if (n && sf_write_float(s->f, samples, (sf_count_t)n) != (sf_count_t)n)
		return ERR_IO;
	return ERR_OK;
}

/* Makes what side holds durable: header covering every sample, data on disk. */
static enum err commit(struct side *s)
{
	sf_command(s->f, SFC_UPDATE_HEADER_NOW, NULL, 0);
	sf_write_sync(s->f); /* "force the writing of all file cache buffers to disk" */
	return sf_error(s->f) == SF_ERR_NO_ERROR ? ERR_OK : ERR_IO;
}

static enum err commit_both(struct recorder *r)
{
	enum err e = ERR_OK;

	if (r->before_commit)
		r->before_commit();
	for (int i = 0; i < 2; i++)
		if (commit(&r->s[i]))
			e = ERR_IO;
	return e;
}

/* writer: the thread that does the file work of a background recorder, in order. */
static void *writer(void *ud)
{
	struct recorder *r = ud;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct job *j = r->head;
		if (!j) {
			r->busy = false;
			pthread_cond_broadcast(&r->idle);
			if (r->stop)
				break;
			pthread_cond_wait(&r->cv, &r->mu);
			continue;
		}
		r->head = j->next;
		if (!r->head)
			r->tail = NULL;
		r->busy = true;
		pthread_mutex_unlock(&r->mu);
		if ((j->side < 0 ? commit_both(r) : put(&r->s[j->side], j->samples, j->n)) != ERR_OK)
			atomic_store(&r->failed, true);
		free(j->samples);
		free(j);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* submit: queue a job (samples copied; NULL silence; side -1 a commit). Errors: ERR_NOMEM. */
static enum err submit(struct recorder *r, int side, const float *samples, size_t n)
{
	struct job *j = calloc(1, sizeof *j);

	if (!j)
		return ERR_NOMEM;
	j->side = side;
	j->n = n;
	if (samples && n) {
		if (!(j->samples = malloc(n * sizeof *samples))) {
			free(j);
			return ERR_NOMEM;
		}
		memcpy(j->samples, samples, n * sizeof *samples);
	}
	pthread_mutex_lock(&r->mu);
	if (r->tail)
		r->tail->next = j;
	else
		r->head = j;
	r->tail = j;
	r->busy = true;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return ERR_OK;
}

enum err recorder_background(struct recorder *r, void (*before_commit)(void))
{
	if (r->bg)
		return ERR_OK;
	r->before_commit = before_commit;
	if (pthread_mutex_init(&r->mu, NULL) != 0)
		return ERR_NOMEM;
	if (pthread_cond_init(&r->cv, NULL) != 0 || pthread_cond_init(&r->idle, NULL) != 0 ||
	    pthread_create(&r->thread, NULL, writer, r) != 0)
		return ERR_NOMEM; /* (a failed init leaves nothing to undo on Linux) */
	r->bg = true;
	return ERR_OK;
}

enum err recorder_sync(struct recorder *r)
{
	if (r->bg) {
		pthread_mutex_lock(&r->mu);
		while (r->busy || r->head)
			pthread_cond_wait(&r->idle, &r->mu);
		pthread_mutex_unlock(&r->mu);
	}
	return atomic_load(&r->failed) ? ERR_IO : ERR_OK;
}

/* stop: end the writer thread once it has done everything queued. */
static void stop(struct recorder *r)
{
	if (!r->bg)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = true;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_cond_destroy(&r->idle);
	pthread_mutex_destroy(&r->mu);
	r->bg = false;
}

enum err recorder_write(struct recorder *r, enum recorder_side side, const float *samples, size_t n)
{
	struct side *s = &r->s[side];
	enum err e;

	if (atomic_load(&r->failed))
		return ERR_IO;
	if (!n)
		return ERR_OK;
	e = r->bg ? submit(r, (int)side, samples, n) : put(s, samples, n);
	if (e == ERR_OK)
		s->written += n;
	return e;
}

enum err recorder_align(struct recorder *r)
{
	struct side *a = &r->s[RECORDER_AGENT];
	size_t want = r->s[RECORDER_CALLER].written;

	if (a->written >= want)
		return ERR_OK;
	return recorder_write(r, RECORDER_AGENT, NULL, want - a->written);
}

static long to_ms(const struct recorder *r, size_t samples)
{
	return (long)((double)samples * 1000.0 / r->rate + 0.5);
}

enum err recorder_turn_end(struct recorder *r, struct recorder_turn *t)
{
	enum err e = atomic_load(&r->failed) ? ERR_IO : ERR_OK;

	if (r->bg) {
		if (submit(r, -1, NULL, 0) != ERR_OK)
			e = ERR_NOMEM;
	} else if (commit_both(r) != ERR_OK) {
		e = ERR_IO;
	}
	r->turns++;
	if (t) {
		t->index = r->turns;
		t->caller_start_ms = to_ms(r, r->s[RECORDER_CALLER].turn_start);
		t->caller_end_ms = to_ms(r, r->s[RECORDER_CALLER].written);
		t->agent_start_ms = to_ms(r, r->s[RECORDER_AGENT].turn_start);
		t->agent_end_ms = to_ms(r, r->s[RECORDER_AGENT].written);
	}
	for (int i = 0; i < 2; i++)
		r->s[i].turn_start = r->s[i].written;
	return e;
}

const char *recorder_path(const struct recorder *r, enum recorder_side side)
{
	return r->s[side].path;
}

/* Re-encodes the WAV at s->path as FLAC beside it, removes the WAV, updates s->path. */
static enum err to_flac(struct side *s, char **errmsg)
{
	char flac[4096];
	SF_INFO in_info = {0}, out_info;
	SNDFILE *in, *out;
	float buf[4096];
	sf_count_t k;
	size_t len = strlen(s->path);
	enum err e = ERR_OK;

	snprintf(flac, sizeof(flac), "%.*s.flac", (int)(len - 4), s->path);
	in = sf_open(s->path, SFM_READ, &in_info);
	if (!in) {
		set_msg(errmsg, "cannot read", s->path, sf_strerror(NULL));
		return ERR_IO;
	}
	out_info = in_info;
	out_info.format = SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
	out = sf_open(flac, SFM_WRITE, &out_info);
	if (!out) {
		set_msg(errmsg, "cannot create", flac, sf_strerror(NULL));
		sf_close(in);
		return ERR_IO;
	}
	while ((k = sf_read_float(in, buf, 4096)) > 0)
		if (sf_write_float(out, buf, k) != k) {
			set_msg(errmsg, "cannot write", flac, sf_strerror(out));
			e = ERR_IO;
			break;
		}
	sf_close(in);
	sf_close(out);
	if (e) {
		unlink(flac);
		return e;
	}
	unlink(s->path);
	snprintf(s->path, sizeof(s->path), "%s", flac);
	return ERR_OK;
}

enum err recorder_close(struct recorder *r, bool flac, char **errmsg)
{
	enum err e = ERR_OK;

	if (!r)
		return ERR_OK;
	stop(r);
	if (atomic_load(&r->failed)) {
		set_msg(errmsg, "cannot write", r->s[0].path, "a write or commit failed");
		e = ERR_IO;
	}
	close_sides(r);
	for (int i = 0; flac && i < 2 && !e; i++)
		e = to_flac(&r->s[i], errmsg);
	free(r);
	return e;
}
