/* bench_latency: where a turn's time goes, end to end, printed (never judged).
 *
 * Local fake servers of known delays stand in for STT (ElevenLabs' API, STT_MS), EXTRACT
 * and REPLY (OpenAI's chat completions, EXTRACT_MS and REPLY_MS); the agent speaks with
 * espeak-ng into a WAV file (and, in a third call, typed, with a hosted voice: OpenAI's
 * speech endpoint streaming raw PCM, its first chunk after TTS_MS, whose time to first
 * audio is printed with formdesk's share beside it). Two live calls run through
 * livecall (sessions/calls/livecall.h), as at the desk:
 * - typed: each line typed is a caller turn (no endpointing, no STT);
 * - microphone: the caller's speech (espeak-ng Hindi, synthetic) comes through PortAudio
 *   from ALSA's file plugin (ALSA_CONFIG_PATH set for this process only), endpointed with
 *   the pilot's settings, transcribed by the fake STT; MIC_TURNS answers, one every
 *   MIC_EVERY s (about four minutes).
 * Per caller turn, formdesk's own share is the measured end of speech to first audio
 * minus what it does not govern: the endpointing wait (the setting), the fake servers'
 * configured delays on the way, and espeak-ng's synthesis. Printed: its p50 and p95
 * (target: p95 under 5 ms), each part's p50/p95 (sessions/store/latency.h), how far the
 * parts' sum is from the total (they must agree within 1 ms; tests/test_latency.c checks
 * it), and how late the fake servers answered (each waits its delay from when it has the
 * whole request; what it is late still counts as formdesk's).
 * `bench_latency mic` (or typed, voiced; or BENCH_LATENCY_ONLY=mic) runs one call only. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/stages/http.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/tts.h"
#include "audio/audiofile.h"
#include "sessions/store/latency.h"
#include "sessions/calls/livecall.h"
#include "sessions/store/store.h"
#include "tests/support/loopwait.h"
#include "tests/support/mockserver.h"

#define FORM "forms/armman_enrollment.json"
#define STT_MS 120
#define EXTRACT_MS 200
#define REPLY_MS 150
#define TTS_MS 250 /* the hosted voice's wait before its first audio chunk */
#define TTS_SAMPLES 4800 /* its answer: 200 ms of 16-bit PCM at 24 kHz */
#define TURNS 40 /* typed caller turns */
#define MAX_TURNS 64
#define MIC_TURNS 40 /* the caller's answers on the microphone, one every MIC_EVERY s */
#define MIC_EVERY 6
#define MIC_SECONDS (4 + MIC_EVERY * MIC_TURNS) /* how long the microphone calls go on */

static const char EXTRACT_ANSWER[] =
	"{\"id\":\"chatcmpl-x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
	"{\"role\":\"assistant\",\"content\":\"{\\\"ack\\\":\\\"जी\\\",\\\"fields\\\":[]}\"},"
	"\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":800,\"completion_tokens\":12}}";
static const char REPLY_ANSWER[] =
	"{\"id\":\"chatcmpl-r\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
	"{\"role\":\"assistant\",\"content\":\"कृपया अपना पूरा नाम फिर से बताइए।\"},"
	"\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":600,\"completion_tokens\":20}}";
static const char STT_ANSWER[] = "{\"text\":\"मेरा नाम सुनीता देवी है\"}";
static char TTS_ANSWER[2 * TTS_SAMPLES + 1]; /* PCM with no zero byte, so it passes as text */

/* How late the fake servers answered: ms past the whole request's arrival + their delay
 * (their own threads' scheduling, counted in formdesk's share since the configured delays
 * are what is subtracted). */
static pthread_mutex_t late_mu = PTHREAD_MUTEX_INITIALIZER;
static double late[1024];
static int n_late;

/* realtime: the calling thread at real-time priority (on) or back to normal, where the
 * system allows it. The fake servers' threads run so, from their start (they inherit it
 * from the thread that starts the server): they stand in for remote servers of known
 * delays, and on the loaded machine a server thread woken late answered up to 20 ms late
 * (and read a request 8 ms late), all of it counted as formdesk's share. */
static void realtime(bool on)
{
	struct sched_param sp = {.sched_priority = on ? 10 : 0};
	pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* answer: the fake servers' answers. The handler keeps the delay itself, to the
 * microsecond on an absolute clock from when the whole request had arrived; how late it
 * still was is kept (late[]) and printed. */
static void answer(void *ud, const struct mock_request *req, struct mock_reply *out)
{
	int delay;
	(void)ud;
	if (strstr(req->path, "audio/speech"))
		*out = (struct mock_reply){200, "audio/pcm", TTS_ANSWER, NULL, 0}, delay = TTS_MS;
	else if (strstr(req->path, "speech-to-text"))
		*out = (struct mock_reply){200, NULL, STT_ANSWER, NULL, 0}, delay = STT_MS;
	else if (mock_body_has(req, "response_format"))
		*out = (struct mock_reply){200, NULL, EXTRACT_ANSWER, NULL, 0}, delay = EXTRACT_MS;
	else
		*out = (struct mock_reply){200, NULL, REPLY_ANSWER, NULL, 0}, delay = REPLY_MS;
	double due = req->received_ms + delay;
	struct timespec ts = {(time_t)(due / 1000), (long)(fmod(due, 1000.0) * 1e6)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	double now = loopwait_ms();
	pthread_mutex_lock(&late_mu);
	if (n_late < (int)(sizeof late / sizeof *late))
		late[n_late++] = now - due;
	pthread_mutex_unlock(&late_mu);
}

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* pct: the p-th percentile (nearest rank) of v[0..n-1] (sorted here). */
static double pct(double *v, int n, double p)
{
	int k;
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof *v, cmp);
	k = (int)ceil(p / 100.0 * n) - 1;
	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

struct tally {
	struct latency l[MAX_TURNS];
	double own[MAX_TURNS]; /* formdesk's own share, ms */
	int n;
	double worst_sum;      /* the largest |sum of parts - total|, ms */
	double tts_server_ms;  /* a hosted voice's known delay, counted instead of the
	                          synthesis; 0: espeak-ng, its synthesis counted */
	double first_audio[MAX_TURNS]; /* with a hosted voice: its time to first audio, ms */
};

/* count: one turn's latency into t. */
static void count(struct tally *t, const struct latency *l)
{
	double sum = 0, waits;
	if (t->n >= MAX_TURNS || !l->known)
		return;
	for (int p = 0; p < LATENCY_PARTS; p++)
		sum += l->ms[p];
	if (fabs(sum - l->total_ms) > t->worst_sum)
		t->worst_sum = fabs(sum - l->total_ms);
	/* what formdesk does not govern: the setting's wait, the servers' delays on the way,
	 * the synthesis */
	waits = l->ms[LATENCY_ENDPOINT] + (l->ms[LATENCY_STT] > 0 ? STT_MS : 0) +
		(l->ms[LATENCY_EXTRACT] > 0 ? EXTRACT_MS : 0) +
		(l->ms[LATENCY_REPLY] > 0 ? REPLY_MS : 0) +
		(t->tts_server_ms > 0 ? t->tts_server_ms : l->ms[LATENCY_TTS]);
	t->own[t->n] = l->total_ms - waits;
	t->first_audio[t->n] = l->ms[LATENCY_TTS];
	t->l[t->n++] = *l;
}

static void report(const char *label, struct tally *t)
{
	double v[MAX_TURNS];
	printf("%s: %d caller turns\n", label, t->n);
	if (!t->n)
		return;
	for (int p = 0; p <= LATENCY_PARTS; p++) {
		for (int i = 0; i < t->n; i++)
			v[i] = p < LATENCY_PARTS ? t->l[i].ms[p] : t->l[i].total_ms;
		double p50 = pct(v, t->n, 50), p95 = pct(v, t->n, 95);
		printf("  %-22s p50 %8.2f ms  p95 %8.2f ms  %s\n",
		       p < LATENCY_PARTS ? latency_part_name(p) : "total", p50, p95,
		       p < LATENCY_PARTS ? t->l[t->n - 1].by[p] : "end of speech to first audio");
	}
	memcpy(v, t->own, sizeof(double) * (size_t)t->n);
	double p50 = pct(v, t->n, 50), p95 = pct(v, t->n, 95);
	printf("  formdesk's own share (total - endpointing wait - server delays %d/%d/%d ms - "
	       "synthesis): p50 %.2f ms, p95 %.2f ms (target: p95 under 5 ms)\n",
	       STT_MS, EXTRACT_MS, REPLY_MS, p50, p95);
	printf("  parts against the total: at most %.6f ms apart (must be under 1 ms)\n",
	       t->worst_sum);
	pthread_mutex_lock(&late_mu);
	int n = n_late;
	double all[sizeof late / sizeof *late];
	memcpy(all, late, sizeof(double) * (size_t)n);
	n_late = 0;
	pthread_mutex_unlock(&late_mu);
	if (n > 0)
		printf("  the fake servers answered late by p50 %.2f ms, p95 %.2f ms, at most %.2f ms "
		       "(%d answers; counted in formdesk's share)\n",
		       pct(all, n, 50), pct(all, n, 95), pct(all, n, 100), n);
}

/* drive: poll lc until pred holds or limit_ms passes. */
static bool drive(struct livecall *lc, bool (*pred)(const struct livecall *), double limit_ms)
{
	double t0 = mono_ms();
	while (!pred(lc)) {
		if (mono_ms() - t0 > limit_ms)
			return false;
		if (livecall_poll(lc, 5, NULL, 0) != ERR_OK)
			return false;
	}
	return true;
}

/* played: the agent has stopped speaking (its last words played out) and listens. */
static bool played(const struct livecall *lc)
{
	return livecall_listening(lc) || !livecall_call_open(lc);
}

static int typed_call(const struct engine_config *cfg, const char *dir, const char *tts,
		      struct tally *t)
{
	char out[256];
	struct livecall_options o = {.tts = tts, .live = live_defaults()};
	struct livecall *lc = NULL;
	char *msg = NULL;
	int turn = 0;

	snprintf(out, sizeof out, "%s/typed-agent-%s.wav", dir, tts);
	o.output_file = out;
	if (livecall_new(cfg, &o, NULL, NULL, &lc, &msg) != ERR_OK) {
		fprintf(stderr, "bench_latency: typed call: %s\n", msg ? msg : "cannot start");
		free(msg);
		return -1;
	}
	while (t->n < TURNS) { /* calls one after another: each ends when its retries do */
		if (livecall_start(lc) != ERR_OK || !drive(lc, played, 30000))
			break;
		for (turn = 1; livecall_call_open(lc) && t->n < TURNS; turn++) {
			struct latency l;
			if (livecall_typed(lc, "mera naam Sunita hai") != ERR_OK ||
			    !drive(lc, played, 30000))
				break;
			if (livecall_latency(lc, &l) && l.turn == turn)
				count(t, &l);
		}
	}
	livecall_free(lc);
	return 0;
}

/* The caller's audio goes to the file plugin through a FIFO, 10 ms at a time in real
 * time (the plugin reads a plain file as fast as it can, far ahead of the clock the
 * latency is measured on). */
struct feeder {
	char path[256];
	float *buf;
	size_t n;
	pthread_t thread;
	volatile bool stop;
};

static void *feed(void *ud)
{
	struct feeder *fd = ud;
	FILE *f = fopen(fd->path, "wb"); /* waits for the plugin to open it */
	struct timespec next;
	size_t step = LIVE_RATE / 100;

	if (!f)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (size_t at = 0; at < fd->n && !fd->stop; at += step) {
		size_t k = fd->n - at < step ? fd->n - at : step;
		if (fwrite(fd->buf + at, sizeof *fd->buf, k, f) != k)
			break;
		fflush(f);
		next.tv_nsec += 10 * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	fclose(f);
	return NULL;
}

/* mic_input: the caller's turns for the file plugin: MIC_TURNS times, every MIC_EVERY s from
 * 4 s on, the same answer (so p95 is a 95th percentile, not the worst turn), fed in
 * real time through a FIFO as 32-bit float raw at LIVE_RATE. */
static int mic_input(const char *dir, struct feeder *fd, char *conf, size_t n_conf)
{
	char wav[256];
	float *speech = NULL, *buf;
	size_t n_speech = 0, n = (size_t)LIVE_RATE * (MIC_SECONDS + 2);
	char *msg = NULL;
	FILE *f;

	snprintf(wav, sizeof wav, "%s/answer.wav", dir);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "espeak-ng -v hi -w '%s' 'मेरा नाम सुनीता देवी है' 2>/dev/null", wav);
	if (system(cmd) != 0 || audiofile_read(wav, LIVE_RATE, &speech, &n_speech, &msg) != ERR_OK) {
		fprintf(stderr, "bench_latency: espeak-ng: %s\n", msg ? msg : "failed");
		free(msg);
		return -1;
	}
	if (!(buf = calloc(n, sizeof *buf))) {
		free(speech);
		return -1;
	}
	for (size_t k = 0, at = (size_t)LIVE_RATE * 4; k < MIC_TURNS && at + n_speech < n;
	     k++, at += (size_t)LIVE_RATE * MIC_EVERY)
		memcpy(buf + at, speech, n_speech * sizeof *speech);
	free(speech);
	snprintf(fd->path, sizeof fd->path, "%s/in.f32", dir);
	if (mkfifo(fd->path, 0600) != 0) {
		free(buf);
		return -1;
	}
	fd->buf = buf;
	fd->n = n;
	if (pthread_create(&fd->thread, NULL, feed, fd) != 0) {
		free(buf);
		fd->buf = NULL;
		return -1;
	}
	const char *raw = fd->path;
	snprintf(conf, n_conf, "%s/asound.conf", dir);
	if (!(f = fopen(conf, "w")))
		return -1;
	fprintf(f, "pcm.default { type null }\n"
		   "pcm.fdcap { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" "
		   "format \"raw\" }\n",
		raw);
	fclose(f);
	return 0;
}

static int mic_call(const struct engine_config *cfg, const char *dir, const char *db,
		    struct tally *t)
{
	char out[256], conf[256];
	struct livecall_options o = {.mic = true, .input_device = "fdcap", .tts = TTS_DEFAULT,
				     .db_path = db, .live = live_defaults()};
	struct livecall *lc = NULL;
	struct feeder fd = {0};
	char *msg = NULL;
	int last = 0, rc = -1;

	if (mic_input(dir, &fd, conf, sizeof conf) != 0)
		return -1;
	setenv("ALSA_CONFIG_PATH", conf, 1);
	snprintf(out, sizeof out, "%s/mic-agent.wav", dir);
	o.output_file = out;
	if (livecall_new(cfg, &o, NULL, NULL, &lc, &msg) != ERR_OK) {
		fprintf(stderr, "bench_latency: microphone call: %s\n", msg ? msg : "cannot start");
		free(msg);
		goto out;
	}
	if (livecall_start(lc) != ERR_OK)
		goto out;
	double t0 = mono_ms();
	while (mono_ms() - t0 < (MIC_SECONDS + 2) * 1000.0) {
		struct latency l;
		if (livecall_done(lc)) { /* the next call, on the same microphone */
			if (livecall_start(lc) != ERR_OK)
				break;
			last = 0;
		}
		if (livecall_poll(lc, 5, NULL, 0) != ERR_OK)
			break;
		if (livecall_latency(lc, &l) && l.turn != last && l.played) {
			count(t, &l);
			last = l.turn;
		}
	}
	rc = 0;
out:
	fd.stop = true;
	livecall_free(lc); /* closes the plugin's end: the feeder's write fails or ends */
	int unblock = open(fd.path, O_RDONLY | O_NONBLOCK); /* a feeder still opening it */
	pthread_join(fd.thread, NULL);
	if (unblock >= 0)
		close(unblock);
	free(fd.buf);
	return rc;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bench_latency.XXXXXX", db[128], conf[160], base[160];
	struct form *form = NULL;
	struct lexicon *lex = NULL;
	struct store *st = NULL;
	struct mockserver *ms = NULL;
	struct engine_config cfg = {0};
	struct tally typed = {0}, mic = {0}, voiced = {0};
	const char *why = NULL;
	int rc = 1;

	/* only one of the calls, while working on it: "typed", "voiced" or "mic" (an argument
	 * or BENCH_LATENCY_ONLY); none runs all three */
	const char *only = argc > 1 ? argv[1] : getenv("BENCH_LATENCY_ONLY");
	if (only && (!*only || strcmp(only, "all") == 0))
		only = NULL;
	if (only && strcmp(only, "typed") && strcmp(only, "voiced") && strcmp(only, "mic")) {
		fprintf(stderr, "usage: bench_latency [typed|voiced|mic|all] (or BENCH_LATENCY_ONLY)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN); /* the feeder's FIFO closed under it is an error, not death */
	if (!mkdtemp(dir) || form_load(FORM, &form, NULL) != ERR_OK ||
	    lexicon_load(lexicon_default_dir(), &lex, NULL) != ERR_OK)
		goto out;
	realtime(true); /* the server's threads are made now */
	ms = mockserver_start();
	realtime(false);
	if (!ms)
		goto out;
	mockserver_record(ms, false);
	mockserver_set_handler(ms, answer, NULL);
	snprintf(conf, sizeof conf, "%s/formdesk.json", dir);
	FILE *f = fopen(conf, "w");
	if (!f)
		goto out;
	fputs("{\"providers\":{\"openai\":{\"stream\":false}}}\n", f);
	fclose(f);
	setenv("FORMDESK_CONFIG", conf, 1);
	snprintf(base, sizeof base, "%s/v1", mockserver_url(ms));
	setenv("OPENAI_BASE_URL", base, 1);
	setenv("OPENAI_API_KEY", "sk-bench", 1);
	setenv("ELEVENLABS_BASE_URL", mockserver_url(ms), 1);
	setenv("ELEVENLABS_API_KEY", "el-bench", 1);
	snprintf(db, sizeof db, "%s/calls.db", dir);
	if (store_open(db, &st, NULL) != ERR_OK)
		goto out;
	cfg.form = form;
	cfg.form_path = FORM;
	cfg.lex = lex;
	cfg.store = st;
	cfg.today = (struct ymd){2026, 3, 2};
	cfg.endpoint = endpoint_defaults();
	if (backend_stt("elevenlabs", &cfg.stt, &why) != ERR_OK ||
	    backend_extract("openai", &cfg.extract, &why) != ERR_OK ||
	    backend_reply("openai", &cfg.reply, &why) != ERR_OK) {
		fprintf(stderr, "bench_latency: %s\n", why ? why : "backends");
		goto out;
	}
	printf("End of the caller's speech to the agent's first audio, against local servers "
	       "answering STT after %d ms, EXTRACT after %d ms, REPLY after %d ms; espeak-ng "
	       "speaks into a WAV file\n",
	       STT_MS, EXTRACT_MS, REPLY_MS);
	if ((!only || strcmp(only, "typed") == 0) && typed_call(&cfg, dir, TTS_DEFAULT, &typed) == 0)
		report("typed call", &typed);
	/* a hosted voice that streams (OpenAI's speech endpoint), its first chunk after
	 * TTS_MS: the request runs off the loop, its time to first audio is measured */
	for (int i = 0; i < 2 * TTS_SAMPLES; i++)
		TTS_ANSWER[i] = i % 4 < 2 ? 0x11 : 0x21;
	voiced.tts_server_ms = TTS_MS;
	if ((!only || strcmp(only, "voiced") == 0) && typed_call(&cfg, dir, "openai", &voiced) == 0) {
		report("typed call, hosted voice streamed (openai)", &voiced);
		double v[MAX_TURNS];
		memcpy(v, voiced.first_audio, sizeof(double) * (size_t)voiced.n);
		double p50 = pct(v, voiced.n, 50), p95 = pct(v, voiced.n, 95);
		memcpy(v, voiced.own, sizeof(double) * (size_t)voiced.n);
		printf("  the voice's time to first audio (server's delay %d ms): p50 %.2f ms, p95 "
		       "%.2f ms; formdesk's own share with it: p50 %.2f ms, p95 %.2f ms\n",
		       TTS_MS, p50, p95, pct(v, voiced.n, 50), pct(v, voiced.n, 95));
	}
	if ((!only || strcmp(only, "mic") == 0) && mic_call(&cfg, dir, db, &mic) == 0)
		report("microphone call (ALSA file plugin)", &mic);
	rc = typed.n + voiced.n + mic.n > 0 ? 0 : 1;
out:
	store_close(st);
	backend_cleanup();
	http_shared_free();
	mockserver_stop(ms);
	lexicon_free(lex);
	form_free(form);
	if (dir[0] && strchr(dir, 'X') == NULL) {
		char cmd[200];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_latency: could not remove %s\n", dir);
	}
	return rc;
}
