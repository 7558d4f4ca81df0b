/* commands: every formdesk subcommand, listed once (X-macro) for dispatch and for the
 * usage text. Each entry: X(word on the command line, C function, what it does); the
 * function's option table, FUNCTION_opts, gives the rest of the usage. Every command's
 * option table is in cli/commands.c, one file for all of them (curl's single option table,
 * src/tool_getparam.c, is the model), so that the options of the whole tool, their names,
 * value names and help, are read and kept alike in one place; the structs the tables
 * fill are below.
 * Each function takes the arguments after the subcommand word (argv[0] is the word) and
 * returns the process exit status: 0 success, 1 a negative answer (an invalid config, a
 * failed check), 2 bad usage or an error. */
#ifndef FORMDESK_COMMANDS_H
#define FORMDESK_COMMANDS_H

#include <stdbool.h>

#include "audio/endpoint.h"
#include "opts.h"
#include "sessions/calls/livecall.h"
#include "sessions/eval/select.h"

#define COMMANDS(X) \
	X("check-form", cmd_check_form, "print FormBharo's validation issues for a form config") \
	X("run", cmd_run, "run a corpus, JSON lines") \
	X("extract", cmd_extract, "EXTRACT and the rules on one utterance") \
	X("name-match", cmd_name_match, "same, different or unsure") \
	X("vad", cmd_vad, "the utterances the endpointer finds, JSON lines with start_ms, end_ms") \
	X("endpoint-eval", cmd_endpoint_eval, "false cut-offs against latency per kind of answer") \
	X("providers", cmd_providers, "the model and speech providers, which are configured, which keys are missing") \
	X("tts", cmd_tts, "tts warm: synthesize a form's fixed scripts once into the TTS cache") \
	X("paths", cmd_paths, "every path through a form, JSON lines") \
	X("select", cmd_select, "pick a model") \
	X("corpus", cmd_corpus, "a benchmark corpus from caller profiles") \
	X("bench", cmd_bench, "unit tests, integration and report") \
	X("corpus-respin", cmd_corpus_respin, "lay out the real-speech corpus from the RESPIN clips") \
	X("annotate", cmd_annotate, "the labelling screen") \
	X("calibrate", cmd_calibrate, "judges against people") \
	X("adjudicate", cmd_adjudicate, "a reviewer decides the final label where annotators disagree") \
	X("export", cmd_export, "labels and their items") \
	X("audio-variants", cmd_audio_variants, "ideal, noise, distance and pace variants of a recording") \
	X("devices", cmd_devices, "the audio devices for live calls, or why there are none (also --list-devices)") \
	X("runs", cmd_runs, "the runs recorded in a database: source, form, backends, calls, accuracy") \
	X("review", cmd_review, "browse recorded calls; step a call turn by turn with every stage") \
	X("replay", cmd_replay, "recorded calls again through a change, into a new run") \
	X("diff", cmd_diff, "two runs call by call and field by field; --gate exits 1 on a regression") \
	X("import", cmd_import, "calls made elsewhere (FormBharo, JSONL) played through a form into a run") \
	X("callers", cmd_callers, "pilot a form with simulated callers: behaviours or a persona on a model") \
	X("simulate", cmd_simulate, "the simulator (the default)")

/* Each command's own options, where opts_parse (cli/opts.h) stores the values given on the
 * command line: the command sets the defaults first, its table in cli/commands.c says which
 * option goes to which field. The common options (--form, --db, --stt, ...) go to a
 * struct compose_opts (cli/compose.h) instead; corpus build fills a struct
 * corpusgen_options (sessions/corpus/corpusgen.h) directly. */

/* formdesk check-form (cli/check_form.c) */
struct check_form_opts {
	bool strict;
};

/* formdesk run (cli/run.c) */
struct run_opts {
	bool headless, telephone;
};

/* formdesk extract (cli/extract.c) */
struct extract_opts {
	const char *field, *history;
};

/* formdesk vad (cli/vad.c): the endpointing options, as simulate takes them. */
struct vad_opts {
	struct endpoint_options ep;
	const char *vad;
};

/* formdesk endpoint-eval (cli/endpoint_eval.c) */
struct endpoint_eval_opts {
	const char *corpus, *form, *conditions, *gaps, *sweep, *svg;
	bool telephone;
};

/* formdesk providers (cli/providers.c) */
struct providers_opts {
	const char *config;
	bool probe;
};

/* formdesk tts warm (cli/tts.c) */
struct tts_opts {
	const char *tts;
};

/* formdesk paths (cli/paths.c) */
struct paths_opts {
	const char *unknown;
};

/* formdesk select (cli/select.c) */
struct select_opts {
	const char *results, *svg_dir, *min_accuracy, *weights, *sweep_s, *stage;
	/* Filled by the command from the options: lim from --max-p95-ms (stored there by the
	 * table) and --min-accuracy, w from --weights, sweep, from, to, step from --sweep. */
	struct select_limits lim;
	struct select_weights w;
	bool sweep, json;
	double from, to, step;
};

/* formdesk bench (cli/bench.c) */
struct bench_opts {
	const char *out, *judge;
	int concurrency, baseline;
};

/* formdesk corpus-respin (cli/corpus_respin.c) */
struct corpus_respin_opts {
	const char *clips, *out, *form;
};

/* formdesk annotate (cli/annotate.c) */
struct annotate_opts {
	const char *db, *task, *annotator, *corpus, *tts, *order, *field, *call;
	int run;
	bool include_exact;
};

/* formdesk calibrate (cli/calibrate.c) */
struct calibrate_opts {
	const char *db, *task, *judge, *format, *llm, *corpus, *annotator;
	unsigned seed;
};

/* formdesk adjudicate (cli/adjudicate.c) */
struct adjudicate_opts {
	const char *db, *task, *reviewer, *decide, *note, *annotator;
	bool list, all;
};

/* formdesk export (cli/export.c) */
struct export_opts {
	const char *db, *format, *task, *out, *annotator;
	bool all;
};

/* formdesk audio-variants (cli/audio_variants.c) */
struct audio_variants_opts {
	const char *in, *out, *noise;
	double snr, fast, slow;
	int rate;
	bool telephone;
	char name[256]; /* IN's file name without its extension: the outputs' stem */
};

/* formdesk runs (cli/runs.c) */
struct runs_opts {
	const char *db;
	bool json;
};

/* formdesk review (cli/review.c) */
struct review_opts {
	const char *db, *run, *status, *field, *said, *corpus, *fault, *output_device, *annotator,
		*against;
};

/* formdesk replay (cli/replay.c) */
struct replay_opts {
	const char *db, *run, *call, *form, *out_db, *from;
};

/* formdesk diff (cli/diff.c) */
struct diff_opts {
	const char *db, *db_b, *format;
	bool gate;
};

/* formdesk import (cli/import.c) */
struct import_opts {
	const char *db, *formbharo, *jsonl;
};

/* formdesk callers (cli/callers.c) */
struct callers_opts {
	const char *profiles, *behaviours, *expect_form, *caller_model, *persona, *condition, *voice;
	int calls, repeat, turn_limit;
	unsigned seed;
	double temperature;
	bool audio, json;
};

/* formdesk simulate (cli/simulate.c) */
struct simulate_opts {
	struct livecall_options lc; /* the live calls' options (mic is set per call) */
	double speed;
	bool typed, mic, headless, telephone;
};

/* Each command's function, and its option table (cli/opts.h), which gives its usage. */
#define X(word, fn, summary) \
	int fn(int argc, char **argv); \
	extern const struct opts_cmd fn##_opts;
COMMANDS(X)
#undef X

#endif
