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
#include "sessions/calls/runs.h"
#include "sessions/store/store.h"
#include "opts.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "tui/keys.h"
#include "tui/playback.h"
#include "tui/simulate.h"
#include "tui/term.h"

struct sim_opts {
	struct livecall_options lc; /* the live calls' options (mic is set per call) */
	double speed;
	bool typed, mic, headless, telephone;
};

#define MS_WHAT "a whole number of ms from 0 to 60000"
#define SIM_ROW(name, kind, field, arg, help, fl, lo, hi, what) \
	{name, kind, offsetof(struct sim_opts, field), arg, help, fl, lo, hi, what}

static const struct opts_spec sim_spec[] = {
	COMPOSE_OPTS_ALL,
	SIM_ROW("speed", OPTS_DOUBLE, speed, "X", "how fast the calls play (2 is twice as fast)",
		OPTS_ABOVE_MIN, 0, 1000, "a number above 0 (2 is twice as fast)"),
	SIM_ROW("telephone", OPTS_FLAG, telephone, NULL,
		"the caller's audio through the 8 kHz mu-law telephone channel", 0, 0, 0, NULL),
	SIM_ROW("typed", OPTS_FLAG, typed, NULL, "a live call: you type what the caller says",
		0, 0, 0, NULL),
	SIM_ROW("mic", OPTS_FLAG, mic, NULL, "a live call: the caller speaks into the microphone",
		0, 0, 0, NULL),
	SIM_ROW("headless", OPTS_FLAG, headless, NULL,
		"a live call without the screen, one JSON line per call", 0, 0, 0, NULL),
	SIM_ROW("input-device", OPTS_STRING, lc.input_device, "NAME|INDEX",
		"the microphone (formdesk devices lists them)", 0, 0, 0, NULL),
	SIM_ROW("output-device", OPTS_STRING, lc.output_device, "NAME|INDEX",
		"where the agent's words play", 0, 0, 0, NULL),
	SIM_ROW("output-file", OPTS_STRING, lc.output_file, "WAV",
		"the agent's words into this file instead", 0, 0, 0, NULL),
	SIM_ROW("tts", OPTS_STRING, lc.tts, "espeak|none|P[:M]",
		"speak the agent's words: espeak (default), a hosted voice (sarvam, elevenlabs, "
		"google, openai, azure; kept in DB.tts/), or none: show them only", 0, 0, 0, NULL),
	SIM_ROW("references", OPTS_STRING, lc.references, "FILE",
		"reference transcripts of the spoken turns, one a line", 0, 0, 0, NULL),
	SIM_ROW("start-ms", OPTS_INT, lc.live.endpoint.start_ms, "N",
		"speech this long starts an utterance (100)", 0, 0, 60000, MS_WHAT),
	SIM_ROW("stop-ms", OPTS_INT, lc.live.endpoint.stop_ms, "N",
		"silence this long stops it (200)", 0, 0, 60000, MS_WHAT),
	SIM_ROW("turn-wait-ms", OPTS_INT, lc.live.endpoint.turn_wait_ms, "N",
		"more silence this long ends the turn (400)", 0, 0, 60000, MS_WHAT),
	SIM_ROW("min-loudness-db", OPTS_DOUBLE, lc.live.endpoint.min_loudness_db, "X",
		"quieter frames are silence (-50)", 0, -200, 0, "a level in dBFS from -200 to 0"),
	SIM_ROW("number-wait-ms", OPTS_INT, lc.live.number_turn_wait_ms, "N",
		"the turn wait while a number is asked (1200)", 0, 0, 60000, MS_WHAT),
	SIM_ROW("silence-ms", OPTS_INT, lc.live.silence_ms, "N",
		"caller silence before the agent re-prompts (3000)", 0, 0, 60000, MS_WHAT),
};

/* The keys, from tui/keys.h's lists. */
static void usage_keys(FILE *f)
{
	fprintf(f, "At --speed 1 a caller turn takes about %.1f s.\nKeys:\n", PLAYBACK_TURN_MS / 1000);
#define X(action, key, label, help, hint) fprintf(f, "  %-6s %s\n", label, help);
	KEYS(X)
	fprintf(f, "Keys in a live call:\n");
	LIVE_KEYS(X)
#undef X
}

const struct opts_cmd cmd_simulate_opts = {
	.name = "simulate", .spec = sim_spec, .n = OPTS_N(sim_spec),
	.about =
	"Plays the corpus's calls through the agent on screen and records them in the\n"
	"database. Defaults: --form " COMPOSE_DEFAULT_FORM " (beside the program or here),\n"
	"--corpus demo, --db ./formdesk.db, --today the real date, --stt reference, --extract\n"
	"rules, --reply script, --speed 1.\n"
	"A model provider's key comes from its environment variable (formdesk providers\n"
	"lists them).\n"
	"Live calls: --typed or --mic (formdesk devices lists the devices). The agent's words\n"
	"are spoken on the output device, or into --output-file. Endpointing defaults are the\n"
	"FormBharo pilot's. Microphone calls are recorded beside the database\n"
	"(DB.audio/call-N/). --headless: typed calls read the caller's lines from stdin.\n",
	.more = usage_keys,
};

/* needs_terminal: the message when the screen cannot open here (2), or 0. */
static int needs_terminal(const char *who, const struct sim_opts *o, const struct compose *c,
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
	struct sim_opts o = {.speed = 1.0, .lc = {.live = live_defaults()}};
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
	if (c && runs_end(c->store, cfg.run_id) != ERR_OK)
		fprintf(stderr, "%s: %s\n", who, store_error(c->store));
	compose_free(c);
	tts_cleanup();
	return rc;
}
