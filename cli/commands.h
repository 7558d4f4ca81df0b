/* commands: every formdesk subcommand, listed once (X-macro) for dispatch and for the
 * usage text. Each entry: X(word on the command line, C function, one-line help).
 * Each function takes the arguments after the subcommand word (argv[0] is the word) and
 * returns the process exit status: 0 success, 1 a negative answer (an invalid config, a
 * failed check), 2 bad usage or an error. */
#ifndef FORMDESK_COMMANDS_H
#define FORMDESK_COMMANDS_H

#define COMMANDS(X) \
	X("check-form", cmd_check_form, "check-form FILE: print FormBharo's validation issues for a form config") \
	X("run", cmd_run, "run --headless --form FILE --corpus DIR|demo|respin [--db FILE] [--stt P[:M]] [--extract P[:M]] [--reply P[:M]]: run a corpus, JSON lines") \
	X("extract", cmd_extract, "extract --form FILE --field NAME [--today YYYY-MM-DD] [--history FILE] [--extract P[:M]] TEXT: EXTRACT and the rules on one utterance") \
	X("name-match", cmd_name_match, "name-match A B: same, different or unsure") \
	X("vad", cmd_vad, "vad FILE: the utterances the endpointer finds, JSON lines with start_ms, end_ms") \
	X("endpoint-eval", cmd_endpoint_eval, "endpoint-eval --corpus DIR|demo|respin [--telephone] [--sweep stop=MS,...,wait=MS,...] [--svg FILE]: false cut-offs against latency per kind of answer") \
	X("providers", cmd_providers, "providers [--config FILE]: the model and speech providers, which are configured, which keys are missing") \
	X("paths", cmd_paths, "paths --form FILE [--unknown FIELD,...]: every path through a form, JSON lines") \
	X("select", cmd_select, "select --results DIR|FILE.csv [--max-p95-ms N] [--min-accuracy PCT] [--weights A,L,C] [--sweep FROM:TO:STEP] [--json] [--svg DIR]: pick a model") \
	X("corpus", cmd_corpus, "corpus build --form FILE --profiles FILE --out DIR [--unknown F,...] [--conditions C,...] [--synthesize]: a benchmark corpus from caller profiles") \
	X("bench", cmd_bench, "bench --form FILE --corpus DIR --out DIR [--stt P[:M]] [--extract P[:M]] [--reply P[:M]] [--db FILE] [--concurrency N]: unit tests, integration and report") \
	X("corpus-respin", cmd_corpus_respin, "corpus-respin --clips DIR --out DIR [--form FILE]: lay out the real-speech corpus from the RESPIN clips") \
	X("annotate", cmd_annotate, "annotate --db FILE --task name-match|turn-errors|stt --annotator NAME [--corpus DIR]: the labelling screen") \
	X("calibrate", cmd_calibrate, "calibrate --db FILE [--task T] [--judge NAME] [--format table|markdown|csv] [--seed N] [--llm P[:M]]: judges against people") \
	X("export", cmd_export, "export --db FILE --format jsonl|csv [--task T] [--all] [--out FILE]: labels and their items") \
	X("audio-variants", cmd_audio_variants, "audio-variants IN --out DIR [--snr DB] [--noise FILE|KIND] [--telephone]: ideal, noise, distance and pace variants of a recording") \
	X("devices", cmd_devices, "devices (or --list-devices): the audio devices for live calls, or why there are none") \
	X("simulate", cmd_simulate, "simulate [--form FILE] [--corpus DIR|demo|respin] [--db FILE]: the simulator (default)")

#define X(word, fn, help) int fn(int argc, char **argv);
COMMANDS(X)
#undef X

#endif
