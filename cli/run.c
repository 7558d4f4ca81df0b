/* run: the headless run of a corpus through the agent into the store.
 *
 * formdesk run --headless [--form FILE] [--corpus DIR|demo|respin] [--db FILE]
 *              [--today YYYY-MM-DD] [--stt P[:M]] [--extract P[:M]] [--reply P[:M]]
 *              [--config FILE] [--telephone]
 *
 * --telephone passes each caller turn's audio through the 8 kHz mu-law telephone channel
 * (audio/channel.h) before VAD and STT, as the pilot's calls were heard. A turn that
 * calls.csv marks with barge_in_ms starts while the agent is still speaking: it is
 * recorded as a barge-in (sessions/engine.h).
 *
 * stdout: one JSON line per call {"call_id","status","form_data","form_status","turns",
 * "cost_usd","latency_ms","requests","failed_requests"} (turns = caller turns played;
 * cost_usd = the priced network requests' cost in USD, 0 when none; latency_ms = the
 * call's wall time in milliseconds per stage, {"stt","extract","reply"} with the
 * opening's REPLY, and of its caller turns, {"turns" (sum), "turn_max"}; requests =
 * network requests made, failed_requests = those that failed), then, when the corpus has expected forms, one line
 * {"form_completion_accuracy":X,"fields":N,"correct":M} (sessions/score.h).
 * stderr: the corpus's attribution, stage errors, fields scored wrong.
 * Exit status: 0 done; 2 bad usage, a file that cannot be loaded, or a store failure. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "agent/backend.h"
#include "agent/form.h"
#include "agent/lexicon.h"
#include "agent/provider.h"
#include "agent/ymd.h"
#include "sessions/callline.h"
#include "sessions/corpus.h"
#include "sessions/engine.h"
#include "sessions/score.h"
#include "sessions/store.h"

#define DEFAULT_FORM "forms/armman_enrollment.json"
#define DEFAULT_DB "formdesk.db"

struct run_opts {
	const char *form, *corpus, *db, *today, *stt, *extract, *reply, *config;
	bool telephone;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: formdesk run --headless [--form FILE] [--corpus DIR|demo|respin] "
		   "[--db FILE] [--today YYYY-MM-DD] [--stt P[:M]] [--extract P[:M]] "
		   "[--reply P[:M]] [--config FILE] [--telephone]\n"
		   "  defaults: --form %s --corpus demo --db ./%s, backends reference, rules, "
		   "script;\n  a model provider's key comes from its environment variable "
		   "(formdesk providers lists them);\n  --config FILE names base URLs, models, "
		   "timeouts, retries and prices;\n  --today defaults to the date the corpus was made for, else the real "
		   "date;\n  --telephone: the caller's audio through the 8 kHz mu-law telephone channel before VAD and STT\n",
		DEFAULT_FORM, DEFAULT_DB);
}

/* default_form: the enrollment form beside the binary, else in the current directory
 * (new string, caller frees). */
static char *default_form(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *s = NULL;
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		if (asprintf(&s, "%s/%s", exe, DEFAULT_FORM) >= 0 && access(s, R_OK) == 0)
			return s;
		free(s);
	}
	return strdup(DEFAULT_FORM);
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;
		if (strcmp(a, "--headless") == 0)
			continue;
		if (strcmp(a, "--telephone") == 0) {
			o->telephone = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 1;
		}
		if (strcmp(a, "--form") == 0)
			slot = &o->form;
		else if (strcmp(a, "--corpus") == 0)
			slot = &o->corpus;
		else if (strcmp(a, "--db") == 0)
			slot = &o->db;
		else if (strcmp(a, "--today") == 0)
			slot = &o->today;
		else if (strcmp(a, "--stt") == 0)
			slot = &o->stt;
		else if (strcmp(a, "--extract") == 0)
			slot = &o->extract;
		else if (strcmp(a, "--reply") == 0)
			slot = &o->reply;
		else if (strcmp(a, "--config") == 0)
			slot = &o->config;
		if (!slot) {
			fprintf(stderr, "formdesk run: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "formdesk run: %s needs a value\n", a);
			return 2;
		}
		*slot = argv[++i];
	}
	return 0;
}

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
		      enum call_status status)
{
	const struct flow *fl = engine_flow(e);
	cJSON *o = cJSON_CreateObject(), *u = engine_usage_json(e);
	char *s = NULL;
	int rc = -1;

	if (!o || !u || !cJSON_AddStringToObject(o, "call_id", call->id) ||
	    !cJSON_AddStringToObject(o, "status", call_status_name(status)) ||
	    !cJSON_AddItemToObject(o, "form_data", cJSON_Duplicate(flow_form_data(fl), 1)) ||
	    !cJSON_AddItemToObject(o, "form_status", cJSON_Duplicate(flow_form_status(fl), 1)) ||
	    !cJSON_AddNumberToObject(o, "turns", turns) || !callline_add_usage(o, u) ||
	    !(s = cJSON_PrintUnformatted(o)))
		goto out;
	puts(s);
	fflush(stdout);
	rc = 0;
out:
	free(s);
	cJSON_Delete(o);
	cJSON_Delete(u);
	return rc;
}

/* Tracks the status the engine ended a call with (the rules', or failed on hang-up). */
struct call_end {
	enum call_status status;
	int turns;
};

static void on_event_end(void *ud, const struct engine_event *ev)
{
	struct call_end *ce = ud;
	on_event(NULL, ev);
	if (ev->kind == ENGINE_CALL_END) {
		ce->status = ev->status;
		ce->turns = ev->turn;
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
	struct run_opts o = {.corpus = "demo", .db = DEFAULT_DB, .stt = "reference",
			     .extract = "rules", .reply = "script"};
	char *form_path = NULL, *corpus_dir = NULL, *msg = NULL;
	struct form *form = NULL;
	struct form_issues issues = {0};
	struct lexicon *lex = NULL;
	struct corpus *corpus = NULL;
	struct store *store = NULL;
	struct engine *engine = NULL;
	struct engine_config cfg = {0};
	struct call_end ce = {0};
	struct score score = {0};
	bool scored = false;
	const char *why = NULL;
	int rc = 2;
	enum err e;

	if ((rc = parse_args(argc, argv, &o)) != 0)
		return rc == 1 ? 0 : rc;
	rc = 2;
	if (!(form_path = o.form ? strdup(o.form) : default_form()))
		goto out;
	if ((e = form_load(form_path, &form, &issues)) != ERR_OK) {
		fprintf(stderr, "formdesk run: %s: %s\n", form_path, err_str(e));
		for (int i = 0; i < issues.n; i++)
			fprintf(stderr, "  %s%s%s\n", issues.v[i].field,
				issues.v[i].field[0] ? ": " : "", issues.v[i].message);
		goto out;
	}
	if (!(corpus_dir = corpus_resolve(o.corpus)))
		goto out;
	if ((e = corpus_load(corpus_dir, &corpus, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk run: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if (corpus->attribution)
		fprintf(stderr, "formdesk run: corpus '%s': %s\n", corpus->name, corpus->attribution);

	if (o.today) {
		if (!ymd_parse_iso(o.today, &cfg.today)) {
			fprintf(stderr, "formdesk run: --today '%s': expected a date YYYY-MM-DD\n",
				o.today);
			goto out;
		}
	} else {
		cfg.today = corpus->has_today ? corpus->today : ymd_today();
	}
	if (o.config) {
		char cwhy[300];
		if (provider_config_load(o.config, cwhy, sizeof(cwhy)) != ERR_OK) {
			fprintf(stderr, "formdesk run: --config %s\n", cwhy);
			goto out;
		}
	}
	if ((e = backend_stt(o.stt, &cfg.stt, &why)) != ERR_OK ||
	    (e = backend_extract(o.extract, &cfg.extract, &why)) != ERR_OK ||
	    (e = backend_reply(o.reply, &cfg.reply, &why)) != ERR_OK) {
		fprintf(stderr, "formdesk run: %s\n", why ? why : err_str(e));
		goto out;
	}
	free(msg);
	msg = NULL;
	if ((e = lexicon_load(lexicon_default_dir(), &lex, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk run: word lists %s: %s\n", lexicon_default_dir(),
			msg ? msg : err_str(e));
		goto out;
	}
	free(msg);
	msg = NULL;
	if ((e = store_open(o.db, &store, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk run: %s\n", msg ? msg : err_str(e));
		goto out;
	}

	cfg.form = form;
	cfg.form_path = form_path;
	cfg.corpus_name = corpus->name;
	cfg.lex = lex;
	cfg.store = store;
	cfg.endpoint = endpoint_defaults();
	cfg.telephone = o.telephone;
	if (engine_new(&cfg, on_event_end, &ce, &engine) != ERR_OK)
		goto out;

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
		if (print_call(engine, call, ce.turns, ce.status) != 0)
			goto out;
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
	rc = 0;
out:
	engine_free(engine);
	store_close(store);
	corpus_free(corpus);
	lexicon_free(lex);
	form_free(form);
	form_issues_free(&issues);
	free(form_path);
	free(corpus_dir);
	free(msg);
	backend_cleanup();
	return rc;
}
