/* channel: telephone channel and acoustic variants (see channel.h).
 *
 * A libsox effects chain here runs between two effects of our own: "fd_input" hands
 * libsox the caller's float buffer, "fd_output" collects what comes out of the chain (the
 * pattern of libsox's example programs, with memory in place of files, so no format
 * plugin is loaded). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>
#include <sox.h>

#include "channel.h"

/* One effect of a chain: its name and up to 7 arguments, as on sox's command line. */
struct fx {
	const char *name;
	const char *args[8];
};

struct feed {
	const float *in;
	size_t n, pos;
};

struct collect {
	float *buf;
	size_t n, cap;
	unsigned channels; /* of the signal arriving at fd_output */
	int nomem;
};

static char last_msg[256];

/* libsox reports failures through this handler; keep the last one for *errmsg. */
static void on_sox_message(unsigned level, const char *file, const char *fmt, va_list ap)
{
	if (level <= 2) /* 1 fail, 2 warn */
		vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
}

static void set_msg(char **errmsg, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!errmsg)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*errmsg = strdup(buf);
}

static int sox_ready;

/* Starts libsox's effects once per process (sox_init; never sox_quit, which would unload
 * what other chains still use). */
static enum err ensure_sox(char **errmsg)
{
	if (sox_ready)
		return ERR_OK;
	sox_get_globals()->output_message_handler = on_sox_message;
	sox_get_globals()->verbosity = 2;
	if (sox_init() != SOX_SUCCESS) {
		set_msg(errmsg, "libsox failed to start");
		return ERR_AUDIO;
	}
	sox_ready = 1;
	return ERR_OK;
}

/* Float to libsox's 32-bit sample, clipped (libsox's own SOX_FLOAT_32BIT_TO_SAMPLE macro
 * shifts into the sign bit, which the undefined-behaviour sanitizer rejects). */
static sox_sample_t to_sample(float x, sox_uint64_t *clips)
{
	double v = x * 2147483648.0;

	if (v >= 2147483647.0) {
		if (v > 2147483648.0)
			++*clips;
		return 2147483647;
	}
	if (v < -2147483648.0) {
		++*clips;
		return -2147483647 - 1;
	}
	return (sox_sample_t)v;
}

static int feed_drain(sox_effect_t *effp, sox_sample_t *obuf, size_t *osamp)
{
	struct feed *f = *(struct feed **)effp->priv;
	size_t k = f->n - f->pos < *osamp ? f->n - f->pos : *osamp;

	for (size_t i = 0; i < k; i++)
		obuf[i] = to_sample(f->in[f->pos + i], &effp->clips);
	f->pos += k;
	*osamp = k;
	return k ? SOX_SUCCESS : SOX_EOF;
}

static int collect_flow(sox_effect_t *effp, const sox_sample_t *ibuf, sox_sample_t *obuf,
			size_t *isamp, size_t *osamp)
{
	struct collect *c = *(struct collect **)effp->priv;
	unsigned ch = c->channels ? c->channels : 1;
	size_t frames = *isamp / ch;

	if (c->n + frames > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 65536;
		float *b;
		while (cap < c->n + frames)
			cap *= 2;
		b = realloc(c->buf, cap * sizeof(float));
		if (!b) {
			c->nomem = 1;
			return SOX_EOF;
		}
		c->buf = b;
		c->cap = cap;
	}
	/* Mixed down to mono: the reverb may hand on more than one channel. */
	for (size_t i = 0; i < frames; i++) {
		double sum = 0;
		for (unsigned j = 0; j < ch; j++)
			sum += ibuf[i * ch + j] / 2147483648.0;
		c->buf[c->n++] = (float)(sum / ch);
	}
	*osamp = 0;
	return SOX_SUCCESS;
}

static const sox_effect_handler_t feed_handler = {
	"fd_input", NULL, SOX_EFF_MCHAN, NULL, NULL, NULL, feed_drain, NULL, NULL, sizeof(void *),
};
static const sox_effect_handler_t collect_handler = {
	"fd_output", NULL, SOX_EFF_MCHAN, NULL, NULL, collect_flow, NULL, NULL, NULL, sizeof(void *),
};

/* Adds one effect to chain; sig follows the signal through the chain. */
static enum err add(sox_effects_chain_t *chain, const sox_effect_handler_t *h, const struct fx *fx,
		    void *priv, sox_signalinfo_t *sig, const sox_signalinfo_t *want, char **errmsg)
{
	sox_effect_t *e = sox_create_effect(h);
	int argc = 0, rc;

	if (!e) {
		set_msg(errmsg, "libsox: cannot create effect %s", h->name);
		return ERR_AUDIO;
	}
	if (priv) {
		*(void **)e->priv = priv;
	} else {
		while (argc < 7 && fx->args[argc])
			argc++;
		last_msg[0] = 0;
		if (sox_effect_options(e, argc, (char **)fx->args) != SOX_SUCCESS) {
			set_msg(errmsg, "libsox: effect %s refused its options: %s", fx->name, last_msg);
			free(e);
			return ERR_AUDIO;
		}
	}
	rc = sox_add_effect(chain, e, sig, want);
	free(e);
	if (rc != SOX_SUCCESS) {
		set_msg(errmsg, "libsox: cannot add effect %s: %s", h->name, last_msg);
		return ERR_AUDIO;
	}
	return ERR_OK;
}

/* Runs n samples at rate Hz through the effects fx[0..nfx-1], out at out_rate Hz.
 * Output: *out (caller frees), *m. */
static enum err run_chain(const float *in, size_t n, int rate, const struct fx *fx, int nfx,
			  int out_rate, float **out, size_t *m, char **errmsg)
{
	struct feed feed = {in, n, 0};
	struct collect col = {0};
	sox_signalinfo_t sig = {0}, want = {0};
	sox_encodinginfo_t enc = {0};
	sox_effects_chain_t *chain = NULL;
	enum err e = ensure_sox(errmsg);

	if (e)
		return e;
	sig.rate = rate;
	sig.channels = 1;
	sig.precision = 32;
	sig.length = n;
	want = sig;
	want.rate = out_rate;
	want.length = SOX_UNKNOWN_LEN;
	enc.encoding = SOX_ENCODING_FLOAT;
	enc.bits_per_sample = 32;
	chain = sox_create_effects_chain(&enc, &enc);
	if (!chain) {
		set_msg(errmsg, "libsox: cannot create an effects chain");
		return ERR_AUDIO;
	}
	e = add(chain, &feed_handler, NULL, &feed, &sig, &sig, errmsg);
	for (int i = 0; !e && i < nfx; i++) {
		const sox_effect_handler_t *h = sox_find_effect(fx[i].name);
		if (!h) {
			set_msg(errmsg, "libsox has no effect %s", fx[i].name);
			e = ERR_AUDIO;
			break;
		}
		e = add(chain, h, &fx[i], NULL, &sig, &want, errmsg);
	}
	if (!e) {
		col.channels = sig.channels;
		e = add(chain, &collect_handler, NULL, &col, &sig, &sig, errmsg);
	}
	if (!e && (sig.rate != out_rate)) {
		set_msg(errmsg, "libsox: the chain ends at %.0f Hz, not %d Hz", sig.rate, out_rate);
		e = ERR_AUDIO;
	}
	if (!e) {
		last_msg[0] = 0;
		sox_flow_effects(chain, NULL, NULL);
		if (col.nomem)
			e = ERR_NOMEM;
	}
	sox_delete_effects_chain(chain);
	if (e) {
		free(col.buf);
		return e;
	}
	if (!col.buf) {
		col.buf = malloc(sizeof(float));
		if (!col.buf)
			return ERR_NOMEM;
	}
	*out = col.buf;
	*m = col.n;
	return ERR_OK;
}

/* ---- mu-law through libsndfile, in memory ---- */

struct memfile {
	unsigned char *buf;
	sf_count_t len, cap, pos;
};

static sf_count_t mem_len(void *ud)
{
	return ((struct memfile *)ud)->len;
}

static sf_count_t mem_seek(sf_count_t off, int whence, void *ud)
{
	struct memfile *f = ud;
	sf_count_t p = whence == SEEK_SET ? off : whence == SEEK_CUR ? f->pos + off : f->len + off;

	if (p < 0)
		return -1;
	f->pos = p;
	return p;
}

static sf_count_t mem_read(void *ptr, sf_count_t count, void *ud)
{
	struct memfile *f = ud;
	sf_count_t k = f->pos >= f->len ? 0 : f->len - f->pos < count ? f->len - f->pos : count;

	memcpy(ptr, f->buf + f->pos, (size_t)k);
	f->pos += k;
	return k;
}

static sf_count_t mem_write(const void *ptr, sf_count_t count, void *ud)
{
	struct memfile *f = ud;

	if (f->pos + count > f->cap) {
		sf_count_t cap = f->cap ? f->cap * 2 : 65536;
		unsigned char *b;
		while (cap < f->pos + count)
			cap *= 2;
		b = realloc(f->buf, (size_t)cap);
		if (!b)
			return 0;
		f->buf = b;
		f->cap = cap;
	}
	memcpy(f->buf + f->pos, ptr, (size_t)count);
	f->pos += count;
	if (f->pos > f->len)
		f->len = f->pos;
	return count;
}

static sf_count_t mem_tell(void *ud)
{
	return ((struct memfile *)ud)->pos;
}

enum err channel_mulaw(const float *in, size_t n, float **out, char **errmsg)
{
	SF_VIRTUAL_IO io = {mem_len, mem_seek, mem_read, mem_write, mem_tell};
	struct memfile mf = {0};
	SF_INFO info = {0};
	SNDFILE *f;
	float *o = NULL;
	enum err e = ERR_AUDIO;

	info.samplerate = 8000; /* a header value only: companding is per sample */
	info.channels = 1;
	info.format = SF_FORMAT_RAW | SF_FORMAT_ULAW;
	f = sf_open_virtual(&io, SFM_WRITE, &info, &mf);
	if (!f) {
		set_msg(errmsg, "libsndfile: mu-law encoder: %s", sf_strerror(NULL));
		goto out;
	}
	if (sf_write_float(f, in, (sf_count_t)n) != (sf_count_t)n) {
		set_msg(errmsg, "libsndfile: mu-law encoder: %s", sf_strerror(f));
		sf_close(f);
		goto out;
	}
	sf_close(f);
	o = malloc((n ? n : 1) * sizeof(float));
	if (!o) {
		e = ERR_NOMEM;
		goto out;
	}
	mf.pos = 0;
	f = sf_open_virtual(&io, SFM_READ, &info, &mf);
	if (!f || sf_read_float(f, o, (sf_count_t)n) != (sf_count_t)n) {
		set_msg(errmsg, "libsndfile: mu-law decoder: %s", sf_strerror(f));
		if (f)
			sf_close(f);
		free(o);
		o = NULL;
		goto out;
	}
	sf_close(f);
	*out = o;
	e = ERR_OK;
out:
	free(mf.buf);
	return e;
}

/* ---- the channel and the conditions ---- */

static int rate_ok(int rate)
{
	return rate >= 8000 && rate <= 48000;
}

enum err channel_telephone(const float *in, size_t n, int rate, float **out, size_t *m, char **errmsg)
{
	char rate_s[16];
	const struct fx down[] = {
		{"sinc", {"300-3400"}},
		{"rate", {"8000"}},
	};
	struct fx up[] = {{"rate", {rate_s}}};
	float *narrow = NULL, *coded = NULL;
	size_t nn = 0;
	enum err e;

	if (!rate_ok(rate)) {
		set_msg(errmsg, "telephone channel: rate %d Hz is outside 8000..48000", rate);
		return ERR_INVALID;
	}
	snprintf(rate_s, sizeof(rate_s), "%d", rate);
	/* At 8 kHz already, only the band limit applies before companding. */
	e = run_chain(in, n, rate, down, rate == 8000 ? 1 : 2, 8000, &narrow, &nn, errmsg);
	if (e)
		goto out;
	e = channel_mulaw(narrow, nn, &coded, errmsg);
	if (e)
		goto out;
	if (rate == 8000) {
		*out = coded;
		*m = nn;
		coded = NULL;
	} else {
		e = run_chain(coded, nn, 8000, up, 1, rate, out, m, errmsg);
	}
out:
	free(narrow);
	free(coded);
	return e;
}

/* pad_to: o (m samples, owned) zero-padded to at least n samples, into *out; o is freed
 * on failure. Errors: ERR_NOMEM. */
static enum err pad_to(float *o, size_t m, size_t n, float **out)
{
	if (m < n) {
		float *b = realloc(o, n * sizeof(float));
		if (!b) {
			free(o);
			return ERR_NOMEM;
		}
		o = b;
		memset(o + m, 0, (n - m) * sizeof(float));
	}
	*out = o;
	return ERR_OK;
}

enum err channel_noise(size_t n, int rate, const char *kind, float **out, char **errmsg)
{
	const struct fx fx[] = {
		{"synth", {kind}},
		{"gain", {"-n", "-20"}}, /* normalize the generated noise to -20 dBFS peak */
	};
	float *zeros, *o = NULL;
	size_t m = 0;
	enum err e;

	if (!rate_ok(rate) || !kind || (strcmp(kind, "whitenoise") && strcmp(kind, "pinknoise") &&
					strcmp(kind, "brownnoise"))) {
		set_msg(errmsg, "noise: kind must be whitenoise, pinknoise or brownnoise and rate 8000..48000 Hz");
		return ERR_INVALID;
	}
	zeros = calloc(n ? n : 1, sizeof(float));
	if (!zeros)
		return ERR_NOMEM;
	/* The same noise for the same arguments, so variants are reproducible: libsox's PRNG
	 * is re-seeded through sox_globals.ranqd1 ("can be used to re-seed libSoX's PRNG"). */
	if ((e = ensure_sox(errmsg)) == ERR_OK) {
		sox_get_globals()->repeatable = sox_true;
		sox_get_globals()->ranqd1 = 20260401;
		/* synth replaces its input (here silence of the wanted length) with noise. */
		e = run_chain(zeros, n, rate, fx, 2, rate, &o, &m, errmsg);
	}
	free(zeros);
	if (e)
		return e;
	return pad_to(o, m, n, out); /* m < n never expected; padded so callers get n */
}

enum err channel_mix(const float *in, size_t n, const float *noise, size_t n_noise, double snr_db,
		     float **out, double *gain)
{
	double ps = 0, pn = 0, g, peak = 0, scale = 1;
	float *o;

	if (!n_noise || !n)
		return ERR_INVALID;
	for (size_t i = 0; i < n; i++) {
		double v = noise[i % n_noise];
		ps += (double)in[i] * in[i];
		pn += v * v;
	}
	if (ps <= 0 || pn <= 0)
		return ERR_INVALID;
	/* snr_db = 10 log10(ps / (g^2 pn)) */
	g = sqrt(ps / (pn * pow(10.0, snr_db / 10.0)));
	o = malloc(n * sizeof(float));
	if (!o)
		return ERR_NOMEM;
	for (size_t i = 0; i < n; i++) {
		double v = in[i] + g * noise[i % n_noise];
		if (fabs(v) > peak)
			peak = fabs(v);
	}
	if (peak > 0.999)
		scale = 0.999 / peak;
	for (size_t i = 0; i < n; i++)
		o[i] = (float)(scale * (in[i] + g * noise[i % n_noise]));
	*out = o;
	if (gain)
		*gain = scale;
	return ERR_OK;
}

enum err channel_far(const float *in, size_t n, int rate, float **out, char **errmsg)
{
	const struct fx fx[] = {
		{"lowpass", {"3000"}},
		{"reverb", {"60", "50", "80", "100", "10"}},
		{"gain", {"-10"}},
	};
	float *o = NULL;
	size_t m = 0;
	enum err e;

	if (!rate_ok(rate)) {
		set_msg(errmsg, "far microphone: rate %d Hz is outside 8000..48000", rate);
		return ERR_INVALID;
	}
	e = run_chain(in, n, rate, fx, 3, rate, &o, &m, errmsg);
	if (e)
		return e;
	return pad_to(o, m, n, out); /* the tail past n is left unread */
}

enum err channel_tempo(const float *in, size_t n, int rate, double factor, float **out, size_t *m,
		       char **errmsg)
{
	char f[32];
	const struct fx fx[] = {{"tempo", {"-s", f}}};

	if (!rate_ok(rate) || !(factor >= 0.5 && factor <= 2.0)) {
		set_msg(errmsg, "tempo: factor must be 0.5..2 and rate 8000..48000 Hz");
		return ERR_INVALID;
	}
	snprintf(f, sizeof(f), "%.4f", factor);
	return run_chain(in, n, rate, fx, 1, rate, out, m, errmsg);
}

double channel_snr_db(const float *clean, const float *mixed, size_t n)
{
	double ps = 0, pn = 0;

	for (size_t i = 0; i < n; i++) {
		double d = (double)mixed[i] - clean[i];
		ps += (double)clean[i] * clean[i];
		pn += d * d;
	}
	if (pn == 0)
		return INFINITY;
	return 10.0 * log10(ps / pn);
}

enum err channel_condition(const float *in, size_t n, int rate, const char *cond, float **out,
			   size_t *m, char **errmsg)
{
	enum err e;
	float *noise = NULL;
	if (errmsg)
		*errmsg = NULL;
	if (strcmp(cond, "ideal") == 0) {
		float *c = malloc((n ? n : 1) * sizeof(float));
		if (!c)
			return ERR_NOMEM;
		memcpy(c, in, n * sizeof(float));
		*out = c;
		*m = n;
		return ERR_OK;
	}
	if (strcmp(cond, "noise") == 0) {
		e = channel_noise(n, rate, "pinknoise", &noise, errmsg);
		if (e == ERR_OK)
			e = channel_mix(in, n, noise, n, 10.0, out, NULL);
		free(noise);
		if (e == ERR_OK)
			*m = n;
		return e;
	}
	if (strcmp(cond, "distance") == 0) {
		e = channel_far(in, n, rate, out, errmsg);
		if (e == ERR_OK)
			*m = n;
		return e;
	}
	if (strcmp(cond, "pace-fast") == 0 || strcmp(cond, "pace-slow") == 0)
		return channel_tempo(in, n, rate, cond[5] == 'f' ? 1.25 : 0.8, out, m, errmsg);
	if (errmsg && asprintf(errmsg, "unknown acoustic condition '%s' (ideal, noise, distance, "
				       "pace-fast, pace-slow)", cond) < 0)
		*errmsg = NULL;
	return ERR_INVALID;
}
