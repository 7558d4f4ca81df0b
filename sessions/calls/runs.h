/* runs: recording a run, a set of calls made together (a headless run, a simulator
 * session, a typed or microphone live call, a replay, a benchmark's integration), and
 * listing them. A run keeps what makes its calls what they are, so two runs can be
 * compared and one replayed: the form (its content, whole, and its SHA-256), the backends
 * with their models and prompt versions, the options that change behaviour (today,
 * endpointing, telephone), the corpus and formdesk's version. The table is the store's
 * (sessions/store/store.h, runs); this is the one place a run is made from an engine's
 * configuration, for every caller that makes calls. */
#ifndef FORMDESK_RUNS_H
#define FORMDESK_RUNS_H

#include <stdbool.h>
#include <stdio.h>
#include "base/err.h"

struct store;
struct engine_config;

/* The sources of a run (runs.source). */
#define RUNS_SOURCES "run, simulate, typed, mic, replay, bench, import, callers"

/* What a run is made of. Everything is borrowed. */
struct runs_spec {
	const char *source;                /* one of RUNS_SOURCES */
	const struct engine_config *cfg;   /* form, form_path, backends, today, endpoint,
	                                      telephone, corpus_name */
	const char *stt, *extract, *reply; /* the backend specs as given (PROVIDER[:MODEL]);
	                                      NULL: the backend's name in cfg */
	const char *form_json;             /* the form's content; NULL: read cfg->form_path */
	const char *corpus_dir;            /* the corpus's folder, NULL none */
	long long replay_of;               /* the run replayed (runs.id), 0 none */
};

/* runs_begin: record a new run in st from spec. Output: *id the run's row id; on failure
 * *errmsg (caller frees; may be NULL) says what failed, naming the file. Errors: ERR_IO
 * (the form's file cannot be read), ERR_DB, ERR_NOMEM. */
enum err runs_begin(struct store *st, const struct runs_spec *spec, long long *id,
		    char **errmsg);

/* runs_end: mark run id ended now; id 0 or st NULL does nothing. Errors: ERR_DB,
 * ERR_NOTFOUND. */
enum err runs_end(struct store *st, long long id);

/* runs_sha256_hex: the SHA-256 of n bytes at p, as 64 lowercase hex digits and a NUL in
 * out (FIPS 180-4, through libcrypto). Returns false when libcrypto fails. */
bool runs_sha256_hex(const void *p, size_t n, char out[65]);


/* runs_read_file: the whole file at path, NUL-terminated (caller frees); NULL when it
 * cannot be read or memory is short. */
char *runs_read_file(const char *path);

struct decision;

/* runs_decision: a decision record as the store keeps it (turns.decision, JSON text; may
 * be NULL) read back as the rule layer's struct (agent/rules/decision.h, decision_from_json).
 * Output: new decision (caller frees with decision_free); NULL when text is NULL, not a
 * decision record, or memory is short. */
struct decision *runs_decision(const char *text);

/* runs_list: print the runs of st to f: a table (id, started, source, form file name and
 * the start of its hash, backends, calls, completion = complete / calls, form-completion
 * accuracy over the calls whose corpus has expected forms, else "-"), or with json one
 * line per run {"run","started_at","ended_at","source","form","form_sha256","stt",
 * "extract","reply","corpus","calls","complete","completion","accuracy"|null,
 * "replay_of"|null,"migrated"}.
 * Errors: ERR_DB, ERR_NOMEM (message in store_error(st)). */
enum err runs_list(struct store *st, bool json, FILE *f);

#endif
