/* commands: every formdesk subcommand, listed once (X-macro) for dispatch and for the
 * usage text. Each entry: X(word on the command line, C function, what it does); the
 * function's option table, FUNCTION_opts, gives the rest of the usage.
 * Each function takes the arguments after the subcommand word (argv[0] is the word) and
 * returns the process exit status: 0 success, 1 a negative answer (an invalid config, a
 * failed check), 2 bad usage or an error. */
#ifndef FORMDESK_COMMANDS_H
#define FORMDESK_COMMANDS_H

#include "opts.h"

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

/* Each command's function, and its option table (cli/opts.h), which gives its usage. */
#define X(word, fn, summary) \
	int fn(int argc, char **argv); \
	extern const struct opts_cmd fn##_opts;
COMMANDS(X)
#undef X

#endif
