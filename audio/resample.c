/* resample: whole-buffer rate conversion with libsamplerate (see resample.h). */
#include <stdlib.h>
#include <string.h>

#include <samplerate.h>

#include "audio/resample.h"

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
