/* benchdb: the benchmark's results in SQLite, so a run can stop and resume: every
 * finished unit test, utterance and integration call is one row, and a rerun skips the
 * keys already there. Kept in the bench database (`formdesk bench --db FILE`), in tables
 * of its own beside the session store's:
 *   bench_results(stage, scope, spec, key, data)  primary key (stage, scope, spec, key)
 *     stage  "stt", "extract", "reply" or "call" (integration);
 *     scope  what the results are about: corpus folder, form file and "today";
 *     spec   the backend the stage ran ("rules", "openrouter:google/gemini-3.5-flash");
 *            for "call" the three, "STT+EXTRACT+REPLY";
 *     key    the utterance id, the unit test's key or the call id;
 *     data   the result as JSON (sessions/eval/bench.h lists its members).
 *   bench_runs(scope, stt, extract, reply, started, finished)  one row per combination.
 *   bench_judgements(judge, version, item, decision, raw, cost, error)  primary key
 *     (judge, version, item): the LLM judges' cache (sessions/eval/benchjudge.h). judge
 *     "llm:PROVIDER:MODEL"; version the prompt's; item the question asked, as JSON text;
 *     decision the verdict, NULL when the call failed (error says why, and the item is
 *     asked again next time); cost in US dollars.
 * The file is opened the store's one way (store_open_with, sessions/store/store.h: WAL, the
 * schema-version policy; the session store's tables are created beside these), the bench
 * tables' version kept in bench_meta. Rows are written in transactions of up to BENCHDB_BATCH rows (and at
 * every benchdb_flush), so a killed run loses at most one batch. */
#ifndef FORMDESK_BENCHDB_H
#define FORMDESK_BENCHDB_H

#include <stdbool.h>
#include "base/err.h"

#define BENCHDB_BATCH 256

struct benchdb;

/* benchdb_open: open or create the database at path and its tables (store_open_with).
 * Output: *out (caller frees with benchdb_close); on failure *errmsg (caller frees; may be
 * NULL) names the file and what is wrong. Errors: ERR_DB (also for tables of a newer
 * formdesk), ERR_NOMEM. */
enum err benchdb_open(const char *path, struct benchdb **out, char **errmsg);
/* benchdb_close: flush and close db; NULL does nothing. */
void benchdb_close(struct benchdb *db);
/* benchdb_error: SQLite's last message on db (owned by db). */
const char *benchdb_error(const struct benchdb *db);

/* benchdb_put: record one result (strings borrowed; data is JSON text). A row for the
 * same key is replaced. Errors: ERR_DB. */
enum err benchdb_put(struct benchdb *db, const char *stage, const char *scope, const char *spec,
		     const char *key, const char *data);
/* benchdb_flush: commit the rows written so far. Errors: ERR_DB. */
enum err benchdb_flush(struct benchdb *db);

/* benchdb_each: call fn(ud, spec, key, data) for every row of stage and scope, of spec
 * only (NULL: every spec), in spec and key order; the strings are valid during the call.
 * fn returns 0 to go on. Errors: ERR_DB, ERR_CANCELLED (fn stopped). */
typedef int (*benchdb_row_fn)(void *ud, const char *spec, const char *key, const char *data);
enum err benchdb_each(struct benchdb *db, const char *stage, const char *scope, const char *spec,
		      benchdb_row_fn fn, void *ud);

/* benchdb_specs: call fn(ud, spec) for each distinct spec of stage in scope, in the
 * order first recorded. Errors: ERR_DB. */
typedef void (*benchdb_spec_fn)(void *ud, const char *spec);
enum err benchdb_specs(struct benchdb *db, const char *stage, const char *scope,
		       benchdb_spec_fn fn, void *ud);

/* benchdb_run_mark: note the combination (started now if new; finished now when done).
 * Errors: ERR_DB. */
enum err benchdb_run_mark(struct benchdb *db, const char *scope, const char *stt,
			  const char *extract, const char *reply, bool done);

/* benchdb_judgement_get: the cached verdict of judge at prompt version on item (strings
 * borrowed). Output: *decision new string (caller frees), *cost (may be NULL) what asking
 * cost, US dollars. Errors: ERR_NOTFOUND (never decided: not asked, or only failed),
 * ERR_DB, ERR_NOMEM. */
enum err benchdb_judgement_get(struct benchdb *db, const char *judge, const char *version,
			       const char *item, char **decision, double *cost);

/* benchdb_judgement_put: record a judgement (replacing one there): decision NULL and
 * error set for a failed call. Strings borrowed; cost in US dollars. Errors: ERR_DB. */
enum err benchdb_judgement_put(struct benchdb *db, const char *judge, const char *version,
			       const char *item, const char *decision, const char *raw,
			       double cost, const char *error);

#endif
