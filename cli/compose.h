/* compose: the composition root of the commands that run the agent (run, simulate,
 * extract, bench): from the common options (--form, --corpus, --db, --today, --stt,
 * --extract, --reply, --config) it builds the form, the provider config, the corpus, the
 * date the rules take as today, the three backends (through agent/stages/backend.h's lookup by
 * "PROVIDER[:MODEL]", the one place a command touches it), the word lists and the store,
 * in that order, and hands them to the engine as one engine_config.
 *
 * One convention for the messages (stderr): "formdesk COMMAND: WHERE: WHAT", WHERE being
 * the file at fault with its line when known ("calls.csv:5: field 'utterance_id': ...", as
 * the loaders say it), or the option and its value ("--today '2025-13-40': ...",
 * "--extract nosuch: ..."). Exit status 2 for every one of them. */
#ifndef FORMDESK_COMPOSE_H
#define FORMDESK_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/stages/backend.h"
#include "annotations/labels.h"
#include "base/ymd.h"
#include "opts.h"
#include "sessions/store/store.h"

struct engine_config;
struct form_issues;

/* The common options, as typed (pointing into argv or at the command's defaults). A NULL
 * backend spec builds no backend for that stage. */
struct compose_opts {
	const char *form, *corpus, *db, *today, *stt, *extract, *reply, *config;
	int turn_deadline_ms, call_deadline_ms; /* 0: not given (the config file's) */
};

/* The common options' rows for a command's option table (cli/opts.h), each written once
 * here; fl adds OPTS_REQUIRED. Their values go to the command's struct compose_opts,
 * passed to opts_parse as shared. */
#define COMPOSE_ROW(name, field, arg, help, fl) \
	{name, OPTS_STRING, offsetof(struct compose_opts, field), arg, help, OPTS_SHARED | (fl), 0, 0, NULL}
#define COMPOSE_OPT_FORM(fl) COMPOSE_ROW("form", form, "FILE", "the form config (a FormBharo agent config, JSON)", fl)
#define COMPOSE_OPT_CORPUS(fl) COMPOSE_ROW("corpus", corpus, "DIR|demo|respin", "the corpus of recorded calls", fl)
#define COMPOSE_OPT_DB(fl) COMPOSE_ROW("db", db, "FILE", "the database (SQLite)", fl)
#define COMPOSE_OPT_TODAY(fl) COMPOSE_ROW("today", today, "YYYY-MM-DD", "the date the rules take as today", fl)
#define COMPOSE_OPT_STT(fl) COMPOSE_ROW("stt", stt, "P[:M]", "the STT backend, PROVIDER[:MODEL]", fl)
#define COMPOSE_OPT_EXTRACT(fl) COMPOSE_ROW("extract", extract, "P[:M]", "the EXTRACT backend, PROVIDER[:MODEL]", fl)
#define COMPOSE_OPT_REPLY(fl) COMPOSE_ROW("reply", reply, "P[:M]", "the REPLY backend, PROVIDER[:MODEL]", fl)
#define COMPOSE_OPT_CONFIG(fl) COMPOSE_ROW("config", config, "FILE", "the providers' base URLs, models, timeouts, retries, prices", fl)

/* The deadlines for an unresponsive provider (sessions/calls/engine.h), whole ms; not given:
 * the config file's "deadlines" (agent/stages/provider.h). */
#define COMPOSE_DEADLINE_ROW(name, field, help) \
	{name, OPTS_INT, offsetof(struct compose_opts, field), "MS", help, OPTS_SHARED, 1, 86400000, NULL}
#define COMPOSE_OPT_DEADLINES \
	COMPOSE_DEADLINE_ROW("turn-deadline-ms", turn_deadline_ms, \
			     "a turn's requests end after this, recorded as failed (default 90000)"), \
	COMPOSE_DEADLINE_ROW("call-deadline-ms", call_deadline_ms, \
			     "the call fails once the agent's turns took this long (default 900000)")

/* All ten, none required: the commands that run calls (run, simulate). */
#define COMPOSE_OPTS_ALL \
	COMPOSE_OPT_FORM(0), COMPOSE_OPT_CORPUS(0), COMPOSE_OPT_DB(0), COMPOSE_OPT_TODAY(0), \
	COMPOSE_OPT_STT(0), COMPOSE_OPT_EXTRACT(0), COMPOSE_OPT_REPLY(0), COMPOSE_OPT_CONFIG(0), \
	COMPOSE_OPT_DEADLINES

/* The form the commands use when --form is not given. */
#define COMPOSE_DEFAULT_FORM "forms/armman_enrollment.json"

/* What compose_new builds. */
enum compose_part {
	COMPOSE_FORM = 1 << 0,     /* --form, else COMPOSE_DEFAULT_FORM beside the program */
	COMPOSE_CONFIG = 1 << 1,   /* --config, when given */
	COMPOSE_CORPUS = 1 << 2,   /* --corpus (a folder, demo or respin) */
	COMPOSE_TODAY = 1 << 3,    /* --today, else the corpus's date (COMPOSE_CORPUS), else the
				      clock's */
	COMPOSE_CLOCK_TODAY = 1 << 4, /* with COMPOSE_TODAY: the clock's date even with a corpus
					 (the simulator) */
	COMPOSE_BACKENDS = 1 << 5, /* --stt, --extract, --reply: those not NULL */
	COMPOSE_LEXICON = 1 << 6,  /* the word lists (lexicon_default_dir) */
	COMPOSE_STORE = 1 << 7,    /* --db: the session store (or later, compose_store) */
};

/* What was built; what was not asked for is NULL or zero. Everything is owned by the
 * compose and freed by compose_free. */
struct compose {
	char *who;                /* "formdesk run": the messages' first words */
	char *form_path;
	struct form *form;
	char *corpus_dir;
	struct corpus *corpus;
	struct ymd today;
	struct backend stt, extract, reply;
	struct lexicon *lex;
	struct store *store;
	long turn_deadline_ms, call_deadline_ms; /* as given; 0 not given */
};

/* compose_new: build parts (enum compose_part bits) from o, in the order of the enum, for
 * the command named cmd ("run"; "" for the bare formdesk). Output: *out (caller frees with
 * compose_free). Errors: ERR_IO, ERR_PARSE, ERR_INVALID, ERR_NOTFOUND, ERR_DB, ERR_NOMEM:
 * the first part that could not be built, said on stderr by the convention above. */
enum err compose_new(const char *cmd, const struct compose_opts *o, unsigned parts,
		     struct compose **out);

/* compose_store: open the session store at db (after other checks that should come first,
 * such as the simulator's need of a terminal). Errors: ERR_DB, ERR_NOMEM, said on stderr. */
enum err compose_store(struct compose *c, const char *db);

/* compose_open_db: the session store at db (sessions/store/store.h, store_open_with in
 * mode: STORE_EXISTING for a database the command only reads or adds to, STORE_CREATE for
 * one it may create), for command cmd ("runs"), without a compose. Output: *out (caller
 * frees with store_close), written only on success. Errors: store_open_with's, said on
 * stderr as "formdesk CMD: MESSAGE", the message naming the file. */
enum err compose_open_db(const char *cmd, const char *db, enum store_mode mode,
			 struct store **out);

/* compose_engine: an engine config (sessions/calls/engine.h) borrowing c's parts: form, form
 * path, corpus name, word lists, backends, store, today, the deadlines given; the
 * endpointing defaults; no telephone channel. c must outlive the engine. */
void compose_engine(const struct compose *c, struct engine_config *cfg);

/* compose_backends: only the backends, word lists and deadlines of cfg, borrowed from c
 * (built with COMPOSE_BACKENDS and COMPOSE_LEXICON), for a command that sets the rest
 * itself (import, replay). c must outlive the engine. */
void compose_backends(const struct compose *c, struct engine_config *cfg);

/* compose_run: record the run cfg's calls are made in (sessions/calls/runs.h, runs_begin: the
 * form kept whole, the backends as o gave them, the options, c's corpus) in c's store,
 * with source ("run", "simulate", "typed", "mic", "bench"); cfg->run_id becomes its id.
 * The caller ends it with compose_run_end. Errors: as runs_begin, said on stderr. */
enum err compose_run(const struct compose *c, const struct compose_opts *o, const char *source,
		     struct engine_config *cfg);

/* compose_run_end: mark run run_id of c's store ended now (runs_end), as the command's
 * last step; c NULL or run_id 0 does nothing. Errors: ERR_DB, said on stderr as
 * "formdesk COMMAND: MESSAGE". */
enum err compose_run_end(const struct compose *c, long long run_id);

/* compose_say_issues: a form's refusals (agent/rules/form.h), one indented "FIELD: MESSAGE" line
 * each on stderr, under a line the caller has already written naming the file. */
void compose_say_issues(const struct form_issues *is);

/* compose_task: the annotation task named name (annotations/labels.h), for command cmd
 * ("annotate"). Output: *t. Errors: ERR_NOTFOUND, said on stderr as "formdesk CMD: --task
 * 'NAME': not a task (name-match, turn-errors or stt)", the tasks listed from their
 * table. */
enum err compose_task(const char *cmd, const char *name, enum labels_task *t);

/* compose_labels: the annotation tables of the session database db (labels_open), for
 * command cmd. Output: *out (caller frees with labels_close). Errors: labels_open's, said
 * on stderr as "formdesk CMD: MESSAGE". */
enum err compose_labels(const char *cmd, const char *db, struct labels **out);

/* compose_free: free everything c built, and the backends' shared state; NULL does
 * nothing. */
void compose_free(struct compose *c);

#endif
