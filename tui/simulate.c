/* simulate: the simulator, `formdesk [simulate] [OPTIONS]`: plays a corpus's recorded
 * calls through the agent on screen, turn by turn, and records them in the store.
 * Loads and checks everything first, so that errors (with file names) are printed
 * before the screen takes the terminal; then one loop waits in one place
 * (screen_wait), advances the playback on its timer and dispatches keys. */
#include <langinfo.h>
#include <poll.h>
#include <limits.h>
#include <locale.h>
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
#include "agent/ymd.h"
#include "audio/endpoint.h"
#include "cli/commands.h"
#include "sessions/corpus.h"
#include "sessions/engine.h"
#include "sessions/store.h"
#include "tui/callview.h"
#include "tui/keys.h"
#include "tui/playback.h"
#include "tui/screen.h"

#define DEFAULT_FORM "forms/armman_enrollment.json"

struct options {
	const char *form, *corpus, *db, *today, *stt, *extract, *reply, *config;
	double speed;
};

struct sim {
	struct screen *scr;
	struct playback *pb;
	struct callview *view;
	bool quit;
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
		"Keys:\n", prog, DEFAULT_FORM, PLAYBACK_TURN_MS / 1000);
#define X(action, key, label, help) fprintf(f, "  %-6s %s\n", label, help);
	KEYS(X)
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
	};
	const char *speed = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return 1;
		const char *eq = strchr(a, '=');
		size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
		const char **slot = NULL;
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strlen(opts[k].name) == nlen && strncmp(a, opts[k].name, nlen) == 0)
				slot = (const char **)((char *)o + opts[k].off);
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

static void act_pause(struct sim *s)
{
	playback_pause(s->pb, !playback_paused(s->pb), now_ms());
}

static void act_next(struct sim *s)
{
	playback_next(s->pb, now_ms());
}

static void act_help(struct sim *s)
{
	screen_help(s->scr, true);
}

static void act_quit(struct sim *s)
{
	s->quit = true;
}

static const struct {
	int key;
	void (*fn)(struct sim *s);
} keymap[] = {
#define X(action, key, label, help) {key, act_##action},
	KEYS(X)
#undef X
};

static void dispatch(struct sim *s, int key)
{
	if (screen_help_shown(s->scr)) {
		screen_help(s->scr, false); /* any key closes the help */
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
	if (playback_poll(s->pb, timeout_ms < 0 ? 3600000 : timeout_ms, w, (unsigned)n) == ERR_BACKEND)
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

/* The loop: the playback's timer, the engine's requests, the screen, keys and signals,
 * until q. */
static void run_loop(struct sim *s)
{
	while (!s->quit) {
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

int cmd_simulate(int argc, char **argv)
{
	set_locale();
	struct options o = {.corpus = "demo", .db = "formdesk.db", .stt = "reference",
			    .extract = "rules", .reply = "script", .speed = 1.0};
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

	struct engine_config cfg = {.form = form, .form_path = form_path,
				    .endpoint = endpoint_defaults()};
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

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
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

	s.view = callview_new(form, corpus->name ? corpus->name : o.corpus, corpus->n_calls);
	if (!s.view)
		goto nomem;
	if ((e = playback_new(&cfg, corpus, s.view, o.speed, &s.pb))) {
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
	return rc;
}
