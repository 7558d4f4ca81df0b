/* vad: `formdesk vad FILE [options]`: the turns the endpointer finds in a recording, one
 * JSON line each: {"start_ms":N,"end_ms":N}. The audio is read at 16 kHz mono, as in a
 * call. Errors on stderr naming the file or the option; exit 2. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audio/audiofile.h"
#include "audio/endpoint.h"
#include "commands.h"
#include "opts.h"

#define VAD_RATE 16000

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

	struct vad_opts vo = {.ep = opt};
	enum opts_result pr = opts_parse(&cmd_vad_opts, argc, argv, &vo, NULL, &path, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	opt = vo.ep;
	if (vo.vad && vad_kind_parse(vo.vad, &opt.vad) != ERR_OK) {
		fprintf(stderr, "formdesk vad: --vad: unknown VAD '%s' (webrtc or speex)\n", vo.vad);
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
