/* simulate: the simulator's command, `formdesk [simulate] [OPTIONS]`: reads the options,
 * loads and checks everything through the composition root (cli/compose.h) so that errors
 * (naming the file or the option) come out before the screen takes the terminal, then
 * hands the screen (tui/simulate.h) what it plays: a corpus's recorded calls, or live
 * calls (--typed, --mic), on screen or, with --headless, as JSON lines.
 * Exit status: 0 done; 2 bad usage, a file that cannot be loaded, no terminal, no audio
 * device; 128 + N after signal N. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/stages/tts.h"
#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "tui/simulate.h"
#include "tui/term.h"

/* needs_terminal: the message when the screen cannot open here (2), or 0. */
static int needs_terminal(const char *who, const struct simulate_opts *o, const struct compose *c,
			  const struct compose_opts *co)
{
	bool live = o->typed || o->mic;
	if (o->headless || (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)))
		return 0;
	if (live)
		fprintf(stderr, "%s: a live call on screen needs a terminal (standard %s is not one).\n"
				"For a live call without a screen use: formdesk %s --headless\n",
			who, isatty(STDOUT_FILENO) ? "input" : "output", o->mic ? "--mic" : "--typed");
	else
		fprintf(stderr, "%s: the simulator needs a terminal (standard %s is not one).\n"
				"For a run without a screen use: formdesk run --headless --form %s --corpus %s --db %s\n",
			who, isatty(STDOUT_FILENO) ? "input" : "output", c->form_path, co->corpus, co->db);
	return 2;
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_opts o = {.speed = 1.0, .lc = {.live = live_defaults()}};
	struct compose_opts co = {.corpus = "demo", .db = "formdesk.db", .stt = "reference",
				  .extract = "rules", .reply = "script"};
	struct opts_cmd cmd = cmd_simulate_opts;
	struct compose *c = NULL;
	struct engine_config cfg = {0};
	int rc = 2;

	term_locale();
	/* `formdesk --form F` is the simulator too: its messages say "formdesk". */
	if (!(argc > 0 && strcmp(argv[0], "simulate") == 0))
		cmd.name = "";
	const char *who = *cmd.name ? "formdesk simulate" : "formdesk";
	enum opts_result pr = opts_parse(&cmd, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	bool live = o.typed || o.mic;
	if (o.typed && o.mic) {
		fprintf(stderr, "%s: --typed and --mic are two kinds of live call: choose one\n", who);
		return 2;
	}
	if (o.headless && !live) {
		fprintf(stderr, "%s: --headless is for live calls (--typed or --mic); a corpus "
				"runs headless with: formdesk run --headless\n", who);
		return 2;
	}

	unsigned parts = COMPOSE_FORM | COMPOSE_CONFIG | COMPOSE_TODAY | COMPOSE_CLOCK_TODAY |
			 COMPOSE_BACKENDS | COMPOSE_LEXICON | (live ? 0 : COMPOSE_CORPUS);
	if (compose_new(cmd.name, &co, parts, &c) != ERR_OK)
		goto out;
	struct backend voice;
	const char *why = NULL;
	if (o.lc.tts && backend_tts(o.lc.tts, &voice, &why) != ERR_OK) {
		fprintf(stderr, "%s: --tts %s: %s\n", who, o.lc.tts, why);
		goto out;
	}
	if (c->corpus && c->corpus->n_calls == 0) {
		fprintf(stderr, "%s: corpus %s has no calls\n", who, c->corpus_dir);
		goto out;
	}
	if (needs_terminal(who, &o, c, &co) || compose_store(c, co.db) != ERR_OK)
		goto out;

	compose_engine(c, &cfg);
	cfg.endpoint = o.lc.live.endpoint;
	cfg.telephone = o.telephone;
	/* the corpus's name goes with each call, so runs of it can be diffed call by call */
	if (compose_run(c, &co, !live ? "simulate" : o.mic ? "mic" : "typed", &cfg) != ERR_OK)
		goto out;
	o.lc.db_path = co.db;
	struct simulate_setup setup = {
		.cfg = &cfg, .corpus = c->corpus,
		.corpus_label = c->corpus ? (c->corpus->name ? c->corpus->name : co.corpus) : "live",
		.db_path = co.db, .speed = o.speed, .typed = o.typed, .mic = o.mic,
		.headless = o.headless, .live = o.lc,
	};
	rc = simulate_run(&setup);
out:
	compose_run_end(c, cfg.run_id);
	compose_free(c);
	tts_cleanup();
	return rc;
}
