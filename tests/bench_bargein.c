/* bench_bargein: time from the VAD's decision that the caller started speaking during
 * the agent's speech to the sink reporting that playback has stopped, measured in-process
 * (live.h's barge-in: endpointer event -> sink_stop -> returned), over many barge-ins.
 * Printed, never judged: p50, p95 and the largest, against the target of 30 ms at p95.
 *
 * The sink is PortAudio on an ALSA device of the bench's own configuration
 * (ALSA_CONFIG_PATH, set for this process only: a "null" PCM, which accepts audio as fast
 * as it is given, so the stream is always busy), i.e. the real stop path through
 * Pa_AbortStream; and, for comparison, the file sink. The caller's speech is espeak-ng
 * Hindi (synthetic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_backend.h"
#include "agent/stages/tts.h"
#include "audio/resample.h"
#include "audio/sink.h"
#include "sessions/calls/live.h"
#include "tests/support/benchrun.h"

#define TRIALS 200

static double clock_ms(void *ud)
{
	(void)ud;
	return 0;
}

/* Runs TRIALS barge-ins against sink k; prints the figures under label. */
static int run(struct sink *k, const struct backend *tts, const float *speech, size_t n_speech,
	       const char *label)
{
	static double stop[TRIALS];
	size_t n_agent = LIVE_RATE * 30;
	float *agent = calloc(n_agent, sizeof(float));
	float zeros[160] = {0};
	int got = 0, finished = 0;

	if (!agent)
		return -1;
	for (size_t i = 0; i < n_agent; i++)
		agent[i] = (float)((i % 80) / 400.0 - 0.1);
	for (int t = 0; t < TRIALS; t++) {
		struct live *l = NULL;
		struct live_event ev;
		int done = 0;

		if (live_new(k, tts, NULL, NULL, &l) != ERR_OK)
			break;
		if (live_say_samples(l, agent, n_agent, LIVE_RATE, false, 0) != ERR_OK) {
			live_free(l);
			break;
		}
		for (int i = 0; i < 20; i++)
			live_feed(l, zeros, 160, 0);
		for (size_t i = 0; i < n_speech && !done; i += 160) {
			size_t k2 = n_speech - i < 160 ? n_speech - i : 160;
			live_feed(l, speech + i, k2, 0);
			while (live_next(l, &ev))
				if (ev.kind == LIVE_BARGE_IN && ev.during == LIVE_SPEAKING) {
					done = 1;
					/* Only stops of a stream still playing count. */
					if (ev.played_ms < (long)(n_agent * 1000 / LIVE_RATE) - 10)
						stop[got++] = ev.stop_ms;
					else
						finished++;
				}
		}
		live_free(l);
	}
	free(agent);
	if (finished)
		printf("%-44s %d trials had played out before the barge-in (left out)\n", label, finished);
	if (!got) {
		printf("%-44s no barge-in measured\n", label);
		return -1;
	}
	benchrun_sort(stop, (size_t)got);
	printf("%-44s %3d barge-ins  p50 %6.2f ms  p95 %6.2f ms  max %6.2f ms  (target p95 < 30 ms)\n",
	       label, got, stop[got / 2], stop[(int)(got * 0.95) < got ? (int)(got * 0.95) : got - 1],
	       stop[got - 1]);
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/formdesk-bench-bargein-XXXXXX", conf[128], wav[128], *msg = NULL;
	struct backend tts;
	float *s = NULL, *speech = NULL;
	size_t n = 0, n_speech = 0;
	int rate = 0;
	struct sink *k = NULL;
	FILE *f;

	if (!mkdtemp(dir))
		return 1;
	snprintf(conf, sizeof(conf), "%s/asound.conf", dir);
	f = fopen(conf, "w");
	if (!f)
		return 1;
	/* PortAudio 19.6 wants a "default" besides the device (see tests/test_capture.c). */
	fprintf(f, "pcm.default { type null }\npcm.fdnull { type null }\n");
	fclose(f);
	setenv("ALSA_CONFIG_PATH", conf, 1);

	if (backend_tts("espeak", &tts, NULL) != ERR_OK ||
	    speak_parts(&tts, "मेरा नाम सुनीता देवी है", &s, &n, &rate) != ERR_OK ||
	    resample_buffer(s, n, rate, LIVE_RATE, &speech, &n_speech) != ERR_OK) {
		fprintf(stderr, "bench_bargein: espeak-ng speech unavailable\n");
		return 1;
	}
	free(s);

	if (sink_open_device("fdnull", LIVE_RATE, &k, &msg) == ERR_OK) {
		run(k, &tts, speech, n_speech, "PortAudio sink (ALSA null PCM), abort");
		sink_free(k);
	} else {
		printf("PortAudio sink: not measured: %s\n", msg ? msg : "no device");
		free(msg);
	}
	snprintf(wav, sizeof(wav), "%s/agent.wav", dir);
	if (sink_open_file(wav, LIVE_RATE, clock_ms, NULL, &k, NULL) == ERR_OK) {
		run(k, &tts, speech, n_speech, "file sink (for comparison)");
		sink_free(k);
	}
	unlink(wav);
	unlink(conf);
	rmdir(dir);
	free(speech);
	tts_cleanup();
	return 0;
}
