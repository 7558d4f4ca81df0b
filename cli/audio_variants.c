/* audio_variants: `formdesk audio-variants IN --out DIR [--snr DB] [--noise FILE|KIND]
 * [--fast F] [--slow F] [--rate HZ] [--telephone]`: the FormVoiceAgentBench acoustic
 * conditions of one clean recording (FormBharo paper: each answer ideal, with background
 * noise, at a distance, at another pace), written as 16-bit WAV files DIR/NAME.COND.wav
 * where NAME is IN's file name without its extension and COND is ideal, noise, distance,
 * pace-fast and pace-slow. One JSON line per file on stdout: condition, file, duration_ms,
 * and for noise the measured snr_db. Noise defaults to generated pink noise at 10 dB SNR;
 * --noise takes a recording (e.g. chatter) or whitenoise/pinknoise/brownnoise.
 * --telephone also passes every variant through the 8 kHz mu-law telephone channel.
 * Errors on stderr naming the file or option; exit 2. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audio/audiofile.h"
#include "audio/channel.h"
#include "commands.h"
#include "opts.h"

/* Writes one variant (optionally through the telephone channel) and prints its line.
 * Takes ownership of x. Returns 0 or -1 (message printed). */
static int emit(const struct audio_variants_opts *j, const char *cond, float *x, size_t n,
		double snr)
{
	char path[4096], *msg = NULL;
	float *t = NULL;
	int rc = -1;

	if (j->telephone) {
		size_t m = 0;
		if (channel_telephone(x, n, j->rate, &t, &m, &msg) != ERR_OK) {
			fprintf(stderr, "formdesk audio-variants: %s: telephone channel: %s\n", cond, msg ? msg : "failed");
			goto out;
		}
		free(x);
		x = t;
		n = m;
		t = NULL;
	}
	snprintf(path, sizeof(path), "%s/%s.%s.wav", j->out, j->name, cond);
	if (audiofile_write(path, x, n, j->rate, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: cannot write %s: %s\n", path, msg ? msg : "failed");
		goto out;
	}
	printf("{\"condition\":\"%s\",\"file\":\"%s\",\"duration_ms\":%.0f", cond, path, n * 1000.0 / j->rate);
	if (snr == snr) /* not NaN */
		printf(",\"snr_db\":%.2f", snr);
	printf("}\n");
	rc = 0;
out:
	free(msg);
	free(x);
	free(t);
	return rc;
}

static int run(const struct audio_variants_opts *j)
{
	float *clean = NULL, *noise = NULL, *v = NULL, *scaled = NULL;
	size_t n = 0, nn = 0, m = 0;
	char *msg = NULL;
	double gain = 1, snr;
	int rc = 2;

	if (audiofile_read(j->in, j->rate, &clean, &n, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: %s\n", msg ? msg : j->in);
		goto out;
	}
	/* ideal */
	v = malloc((n ? n : 1) * sizeof(float));
	if (!v)
		goto out;
	memcpy(v, clean, n * sizeof(float));
	if (emit(j, "ideal", v, n, NAN))
		goto out;
	/* noise */
	if (strcmp(j->noise, "whitenoise") == 0 || strcmp(j->noise, "pinknoise") == 0 ||
	    strcmp(j->noise, "brownnoise") == 0) {
		if (channel_noise(n, j->rate, j->noise, &noise, &msg) != ERR_OK) {
			fprintf(stderr, "formdesk audio-variants: noise: %s\n", msg ? msg : "failed");
			goto out;
		}
		nn = n;
	} else if (audiofile_read(j->noise, j->rate, &noise, &nn, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: --noise: %s (give a recording, or "
			"whitenoise, pinknoise or brownnoise)\n", msg ? msg : j->noise);
		goto out;
	}
	if (channel_mix(clean, n, noise, nn, j->snr, &v, &gain) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: cannot mix: %s or the noise is silent or empty\n", j->in);
		goto out;
	}
	scaled = malloc((n ? n : 1) * sizeof(float));
	if (!scaled) {
		free(v);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		scaled[i] = (float)(gain * clean[i]);
	snr = channel_snr_db(scaled, v, n);
	if (emit(j, "noise", v, n, snr))
		goto out;
	/* distance */
	if (channel_far(clean, n, j->rate, &v, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: far microphone: %s\n", msg ? msg : "failed");
		goto out;
	}
	if (emit(j, "distance", v, n, NAN))
		goto out;
	/* pace */
	if (channel_tempo(clean, n, j->rate, j->fast, &v, &m, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: tempo: %s\n", msg ? msg : "failed");
		goto out;
	}
	if (emit(j, "pace-fast", v, m, NAN))
		goto out;
	if (channel_tempo(clean, n, j->rate, j->slow, &v, &m, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk audio-variants: tempo: %s\n", msg ? msg : "failed");
		goto out;
	}
	if (emit(j, "pace-slow", v, m, NAN))
		goto out;
	rc = 0;
out:
	free(msg);
	free(clean);
	free(noise);
	free(scaled);
	return rc;
}

int cmd_audio_variants(int argc, char **argv)
{
	struct audio_variants_opts j = {.noise = "pinknoise", .snr = 10, .fast = 1.25, .slow = 0.8,
					 .rate = 16000};
	struct stat st;
	char *copy, *dot;

	enum opts_result pr = opts_parse(&cmd_audio_variants_opts, argc, argv, &j, NULL, &j.in, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (stat(j.out, &st) != 0 && errno == ENOENT && mkdir(j.out, 0777) != 0) {
		fprintf(stderr, "formdesk audio-variants: --out %s: cannot make the folder: %s\n",
			j.out, strerror(errno));
		return 2;
	}
	if (stat(j.out, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "formdesk audio-variants: --out %s is not a folder\n", j.out);
		return 2;
	}
	copy = strdup(j.in);
	if (!copy)
		return 2;
	snprintf(j.name, sizeof(j.name), "%s", basename(copy));
	free(copy);
	dot = strrchr(j.name, '.');
	if (dot && dot != j.name)
		*dot = 0;
	return run(&j);
}
