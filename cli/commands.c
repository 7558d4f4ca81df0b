/* commands: every command's option table, in the order of the COMMANDS list (see
 * commands.h): a row per option (cli/opts.h, struct opts_spec) and the usage text around
 * them. The rows' values go to the command's struct in commands.h, or, for the common
 * options (COMPOSE_OPT_*), to its struct compose_opts (cli/compose.h). */
#include <float.h>
#include <stddef.h>
#include <stdio.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "sessions/calls/runs.h"
#include "sessions/corpus/corpusgen.h"
#include "tui/keys.h"
#include "tui/playback.h"

/* What the endpointing options in ms must be (vad, simulate). */
#define MS_WHAT "a whole number of ms from 0 to 60000"

/* formdesk check-form (cli/check_form.c) */
static const struct opts_spec check_form_spec[] = {
	{"strict", OPTS_FLAG, offsetof(struct check_form_opts, strict), NULL,
	 "warnings make the exit status 1", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_check_form_opts = {
	.name = "check-form", .spec = check_form_spec, .n = OPTS_N(check_form_spec),
	.args = "FILE", .min_args = 1, .max_args = 1,
	.about = "FormBharo's refusals as {\"validation_issues\":[...]} on stdout (exit 1);\n"
		 "warnings about what would misbehave on stderr (exit 0, or 1 with --strict).\n",
};

/* formdesk run (cli/run.c) */
static const struct opts_spec run_spec[] = {
	{"headless", OPTS_FLAG, offsetof(struct run_opts, headless), NULL,
	 "without a screen (the only way run runs; accepted for clarity)", 0, 0, 0, NULL},
	COMPOSE_OPTS_ALL,
	{"telephone", OPTS_FLAG, offsetof(struct run_opts, telephone), NULL,
	 "the caller's audio through the 8 kHz mu-law telephone channel before VAD and STT",
	 0, 0, 0, NULL},
};

const struct opts_cmd cmd_run_opts = {
	.name = "run", .spec = run_spec, .n = OPTS_N(run_spec),
	.about = "Defaults: --form " COMPOSE_DEFAULT_FORM " --corpus demo --db ./formdesk.db,\n"
		 "backends reference, rules, script; --today the date the corpus was made for, else\n"
		 "the real date. A model provider's key comes from its environment variable\n"
		 "(formdesk providers lists them).\n",
};

/* formdesk extract (cli/extract.c) */
static const struct opts_spec extract_spec[] = {
	COMPOSE_OPT_FORM(OPTS_REQUIRED),
	{"field", OPTS_STRING, offsetof(struct extract_opts, field), "NAME",
	 "the question just asked", OPTS_REQUIRED, 0, 0, NULL},
	COMPOSE_OPT_TODAY(0),
	{"history", OPTS_STRING, offsetof(struct extract_opts, history), "FILE",
	 "the conversation so far (below)", 0, 0, 0, NULL},
	COMPOSE_OPT_EXTRACT(0),
	COMPOSE_OPT_CONFIG(0),
	COMPOSE_DEADLINE_ROW("turn-deadline-ms", turn_deadline_ms,
			     "the request ends after this, as failed (default 90000)"),
};

const struct opts_cmd cmd_extract_opts = {
	.name = "extract", .spec = extract_spec, .n = OPTS_N(extract_spec),
	.args = "TEXT", .min_args = 1, .max_args = 1,
	.about = "TEXT is the caller's utterance (one argument: quote it).\n"
		 "--extract defaults to rules (offline); a model provider needs its key in the\n"
		 "environment. --history: the conversation so far, a JSON array of\n"
		 "{\"role\":\"agent\"|\"user\",\"content\":\"...\"}\n",
};

/* formdesk name-match (cli/name_match.c) */
const struct opts_cmd cmd_name_match_opts = {
	.name = "name-match", .args = "A B", .min_args = 2, .max_args = 2,
	.about = "Prints same, different or unsure.\n",
};

/* formdesk vad (cli/vad.c) */
static const struct opts_spec vad_spec[] = {
	{"start-ms", OPTS_INT, offsetof(struct vad_opts, ep.start_ms), "N",
	 "speech this long starts an utterance", 0, 0, 60000, MS_WHAT},
	{"stop-ms", OPTS_INT, offsetof(struct vad_opts, ep.stop_ms), "N",
	 "silence this long stops one", 0, 0, 60000, MS_WHAT},
	{"turn-wait-ms", OPTS_INT, offsetof(struct vad_opts, ep.turn_wait_ms), "N",
	 "silence this long ends the turn", 0, 0, 60000, MS_WHAT},
	{"min-loudness-db", OPTS_DOUBLE, offsetof(struct vad_opts, ep.min_loudness_db), "X",
	 "quieter frames are silence", 0, -200, 0, "a level in dBFS from -200 to 0"},
	{"vad", OPTS_STRING, offsetof(struct vad_opts, vad), "webrtc|speex", "the voice detector",
	 0, 0, 0, NULL},
};

const struct opts_cmd cmd_vad_opts = {
	.name = "vad", .spec = vad_spec, .n = OPTS_N(vad_spec),
	.args = "FILE", .min_args = 1, .max_args = 1,
};

/* formdesk endpoint-eval (cli/endpoint_eval.c) */
static const struct opts_spec endpoint_eval_spec[] = {
	{"corpus", OPTS_STRING, offsetof(struct endpoint_eval_opts, corpus), "DIR",
	 "the corpus whose answers are joined and cut (a folder, demo or respin)", OPTS_REQUIRED, 0,
	 0, NULL},
	{"form", OPTS_STRING, offsetof(struct endpoint_eval_opts, form), "FILE",
	 "the form (default: the corpus's own)", 0, 0, 0, NULL},
	{"telephone", OPTS_FLAG, offsetof(struct endpoint_eval_opts, telephone), NULL,
	 "the answers through the 8 kHz mu-law telephone channel", 0, 0, 0, NULL},
	{"conditions", OPTS_LIST, offsetof(struct endpoint_eval_opts, conditions), "C,...",
	 "the acoustic conditions to take answers from", 0, 0, 0, NULL},
	{"gaps", OPTS_LIST, offsetof(struct endpoint_eval_opts, gaps), "MS,...",
	 "the gaps put inside answers (default 300,500,700,900)", 0, 0, 0, NULL},
	{"sweep", OPTS_LIST, offsetof(struct endpoint_eval_opts, sweep), "stop=MS,...,wait=MS,...",
	 "every stop with every wait (default stop=200, wait=200,400,600,800,1200,1600)", 0, 0, 0,
	 NULL},
	{"svg", OPTS_STRING, offsetof(struct endpoint_eval_opts, svg), "FILE", "a chart of the table",
	 0, 0, 0, NULL},
};

const struct opts_cmd cmd_endpoint_eval_opts = {
	.name = "endpoint-eval", .spec = endpoint_eval_spec, .n = OPTS_N(endpoint_eval_spec),
};

/* formdesk providers (cli/providers.c) */
static const struct opts_spec providers_spec[] = {
	{"config", OPTS_STRING, offsetof(struct providers_opts, config), "FILE",
	 "the config file (else $FORMDESK_CONFIG, else ./formdesk.json)", 0, 0, 0, NULL},
	{"probe", OPTS_FLAG, offsetof(struct providers_opts, probe), NULL,
	 "reach each server that needs no key (GET BASE/models)", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_providers_opts = {
	.name = "providers", .spec = providers_spec, .n = OPTS_N(providers_spec),
};

/* formdesk tts warm (cli/tts.c) */
static const struct opts_spec tts_spec[] = {
	COMPOSE_OPT_FORM(OPTS_REQUIRED),
	{"tts", OPTS_STRING, offsetof(struct tts_opts, tts), "P[:M]",
	 "the hosted voice: sarvam, elevenlabs, google, openai, azure (default sarvam)", 0, 0, 0,
	 NULL},
	COMPOSE_OPT_DB(0),
	COMPOSE_OPT_CONFIG(0),
};

const struct opts_cmd cmd_tts_opts = {
	.name = "tts warm", .spec = tts_spec, .n = OPTS_N(tts_spec),
	.about = "The cache is DB.tts/ beside the database (--db, default ./formdesk.db); the voice's "
		 "settings come from the config file's \"tts\" entry and its key from the environment.",
};

/* formdesk paths (cli/paths.c) */
static const struct opts_spec paths_spec[] = {
	COMPOSE_OPT_FORM(OPTS_REQUIRED),
	{"unknown", OPTS_LIST, offsetof(struct paths_opts, unknown), "FIELD,...",
	 "fields the caller may not know (each adds a path)", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_paths_opts = {
	.name = "paths", .spec = paths_spec, .n = OPTS_N(paths_spec),
};

/* formdesk select (cli/select.c) */
static const struct opts_spec select_spec[] = {
	{"results", OPTS_STRING, offsetof(struct select_opts, results), "DIR|FILE.csv",
	 "the benchmark results: a CSV, or a folder's results.csv", OPTS_REQUIRED, 0, 0, NULL},
	{"stage", OPTS_STRING, offsetof(struct select_opts, stage), "STAGE",
	 "in a bench folder, read results-STAGE.csv (stt, extract, reply, call)", 0, 0, 0, NULL},
	{"max-p95-ms", OPTS_DOUBLE, offsetof(struct select_opts, lim.max_p95_ms), "N",
	 "p95 latency must be below N ms", OPTS_ABOVE_MIN, 0, DBL_MAX,
	 "a positive number of milliseconds"},
	{"min-accuracy", OPTS_STRING, offsetof(struct select_opts, min_accuracy), "PCT",
	 "accuracy must be above PCT percent", 0, 0, 0, NULL},
	{"weights", OPTS_LIST, offsetof(struct select_opts, weights), "A,L,C",
	 "weights of accuracy, latency, cost (default 0.7,0.1,0.2)", 0, 0, 0, NULL},
	{"sweep", OPTS_STRING, offsetof(struct select_opts, sweep_s), "FROM:TO:STEP",
	 "vary w_a, w_l fixed, w_c = 1 - w_a - w_l", 0, 0, 0, NULL},
	{"json", OPTS_FLAG, offsetof(struct select_opts, json), NULL, "JSON instead of a table", 0, 0, 0, NULL},
	{"svg", OPTS_STRING, offsetof(struct select_opts, svg_dir), "DIR",
	 "write tradeoff.svg (and sweep.svg) into DIR", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_select_opts = {
	.name = "select", .spec = select_spec, .n = OPTS_N(select_spec),
	.about =
	"The CSV has columns model,accuracy,p95_ms,cost_usd (accuracy in percent or as a\n"
	"fraction); a folder is read through its results.csv. A file with a stage column must\n"
	"hold one stage: in a bench folder give --stage extract (or stt, reply, call), which\n"
	"reads OUT/results-extract.csv, since its results.csv holds every stage. Limits are\n"
	"strict: p95 below N ms, accuracy above PCT% (the paper: EXTRACT --max-p95-ms 5000\n"
	"--min-accuracy 90, REPLY --max-p95-ms 4000 --min-accuracy 95).\n",
};

/* formdesk corpus build (cli/corpus_build.c) */
static const struct opts_spec build_spec[] = {
	COMPOSE_OPT_FORM(OPTS_REQUIRED),
	{"profiles", OPTS_STRING, offsetof(struct corpusgen_options, profiles_path), "FILE",
	 "the caller profiles (docs/evaluation.md)", OPTS_REQUIRED, 0, 0, NULL},
	{"out", OPTS_STRING, offsetof(struct corpusgen_options, out_dir), "DIR",
	 "where the corpus goes (made when missing)", OPTS_REQUIRED, 0, 0, NULL},
	{"unknown", OPTS_LIST, offsetof(struct corpusgen_options, unknown), "F,...",
	 "fields the callers may not know (else the profiles')", 0, 0, 0, NULL},
	{"conditions", OPTS_LIST, offsetof(struct corpusgen_options, conditions),
	 "ideal,noise,distance,pace", "the acoustic conditions (else the profiles')", 0, 0, 0, NULL},
	{"synthesize", OPTS_FLAG, offsetof(struct corpusgen_options, synthesize), NULL,
	 "speak the answers that have no recording with espeak-ng", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_corpus_opts = {
	.name = "corpus build", .spec = build_spec, .n = OPTS_N(build_spec),
};

/* formdesk bench (cli/bench.c) */
static const struct opts_spec bench_spec[] = {
	COMPOSE_OPT_FORM(OPTS_REQUIRED),
	COMPOSE_OPT_CORPUS(OPTS_REQUIRED),
	{"out", OPTS_STRING, offsetof(struct bench_opts, out), "DIR",
	 "where the report goes (report.md, results*.csv, charts)", OPTS_REQUIRED, 0, 0, NULL},
	COMPOSE_OPT_STT(0),
	COMPOSE_OPT_EXTRACT(0),
	COMPOSE_OPT_REPLY(0),
	{"judge", OPTS_STRING, offsetof(struct bench_opts, judge), "P[:M]",
	 "the language model asked where the offline judges cannot decide", 0, 0, 0, NULL},
	COMPOSE_OPT_DB(0),
	{"concurrency", OPTS_INT, offsetof(struct bench_opts, concurrency), "N",
	 "requests in flight for network backends", 0, 1, 1024, NULL},
	COMPOSE_OPT_TODAY(0),
	{"baseline", OPTS_INT, offsetof(struct bench_opts, baseline), "RUN",
	 "a run of OUT/calls.db to diff this one with; exit 1 when this one is worse", 0, 1,
	 2147483647, "a run id"},
};

const struct opts_cmd cmd_bench_opts = {
	.name = "bench", .spec = bench_spec, .n = OPTS_N(bench_spec),
	.about = "Defaults: --stt reference --extract rules --reply script --db ./formdesk.db\n"
		 "--concurrency 8; --judge the config file's \"judge\", else the offline judges only;\n"
		 "--today the date the corpus was made for, else the real date.\n"
		 "The integration's calls are a run (source bench) in OUT/calls.db; --baseline RUN\n"
		 "diffs it with this one (formdesk diff) and exits 1 when the gate fails.\n",
};

/* formdesk corpus-respin (cli/corpus_respin.c) */
static const struct opts_spec respin_spec[] = {
	{"clips", OPTS_STRING, offsetof(struct corpus_respin_opts, clips), "DIR", "the RESPIN clips",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"out", OPTS_STRING, offsetof(struct corpus_respin_opts, out), "DIR", "where the corpus goes",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"form", OPTS_STRING, offsetof(struct corpus_respin_opts, form), "FILE",
	 "the form the calls answer (default " COMPOSE_DEFAULT_FORM ")", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_corpus_respin_opts = {
	.name = "corpus-respin", .spec = respin_spec, .n = OPTS_N(respin_spec),
};

/* formdesk annotate (cli/annotate.c) */
static const struct opts_spec annotate_spec[] = {
	{"db", OPTS_STRING, offsetof(struct annotate_opts, db), "FILE",
	 "the database of recorded calls; labels are kept in it", OPTS_REQUIRED, 0, 0, NULL},
	{"task", OPTS_STRING, offsetof(struct annotate_opts, task), "name-match|turn-errors|stt",
	 "what to label", OPTS_REQUIRED, 0, 0, NULL},
	{"annotator", OPTS_STRING, offsetof(struct annotate_opts, annotator), "NAME",
	 "who labels (1 to 64 bytes)", OPTS_REQUIRED, 0, 0, NULL},
	{"corpus", OPTS_STRING, offsetof(struct annotate_opts, corpus), "DIR|demo|respin",
	 "the calls' corpus, when its name alone does not find it", 0, 0, 0, NULL},
	{"include-exact", OPTS_FLAG, offsetof(struct annotate_opts, include_exact), NULL,
	 "also show items whose captured value is the expected one (case and spaces aside)", 0, 0, 0,
	 NULL},
	{"order", OPTS_STRING, offsetof(struct annotate_opts, order), "judges|stored",
	 "judges (default): what the judges are least sure of or disagree on first; stored: "
	 "as drawn", 0, 0, 0, NULL},
	{"field", OPTS_STRING, offsetof(struct annotate_opts, field), "NAME",
	 "only items of this form field", 0, 0, 0, NULL},
	{"call", OPTS_STRING, offsetof(struct annotate_opts, call), "ID",
	 "only items of this call (its corpus call id, or its row id in the database)", 0, 0, 0,
	 NULL},
	{"run", OPTS_INT, offsetof(struct annotate_opts, run), "N",
	 "only items of calls of this run (formdesk runs lists them)", 0, 1, 2147483647, NULL},
	{"tts", OPTS_STRING, offsetof(struct annotate_opts, tts), "P[:M]",
	 "the voice v says the agent's words in: espeak (default), sarvam, elevenlabs, google, "
	 "openai, azure", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_annotate_opts = {
	.name = "annotate", .spec = annotate_spec, .n = OPTS_N(annotate_spec),
};

/* formdesk calibrate (cli/calibrate.c) */
static const struct opts_spec calibrate_spec[] = {
	{"db", OPTS_STRING, offsetof(struct calibrate_opts, db), "FILE",
	 "the database with the labels", OPTS_REQUIRED, 0, 0, NULL},
	{"task", OPTS_STRING, offsetof(struct calibrate_opts, task), "name-match|stt|turn-errors",
	 "the task (default: the one task with labels)", 0, 0, 0, NULL},
	{"judge", OPTS_STRING, offsetof(struct calibrate_opts, judge), "NAME", "one judge only",
	 0, 0, 0, NULL},
	{"format", OPTS_STRING, offsetof(struct calibrate_opts, format), "table|markdown|csv",
	 "the report's format (default table)", 0, 0, 0, NULL},
	{"seed", OPTS_UINT, offsetof(struct calibrate_opts, seed), "N",
	 "the dev/test split's seed", 0, 0, 4294967295.0, NULL},
	{"llm", OPTS_STRING, offsetof(struct calibrate_opts, llm), "PROVIDER[:MODEL]",
	 "ask a language model judge first (name-match)", 0, 0, 0, NULL},
	{"corpus", OPTS_STRING, offsetof(struct calibrate_opts, corpus), "DIR",
	 "the calls' corpus, when its name alone does not find it", 0, 0, 0, NULL},
	{"annotator", OPTS_STRING, offsetof(struct calibrate_opts, annotator), "NAME",
	 "that annotator's labels against the truth and the judges", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_calibrate_opts = {
	.name = "calibrate", .spec = calibrate_spec, .n = OPTS_N(calibrate_spec),
};

/* formdesk adjudicate (cli/adjudicate.c) */
static const struct opts_spec adjudicate_spec[] = {
	{"db", OPTS_STRING, offsetof(struct adjudicate_opts, db), "FILE",
	 "the database with the labels", OPTS_REQUIRED, 0, 0, NULL},
	{"task", OPTS_STRING, offsetof(struct adjudicate_opts, task), "name-match|turn-errors|stt",
	 "the task", OPTS_REQUIRED, 0, 0, NULL},
	{"reviewer", OPTS_STRING, offsetof(struct adjudicate_opts, reviewer), "NAME",
	 "who decides (needed for the screen and --decide)", 0, 0, 0, NULL},
	{"list", OPTS_FLAG, offsetof(struct adjudicate_opts, list), NULL,
	 "print the items in disagreement instead of the screen", 0, 0, 0, NULL},
	{"decide", OPTS_STRING, offsetof(struct adjudicate_opts, decide), "ITEM=LABEL",
	 "record the final label of item ITEM (its number in --list)", 0, 0, 0, NULL},
	{"note", OPTS_STRING, offsetof(struct adjudicate_opts, note), "TEXT",
	 "why, kept with the decision (--decide)", 0, 0, 0, NULL},
	{"annotator", OPTS_STRING, offsetof(struct adjudicate_opts, annotator), "NAME",
	 "only items this annotator labelled", 0, 0, 0, NULL},
	{"all", OPTS_FLAG, offsetof(struct adjudicate_opts, all), NULL,
	 "items already decided too", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_adjudicate_opts = {
	.name = "adjudicate", .spec = adjudicate_spec, .n = OPTS_N(adjudicate_spec),
};

/* formdesk export (cli/export.c) */
static const struct opts_spec export_spec[] = {
	{"db", OPTS_STRING, offsetof(struct export_opts, db), "FILE", "the database with the labels",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"format", OPTS_STRING, offsetof(struct export_opts, format), "jsonl|csv",
	 "Label Studio JSONL tasks or CSV rows", OPTS_REQUIRED, 0, 0, NULL},
	{"task", OPTS_STRING, offsetof(struct export_opts, task), "name-match|turn-errors|stt",
	 "one task only", 0, 0, 0, NULL},
	{"annotator", OPTS_STRING, offsetof(struct export_opts, annotator), "NAME",
	 "that annotator's labels only", 0, 0, 0, NULL},
	{"all", OPTS_FLAG, offsetof(struct export_opts, all), NULL,
	 "items nobody labelled too", 0, 0, 0, NULL},
	{"out", OPTS_STRING, offsetof(struct export_opts, out), "FILE", "instead of stdout", 0, 0, 0,
	 NULL},
};

const struct opts_cmd cmd_export_opts = {
	.name = "export", .spec = export_spec, .n = OPTS_N(export_spec),
};

/* formdesk audio-variants (cli/audio_variants.c) */
static const struct opts_spec variants_spec[] = {
	{"out", OPTS_STRING, offsetof(struct audio_variants_opts, out), "DIR", "where the variants go (made when missing)",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"snr", OPTS_DOUBLE, offsetof(struct audio_variants_opts, snr), "DB", "the noise variant's SNR (default 10)",
	 0, -20, 60, NULL},
	{"noise", OPTS_STRING, offsetof(struct audio_variants_opts, noise), "FILE|whitenoise|pinknoise|brownnoise",
	 "a noise recording, or a generated kind (default pinknoise)", 0, 0, 0, NULL},
	{"fast", OPTS_DOUBLE, offsetof(struct audio_variants_opts, fast), "F", "pace-fast's tempo (default 1.25)",
	 0, 1.0, 2.0, NULL},
	{"slow", OPTS_DOUBLE, offsetof(struct audio_variants_opts, slow), "F", "pace-slow's tempo (default 0.8)",
	 0, 0.5, 1.0, NULL},
	{"rate", OPTS_INT, offsetof(struct audio_variants_opts, rate), "HZ", "the output's sample rate (default 16000)",
	 0, 8000, 48000, NULL},
	{"telephone", OPTS_FLAG, offsetof(struct audio_variants_opts, telephone), NULL,
	 "every variant through the 8 kHz mu-law telephone channel too", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_audio_variants_opts = {
	.name = "audio-variants", .spec = variants_spec, .n = OPTS_N(variants_spec),
	.args = "IN", .min_args = 1, .max_args = 1,
};

/* formdesk devices (cli/devices.c) */
const struct opts_cmd cmd_devices_opts = {
	.name = "devices", .about = "(or formdesk --list-devices)\n",
};

/* formdesk runs (cli/runs.c) */
static const struct opts_spec runs_spec[] = {
	{"db", OPTS_STRING, offsetof(struct runs_opts, db), "FILE", "the session database",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"json", OPTS_FLAG, offsetof(struct runs_opts, json), NULL, "one JSON object a line", 0, 0,
	 0, NULL},
};

const struct opts_cmd cmd_runs_opts = {
	.name = "runs", .spec = runs_spec, .n = OPTS_N(runs_spec),
	.about = "The runs recorded in FILE: id, when, source (" RUNS_SOURCES "),\n"
		 "form, backends, calls, completion and form-completion accuracy.\n",
};

/* formdesk review (cli/review.c) */
#define R(name, field, arg, help, fl) \
	{name, OPTS_STRING, offsetof(struct review_opts, field), arg, help, fl, 0, 0, NULL}
static const struct opts_spec review_spec[] = {
	R("db", db, "FILE", "the session database", OPTS_REQUIRED),
	R("run", run, "R", "only the calls of run R", 0),
	R("against", against, "B", "each call beside the call of run B the diff pairs with it", 0),
	R("status", status, "complete|failed|screened_out|in_progress", "only calls that ended so", 0),
	R("field", field, "NAME", "only calls that left NAME unanswered", 0),
	R("said", said, "TEXT", "only calls whose caller said TEXT", 0),
	R("corpus", corpus, "NAME", "only calls of corpus NAME", 0),
	R("fault", fault, "stt|extract|reply|validation|any",
	  "only calls where that stage failed on a turn (a failed request, or a refused answer)", 0),
	R("output-device", output_device, "NAME|INDEX", "where a turn's audio plays (default: the default output)", 0),
	R("annotator", annotator, "NAME", "whose turn-errors labels l makes (default: review)", 0),
};
#undef R

const struct opts_cmd cmd_review_opts = {
	.name = "review", .spec = review_spec, .n = OPTS_N(review_spec),
	.about = "The recorded calls, filtered; Enter opens one, n/p step its turns, each with\n"
		 "every stage's input and output; a plays a turn's audio, l labels it for the\n"
		 "turn-errors task; s cycles the status, f the stage fault, / searches; q goes\n"
		 "back, and quits.\n",
};

/* formdesk replay (cli/replay.c) */
#define R(name, field, arg, help, fl) \
	{name, OPTS_STRING, offsetof(struct replay_opts, field), arg, help, fl, 0, 0, NULL}
static const struct opts_spec replay_spec[] = {
	R("db", db, "FILE", "the database the calls were recorded in", OPTS_REQUIRED),
	R("run", run, "R", "replay every finished call of run R", 0),
	R("call", call, "N[,N...]", "replay these calls (may be given more than once)", 0),
	R("form", form, "FILE", "the form to play them through (default: the run's own)", 0),
	COMPOSE_OPT_STT(0), COMPOSE_OPT_EXTRACT(0), COMPOSE_OPT_REPLY(0), COMPOSE_OPT_CONFIG(0),
	COMPOSE_OPT_TODAY(0), COMPOSE_OPT_DEADLINES,
	R("out-db", out_db, "FILE", "record the new run in this database, not --db", 0),
	R("from", from, "words|audio", "play the recorded words or the recordings", 0),
};
#undef R

const struct opts_cmd cmd_replay_opts = {
	.name = "replay", .spec = replay_spec, .n = OPTS_N(replay_spec),
	.about = "Plays recorded calls again, turn by turn, through the form, backends and\n"
		 "options given, into a new run; prints {\"run\":N,...} as its last line. A\n"
		 "question the recording never answered is heard as silence. One of --run or --call.\n"
		 "Defaults: the run's own form, --stt reference (the recorded words), --extract\n"
		 "rules, --reply script, each call's own today.\n",
};

/* formdesk diff (cli/diff.c) */
static const struct opts_spec diff_spec[] = {
	{"db", OPTS_STRING, offsetof(struct diff_opts, db), "FILE", "the session database",
	 OPTS_REQUIRED, 0, 0, NULL},
	{"db-b", OPTS_STRING, offsetof(struct diff_opts, db_b), "FILE",
	 "read RUN_B from this database (a replay recorded with --out-db)", 0, 0, 0, NULL},
	{"format", OPTS_STRING, offsetof(struct diff_opts, format), "table|markdown|csv|json",
	 "how the diff is printed (default table)", 0, 0, 0, NULL},
	{"gate", OPTS_FLAG, offsetof(struct diff_opts, gate), NULL,
	 "exit 1 when RUN_B is worse than RUN_A", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_diff_opts = {
	.name = "diff", .spec = diff_spec, .n = OPTS_N(diff_spec), .args = "RUN_A RUN_B",
	.min_args = 2, .max_args = 2,
	.about = "Calls are matched by corpus call id (or the call replayed); per field value,\n"
		 "status, retries, last verdict, branch; the first turn and stage that differ;\n"
		 "fixed and broken against the expected forms. --gate: exit 1 when RUN_B is worse\n"
		 "beyond chance (McNemar's exact test on per-call correctness, two-sided, level\n"
		 "0.05) or a required field's accuracy falls.\n",
};

/* formdesk import (cli/import.c) */
#define R(name, field, arg, help, fl) \
	{name, OPTS_STRING, offsetof(struct import_opts, field), arg, help, fl, 0, 0, NULL}
static const struct opts_spec import_spec[] = {
	R("db", db, "FILE", "the database the new run goes into", OPTS_REQUIRED),
	COMPOSE_OPT_FORM(OPTS_REQUIRED),
	R("formbharo", formbharo, "FILE", "FormBharo conversations or a transcript, as its API returns them", 0),
	R("jsonl", jsonl, "FILE", "utterances, one a line: {call, speaker, text[, audio]}", 0),
	COMPOSE_OPT_TODAY(0), COMPOSE_OPT_EXTRACT(0), COMPOSE_OPT_REPLY(0), COMPOSE_OPT_CONFIG(0),
	COMPOSE_OPT_DEADLINES,
};
#undef R

const struct opts_cmd cmd_import_opts = {
	.name = "import", .spec = import_spec, .n = OPTS_N(import_spec),
	.about = "Plays calls made elsewhere through the form into a new run (source import):\n"
		 "one of --formbharo or --jsonl (docs/evaluation.md, \"Calls from outside\").\n"
		 "Defaults: --extract rules --reply script, today the real date.\n",
};

/* formdesk callers (cli/callers.c) */
static const struct opts_spec callers_spec[] = {
	COMPOSE_OPT_FORM(0), COMPOSE_OPT_DB(OPTS_REQUIRED), COMPOSE_OPT_TODAY(0),
	COMPOSE_OPT_STT(0), COMPOSE_OPT_EXTRACT(0), COMPOSE_OPT_REPLY(0), COMPOSE_OPT_CONFIG(0),
	{"profiles", OPTS_STRING, offsetof(struct callers_opts, profiles), "FILE",
	 "the caller profiles (the format corpus build reads)", OPTS_REQUIRED, 0, 0, NULL},
	{"behaviours", OPTS_LIST, offsetof(struct callers_opts, behaviours), "LIST|all",
	 "NAME, NAME:WEIGHT, FIELD=NAME, ... or all (the default)", 0, 0, 0, NULL},
	{"calls", OPTS_INT, offsetof(struct callers_opts, calls), "N",
	 "calls to make (default: every caller with each listed behaviour once)", 0, 1, 1000000, NULL},
	{"seed", OPTS_UINT, offsetof(struct callers_opts, seed), "S",
	 "the seed of weighted draws and boolean answers (default 1)", 0, 0, 4294967295.0, NULL},
	{"repeat", OPTS_INT, offsetof(struct callers_opts, repeat), "K",
	 "run each call K times and report pass^k", 0, 1, 100, NULL},
	{"expect-form", OPTS_STRING, offsetof(struct callers_opts, expect_form), "FILE",
	 "the form the expected answers follow (default --form): pilot a change against it", 0,
	 0, 0, NULL},
	{"turn-limit", OPTS_INT, offsetof(struct callers_opts, turn_limit), "N",
	 "caller turns before a call is hung up (default 4 per question + 8)", 0, 1, 10000, NULL},
	{"audio", OPTS_FLAG, offsetof(struct callers_opts, audio), NULL,
	 "speak her words (espeak-ng, synthetic) through the telephone channel, VAD and STT", 0,
	 0, 0, NULL},
	{"condition", OPTS_STRING, offsetof(struct callers_opts, condition), "NAME",
	 "with --audio: ideal (the default), noise, distance, pace-fast or pace-slow", 0, 0, 0,
	 NULL},
	{"voice", OPTS_STRING, offsetof(struct callers_opts, voice), "TTS",
	 "with --audio: the TTS voice her words are spoken in (default espeak, synthetic)", 0, 0,
	 0, NULL},
	{"caller-model", OPTS_STRING, offsetof(struct callers_opts, caller_model), "P[:M]",
	 "a persona caller on this language model (needs --persona)", 0, 0, 0, NULL},
	{"persona", OPTS_STRING, offsetof(struct callers_opts, persona), "FILE",
	 "who the persona caller is, how she speaks, her patience, her language mix", 0, 0, 0,
	 NULL},
	{"temperature", OPTS_DOUBLE, offsetof(struct callers_opts, temperature), "X",
	 "the caller model's temperature (default the persona's, else 0.7)", 0, 0, 2, NULL},
	{"json", OPTS_FLAG, offsetof(struct callers_opts, json), NULL,
	 "print only the summary JSON line", 0, 0, 0, NULL},
};

const struct opts_cmd cmd_callers_opts = {
	.name = "callers", .spec = callers_spec, .n = OPTS_N(callers_spec),
	.about = "Defaults: --form " COMPOSE_DEFAULT_FORM ", backends reference, rules, script,\n"
		 "--today the profiles' date, else the real date. docs/callers.md describes the\n"
		 "behaviours, the persona file and the report.\n",
};

/* formdesk simulate (cli/simulate.c) */
#define SIM_ROW(name, kind, field, arg, help, fl, lo, hi, what) \
	{name, kind, offsetof(struct simulate_opts, field), arg, help, fl, lo, hi, what}
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
#undef SIM_ROW

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
