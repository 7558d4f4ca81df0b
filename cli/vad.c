/* vad: `formdesk vad FILE [options]`: the turns the endpointer finds in a recording, one
 * JSON line each: {"start_ms":N,"end_ms":N}. The audio is read at 16 kHz mono, as in a
 * call. Errors on stderr naming the file or the option; exit 2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio/audiofile.h"
#include "audio/endpoint.h"
#include "commands.h"

#define VAD_RATE 16000

static void usage_to(FILE *f)
{
	fprintf(f, "usage: formdesk vad FILE [--start-ms N] [--stop-ms N] [--turn-wait-ms N]\n"
			"                          [--min-loudness-db X] [--vad webrtc|speex]\n");
}

/* Parses a whole-number option value in 0..60000 ms. Returns 0 or -1 (message printed). */
static int parse_ms(const char *opt, const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 60000) {
		fprintf(stderr, "formdesk vad: %s: '%s' is not a whole number of ms from 0 to 60000\n", opt, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_db(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < -200 || v > 0) {
		fprintf(stderr, "formdesk vad: %s: '%s' is not a level in dBFS from -200 to 0\n", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

int cmd_vad(int argc, char **argv)
{
	struct endpoint_options opt = endpoint_defaults();
	struct endpoint_segment *segs = NULL;
	const char *path = NULL;
	float *samples = NULL;
	size_t n = 0;
	char *msg = NULL;
	int n_segs = 0, rc = 2;
	enum err e;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage_to(stdout);
			return 0;
		}
		if (a[0] == '-' && a[1] == '-') {
			if (!val) {
				fprintf(stderr, "formdesk vad: %s needs a value\n", a);
				return 2;
			}
			if (strcmp(a, "--start-ms") == 0)
				bad = parse_ms(a, val, &opt.start_ms);
			else if (strcmp(a, "--stop-ms") == 0)
				bad = parse_ms(a, val, &opt.stop_ms);
			else if (strcmp(a, "--turn-wait-ms") == 0)
				bad = parse_ms(a, val, &opt.turn_wait_ms);
			else if (strcmp(a, "--min-loudness-db") == 0)
				bad = parse_db(a, val, &opt.min_loudness_db);
			else if (strcmp(a, "--vad") == 0) {
				if (vad_kind_parse(val, &opt.vad) != ERR_OK) {
					fprintf(stderr, "formdesk vad: --vad: unknown VAD '%s' (webrtc or speex)\n", val);
					bad = -1;
				}
			} else {
				fprintf(stderr, "formdesk vad: unknown option '%s'\n", a);
				usage_to(stderr);
				return 2;
			}
			if (bad)
				return 2;
			i++;
			continue;
		}
		if (path) {
			fprintf(stderr, "formdesk vad: one FILE only ('%s' and '%s')\n", path, a);
			return 2;
		}
		path = a;
	}
	if (!path) {
		usage_to(stderr);
		return 2;
	}

	e = audiofile_read(path, VAD_RATE, &samples, &n, &msg);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk vad: %s\n", msg ? msg : path);
		goto out;
	}
	e = endpoint_find(samples, n, VAD_RATE, &opt, &segs, &n_segs);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk vad: %s: endpointing failed: %s\n", path, err_str(e));
		goto out;
	}
	for (int i = 0; i < n_segs; i++)
		printf("{\"start_ms\":%ld,\"end_ms\":%ld}\n", segs[i].start_ms, segs[i].end_ms);
	rc = fflush(stdout) == 0 ? 0 : 2;
out:
	free(msg);
	free(samples);
	free(segs);
	return rc;
}
