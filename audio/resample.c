/* resample: whole-buffer rate conversion with libsamplerate (see resample.h). */
#include <stdlib.h>
#include <string.h>

#include <samplerate.h>

#include "resample.h"

struct resample_stream {
	SRC_STATE *src;   /* NULL when the rates are equal: a copy */
	double ratio;
};

enum err resample_stream_new(int from, int to, struct resample_stream **out)
{
	int err = 0;
	struct resample_stream *r;

	if (from < 1000 || from > 384000 || to < 1000 || to > 384000)
		return ERR_INVALID;
	if (!(r = calloc(1, sizeof(*r))))
		return ERR_NOMEM;
	r->ratio = (double)to / from;
	if (from != to && !(r->src = src_new(SRC_SINC_MEDIUM_QUALITY, 1, &err))) {
		free(r);
		return ERR_AUDIO;
	}
	*out = r;
	return ERR_OK;
}

void resample_stream_free(struct resample_stream *r)
{
	if (!r)
		return;
	if (r->src)
		src_delete(r->src);
	free(r);
}

enum err resample_stream_push(struct resample_stream *r, const float *in, size_t n, bool last,
			      float **out, size_t *m)
{
	/* room for the piece and, at the end, what the filter still holds */
	size_t cap = (size_t)((double)n * r->ratio) + (last ? 4096 : 64), got = 0;
	float *buf = malloc(cap * sizeof(float));

	if (!buf)
		return ERR_NOMEM;
	if (!r->src) {
		if (n)
			memcpy(buf, in, n * sizeof(float));
		got = n;
	} else {
		static const float none[1];
		/* libsamplerate drains nothing for a NULL input, even at its end */
		SRC_DATA d = {.data_in = in ? in : none, .input_frames = (long)n,
			      .src_ratio = r->ratio, .end_of_input = last};
		do {
			d.data_out = buf + got;
			d.output_frames = (long)(cap - got);
			if (src_process(r->src, &d)) {
				free(buf);
				return ERR_AUDIO;
			}
			got += (size_t)d.output_frames_gen;
			d.data_in += d.input_frames_used;
			d.input_frames -= d.input_frames_used;
		} while ((d.input_frames > 0 || (last && d.output_frames_gen > 0)) && got < cap);
	}
	if (!got) {
		free(buf);
		buf = NULL;
	}
	*out = buf;
	*m = got;
	return ERR_OK;
}

enum err resample_buffer(const float *in, size_t n, int from, int to, float **out, size_t *m)
{
	SRC_DATA d = {0};
	float *buf;
	size_t cap;

	if (from < 1000 || from > 384000 || to < 1000 || to > 384000)
		return ERR_INVALID;
	if (n == 0) {
		*out = NULL;
		*m = 0;
		return ERR_OK;
	}
	cap = (size_t)((double)n * to / from) + 16;
	buf = malloc(cap * sizeof(float));
	if (!buf)
		return ERR_NOMEM;
	if (from == to) {
		memcpy(buf, in, n * sizeof(float));
		*out = buf;
		*m = n;
		return ERR_OK;
	}
	d.data_in = in;
	d.input_frames = (long)n;
	d.data_out = buf;
	d.output_frames = (long)cap;
	d.src_ratio = (double)to / from;
	if (src_simple(&d, SRC_SINC_MEDIUM_QUALITY, 1)) {
		free(buf);
		return ERR_AUDIO;
	}
	*out = buf;
	*m = (size_t)d.output_frames_gen;
	return ERR_OK;
}
