/* audiofile: audio files in and out through libsndfile, resampled with libsamplerate.
 * libsndfile 1.1+ decodes MP3 through mpg123 (Debian 12 ships 1.2.0 built with it), so
 * WAV, FLAC and MP3 all take the same path. */
#include "audiofile.h"
#include "base/str.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <samplerate.h>
#include <sndfile.h>

/* Frames read per sf_readf_float call; MP3 frame counts from the header are estimates,
 * so the file is read to its end in blocks rather than trusting sf_info.frames. */
#define READ_BLOCK 8192

/* Reads every frame of f (channels interleaved) and mixes them to mono by averaging.
 * Output: *out (caller frees), *n. Errors: ERR_NOMEM, ERR_AUDIO. */
static enum err read_mono(SNDFILE *f, int channels, float **out, size_t *n)
{
	enum err rc = ERR_NOMEM;
	float *block = malloc(sizeof(float) * READ_BLOCK * (size_t)channels);
	float *mono = NULL;
	size_t len = 0, cap = 0;

	if (!block)
		goto out;
	for (;;) {
		sf_count_t got = sf_readf_float(f, block, READ_BLOCK);
		if (got <= 0)
			break;
		if (len + (size_t)got > cap) {
			size_t ncap = cap ? cap * 2 : (size_t)READ_BLOCK * 4;
			while (ncap < len + (size_t)got)
				ncap *= 2;
			float *p = realloc(mono, ncap * sizeof(float));
			if (!p)
				goto out;
			mono = p;
			cap = ncap;
		}
		for (sf_count_t i = 0; i < got; i++) {
			float sum = 0;
			for (int c = 0; c < channels; c++)
				sum += block[i * channels + c];
			mono[len + (size_t)i] = sum / (float)channels;
		}
		len += (size_t)got;
	}
	if (sf_error(f) != SF_ERR_NO_ERROR) {
		rc = ERR_AUDIO;
		goto out;
	}
	*out = mono;
	*n = len;
	mono = NULL;
	rc = ERR_OK;
out:
	free(mono);
	free(block);
	return rc;
}

/* Resamples n mono samples from rate_in to rate_out Hz with libsamplerate's
 * SRC_SINC_MEDIUM_QUALITY converter (libsamplerate docs: 97 dB SNR, 90% bandwidth).
 * Output: *out (caller frees), *n_out. Errors: ERR_NOMEM, ERR_AUDIO (*srcerr set). */
static enum err resample(const float *in, size_t n, int rate_in, int rate_out, float **out,
			 size_t *n_out, int *srcerr)
{
	double ratio = (double)rate_out / rate_in;
	size_t cap = (size_t)((double)n * ratio) + 64;
	float *buf = malloc(cap * sizeof(float));
	SRC_DATA d;

	if (!buf)
		return ERR_NOMEM;
	memset(&d, 0, sizeof(d));
	d.data_in = in;
	d.input_frames = (long)n;
	d.data_out = buf;
	d.output_frames = (long)cap;
	d.src_ratio = ratio;
	d.end_of_input = 1;
	*srcerr = src_simple(&d, SRC_SINC_MEDIUM_QUALITY, 1);
	if (*srcerr) {
		free(buf);
		return ERR_AUDIO;
	}
	*out = buf;
	*n_out = (size_t)d.output_frames_gen;
	return ERR_OK;
}

enum err audiofile_read(const char *path, int rate, float **samples, size_t *n_samples, char **errmsg)
{
	enum err rc;
	SF_INFO info;
	SNDFILE *f = NULL;
	float *mono = NULL, *conv = NULL;
	size_t n = 0, n_conv = 0;
	FILE *probe;

	if (errmsg)
		*errmsg = NULL;
	if (rate < 1000 || rate > 384000) {
		str_setf(errmsg, "%s: unsupported output rate %d Hz", path, rate);
		return ERR_INVALID;
	}
	/* Looked at before it is opened: opening a FIFO waits for a writer, a device may never
	 * end. Only a regular file is read. */
	struct stat sb;
	int st = stat(path, &sb);
	if (st == 0 && !S_ISREG(sb.st_mode)) {
		str_setf(errmsg, "%s: %s", path,
			S_ISDIR(sb.st_mode) ? strerror(EISDIR)
					    : "not a regular file (a pipe, a device or a socket); refused");
		return ERR_IO;
	}
	/* Tell "cannot open" (ERR_IO, with the system's reason) from "not audio" (ERR_AUDIO). */
	probe = fopen(path, "rb");
	if (!probe) {
		str_setf(errmsg, "%s: %s", path, strerror(errno));
		return ERR_IO;
	}
	fclose(probe);
	if (st == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0) {
		str_setf(errmsg, "%s: cannot decode audio: the file is empty (0 bytes)", path);
		return ERR_AUDIO;
	}

	memset(&info, 0, sizeof(info));
	f = sf_open(path, SFM_READ, &info);
	if (!f) {
		const char *why = sf_strerror(NULL);
		/* libsndfile says this of a regular file whose MP3 stream mpg123 cannot read */
		if (strstr(why, "not a regular file"))
			why = "not a WAV, FLAC or MP3 stream that libsndfile can read.";
		str_setf(errmsg, "%s: cannot decode audio: %s", path, why);
		rc = ERR_AUDIO;
		goto out;
	}
	if (info.channels < 1 || info.samplerate < 1) {
		str_setf(errmsg, "%s: bad header (%d channels, %d Hz)", path, info.channels, info.samplerate);
		rc = ERR_AUDIO;
		goto out;
	}
	rc = read_mono(f, info.channels, &mono, &n);
	if (rc == ERR_AUDIO)
		str_setf(errmsg, "%s: decode error: %s", path, sf_strerror(f));
	if (rc != ERR_OK)
		goto out;
	if (info.samplerate == rate || n == 0) {
		conv = mono;
		n_conv = n;
		mono = NULL;
	} else {
		int srcerr = 0;
		rc = resample(mono, n, info.samplerate, rate, &conv, &n_conv, &srcerr);
		if (rc == ERR_AUDIO)
			str_setf(errmsg, "%s: resampling %d Hz to %d Hz failed: %s", path, info.samplerate,
				rate, src_strerror(srcerr));
		if (rc != ERR_OK)
			goto out;
	}
	if (!conv) /* an empty file: hand back a valid, freeable pointer */
		conv = malloc(sizeof(float));
	if (!conv) {
		rc = ERR_NOMEM;
		goto out;
	}
	*samples = conv;
	*n_samples = n_conv;
	rc = ERR_OK;
out:
	if (rc == ERR_NOMEM)
		str_setf(errmsg, "%s: out of memory", path);
	free(mono);
	if (f)
		sf_close(f);
	return rc;
}

/* The container for path's extension: .wav or .flac, 16-bit PCM; 0 if unknown. */
static int format_for(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return 0;
	if (strcasecmp(dot, ".wav") == 0)
		return SF_FORMAT_WAV | SF_FORMAT_PCM_16;
	if (strcasecmp(dot, ".flac") == 0)
		return SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
	return 0;
}

enum err audiofile_write(const char *path, const float *samples, size_t n_samples, int rate, char **errmsg)
{
	enum err rc = ERR_OK;
	SF_INFO info;
	SNDFILE *f = NULL;

	if (errmsg)
		*errmsg = NULL;
	memset(&info, 0, sizeof(info));
	info.samplerate = rate;
	info.channels = 1;
	info.format = format_for(path);
	if (!info.format) {
		str_setf(errmsg, "%s: unknown audio file extension (use .wav or .flac)", path);
		return ERR_INVALID;
	}
	if (!sf_format_check(&info)) {
		str_setf(errmsg, "%s: cannot write %d Hz mono in this format", path, rate);
		return ERR_INVALID;
	}
	f = sf_open(path, SFM_WRITE, &info);
	if (!f) {
		str_setf(errmsg, "%s: cannot create: %s", path, sf_strerror(NULL));
		return ERR_IO;
	}
	/* Clip out-of-range floats instead of letting them wrap around in 16-bit PCM. */
	sf_command(f, SFC_SET_CLIPPING, NULL, SF_TRUE);
	if (sf_writef_float(f, samples, (sf_count_t)n_samples) != (sf_count_t)n_samples) {
		str_setf(errmsg, "%s: write failed: %s", path, sf_strerror(f));
		rc = ERR_IO;
	}
	if (sf_close(f) != 0 && rc == ERR_OK) {
		str_setf(errmsg, "%s: closing failed", path);
		rc = ERR_IO;
	}
	return rc;
}
