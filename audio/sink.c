/* sink: PortAudio or file output of one utterance at a time (see sink.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <portaudio.h>
#include <samplerate.h>
#include <sndfile.h>

#include "padev.h"
#include "resample.h"
#include "sink.h"

enum kind { KIND_DEVICE, KIND_FILE };

struct sink {
	enum kind kind;
	int rate;             /* what sink_play takes, Hz */
	int dev_rate;         /* what the device runs at, Hz */
	float *buf;           /* the utterance, at dev_rate */
	size_t n;
	char name[256];
	/* an utterance that arrives in pieces (sink_begin): buf holds cap samples, the
	 * callback plays up to avail and ends only once closed */
	atomic_size_t avail;
	atomic_int closed;
	size_t cap;
	int open;
	struct resample_stream *rs; /* rate -> dev_rate for the pieces, NULL when equal */

	/* device */
	PaStream *stream;
	atomic_size_t pos;     /* samples of buf handed to the device */
	atomic_int finished;   /* the stream has finished by itself */
	int running;           /* started and not yet stopped */
	int pa;

	/* file */
	SNDFILE *file;
	sink_clock clock;
	void *clock_ud;
	double started_ms;
	int playing;
};

/* ---- device ---- */

static int on_audio(const void *in, void *out, unsigned long frames,
		    const PaStreamCallbackTimeInfo *t, PaStreamCallbackFlags flags, void *ud)
{
	struct sink *s = ud;
	float *o = out;
	/* closed first: once it is set, avail is final */
	int closed = atomic_load_explicit(&s->closed, memory_order_acquire);
	size_t avail = atomic_load_explicit(&s->avail, memory_order_acquire);
	size_t pos = atomic_load_explicit(&s->pos, memory_order_relaxed);
	size_t k = avail - pos < frames ? avail - pos : frames;

	memcpy(o, s->buf + pos, k * sizeof(float));
	memset(o + k, 0, (frames - k) * sizeof(float)); /* silence while a piece is awaited */
	atomic_store_explicit(&s->pos, pos + k, memory_order_release);
	return closed && pos + k >= avail ? paComplete : paContinue;
}

/* Called by PortAudio once the stream has stopped (any way); only sets a flag. */
static void on_finished(void *ud)
{
	struct sink *s = ud;

	atomic_store_explicit(&s->finished, 1, memory_order_release);
}

static void set_msg(char **errmsg, const char *what, const char *name, const char *why)
{
	char buf[512];

	if (!errmsg)
		return;
	snprintf(buf, sizeof(buf), "%s '%s': %s", what, name, why);
	*errmsg = strdup(buf);
}

static PaError try_open(struct sink *s, int dev, int rate)
{
	const PaDeviceInfo *di = Pa_GetDeviceInfo(dev);
	PaStreamParameters p = {
		.device = dev,
		.channelCount = 1,
		.sampleFormat = paFloat32,
		.suggestedLatency = di->defaultLowOutputLatency,
	};
	PaError pe = Pa_IsFormatSupported(NULL, &p, rate);

	if (pe != paFormatIsSupported)
		return pe;
	/* 10 ms callbacks bound how late a natural end is noticed; a stop aborts at once. */
	pe = Pa_OpenStream(&s->stream, NULL, &p, rate, (unsigned long)(rate / 100), paClipOff,
			   on_audio, s);
	if (pe == paNoError)
		pe = Pa_SetStreamFinishedCallback(s->stream, on_finished);
	return pe;
}

/* sink_alloc: a new sink of kind at rate Hz (8000..48000), nothing opened. Output: *out
 * (the caller frees). Errors: ERR_INVALID (rate; *errmsg set when errmsg is not NULL),
 * ERR_NOMEM. */
static enum err sink_alloc(enum kind kind, int rate, struct sink **out, char **errmsg)
{
	struct sink *s;

	if (rate < 8000 || rate > 48000) {
		if (errmsg)
			*errmsg = strdup("sink: rate must be 8000..48000 Hz");
		return ERR_INVALID;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return ERR_NOMEM;
	s->kind = kind;
	s->rate = rate;
	atomic_init(&s->pos, 0);
	atomic_init(&s->finished, 0);
	atomic_init(&s->avail, 0);
	atomic_init(&s->closed, 1);
	*out = s;
	return ERR_OK;
}

enum err sink_open_device(const char *spec, int rate, struct sink **out, char **errmsg)
{
	struct sink *s = NULL;
	enum err e = ERR_OK;
	PaError pe;
	int dev, q;

	if ((e = sink_alloc(KIND_DEVICE, rate, &s, errmsg)) != ERR_OK)
		return e;
	e = padev_init(errmsg);
	if (e)
		goto out;
	s->pa = 1;
	e = padev_find(spec, false, &dev, errmsg);
	if (e)
		goto out;
	snprintf(s->name, sizeof(s->name), "%s", Pa_GetDeviceInfo(dev)->name);
	q = padev_quiet_begin();
	s->dev_rate = rate;
	pe = try_open(s, dev, rate);
	if (pe != paNoError) {
		if (s->stream)
			Pa_CloseStream(s->stream);
		s->stream = NULL;
		s->dev_rate = (int)Pa_GetDeviceInfo(dev)->defaultSampleRate;
		pe = try_open(s, dev, s->dev_rate);
	}
	padev_quiet_end(q);
	if (pe != paNoError) {
		set_msg(errmsg, "cannot open output device", s->name, Pa_GetErrorText(pe));
		e = ERR_AUDIO;
		goto out;
	}
	*out = s;
	s = NULL;
out:
	sink_free(s);
	return e;
}

/* ---- file ---- */

static double monotonic_ms(void *ud)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

enum err sink_open_file(const char *path, int rate, sink_clock clock, void *clock_ud,
			struct sink **out, char **errmsg)
{
	struct sink *s;
	SF_INFO info = {0};
	enum err e;

	if ((e = sink_alloc(KIND_FILE, rate, &s, errmsg)) != ERR_OK)
		return e;
	s->dev_rate = rate;
	s->clock = clock ? clock : monotonic_ms;
	s->clock_ud = clock_ud;
	snprintf(s->name, sizeof(s->name), "%s", path);
	info.samplerate = rate;
	info.channels = 1;
	info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
	s->file = sf_open(path, SFM_WRITE, &info);
	if (!s->file) {
		set_msg(errmsg, "cannot create", path, sf_strerror(NULL));
		free(s);
		return ERR_IO;
	}
	/* a valid empty WAV on disk from the start (libsndfile's first header says RIFF size
	 * 8, which readers refuse, until it is closed) */
	sf_command(s->file, SFC_UPDATE_HEADER_NOW, NULL, 0);
	sf_write_sync(s->file);
	*out = s;
	return ERR_OK;
}

/* Samples of the utterance the file sink has played by now. */
static size_t file_pos(struct sink *s)
{
	double played;

	if (!s->playing)
		return 0;
	played = (s->clock(s->clock_ud) - s->started_ms) * s->dev_rate / 1000.0;
	if (played <= 0)
		return 0;
	return played >= (double)s->n ? s->n : (size_t)played;
}

/* Ends the file sink's utterance after k samples: writes them, updates the header. */
static enum err file_end(struct sink *s, size_t k)
{
	s->playing = 0;
	if (k && sf_write_float(s->file, s->buf, (sf_count_t)k) != (sf_count_t)k)
		return ERR_IO;
	sf_write_sync(s->file);
	return ERR_OK;
}

/* ---- both ---- */

void sink_free(struct sink *s)
{
	int q;

	if (!s)
		return;
	sink_stop(s, NULL);
	if (s->stream) {
		q = padev_quiet_begin();
		Pa_CloseStream(s->stream);
		padev_quiet_end(q);
	}
	if (s->pa)
		padev_done();
	if (s->file)
		sf_close(s->file);
	resample_stream_free(s->rs);
	free(s->buf);
	free(s);
}

int sink_rate(const struct sink *s)
{
	return s->rate;
}

const char *sink_device_name(const struct sink *s)
{
	return s->name;
}

/* Copies n samples at s->rate into a new s->buf at s->dev_rate. */
static enum err load(struct sink *s, const float *samples, size_t n)
{
	float *buf;
	size_t m = n;

	if (s->dev_rate != s->rate)
		m = (size_t)((double)n * s->dev_rate / s->rate) + 1;
	size_t room = m ? m : 1;
	buf = malloc(room * sizeof(float));
	if (!buf)
		return ERR_NOMEM;
	if (s->dev_rate == s->rate) {
		memcpy(buf, samples, n * sizeof(float));
	} else {
		SRC_DATA d = {
			.data_in = samples, .input_frames = (long)n,
			.data_out = buf, .output_frames = (long)m,
			.src_ratio = (double)s->dev_rate / s->rate,
		};
		if (src_simple(&d, SRC_SINC_MEDIUM_QUALITY, 1)) {
			free(buf);
			return ERR_AUDIO;
		}
		m = (size_t)d.output_frames_gen;
	}
	free(s->buf);
	s->buf = buf;
	s->cap = room;
	s->n = m;
	return ERR_OK;
}

static enum err start(struct sink *s);

enum err sink_play(struct sink *s, const float *samples, size_t n)
{
	enum err e = sink_stop(s, NULL);

	if (e)
		return e;
	e = load(s, samples, n);
	if (e)
		return e;
	atomic_store(&s->avail, s->n);
	atomic_store(&s->closed, 1);
	return start(s);
}

/* start: play what is in buf from its beginning. Errors: ERR_AUDIO. */
static enum err start(struct sink *s)
{
	if (s->kind == KIND_FILE) {
		s->started_ms = s->clock(s->clock_ud);
		s->playing = 1;
		return ERR_OK;
	}
	atomic_store(&s->pos, 0);
	atomic_store(&s->finished, 0);
	if (Pa_StartStream(s->stream) != paNoError)
		return ERR_AUDIO;
	s->running = 1;
	return ERR_OK;
}

enum err sink_begin(struct sink *s, size_t max_n)
{
	enum err e = sink_stop(s, NULL);
	size_t cap = (size_t)((double)max_n * s->dev_rate / s->rate) + 64;
	float *buf;

	if (e)
		return e;
	/* the buffer of the utterance before, when it is large enough: no allocation (and no
	 * fresh pages to fault in) on the way to the first sound of each turn */
	buf = s->buf && s->cap >= cap ? s->buf : malloc(cap * sizeof(float));
	if (!buf)
		return ERR_NOMEM;
	resample_stream_free(s->rs);
	s->rs = NULL;
	if (s->dev_rate != s->rate && (e = resample_stream_new(s->rate, s->dev_rate, &s->rs))) {
		if (buf != s->buf)
			free(buf);
		return e;
	}
	if (buf != s->buf) {
		free(s->buf);
		s->buf = buf;
		s->cap = cap;
	}
	s->n = 0;
	s->open = 1;
	atomic_store(&s->avail, 0);
	atomic_store(&s->closed, 0);
	return start(s);
}

/* put: k samples at dev_rate after what buf holds (what passes cap is dropped). */
static enum err put(struct sink *s, const float *p, size_t k)
{
	size_t room = s->cap - s->n;

	memcpy(s->buf + s->n, p, (k < room ? k : room) * sizeof(float));
	s->n += k < room ? k : room;
	atomic_store_explicit(&s->avail, s->n, memory_order_release);
	return k <= room ? ERR_OK : ERR_NOMEM;
}

enum err sink_append(struct sink *s, const float *samples, size_t n)
{
	float *conv = NULL;
	size_t m = 0;
	enum err e;

	if (!s->open)
		return ERR_INVALID;
	if (!s->rs)
		return put(s, samples, n);
	if ((e = resample_stream_push(s->rs, samples, n, false, &conv, &m)) == ERR_OK)
		e = put(s, conv, m);
	free(conv);
	return e;
}

enum err sink_end(struct sink *s)
{
	float *conv = NULL;
	size_t m = 0;
	enum err e = ERR_OK;

	if (!s->open)
		return ERR_OK;
	if (s->rs && (e = resample_stream_push(s->rs, NULL, 0, true, &conv, &m)) == ERR_OK)
		e = put(s, conv, m);
	free(conv);
	s->open = 0;
	atomic_store_explicit(&s->closed, 1, memory_order_release);
	return e;
}

enum err sink_stop(struct sink *s, size_t *played)
{
	size_t k;
	enum err e = ERR_OK;

	if (s->kind == KIND_FILE) {
		k = file_pos(s);
		if (s->playing)
			e = file_end(s, k);
	} else {
		if (s->running) {
			/* Abort drops what the device has queued; it returns once the stream
			 * has stopped and the callback will not run again. */
			if (Pa_AbortStream(s->stream) != paNoError)
				e = ERR_AUDIO;
			s->running = 0;
		}
		k = atomic_load(&s->pos);
	}
	s->open = 0;
	atomic_store(&s->closed, 1);
	if (played)
		*played = s->dev_rate == s->rate ? k : (size_t)((double)k * s->rate / s->dev_rate);
	return e;
}

bool sink_playing(struct sink *s)
{
	if (s->kind == KIND_FILE) {
		if (s->playing && !s->open && file_pos(s) >= s->n)
			file_end(s, s->n);
		return s->playing;
	}
	if (s->running && atomic_load_explicit(&s->finished, memory_order_acquire)) {
		/* The callback said paComplete and the device has drained it. */
		Pa_StopStream(s->stream);
		s->running = 0;
	}
	return s->running;
}

int sink_remaining_ms(struct sink *s)
{
	size_t pos;

	if (!sink_playing(s))
		return 0;
	pos = s->kind == KIND_FILE ? file_pos(s) : atomic_load(&s->pos);
	return (int)((s->n - pos) * 1000 / (size_t)s->dev_rate);
}
