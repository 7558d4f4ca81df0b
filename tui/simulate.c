/* simulate: the simulator, `formdesk [simulate] [OPTIONS]`: plays a corpus's recorded
 * calls through the agent on screen, turn by turn, and records them in the store; or,
 * with --typed or --mic (or the keys t and m), holds a live call (sessions/livecall.h):
 * the operator types the caller's words, or speaks them into the microphone.
 * Loads and checks everything first, and opens the audio devices, so that errors (with
 * file names, or "no audio input device") are printed before the screen takes the
 * terminal; then one loop waits in one place (screen_wait_in: the engine's requests, the
 * keyboard, signals; while capturing, at most LIVECALL_POLL_MS), advances the playback on
 * its timer or the live call, and dispatches keys. --headless runs a live call without a
 * screen and prints one JSON line per call. */
#include <langinfo.h>
#include <poll.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/backend.h"
#include "agent/form.h"
#include "agent/lexicon.h"
#include "agent/provider.h"
#include "agent/tts.h"
#include "agent/ymd.h"
#include "audio/endpoint.h"
#include "audio/padev.h"
#include "cli/commands.h"
#include "sessions/callline.h"
#include "sessions/corpus.h"
#include "sessions/engine.h"
#include "sessions/livecall.h"
#include "sessions/store.h"
#include "tui/callview.h"
#include "tui/keys.h"
#include "tui/lineedit.h"
#include "tui/playback.h"
#include "tui/screen.h"

#define DEFAULT_FORM "forms/armman_enrollment.json"

struct options {
	const char *form, *corpus, *db, *today, *stt, *extract, *reply, *config;
	const char *input_device, *output_device, *output_file, *tts, *references;
	double speed;
	bool typed, mic, headless, telephone;
	struct live_options live;
};

struct sim {
	struct screen *scr;
	struct playback *pb;        /* corpus playback, NULL for a session of live calls */
	struct callview *view;
	const struct form *form;
	const struct engine_config *cfg;
	const struct options *o;
	struct livecall *lc;        /* the live desk, once a live call was asked for */
	bool lc_mic;                /* it takes the microphone */
	struct lineedit *ed;
	bool in_live;               /* keys go to the live call */
	bool paused_playback;       /* the playback was paused for the live call */
	bool help_paused;           /* the playback was paused while the help is shown */
	int live_calls;
	bool quit;
	int headless_rc;            /* --headless: a JSON line could not be printed */
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--form FILE] [--corpus DIR|demo|respin] [--db FILE] [--today YYYY-MM-DD]\n"
		"       [--stt P[:M]] [--extract P[:M]] [--reply P[:M]] [--config FILE] [--speed X]\n"
		"Plays the corpus's calls through the agent on screen and records them in the\n"
		"database. Defaults: --form %s (beside the program or here), --corpus demo,\n"
		"--db ./formdesk.db, --today the real date, --stt reference, --extract rules,\n"
		"--reply script, --speed 1 (one caller turn in about %.1f s).\n"
		"A model provider's key comes from its environment variable (formdesk providers\n"
		"lists them); --config FILE names base URLs, models, timeouts, retries and prices.\n"
		"--telephone passes the caller's audio through the 8 kHz mu-law telephone channel\n"
		"before VAD and STT.\n"
		"\n"
		"Live calls: %s --typed | --mic [--headless] [--input-device NAME|INDEX]\n"
		"       [--output-device NAME|INDEX] [--output-file WAV] [--tts espeak|none]\n"
		"       [--references FILE] [--start-ms N] [--stop-ms N] [--turn-wait-ms N]\n"
		"       [--min-loudness-db X] [--number-wait-ms N] [--silence-ms N]\n"
		"--typed: you type what the caller says; --mic: the caller speaks into the\n"
		"microphone (formdesk devices lists the devices). The agent's words are spoken\n"
		"(--tts, default espeak; none shows them only) on the output device, or into\n"
		"--output-file. Endpointing defaults are the FormBharo pilot's: start 100 ms,\n"
		"stop 200 ms, turn wait 400 ms (1200 ms while a number is asked), -50 dBFS; after\n"
		"--silence-ms (3000) of caller silence the agent re-prompts. --references names a\n"
		"file of reference transcripts, one a line, for the caller's spoken turns in order.\n"
		"Microphone calls are recorded beside the database (DB.audio/call-N/). --headless:\n"
		"no screen; one JSON line per call (typed calls read the caller's lines from stdin).\n"
		"Keys:\n", prog, DEFAULT_FORM, PLAYBACK_TURN_MS / 1000, prog);
#define X(action, key, label, help, hint) fprintf(f, "  %-6s %s\n", label, help);
	KEYS(X)
	fprintf(f, "Keys in a live call:\n");
	LIVE_KEYS(X)
#undef X
}

/* parse: fill o from argv[1..]. Returns 0, 1 for --help, or 2 after printing the
 * problem. */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct {
		const char *name;
		size_t off;
	} opts[] = {
		{"--form", offsetof(struct options, form)},
		{"--corpus", offsetof(struct options, corpus)},
		{"--db", offsetof(struct options, db)},
		{"--today", offsetof(struct options, today)},
		{"--stt", offsetof(struct options, stt)},
		{"--extract", offsetof(struct options, extract)},
		{"--reply", offsetof(struct options, reply)},
		{"--config", offsetof(struct options, config)},
		{"--input-device", offsetof(struct options, input_device)},
		{"--output-device", offsetof(struct options, output_device)},
		{"--output-file", offsetof(struct options, output_file)},
		{"--tts", offsetof(struct options, tts)},
		{"--references", offsetof(struct options, references)},
	};
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
		{"--typed", offsetof(struct options, typed)},
		{"--mic", offsetof(struct options, mic)},
		{"--headless", offsetof(struct options, headless)},
		{"--telephone", offsetof(struct options, telephone)},
	};
	/* Whole milliseconds 0..60000 each, and a level in dBFS: the endpointing options of
	 * `formdesk vad`. */
	static const struct {
		const char *name;
		int idx;
	} nums[] = {
		{"--start-ms", 0}, {"--stop-ms", 1}, {"--turn-wait-ms", 2}, {"--number-wait-ms", 3},
		{"--silence-ms", 4}, {"--min-loudness-db", 5},
	};
	const char *num_val[6] = {0};
	const char *speed = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return 1;
		bool flag = false;
		for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (strcmp(a, flags[k].name) == 0) {
				*(bool *)((char *)o + flags[k].off) = true;
				flag = true;
			}
		if (flag)
			continue;
		const char *eq = strchr(a, '=');
		size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
		const char **slot = NULL;
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strlen(opts[k].name) == nlen && strncmp(a, opts[k].name, nlen) == 0)
				slot = (const char **)((char *)o + opts[k].off);
		for (size_t k = 0; !slot && k < sizeof(nums) / sizeof(nums[0]); k++)
			if (strlen(nums[k].name) == nlen && strncmp(a, nums[k].name, nlen) == 0)
				slot = &num_val[nums[k].idx];
		if (!slot && nlen == 7 && strncmp(a, "--speed", 7) == 0)
			slot = &speed;
		if (!slot) {
			fprintf(stderr, "formdesk: unknown option '%s' (see --help)\n", a);
			return 2;
		}
		if (eq) {
			*slot = eq + 1;
		} else if (i + 1 < argc) {
			*slot = argv[++i];
		} else {
			fprintf(stderr, "formdesk: option '%s' needs a value\n", a);
			return 2;
		}
	}
	int *ms[5] = {&o->live.endpoint.start_ms, &o->live.endpoint.stop_ms,
		      &o->live.endpoint.turn_wait_ms, &o->live.number_turn_wait_ms, &o->live.silence_ms};
	for (int k = 0; k < 6; k++) {
		char *end;
		if (!num_val[k])
			continue;
		errno = 0;
		double v = strtod(num_val[k], &end);
		if (k < 5 && (errno || end == num_val[k] || *end || v < 0 || v > 60000 || v != (int)v)) {
			fprintf(stderr, "formdesk: %s: '%s' is not a whole number of ms from 0 to 60000\n",
				nums[k].name, num_val[k]);
			return 2;
		}
		if (k == 5 && (errno || end == num_val[k] || *end || v < -200 || v > 0)) {
			fprintf(stderr, "formdesk: --min-loudness-db: '%s' is not a level in dBFS from -200 to 0\n",
				num_val[k]);
			return 2;
		}
		if (k < 5)
			*ms[k] = (int)v;
		else
			o->live.endpoint.min_loudness_db = v;
	}
	if (o->typed && o->mic) {
		fprintf(stderr, "formdesk: --typed and --mic are two kinds of live call: choose one\n");
		return 2;
	}
	if (o->headless && !o->typed && !o->mic) {
		fprintf(stderr, "formdesk: --headless is for live calls (--typed or --mic); a corpus "
				"runs headless with: formdesk run --headless\n");
		return 2;
	}
	if (o->tts && strcmp(o->tts, "none") != 0 && strncmp(o->tts, "espeak", 6) != 0) {
		fprintf(stderr, "formdesk: --tts takes espeak (or espeak:VOICE) or none, not '%s'\n", o->tts);
		return 2;
	}
	if (speed) {
		char *end;
		o->speed = strtod(speed, &end);
		if (*end || !(o->speed > 0) || o->speed > 1000) {
			fprintf(stderr, "formdesk: --speed takes a number above 0 (2 is twice as fast), not '%s'\n", speed);
			return 2;
		}
	}
	return 0;
}

static bool readable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The enrollment form beside the program (or two folders up, for the build trees), else
 * in the current directory. Output: new string (caller frees), NULL when out of memory. */
static char *default_form(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		const char *rel[] = {"", "/../.."};
		for (int i = 0; i < 2; i++) {
			char *p = NULL;
			if (asprintf(&p, "%s%s/%s", exe, rel[i], DEFAULT_FORM) < 0)
				return NULL;
			if (readable(p)) {
				char *real = realpath(p, NULL);
				if (real) {
					free(p);
					return real;
				}
				return p;
			}
			free(p);
		}
	}
	return strdup(DEFAULT_FORM);
}

/* Devanagari needs a UTF-8 locale; without one in the environment, take C.UTF-8. */
static void set_locale(void)
{
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	if (!cs || strcmp(cs, "UTF-8") != 0)
		setlocale(LC_CTYPE, "C.UTF-8");
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ---- key actions: one per entry of KEYS (tui/keys.h) ---- */

/* ---- live calls on screen ---- */

/* The live call's events, shown at once (a person is on the line: no pacing), with the
 * form as the rules left it after each decision. */
static void live_listener(void *ud, const struct engine_event *ev)
{
	struct sim *s = ud;

	callview_event(s->view, ev);
	if (ev->kind == ENGINE_DECISION && s->lc)
		callview_set_form(s->view, callview_snap_new(s->form, engine_flow(livecall_engine(s->lc))));
}

/* live_options: the live desk's options from the command line. */
static struct livecall_options live_options(const struct options *o, bool mic)
{
	struct livecall_options lo = {
		.mic = mic, .input_device = o->input_device, .output_device = o->output_device,
		.output_file = o->output_file, .tts = o->tts, .db_path = o->db,
		.references = o->references, .live = o->live,
	};
	return lo;
}

/* live_next_call: begin the next live call on screen. */
static void live_next_call(struct sim *s)
{
	enum err e;

	callview_live(s->view, s->live_calls++, s->lc_mic ? "microphone" : "typed");
	if (s->ed)
		lineedit_clear(s->ed);
	screen_input(s->scr, s->lc_mic ? "" : "caller says › ", "");
	if ((e = livecall_start(s->lc)) != ERR_OK) {
		char msg[160];
		snprintf(msg, sizeof(msg), "cannot begin the live call: %s", err_str(e));
		callview_error(s->view, msg);
	}
}

/* live_enter: take the keys to a live call of the kind asked (opening the live desk the
 * first time, or again for the other kind); a failure (no microphone) is shown, and the
 * keys stay with the playback. */
static void live_enter(struct sim *s, bool mic)
{
	if (s->lc && s->lc_mic != mic) {
		livecall_free(s->lc);
		s->lc = NULL;
	}
	if (!s->lc) {
		struct livecall_options lo = live_options(s->o, mic);
		char *msg = NULL;
		enum err e = livecall_new(s->cfg, &lo, live_listener, s, &s->lc, &msg);
		if (e) {
			char line[600];
			snprintf(line, sizeof(line), "%s%s%s",
				 mic && e == ERR_NOTFOUND ? "no audio input device: try t (typed) or the corpus; " : "",
				 msg ? msg : err_str(e), "");
			callview_error(s->view, line);
			free(msg);
			s->lc = NULL;
			return;
		}
		s->lc_mic = mic;
	}
	if (s->pb && !playback_paused(s->pb)) {
		playback_pause(s->pb, true, now_ms());
		s->paused_playback = true;
	}
	s->in_live = true;
	screen_live(s->scr, true, !mic);
	live_next_call(s);
}

/* live_leave: back to the corpus playback, or, in a session of live calls, quit. */
static void live_leave(struct sim *s)
{
	if (!s->pb) {
		s->quit = true;
		return;
	}
	s->in_live = false;
	screen_live(s->scr, false, false);
	callview_live(s->view, 0, NULL);
	callview_set_waiting(s->view, NULL);
	if (s->paused_playback)
		playback_pause(s->pb, false, now_ms());
	s->paused_playback = false;
	if (playback_finished(s->pb))
		callview_set_mode(s->view, CALLVIEW_FINISHED);
}

/* ---- key actions of a live call: one per entry of LIVE_KEYS (tui/keys.h) ---- */

static void act_send(struct sim *s)
{
	if (livecall_call_open(s->lc)) {
		if (!s->lc_mic) {
			livecall_typed(s->lc, lineedit_text(s->ed));
			lineedit_clear(s->ed);
			screen_input(s->scr, "caller says › ", "");
		}
	} else if (livecall_done(s->lc)) {
		live_next_call(s);
	}
}

static void act_erase(struct sim *s)
{
	lineedit_erase(s->ed);
	screen_input(s->scr, "caller says › ", lineedit_text(s->ed));
}

static void act_clear(struct sim *s)
{
	lineedit_clear(s->ed);
	screen_input(s->scr, "caller says › ", "");
}

static void act_hangup(struct sim *s)
{
	if (livecall_call_open(s->lc))
		livecall_hang_up(s->lc, "abandoned: hung up at the desk");
	else
		live_leave(s);
}

static const struct {
	int key;
	void (*fn)(struct sim *s);
} live_keymap[] = {
#define X(action, key, label, help, hint) {key, act_##action},
	LIVE_KEYS(X)
#undef X
};

static void live_dispatch(struct sim *s, int key)
{
	if (screen_help_shown(s->scr)) {
		screen_help(s->scr, false);
		return;
	}
	for (size_t i = 0; i < sizeof(live_keymap) / sizeof(live_keymap[0]); i++)
		if (live_keymap[i].key == key) {
			live_keymap[i].fn(s);
			return;
		}
	/* Everything else printable is the caller's words. */
	if (!s->lc_mic && key >= 0x20 && lineedit_insert(s->ed, key) == ERR_OK)
		screen_input(s->scr, "caller says › ", lineedit_text(s->ed));
}

/* ---- key actions: one per entry of KEYS (tui/keys.h) ---- */

static void act_pause(struct sim *s)
{
	if (s->pb)
		playback_pause(s->pb, !playback_paused(s->pb), now_ms());
}

static void act_next(struct sim *s)
{
	if (s->pb)
		playback_next(s->pb, now_ms());
}

static void act_typed(struct sim *s)
{
	live_enter(s, false);
}

static void act_mic(struct sim *s)
{
	live_enter(s, true);
}

/* The help covers the panes, so the call waits behind it instead of playing unseen. */
static void act_help(struct sim *s)
{
	if (s->pb && !playback_paused(s->pb)) {
		playback_pause(s->pb, true, now_ms());
		s->help_paused = true;
	}
	screen_help(s->scr, true);
}

static void close_help(struct sim *s)
{
	screen_help(s->scr, false);
	if (s->help_paused && s->pb)
		playback_pause(s->pb, false, now_ms());
	s->help_paused = false;
}

static void act_quit(struct sim *s)
{
	s->quit = true;
}

static const struct {
	int key;
	void (*fn)(struct sim *s);
} keymap[] = {
#define X(action, key, label, help, hint) {key, act_##action},
	KEYS(X)
#undef X
};

static void dispatch(struct sim *s, int key)
{
	if (s->in_live) {
		live_dispatch(s, key);
		return;
	}
	if (screen_help_shown(s->scr)) {
		close_help(s); /* any key closes the help */
		return;
	}
	for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
		if (keymap[i].key == key) {
			keymap[i].fn(s);
			return;
		}
}

/* The one wait: the engine's requests (curl) with the screen's keyboard and signal pipe
 * as extra descriptors. */
static int wait_all(void *ud, struct pollfd *fds, int n, int timeout_ms)
{
	struct sim *s = ud;
	struct curl_waitfd w[4];
	int ready = 0;
	if (n > 4)
		n = 4;
	for (int i = 0; i < n; i++)
		w[i] = (struct curl_waitfd){.fd = fds[i].fd, .events = CURL_WAIT_POLLIN};
	/* curl_multi_poll has no "for ever": an hour stands for it. */
	enum err e = s->in_live ? livecall_poll(s->lc, timeout_ms < 0 ? 3600000 : timeout_ms, w, (unsigned)n)
			 : s->pb ? playback_poll(s->pb, timeout_ms < 0 ? 3600000 : timeout_ms, w, (unsigned)n)
			 : ERR_BACKEND;
	if (e == ERR_BACKEND)
		return poll(fds, (nfds_t)n, timeout_ms < 0 || timeout_ms > 100 ? 100 : timeout_ms);
	for (int i = 0; i < n; i++) {
		fds[i].revents = (w[i].revents & CURL_WAIT_POLLIN) ? POLLIN : 0;
		ready += fds[i].revents != 0;
	}
	return ready;
}

/* While a model or speech service is waited for, the status bar says which and for how
 * long, changing every tenth of a second. */
#define WAIT_REFRESH_MS 100

/* live_status: the status bar's live part: the call's state (level meter, VAD, turn),
 * a standing note, what the engine waits for. */
static void live_status(struct sim *s)
{
	char st[256], what[128] = "", all[520];
	const char *note = livecall_note(s->lc);
	enum engine_stage stage;
	const char *name = NULL;
	double ms = 0;

	livecall_status(s->lc, st, sizeof(st));
	if (engine_waiting(livecall_engine(s->lc), &stage, &name, &ms))
		snprintf(what, sizeof(what), "  ·  waiting for %s (%s) %.1f s", engine_stage_name(stage),
			 name ? name : "?", (double)(long)(ms / 100) / 10.0);
	snprintf(all, sizeof(all), "%s%s%s%s", st, what, *note ? "  ·  " : "", note);
	callview_set_waiting(s->view, all);
}

/* The loop: the playback's timer (or the live call), the engine's requests, the screen,
 * keys and signals, until q. */
static void run_loop(struct sim *s)
{
	while (!s->quit) {
		if (s->in_live) {
			live_status(s);
			screen_draw(s->scr, s->view);
			unsigned w = screen_wait_in(s->scr, WAIT_REFRESH_MS, wait_all, s);
			if (w & SCREEN_QUIT)
				break;
			int k;
			while (!s->quit && s->in_live && (k = screen_key(s->scr)) != -1)
				dispatch(s, k);
			continue;
		}
		int wait = playback_tick(s->pb, now_ms());
		char what[128];
		if (playback_waiting(s->pb, what, sizeof(what))) {
			callview_set_waiting(s->view, what);
			if (wait < 0 || wait > WAIT_REFRESH_MS)
				wait = WAIT_REFRESH_MS;
		} else {
			callview_set_waiting(s->view, NULL);
		}
		screen_draw(s->scr, s->view);
		unsigned w = screen_wait_in(s->scr, wait, wait_all, s);
		if (w & SCREEN_QUIT)
			break;
		int k;
		while (!s->quit && (k = screen_key(s->scr)) != -1)
			dispatch(s, k);
	}
}

static void print_issues(const char *path, const struct form_issues *is, enum err e)
{
	if (is->n == 0)
		fprintf(stderr, "formdesk: %s: %s\n", path, err_str(e));
	for (int i = 0; i < is->n; i++) {
		const struct form_issue *x = &is->v[i];
		if (strstr(x->message, path)) /* it names the file already */
			fprintf(stderr, "formdesk: %s\n", x->message);
		else
			fprintf(stderr, "formdesk: %s: %s%s%s\n", path, x->field, *x->field ? ": " : "",
				x->message);
	}
}

/* ---- live calls without a screen ---- */

static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
	g_stop = sig;
}

/* print_live_call: the ended call's JSON line: {"call_id":"live","call" (its row),
 * "input","status","reason","form_data","form_status","turns","barge_ins","silences",
 * "audio_dir" (null when not recorded),"cost_usd","latency_ms":{"stt","extract","reply",
 * "turns","turn_max"},"requests","failed_requests"}, as `formdesk run --headless` prints a
 * corpus call's. */
static int print_live_call(struct sim *s, const struct engine_event *ev)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(ev->json, "usage");
	cJSON *o = cJSON_CreateObject();
	const char *dir = livecall_audio_dir(s->lc);
	char *text = NULL;
	int barge = 0, silence = 0, rc = -1;

	livecall_counts(s->lc, &barge, &silence);
	if (!o || !cJSON_AddStringToObject(o, "call_id", "live") ||
	    !cJSON_AddNumberToObject(o, "call", (double)engine_call_row(livecall_engine(s->lc))) ||
	    !cJSON_AddStringToObject(o, "input", s->lc_mic ? "mic" : "typed") ||
	    !cJSON_AddStringToObject(o, "status", call_status_name(ev->status)) ||
	    !cJSON_AddStringToObject(o, "reason", ev->text ? ev->text : "") ||
	    !cJSON_AddItemToObject(o, "form_data",
				   cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ev->json, "form_data"), 1)) ||
	    !cJSON_AddItemToObject(o, "form_status",
				   cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ev->json, "form_status"), 1)) ||
	    !cJSON_AddNumberToObject(o, "turns", ev->turn) ||
	    !cJSON_AddNumberToObject(o, "barge_ins", barge) ||
	    !cJSON_AddNumberToObject(o, "silences", silence) ||
	    !cJSON_AddItemToObject(o, "audio_dir", *dir ? cJSON_CreateString(dir) : cJSON_CreateNull()) ||
	    !callline_add_usage(o, u) || !(text = cJSON_PrintUnformatted(o)))
		goto out;
	puts(text);
	fflush(stdout);
	rc = 0;
out:
	free(text);
	cJSON_Delete(o);
	return rc;
}

static void headless_listener(void *ud, const struct engine_event *ev)
{
	struct sim *s = ud;

	if (ev->kind == ENGINE_ERROR)
		fprintf(stderr, "formdesk: live call, turn %d: %s\n", ev->turn, ev->text ? ev->text : "error");
	else if (ev->kind == ENGINE_CALL_END && print_live_call(s, ev) != 0)
		s->headless_rc = 2;
}

/* run_headless: one live call without a screen: a microphone call runs until the rules
 * end it; a typed call takes the caller's words from stdin, a line a turn, each once the
 * agent has finished speaking; when they run out the call is hung up. SIGINT and SIGTERM
 * hang up too. Returns the exit status. */
static int run_headless(struct sim *s)
{
	struct sigaction sa, old_int, old_term;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	enum err e;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	g_stop = 0;
	if ((e = livecall_start(s->lc)) != ERR_OK) {
		fprintf(stderr, "formdesk: cannot begin the live call: %s\n", err_str(e));
		rc = 2;
		goto out;
	}
	while (!g_stop && !livecall_done(s->lc)) {
		if (!s->lc_mic && livecall_listening(s->lc)) {
			if ((len = getline(&line, &cap, stdin)) < 0)
				break;
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = '\0';
			livecall_typed(s->lc, line);
			continue;
		}
		livecall_poll(s->lc, 100, NULL, 0);
	}
	if (livecall_call_open(s->lc))
		livecall_hang_up(s->lc, g_stop ? "abandoned: interrupted" : "abandoned: the caller's lines ran out");
	while (!g_stop && !livecall_done(s->lc)) /* the last words play out */
		livecall_poll(s->lc, 100, NULL, 0);
	rc = g_stop ? 128 + g_stop : s->headless_rc;
out:
	free(line);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

int cmd_simulate(int argc, char **argv)
{
	set_locale();
	struct options o = {.corpus = "demo", .db = "formdesk.db", .stt = "reference",
			    .extract = "rules", .reply = "script", .speed = 1.0,
			    .live = live_defaults()};
	bool live = false;
	int rc = 2;
	char *form_path = NULL, *corpus_dir = NULL, *errmsg = NULL, *log_path = NULL;
	struct form *form = NULL;
	struct form_issues issues = {0};
	struct lexicon *lex = NULL;
	struct corpus *corpus = NULL;
	struct store *store = NULL;
	struct sim s = {0};
	const char *why = NULL;
	enum err e;

	int pr = parse(argc, argv, &o);
	if (pr == 1) {
		usage(stdout, argc > 0 && strcmp(argv[0], "simulate") == 0 ? "formdesk simulate"
									    : "formdesk");
		return 0;
	}
	if (pr)
		return 2;

	form_path = o.form ? strdup(o.form) : default_form();
	if (!form_path)
		goto nomem;
	if ((e = form_load(form_path, &form, &issues))) {
		print_issues(form_path, &issues, e);
		goto out;
	}

	live = o.typed || o.mic;
	struct engine_config cfg = {.form = form, .form_path = form_path,
				    .endpoint = o.live.endpoint, .telephone = o.telephone};
	if (o.today) {
		if (!ymd_parse_iso(o.today, &cfg.today)) {
			fprintf(stderr, "formdesk: --today takes a date as YYYY-MM-DD, not '%s'\n", o.today);
			goto out;
		}
	} else {
		cfg.today = ymd_today();
	}
	if (o.config) {
		char cwhy[300];
		if (provider_config_load(o.config, cwhy, sizeof(cwhy)) != ERR_OK) {
			fprintf(stderr, "formdesk: --config %s\n", cwhy);
			goto out;
		}
	}
	if (backend_stt(o.stt, &cfg.stt, &why) || backend_extract(o.extract, &cfg.extract, &why) ||
	    backend_reply(o.reply, &cfg.reply, &why)) {
		fprintf(stderr, "formdesk: %s\n", why ? why : "unknown backend");
		goto out;
	}

	const char *words = lexicon_default_dir();
	if ((e = lexicon_load(words, &lex, &errmsg))) {
		fprintf(stderr, "formdesk: %s\n", errmsg ? errmsg : err_str(e));
		if (!errmsg)
			fprintf(stderr, "formdesk: (word lists in %s)\n", words);
		goto out;
	}
	cfg.lex = lex;

	if (live)
		goto devices;
	if (!(corpus_dir = corpus_resolve(o.corpus)))
		goto nomem;
	if ((e = corpus_load(corpus_dir, &corpus, &errmsg))) {
		fprintf(stderr, "formdesk: corpus %s: %s\n", corpus_dir, errmsg ? errmsg : err_str(e));
		if ((strcmp(o.corpus, "demo") == 0 || strcmp(o.corpus, "respin") == 0) &&
		    !(errmsg && strstr(errmsg, "make")))
			fprintf(stderr, "formdesk: the bundled corpora are built with `make corpora`\n");
		goto out;
	}
	if (corpus->n_calls == 0) {
		fprintf(stderr, "formdesk: corpus %s has no calls\n", corpus_dir);
		goto out;
	}

devices:
	if (!o.headless && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))) {
		if (live)
			fprintf(stderr, "formdesk: a live call on screen needs a terminal (standard %s is not one).\n"
					"For a live call without a screen use: formdesk %s --headless\n",
				isatty(STDOUT_FILENO) ? "input" : "output", o.mic ? "--mic" : "--typed");
		else
			fprintf(stderr, "formdesk: the simulator needs a terminal (standard %s is not one).\n"
					"For a run without a screen use: formdesk run --headless --form %s --corpus %s --db %s\n",
				isatty(STDOUT_FILENO) ? "input" : "output", form_path, o.corpus, o.db);
		goto out;
	}

	if ((e = store_open(o.db, &store, &errmsg))) {
		fprintf(stderr, "formdesk: %s\n", errmsg ? errmsg : err_str(e));
		goto out;
	}
	cfg.store = store;
	s.form = form;
	s.cfg = &cfg;
	s.o = &o;

	if (live) {
		/* The devices open before the screen: their problems (and the libraries'
		 * chatter, which padev keeps off the terminal) come out here. */
		struct livecall_options lo = live_options(&o, o.mic);
		if ((e = livecall_new(&cfg, &lo, o.headless ? headless_listener : live_listener, &s,
				      &s.lc, &errmsg))) {
			if (o.mic && e == ERR_NOTFOUND && !o.input_device) {
				fprintf(stderr, "formdesk: no audio input device: try --typed or --corpus demo\n");
				if (errmsg && strcmp(errmsg, padev_no_device_hint) != 0)
					fprintf(stderr, "formdesk: %s\n", errmsg);
			} else if (o.mic && e == ERR_NOTFOUND) {
				fprintf(stderr, "formdesk: --input-device %s: %s\n", o.input_device,
					errmsg ? errmsg : err_str(e));
			} else {
				fprintf(stderr, "formdesk: %s\n", errmsg ? errmsg : err_str(e));
			}
			goto out;
		}
		s.lc_mic = o.mic;
		if (o.headless) {
			rc = run_headless(&s);
			goto out;
		}
	}
	if (!(s.ed = lineedit_new()))
		goto nomem;
	s.view = callview_new(form, corpus ? (corpus->name ? corpus->name : o.corpus) : "live",
			      corpus ? corpus->n_calls : 0);
	if (!s.view)
		goto nomem;
	if (!live && (e = playback_new(&cfg, corpus, s.view, o.speed, &s.pb))) {
		fprintf(stderr, "formdesk: cannot start the call engine: %s\n", err_str(e));
		goto out;
	}
	if (asprintf(&log_path, "%s.log", o.db) < 0) {
		log_path = NULL;
		goto nomem;
	}
	const char *serr = NULL;
	if ((e = screen_open(log_path, &s.scr, &serr))) {
		fprintf(stderr, "formdesk: %s\n", serr ? serr : err_str(e));
		goto out;
	}
	if (live) {
		s.in_live = true;
		screen_live(s.scr, true, !o.mic);
		live_next_call(&s);
	}
	run_loop(&s);
	int sig = screen_signal(s.scr);
	screen_close(s.scr);
	s.scr = NULL;

	struct stat st;
	if (stat(log_path, &st) == 0 && st.st_size == 0)
		unlink(log_path);
	else if (stat(log_path, &st) == 0)
		fprintf(stderr, "formdesk: messages printed while the screen was up are in %s\n", log_path);
	printf("formdesk: calls recorded in %s\n", o.db);
	rc = sig ? 128 + sig : 0; /* the shell's convention for a death by signal */
	goto out;
nomem:
	fprintf(stderr, "formdesk: %s\n", err_str(ERR_NOMEM));
out:
	screen_close(s.scr);
	livecall_free(s.lc);
	lineedit_free(s.ed);
	playback_free(s.pb);
	callview_free(s.view);
	store_close(store);
	corpus_free(corpus);
	lexicon_free(lex);
	form_issues_free(&issues);
	form_free(form);
	free(form_path);
	free(corpus_dir);
	free(errmsg);
	free(log_path);
	backend_cleanup();
	tts_cleanup();
	return rc;
}
