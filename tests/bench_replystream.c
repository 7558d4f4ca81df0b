/* bench_replystream: how much sooner a streamed REPLY is heard, printed (never judged).
 *
 * A local fake server streams REPLY as OpenAI's chat completions do ("stream": true:
 * chat.completion.chunk events, then [DONE]), one event every CHUNK_MS, the reply's three
 * sentences spread over them. A live typed call (sessions/calls/livecall.h) speaks with
 * espeak-ng into a WAV file; the caller stays silent each turn, so nothing (no
 * acknowledgement) is said before the reply. Per caller turn: the end of her turn to the
 * reply's first audio (the turn's latency, sessions/store/latency.h, completed when it
 * played), and to the whole reply having arrived (ENGINE_AGENT_SAYS); the difference is
 * the time streaming saved: without it nothing could be said before the whole reply. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "agent/stages/backend.h"
#include "agent/stages/http.h"
#include "agent/stages/tts.h"
#include "sessions/calls/livecall.h"
#include "sessions/store/latency.h"
#include "tests/support/benchrun.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockserver.h"
#include "tests/support/replyseen.h"
#include "tests/support/sse.h"

#define FORM "tests/data/bench_form.json" /* a short intro: the openings play soon */
#define CHUNK_MS 200 /* the server's wait before each event after the first */
#define TURNS 4
#define ANSWERS 64   /* streamed answers queued: one per REPLY request */

static const char *const DELTAS[] = {"जी, कोई बात नहीं।", " कृपया अपना पूरा", " नाम बताइए।",
				     " आपका नाम फ़ॉर्म में", " लिखा जाएगा।", NULL};

static double median(double *v, int n)
{
	benchrun_sort(v, (size_t)n);
	return n ? v[n / 2] : 0;
}

static bool played(const struct livecall *lc)
{
	return livecall_listening(lc) || !livecall_call_open(lc);
}

static bool drive(struct livecall *lc, double limit_ms)
{
	double t0 = loopwait_ms();
	while (!played(lc)) {
		if (loopwait_ms() - t0 > limit_ms || livecall_poll(lc, 5, NULL, 0) != ERR_OK)
			return false;
	}
	return true;
}

int main(void)
{
	char dir[] = "/tmp/bench_replystream_XXXXXX", out[200];
	struct form *form = NULL;
	struct lexicon *lex = NULL;
	struct mockserver *ms = NULL;
	struct livecall *lc = NULL;
	struct engine_config cfg = {0};
	struct reply_seen seen = {0};
	double first[TURNS], whole[TURNS], saved[TURNS];
	int n = 0, rc = 1, sentences = 0;
	const char *why = NULL;
	char *msg = NULL;

	unsetenv("FORMDESK_CONFIG"); /* the provider's default: REPLY streams */
	if (!mkdtemp(dir) || form_load(FORM, &form, NULL) != ERR_OK ||
	    lexicon_load(lexicon_default_dir(), &lex, NULL) != ERR_OK || !(ms = sse_openai_server()))
		goto out;
	mockserver_record(ms, false);
	sse_push_openai(ms, DELTAS, "stop", true, false, CHUNK_MS, ANSWERS);
	cfg.form = form;
	cfg.form_path = FORM;
	cfg.lex = lex;
	cfg.today = (struct ymd){2026, 3, 2};
	cfg.endpoint = endpoint_defaults();
	cfg.turn_deadline_ms = cfg.call_deadline_ms = -1;
	if (backend_stt("reference", &cfg.stt, &why) != ERR_OK ||
	    backend_extract("rules", &cfg.extract, &why) != ERR_OK ||
	    backend_reply("openai", &cfg.reply, &why) != ERR_OK) {
		fprintf(stderr, "bench_replystream: %s\n", why ? why : "backends");
		goto out;
	}
	snprintf(out, sizeof out, "%s/agent.wav", dir);
	struct livecall_options o = {.tts = TTS_DEFAULT, .live = live_defaults(), .output_file = out};
	if (livecall_new(&cfg, &o, reply_seen_event, &seen, &lc, &msg) != ERR_OK) {
		fprintf(stderr, "bench_replystream: %s\n", msg ? msg : "cannot start");
		goto out;
	}
	printf("A streamed REPLY spoken sentence by sentence: a local server streams it as OpenAI "
	       "does, one event every %d ms (3 sentences; %d events in all); espeak-ng speaks into a "
	       "WAV file; the caller is silent, so the reply is the first sound\n",
	       CHUNK_MS, 8);
	while (n < TURNS) {
		seen.turn = 0;
		if (livecall_start(lc) != ERR_OK || !drive(lc, 30000))
			break;
		for (int turn = 1; livecall_call_open(lc) && n < TURNS; turn++) {
			struct latency l;
			seen = (struct reply_seen){.turn = turn};
			double t0 = loopwait_ms();
			if (livecall_typed(lc, "") != ERR_OK || !drive(lc, 30000))
				break;
			if (!livecall_latency(lc, &l) || l.turn != turn || !l.played || !seen.says_at)
				continue;
			first[n] = l.total_ms;
			whole[n] = seen.says_at - t0;
			saved[n] = whole[n] - first[n];
			sentences += seen.sentences;
			n++;
		}
	}
	if (n == 0) {
		fprintf(stderr, "bench_replystream: no turn measured\n");
		goto out;
	}
	double lo = saved[0];
	for (int i = 1; i < n; i++)
		lo = fmin(lo, saved[i]);
	printf("  %d caller turns, %.1f sentences each handed to the voice as they completed\n", n,
	       (double)sentences / n);
	printf("  end of turn to the reply's first audio     p50 %8.1f ms\n", median(first, n));
	printf("  end of turn to the whole reply having come p50 %8.1f ms\n", median(whole, n));
	printf("  time saved by streaming (first audio before the whole reply): p50 %.1f ms, "
	       "least %.1f ms\n", median(saved, n), lo);
	rc = 0;
out:
	livecall_free(lc);
	free(msg);
	backend_cleanup();
	http_shared_free();
	mockserver_stop(ms);
	lexicon_free(lex);
	form_free(form);
	if (strchr(dir, 'X') == NULL) {
		char cmd[200];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_replystream: could not remove %s\n", dir);
	}
	return rc;
}
