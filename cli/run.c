/* run: the headless run of a corpus through the agent into the store.
 *
 * formdesk run --headless [--form FILE] [--corpus DIR|demo|respin] [--db FILE]
 *              [--today YYYY-MM-DD] [--stt P[:M]] [--extract P[:M]] [--reply P[:M]]
 *              [--config FILE] [--telephone]
 *
 * --telephone passes each caller turn's audio through the 8 kHz mu-law telephone channel
 * (audio/channel.h) before VAD and STT, as the pilot's calls were heard. A turn that
 * calls.csv marks with barge_in_ms starts while the agent is still speaking: it is
 * recorded as a barge-in (sessions/calls/engine.h).
 *
 * stdout: one JSON line per call {"call_id","db_id","status","reason","form_data",
 * "form_status","turns",
 * "cost_usd","latency_ms","requests","failed_requests"} (turns = caller turns played;
 * cost_usd = the priced network requests' cost in USD, 0 when none; latency_ms = the
 * call's wall time in milliseconds per stage, {"stt","extract","reply"} with the
 * opening's REPLY, and of its caller turns, {"turns" (sum), "turn_max"}; requests =
 * network requests made, failed_requests = those that failed; per_turn = each caller
 * turn's {"turn","latency":{"total_ms","parts":[{"name","ms","governed_by"}]}}, the end of
 * its speech to the agent's first words in parts that add up to it, sessions/store/latency.h),
 * then, when the corpus has expected forms, one line
 * {"form_completion_accuracy":X,"fields":N,"correct":M} (sessions/corpus/score.h).
 * (db_id = the call's row in the store's calls table; reason = why the call ended, as
 * stored). stderr: the corpus's attribution, stage errors, fields scored wrong, and a
 * progress bar when it is a terminal.
 * Exit status: 0 done; 2 bad usage, a file that cannot be loaded, or a store failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/rules/form.h"
#include "sessions/calls/callline.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/engine.h"
#include "sessions/corpus/score.h"

/* Listener: stage errors go to stderr with the call and turn. */
static void on_event(void *ud, const struct engine_event *ev)
{
	(void)ud;
	if (ev->kind == ENGINE_ERROR)
		fprintf(stderr, "formdesk run: call %s, turn %d: %s\n", ev->call_id ? ev->call_id : "?",
			ev->turn, ev->text ? ev->text : "error");
}

/* print_call: the call's JSON line. */
static int print_call(const struct engine *e, const struct corpus_call *call, int turns,
		      enum call_status status, const char *reason)
{
	const struct flow *fl = engine_flow(e);
	cJSON *o = cJSON_CreateObject(), *u = engine_usage_json(e);
	bool ok = o && u && cJSON_AddStringToObject(o, "call_id", call->id) &&
		  cJSON_AddNumberToObject(o, "db_id", (double)engine_call_row(e)) &&
		  callline_add_outcome(o, status, reason, flow_form_data(fl), flow_form_status(fl),
				       turns) &&
		  callline_add_usage(o, u) && callline_print(o);

	cJSON_Delete(o);
	cJSON_Delete(u);
	return ok ? 0 : -1;
}

/* Tracks the status the engine ended a call with (the rules', or failed on hang-up). */
struct call_end {
	enum call_status status;
	int turns;
	char reason[128];
	int undecoded; /* turns, over the whole run, whose audio could not be read */
};

static void on_event_end(void *ud, const struct engine_event *ev)
{
	struct call_end *ce = ud;
	on_event(NULL, ev);
	if (ev->kind == ENGINE_ERROR && ev->text && strncmp(ev->text, "audio: ", 7) == 0)
		ce->undecoded++;
	if (ev->kind == ENGINE_CALL_END) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(ev->json, "reason");
		ce->status = ev->status;
		ce->turns = ev->turn;
		snprintf(ce->reason, sizeof ce->reason, "%s", cJSON_IsString(r) ? r->valuestring : "");
	}
}

static void report_misses(const char *call_id, const cJSON *misses)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, misses) {
		char *want = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "want"));
		char *got = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "got"));
		fprintf(stderr, "formdesk run: call %s: field '%s': expected %s %s, got %s %s\n",
			call_id, cJSON_GetObjectItem(m, "field")->valuestring,
			cJSON_GetObjectItem(m, "want_status")->valuestring, want ? want : "?",
			cJSON_GetObjectItem(m, "got_status")->valuestring, got ? got : "?");
		free(want);
		free(got);
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = {0};
	struct compose_opts co = {.corpus = "demo", .db = "formdesk.db", .stt = "reference",
				  .extract = "rules", .reply = "script"};
	struct compose *c = NULL;
	struct engine *engine = NULL;
	struct engine_config cfg = {0};
	struct call_end ce = {0};
	struct score score = {0};
	bool scored = false;
	int rc = 2;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_run_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (compose_new("run", &co, COMPOSE_FORM | COMPOSE_CONFIG | COMPOSE_CORPUS | COMPOSE_TODAY |
				     COMPOSE_BACKENDS | COMPOSE_LEXICON | COMPOSE_STORE, &c) != ERR_OK)
		goto out;
	const struct form *form = c->form;
	const struct corpus *corpus = c->corpus;
	if (corpus->attribution)
		fprintf(stderr, "formdesk run: corpus '%s': %s\n", corpus->name, corpus->attribution);
	compose_engine(c, &cfg);
	cfg.telephone = o.telephone;
	if (compose_run(c, &co, "run", &cfg) != ERR_OK ||
	    engine_new(&cfg, on_event_end, &ce, &engine) != ERR_OK)
		goto out;

	bool tty = isatty(STDERR_FILENO);
	for (int i = 0; i < corpus->n_calls; i++) {
		const struct corpus_call *call = &corpus->calls[i];
		bool ended = false;

		ce.status = CALL_IN_PROGRESS;
		ce.turns = 0;
		if ((e = engine_begin(engine, call)) != ERR_OK) {
			fprintf(stderr, "formdesk run: call %s: %s\n", call->id, err_str(e));
			goto out;
		}
		ended = ce.status != CALL_IN_PROGRESS;
		while (!ended)
			if ((e = engine_step(engine, &ended)) != ERR_OK) {
				fprintf(stderr, "formdesk run: call %s: %s\n", call->id, err_str(e));
				goto out;
			}
		if (print_call(engine, call, ce.turns, ce.status, ce.reason) != 0)
			goto out;
		if (tty) {
			/* the progress bar: one line, redrawn in place */
			int w = 30, filled = (i + 1) * w / corpus->n_calls;
			fprintf(stderr, "\rcalls [%.*s%*s] %3d%% %d/%d", filled,
				"##############################", w - filled, "",
				(i + 1) * 100 / corpus->n_calls, i + 1, corpus->n_calls);
			if (i + 1 == corpus->n_calls)
				fputc('\n', stderr);
			fflush(stderr);
		}
		if (call->expected_status) {
			cJSON *misses = cJSON_CreateArray();
			const struct flow *fl = engine_flow(engine);
			if (!misses || score_call(form, call->expected_data, call->expected_status,
						  flow_form_data(fl), flow_form_status(fl), &score,
						  misses) != ERR_OK) {
				cJSON_Delete(misses);
				goto out;
			}
			report_misses(call->id, misses);
			cJSON_Delete(misses);
			if (call->expected_call_status &&
			    strcmp(call->expected_call_status, call_status_name(ce.status)) != 0)
				fprintf(stderr, "formdesk run: call %s: expected status %s, got %s\n",
					call->id, call->expected_call_status,
					call_status_name(ce.status));
			scored = true;
		}
	}
	if (scored)
		printf("{\"form_completion_accuracy\":%.6g,\"fields\":%d,\"correct\":%d}\n",
		       score_accuracy(&score), score.fields, score.correct);
	/* the calls ran on what could be read, but the run did not do what was asked */
	if (ce.undecoded) {
		fprintf(stderr, "formdesk run: %d turn%s' audio could not be read (named above)\n",
			ce.undecoded, ce.undecoded == 1 ? "" : "s");
		rc = 2;
		goto out;
	}
	rc = 0;
out:
	engine_free(engine);
	compose_run_end(c, cfg.run_id);
	compose_free(c);
	return rc;
}
