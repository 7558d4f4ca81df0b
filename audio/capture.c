/* capture: PortAudio input into a lock-free ring (see capture.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <portaudio.h>
#include <samplerate.h>

#include "capture.h"
#include "padev.h"
#include "ring.h"

#define CHUNK 1024 /* frames moved from the ring per step of capture_read */

struct capture {
	PaStream *stream;
	struct ring *ring;   /* interleaved device frames */
	int channels;        /* the device's channels as opened (1 or 2) */
	int rate;            /* requested, Hz */
	int dev_rate;        /* the device's, Hz */
	SRC_STATE *src;      /* NULL when dev_rate == rate */
	float dev[CHUNK * 2];
	float mono[CHUNK];
	float pending[CHUNK * 8]; /* resampled but not yet returned */
	size_t n_pending, at_pending;
	char name[160];
	atomic_uint_fast64_t overflows; /* PortAudio's input overflow flags */
	uint64_t src_errors;
	int started;
	int pa;              /* padev_init succeeded */
};

/* The audio callback: copies, counts, nothing else. */
static int on_audio(const void *in, void *out, unsigned long frames,
		    const PaStreamCallbackTimeInfo *t, PaStreamCallbackFlags flags, void *ud)
{
	struct capture *c = ud;

	if (flags & paInputOverflow)
		atomic_fetch_add_explicit(&c->overflows, 1, memory_order_relaxed);
	if (in)
		ring_write(c->ring, in, frames * (size_t)c->channels);
	return paContinue;
}

static void set_msg(char **errmsg, const char *what, const char *name, const char *why)
{
	char buf[512];

	if (!errmsg)
		return;
	snprintf(buf, sizeof(buf), "%s '%s': %s", what, name, why);
	*errmsg = strdup(buf);
}

/* Opens the stream at rate with channels, or returns PortAudio's error. */
static PaError try_open(struct capture *c, int dev, int channels, int rate)
{
	const PaDeviceInfo *di = Pa_GetDeviceInfo(dev);
	PaStreamParameters p = {
		.device = dev,
		.channelCount = channels,
		.sampleFormat = paFloat32,
		.suggestedLatency = di->defaultLowInputLatency,
	};
	PaError pe = Pa_IsFormatSupported(&p, NULL, rate);

	if (pe != paFormatIsSupported)
		return pe;
	c->channels = channels;
	/* 10 ms callbacks: the endpointer works in 10 ms frames. */
	return Pa_OpenStream(&c->stream, &p, NULL, rate, (unsigned long)(rate / 100), paClipOff,
			     on_audio, c);
}

enum err capture_open(const char *spec, int rate, int ring_ms, struct capture **out, char **errmsg)
{
	struct capture *c = NULL;
	enum err e = ERR_OK;
	PaError pe = paNoError;
	int dev, q = -1;

	if (rate < 8000 || rate > 48000 || ring_ms < 20 || ring_ms > 60000) {
		if (errmsg)
			*errmsg = strdup("capture: rate must be 8000..48000 Hz and the ring 20..60000 ms");
		return ERR_INVALID;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return ERR_NOMEM;
	atomic_init(&c->overflows, 0);
	c->rate = rate;
	e = padev_init(errmsg);
	if (e)
		goto out;
	c->pa = 1;
	e = padev_find(spec, true, &dev, errmsg);
	if (e)
		goto out;
	snprintf(c->name, sizeof(c->name), "%s", Pa_GetDeviceInfo(dev)->name);
	q = padev_quiet_begin();
	/* Mono at the requested rate first; then stereo (some hardware has no mono); then
	 * the device's own rate, resampled here. */
	c->dev_rate = rate;
	pe = try_open(c, dev, 1, rate);
	if (pe != paNoError)
		pe = try_open(c, dev, 2, rate);
	if (pe != paNoError) {
		c->dev_rate = (int)Pa_GetDeviceInfo(dev)->defaultSampleRate;
		pe = try_open(c, dev, 1, c->dev_rate);
		if (pe != paNoError)
			pe = try_open(c, dev, 2, c->dev_rate);
	}
	padev_quiet_end(q);
	if (pe != paNoError) {
		c->stream = NULL;
		set_msg(errmsg, "cannot open input device", c->name, Pa_GetErrorText(pe));
		e = ERR_AUDIO;
		goto out;
	}
	e = ring_new((size_t)c->dev_rate * (size_t)c->channels * (size_t)ring_ms / 1000, &c->ring);
	if (e)
		goto out;
	if (c->dev_rate != rate) {
		int serr;
		c->src = src_new(SRC_SINC_FASTEST, 1, &serr);
		if (!c->src) {
			set_msg(errmsg, "resampler for input device", c->name, src_strerror(serr));
			e = ERR_AUDIO;
			goto out;
		}
	}
	*out = c;
	c = NULL;
out:
	capture_free(c);
	return e;
}

void capture_free(struct capture *c)
{
	int q;

	if (!c)
		return;
	if (c->stream) {
		q = padev_quiet_begin();
		Pa_AbortStream(c->stream);
		Pa_CloseStream(c->stream);
		padev_quiet_end(q);
	}
	if (c->pa)
		padev_done();
	if (c->src)
		src_delete(c->src);
	ring_free(c->ring);
	free(c);
}

enum err capture_start(struct capture *c)
{
	PaError pe;

	if (c->started)
		return ERR_OK;
	pe = Pa_StartStream(c->stream);
	if (pe != paNoError)
		return ERR_AUDIO;
	c->started = 1;
	return ERR_OK;
}

enum err capture_stop(struct capture *c)
{
	PaError pe;

	if (!c->started)
		return ERR_OK;
	pe = Pa_AbortStream(c->stream);
	c->started = 0;
	return pe == paNoError ? ERR_OK : ERR_AUDIO;
}

/* Moves up to max device frames from the ring, mixed down to mono, into c->mono.
 * Returns the frames moved. */
static size_t pull_mono(struct capture *c, size_t max)
{
	size_t frames;

	if (max > CHUNK)
		max = CHUNK;
	if (c->channels == 1)
		return ring_read(c->ring, c->mono, max);
	/* Whole frames only: the ring holds interleaved pairs and is read in pairs. */
	frames = ring_read(c->ring, c->dev, max * 2) / 2;
	for (size_t i = 0; i < frames; i++)
		c->mono[i] = 0.5f * (c->dev[2 * i] + c->dev[2 * i + 1]);
	return frames;
}

size_t capture_read(struct capture *c, float *out, size_t max)
{
	size_t done = 0;

	if (!c->src) {
		while (done < max) {
			size_t k = pull_mono(c, max - done);
			if (!k)
				break;
			memcpy(out + done, c->mono, k * sizeof(float));
			done += k;
		}
		return done;
	}
	while (done < max) {
		SRC_DATA d = {0};
		size_t k;

		if (c->at_pending < c->n_pending) {
			k = c->n_pending - c->at_pending;
			if (k > max - done)
				k = max - done;
			memcpy(out + done, c->pending + c->at_pending, k * sizeof(float));
			c->at_pending += k;
			done += k;
			continue;
		}
		k = pull_mono(c, CHUNK);
		if (!k)
			break;
		d.data_in = c->mono;
		d.input_frames = (long)k;
		d.data_out = c->pending;
		d.output_frames = (long)(sizeof(c->pending) / sizeof(float));
		d.src_ratio = (double)c->rate / c->dev_rate;
		if (src_process(c->src, &d)) {
			c->src_errors++;
			break;
		}
		c->n_pending = (size_t)d.output_frames_gen;
		c->at_pending = 0;
	}
	return done;
}

uint64_t capture_overruns(const struct capture *c)
{
	struct capture *w = (struct capture *)c; /* C11 atomic loads take non-const pointers */

	return ring_overruns(c->ring, NULL) +
	       atomic_load_explicit(&w->overflows, memory_order_relaxed) + c->src_errors;
}

int capture_device_rate(const struct capture *c)
{
	return c->dev_rate;
}

const char *capture_device_name(const struct capture *c)
{
	return c->name;
}
