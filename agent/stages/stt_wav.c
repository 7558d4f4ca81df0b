#include "stt_wav.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sndfile.h>

/* A growable memory file for libsndfile's virtual I/O. */
struct memfile {
	unsigned char *buf;
	sf_count_t len, cap, pos;
	bool failed;
};

static sf_count_t mf_len(void *ud)
{
	return ((struct memfile *)ud)->len;
}

static sf_count_t mf_seek(sf_count_t off, int whence, void *ud)
{
	struct memfile *m = ud;
	sf_count_t p = whence == SEEK_SET ? off : whence == SEEK_CUR ? m->pos + off : m->len + off;
	if (p < 0)
		return -1;
	m->pos = p;
	return p;
}

static sf_count_t mf_read(void *ptr, sf_count_t count, void *ud)
{
	struct memfile *m = ud;
	sf_count_t n = m->pos >= m->len ? 0 : (m->len - m->pos < count ? m->len - m->pos : count);
	if (n > 0)
		memcpy(ptr, m->buf + m->pos, (size_t)n);
	m->pos += n;
	return n;
}

static sf_count_t mf_write(const void *ptr, sf_count_t count, void *ud)
{
	struct memfile *m = ud;
	if (m->pos + count > m->cap) {
		sf_count_t cap = m->cap ? m->cap : 65536;
		while (cap < m->pos + count)
			cap *= 2;
		unsigned char *b = realloc(m->buf, (size_t)cap);
		if (!b) {
			m->failed = true;
			return 0;
		}
		m->buf = b;
		m->cap = cap;
	}
	if (m->pos > m->len) /* a seek past the end leaves a gap: zero it */
		memset(m->buf + m->len, 0, (size_t)(m->pos - m->len));
	memcpy(m->buf + m->pos, ptr, (size_t)count);
	m->pos += count;
	if (m->pos > m->len)
		m->len = m->pos;
	return count;
}

static sf_count_t mf_tell(void *ud)
{
	return ((struct memfile *)ud)->pos;
}

enum err stt_wav_encode(const float *samples, size_t n, int rate, unsigned char **out, size_t *len)
{
	if (rate <= 0)
		return ERR_INVALID;
	SF_VIRTUAL_IO io = {mf_len, mf_seek, mf_read, mf_write, mf_tell};
	struct memfile m = {0};
	SF_INFO info = {.samplerate = rate, .channels = 1, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16};
	enum err e = ERR_AUDIO;
	SNDFILE *sf = sf_open_virtual(&io, SFM_WRITE, &info, &m);
	if (!sf)
		goto out;
	sf_command(sf, SFC_SET_CLIPPING, NULL, SF_TRUE);
	if (n > 0 && sf_write_float(sf, samples, (sf_count_t)n) != (sf_count_t)n) {
		sf_close(sf);
		goto out;
	}
	if (sf_close(sf) != 0 || m.failed) {
		e = m.failed ? ERR_NOMEM : ERR_AUDIO;
		goto out;
	}
	*out = m.buf;
	*len = (size_t)m.len;
	m.buf = NULL;
	e = ERR_OK;
out:
	free(m.buf);
	return e;
}
