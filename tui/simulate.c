/* simulate: the simulator's screen (see simulate.h); the command is cli/simulate.c. */
#include "simulate.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/rules/form.h"
#include "audio/padev.h"
#include "sessions/calls/callline.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/calls/livecall.h"
#include "sessions/store/store.h"
#include "sessions/calls/runs.h"
#include "callview.h"
#include "keys.h"
#include "lineedit.h"
#include "playback.h"
#include "review.h"
#include "voice.h"
#include "screen.h"

struct sim {
	struct screen *scr;
	struct playback *pb;        /* corpus playback, NULL for a session of live calls */
	struct voice *voice;        /* says the played calls' agent words (--tts), or NULL */
	struct callview *view;
	const struct form *form;
	const struct engine_config *cfg;
	const struct simulate_setup *o;
	struct livecall *lc;        /* the live desk, once a live call was asked for */
	bool lc_mic;                /* it takes the microphone */
	struct lineedit *ed;
	bool in_live;               /* keys go to the live call */
	bool paused_playback;       /* the playback was paused for the live call */
	bool help_paused;           /* the playback was paused while the help is shown */
	int live_calls;
	long long live_run[2];      /* the runs of the typed and the microphone live calls */
	bool quit;
	bool jumping;               /* g pressed: the number of the call to jump to is typed */
	char jump[12];
	int headless_rc;            /* --headless: a JSON line could not be printed */
};

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

/* live_options: the live desk's options for a call of the kind asked. */
static struct livecall_options live_options(const struct simulate_setup *o, bool mic)
{
	struct livecall_options lo = o->live;
	lo.mic = mic;
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
		struct engine_config cfg = *s->cfg; /* livecall_new copies it */
		char *msg = NULL;
		enum err e = ERR_OK;
		/* live calls are a run of their own kind, one per kind in a session */
		cfg.corpus_name = NULL;
		if (!s->live_run[mic])
			e = runs_begin(cfg.store, &(struct runs_spec){.source = mic ? "mic" : "typed",
				       .cfg = &cfg}, &s->live_run[mic], &msg);
		cfg.run_id = s->live_run[mic];
		if (e == ERR_OK)
			e = livecall_new(&cfg, &lo, live_listener, s, &s->lc, &msg);
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
	if (s->voice) /* the played call's words still coming must not sound over the live call */
		voice_stop(s->voice);
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

/* History: the call on screen turn by turn, its conversation scrolled, other calls. */

static void act_prev(struct sim *s)
{
	if (s->pb && playback_call(s->pb) > 0)
		playback_goto(s->pb, playback_call(s->pb) - 1, now_ms());
}

static void act_jump(struct sim *s)
{
	if (!s->pb)
		return;
	s->jumping = true;
	s->jump[0] = '\0';
}

/* jump_key: a key while the call's number is typed. */
static void jump_key(struct sim *s, int key)
{
	size_t n = strlen(s->jump);

	if (key == '\r') {
		s->jumping = false;
		if (n && !playback_goto(s->pb, atoi(s->jump) - 1, now_ms()))
			callview_error(s->view, "no such call in this corpus");
	} else if (key == 27) {
		s->jumping = false;
	} else if (key == 127 && n) {
		s->jump[n - 1] = '\0';
	} else if (key >= '0' && key <= '9' && n + 1 < sizeof(s->jump)) {
		s->jump[n] = (char)key;
		s->jump[n + 1] = '\0';
	}
}

/* step: pause (a playing call), then show the turn delta away; past the newest turn,
 * play the next one. */
static void step_turn(struct sim *s, int delta)
{
	if (!s->pb)
		return;
	if (!playback_paused(s->pb))
		playback_pause(s->pb, true, now_ms());
	if (!callview_step(s->view, delta) && delta > 0)
		playback_step(s->pb);
}

static void act_back(struct sim *s)
{
	step_turn(s, -1);
}

static void act_fwd(struct sim *s)
{
	step_turn(s, 1);
}

/* A few lines at a time: a turn is about three lines of the conversation. */
#define SCROLL_LINES 3

static void act_older(struct sim *s)
{
	callview_scroll(s->view, SCROLL_LINES);
}

static void act_newer(struct sim *s)
{
	callview_scroll(s->view, -SCROLL_LINES);
}

static void act_typed(struct sim *s)
{
	live_enter(s, false);
}

static void act_mic(struct sim *s)
{
	live_enter(s, true);
}

/* The recorded calls of this database, on this screen; the call waits behind them as it
 * does behind the help. q there comes back here, a quit signal quits. */
static void act_review(struct sim *s)
{
	bool paused = s->pb && !playback_paused(s->pb);
	struct review_filter all = {0};

	if (paused)
		playback_pause(s->pb, true, now_ms());
	if (review_screen(s->scr, s->cfg->store, &all) != 0)
		s->quit = true;
	if (paused)
		playback_pause(s->pb, false, now_ms());
	screen_redraw(s->scr);
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
	if (s->jumping) {
		jump_key(s, key);
		return;
	}
	for (size_t i = 0; i < sizeof(keymap) / sizeof(keymap[0]); i++)
		if (keymap[i].key == key) {
			keymap[i].fn(s);
			return;
		}
}

/* The one wait: the engine's requests (curl) with the screen's keyboard and signal pipe
 * and the voice's requests or synthesizer (while it works) as extra descriptors. */
static int wait_all(void *ud, struct pollfd *fds, int n, int timeout_ms)
{
	struct sim *s = ud;
	struct curl_waitfd w[4 + VOICE_MAX_FDS];
	int ready = 0;
	if (n > 4)
		n = 4;
	for (int i = 0; i < n; i++)
		w[i] = (struct curl_waitfd){.fd = fds[i].fd, .events = CURL_WAIT_POLLIN};
	unsigned nw = (unsigned)n + voice_waitfds(s->voice, w + n, VOICE_MAX_FDS, &timeout_ms);
	/* curl_multi_poll has no "for ever": an hour stands for it. */
	enum err e = s->in_live ? livecall_poll(s->lc, timeout_ms < 0 ? 3600000 : timeout_ms, w, nw)
			 : s->pb ? playback_poll(s->pb, timeout_ms < 0 ? 3600000 : timeout_ms, w, nw)
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
	char st[480], what[128] = "", all[720];
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
			voice_tick(s->voice);
			if (w & SCREEN_QUIT)
				break;
			int k;
			while (!s->quit && s->in_live && (k = screen_key(s->scr)) != -1)
				dispatch(s, k);
			continue;
		}
		int wait = playback_tick(s->pb, now_ms());
		char what[128];
		if (s->jumping) {
			snprintf(what, sizeof(what), "jump to call (1-%d): %s_  Enter jumps, Esc stays",
				 s->o->corpus->n_calls, s->jump);
			callview_set_waiting(s->view, what);
		} else if (playback_waiting(s->pb, what, sizeof(what))) {
			callview_set_waiting(s->view, what);
			if (wait < 0 || wait > WAIT_REFRESH_MS)
				wait = WAIT_REFRESH_MS;
		} else {
			callview_set_waiting(s->view, NULL);
		}
		screen_draw(s->scr, s->view);
		unsigned w = screen_wait_in(s->scr, wait, wait_all, s);
		voice_tick(s->voice); /* its audio to the sink as it comes */
		if (w & SCREEN_QUIT)
			break;
		int k;
		while (!s->quit && (k = screen_key(s->scr)) != -1)
			dispatch(s, k);
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
	int barge = 0, silence = 0;

	livecall_counts(s->lc, &barge, &silence);
	bool ok = o && cJSON_AddStringToObject(o, "call_id", "live") &&
		  cJSON_AddNumberToObject(o, "call", (double)engine_call_row(livecall_engine(s->lc))) &&
		  cJSON_AddStringToObject(o, "input", s->lc_mic ? "mic" : "typed") &&
		  callline_add_outcome(o, ev->status, ev->text ? ev->text : "",
				       cJSON_GetObjectItemCaseSensitive(ev->json, "form_data"),
				       cJSON_GetObjectItemCaseSensitive(ev->json, "form_status"), ev->turn) &&
		  cJSON_AddNumberToObject(o, "barge_ins", barge) &&
		  cJSON_AddNumberToObject(o, "silences", silence) &&
		  cJSON_AddItemToObject(o, "audio_dir", *dir ? cJSON_CreateString(dir) : cJSON_CreateNull()) &&
		  callline_add_usage(o, u) && callline_print(o);

	cJSON_Delete(o);
	return ok ? 0 : -1;
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
	long lineno = 0;
	while (!g_stop && !livecall_done(s->lc)) {
		if (!s->lc_mic && livecall_listening(s->lc)) {
			if ((len = getline(&line, &cap, stdin)) < 0)
				break;
			lineno++;
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = '\0';
			/* a NUL would silently cut the line short: refused, as bad UTF-8 is */
			if (strlen(line) != (size_t)len) {
				fprintf(stderr, "formdesk: stdin line %ld: the caller's line holds a NUL byte "
					"(byte %zu); refused, not a turn\n", lineno, strlen(line) + 1);
				s->headless_rc = 2;
			} else if (livecall_typed(s->lc, line) == ERR_INVALID) {
				s->headless_rc = 2;
			}
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

int simulate_run(const struct simulate_setup *o)
{
	bool live = o->typed || o->mic;
	int rc = 2;
	char *errmsg = NULL, *log_path = NULL;
	const struct corpus *corpus = o->corpus;
	const struct form *form = o->cfg->form;
	struct sim s = {.form = form, .cfg = o->cfg, .o = o};
	if (live) /* the run made for the live call asked for at the start */
		s.live_run[o->mic] = o->cfg->run_id;
	enum err e;

	if (live) {
		/* The devices open before the screen: their problems (and the libraries'
		 * chatter, which padev keeps off the terminal) come out here. */
		struct livecall_options lo = live_options(o, o->mic);
		if ((e = livecall_new(o->cfg, &lo, o->headless ? headless_listener : live_listener, &s,
				      &s.lc, &errmsg))) {
			if (o->mic && e == ERR_NOTFOUND && !o->live.input_device) {
				fprintf(stderr, "formdesk: no audio input device: try --typed or --corpus demo\n");
				if (errmsg && strcmp(errmsg, padev_no_device_hint) != 0)
					fprintf(stderr, "formdesk: %s\n", errmsg);
			} else if (o->mic && e == ERR_NOTFOUND) {
				fprintf(stderr, "formdesk: --input-device %s: %s\n", o->live.input_device,
					errmsg ? errmsg : err_str(e));
			} else {
				fprintf(stderr, "formdesk: %s\n", errmsg ? errmsg : err_str(e));
			}
			goto out;
		}
		s.lc_mic = o->mic;
		if (o->headless) {
			rc = run_headless(&s);
			goto out;
		}
	}
	if (!(s.ed = lineedit_new()))
		goto nomem;
	s.view = callview_new(form, o->corpus_label, corpus ? corpus->n_calls : 0);
	if (!s.view)
		goto nomem;
	if (!live && (e = playback_new(o->cfg, corpus, s.view, o->speed, &s.pb))) {
		fprintf(stderr, "formdesk: cannot start the call engine: %s\n", err_str(e));
		goto out;
	}
	/* a voice named for the played calls: their agent words are spoken too */
	if (!live && o->live.tts && strcmp(o->live.tts, "none") != 0) {
		if ((e = voice_open(&o->live, o->db_path, &s.voice, &errmsg))) {
			fprintf(stderr, "formdesk: %s\n", errmsg ? errmsg : err_str(e));
			goto out;
		}
		playback_on_agent(s.pb, voice_say, s.voice);
	}
	if (asprintf(&log_path, "%s.log", o->db_path) < 0) {
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
		screen_live(s.scr, true, !o->mic);
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
	printf("formdesk: calls recorded in %s\n", o->db_path);
	rc = sig ? 128 + sig : 0; /* the shell's convention for a death by signal */
	goto out;
nomem:
	fprintf(stderr, "formdesk: %s\n", err_str(ERR_NOMEM));
out:
	screen_close(s.scr);
	livecall_free(s.lc);
	lineedit_free(s.ed);
	playback_free(s.pb);
	voice_free(s.voice);
	callview_free(s.view);
	/* the live calls' runs made here end with the session (the first is the caller's) */
	for (int k = 0; k < 2; k++)
		if (s.live_run[k] != o->cfg->run_id && runs_end(o->cfg->store, s.live_run[k]) != ERR_OK)
			fprintf(stderr, "formdesk: %s\n", store_error(o->cfg->store));
	free(errmsg);
	free(log_path);
	return rc;
}
