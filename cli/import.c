/* import: calls made outside formdesk (FormBharo's API, or plain JSONL transcripts:
 * sessions/calls/callimport.h) played through the agent into a run of source "import", so they
 * can be reviewed, replayed through a change and diffed.
 *
 * formdesk import --db FILE --form FILE (--formbharo FILE | --jsonl FILE)
 *                 [--today YYYY-MM-DD] [--extract P[:M]] [--reply P[:M]] [--config FILE]
 *
 * Each call's caller turns are played in order as their words (the reference STT; a turn
 * with a recording is endpointed on it first). stdout: one JSON line per call
 * {"call_id","status","turns"}, then {"run":N,"db":FILE,"calls":N}.
 * Exit status: 0 done; 2 bad usage or input (a message names the file, line or entry;
 * nothing is written), or a failure. */
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/provider.h"
#include "base/ymd.h"
#include "sessions/calls/callimport.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/calls/runs.h"
#include "sessions/store/store.h"

/* Tracks how the engine ended the call in progress. */
static void on_event(void *ud, const struct engine_event *ev)
{
	struct engine_event *last = ud;
	if (ev->kind == ENGINE_ERROR)
		fprintf(stderr, "formdesk import: call %s, turn %d: %s\n", ev->call_id ? ev->call_id : "?",
			ev->turn, ev->text ? ev->text : "error");
	if (ev->kind == ENGINE_CALL_END) {
		last->status = ev->status;
		last->turn = ev->turn;
	}
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o = {0};
	struct compose_opts co = {.stt = "reference", .extract = "rules", .reply = "script"};
	struct form *form = NULL;
	struct form_issues issues = {0};
	struct compose *c = NULL;
	struct corpus *calls = NULL;
	struct store *store = NULL;
	struct engine *engine = NULL;
	struct engine_config cfg = {.endpoint = endpoint_defaults()};
	struct engine_event last = {0};
	char *msg = NULL, *copy = NULL;
	const char *file;
	int rc = 2;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_import_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	const char *db = o.db, *form_path = co.form, *fb = o.formbharo, *jsonl = o.jsonl,
		   *today = co.today, *extract = co.extract, *reply = co.reply;
	if (!db || !form_path || !fb == !jsonl) {
		fprintf(stderr, "formdesk import: give one of --formbharo FILE or --jsonl FILE\n");
		opts_brief(&cmd_import_opts, stderr);
		return 2;
	}
	if (today ? !ymd_parse_iso(today, &cfg.today) : (cfg.today = ymd_today(), false)) {
		fprintf(stderr, "formdesk import: --today '%s': expected a date YYYY-MM-DD\n", today);
		return 2;
	}
	file = fb ? fb : jsonl;
	if (!(copy = strdup(file)))
		goto out;
	/* everything is read and checked before the database is touched */
	if ((e = callimport_load(file, fb ? CALLIMPORT_FORMBHARO : CALLIMPORT_JSONL,
				 basename(copy), &calls, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk import: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if ((e = form_load(form_path, &form, &issues)) != ERR_OK) {
		fprintf(stderr, "formdesk import: %s: %s\n", form_path, err_str(e));
		compose_say_issues(&issues);
		goto out;
	}
	/* the provider config, the backends and the word lists: the composition root's */
	if (compose_new("import", &co, COMPOSE_CONFIG | COMPOSE_BACKENDS | COMPOSE_LEXICON, &c) != ERR_OK)
		goto out;
	compose_backends(c, &cfg);
	free(msg);
	msg = NULL;
	if (compose_open_db("import", db, STORE_CREATE, &store) != ERR_OK)
		goto out;
	cfg.form = form;
	cfg.form_path = form_path;
	cfg.corpus_name = calls->name;
	cfg.store = store;
	if ((e = runs_begin(store, &(struct runs_spec){.source = "import", .cfg = &cfg,
			    .extract = extract, .reply = reply}, &cfg.run_id, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk import: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if (engine_new(&cfg, on_event, &last, &engine) != ERR_OK)
		goto out;
	for (int i = 0; i < calls->n_calls; i++) {
		bool ended;
		last.status = CALL_IN_PROGRESS;
		if ((e = engine_begin(engine, &calls->calls[i])) != ERR_OK)
			goto fail;
		ended = !engine_call_open(engine);
		while (!ended)
			if ((e = engine_step(engine, &ended)) != ERR_OK)
				goto fail;
		printf("{\"call_id\":");
		{
			cJSON *s = cJSON_CreateString(calls->calls[i].id);
			char *t = s ? cJSON_PrintUnformatted(s) : NULL;
			fputs(t ? t : "null", stdout);
			free(t);
			cJSON_Delete(s);
		}
		printf(",\"status\":\"%s\",\"turns\":%d}\n", call_status_name(last.status), last.turn);
		continue;
fail:
		fprintf(stderr, "formdesk import: call %s: %s\n", calls->calls[i].id,
			e == ERR_DB ? store_error(store) : err_str(e));
		goto out;
	}
	printf("{\"run\":%lld,\"calls\":%d}\n", cfg.run_id, calls->n_calls);
	rc = 0;
out:
	engine_free(engine);
	if (runs_end(store, cfg.run_id) != ERR_OK)
		fprintf(stderr, "formdesk import: %s\n", store_error(store));
	store_close(store);
	corpus_free(calls);
	form_free(form);
	form_issues_free(&issues);
	free(msg);
	free(copy);
	compose_free(c);
	return rc;
}
