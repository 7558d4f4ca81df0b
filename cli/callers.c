/* callers: pilot a form with simulated callers (sessions/calls/callers.h, docs/callers.md).
 *
 * formdesk callers --form FILE --profiles FILE [--behaviours LIST|all] [--calls N]
 *                  [--seed S] [--repeat K] [--expect-form FILE] [--turn-limit N]
 *                  [--audio [--condition C] [--voice TTS]]
 *                  [--caller-model P[:M] --persona FILE] [--temperature X]
 *                  [--stt ...] [--extract ...] [--reply ...] [--today D] [--json] --db FILE
 *
 * Every call is an ordinary recorded call of one run (source "callers") in --db, to open
 * in review, label, replay and diff. stdout: the report (per behaviour and per field:
 * completion and accuracy with 95% intervals, re-asks and turns per call, pass^k with
 * --repeat, the failed calls and why), then one JSON line {"run":N, ...summary}; with
 * --json only that line. stderr: a progress bar when it is a terminal.
 * Exit status: 0 done; 2 bad usage, a file that cannot be loaded (a profile without a
 * value for a field the form asks, an unknown behaviour, an invalid persona file: the
 * message names the file, line and field; nothing is run), or a store failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/rules/form.h"
#include "sessions/calls/callers.h"
#include "sessions/eval/callersrun.h"
#include "sessions/calls/callervoice.h"
#include "sessions/corpus/corpus.h"
#include "sessions/calls/persona.h"
#include "base/str.h"

static void on_event(void *ud, const struct engine_event *ev)
{
	(void)ud;
	if (ev->kind == ENGINE_ERROR)
		fprintf(stderr, "formdesk callers: call %s, turn %d: %s\n",
			ev->call_id ? ev->call_id : "?", ev->turn, ev->text ? ev->text : "error");
}

static void progress(int done, int total)
{
	int w = 30, filled = total ? done * w / total : w;
	fprintf(stderr, "\rcalls [%.*s%*s] %3d%% %d/%d", filled, "##############################",
		w - filled, "", total ? done * 100 / total : 100, done, total);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

int cmd_callers(int argc, char **argv)
{
	struct callers_opts o = {.seed = 1, .repeat = 1};
	struct compose_opts co = {.stt = "reference", .extract = "rules", .reply = "script"};
	struct compose *c = NULL;
	struct form *expect_form = NULL;
	struct form_issues issues = {0};
	struct callers_profiles *prof = NULL;
	struct callers_mix *mix = NULL;
	struct callersrun *run = NULL;
	struct callersrun_report *rep = NULL;
	struct callervoice *voice = NULL;
	struct persona *persona = NULL;
	struct engine_config cfg = {0};
	char *msg = NULL, *corpus_name = NULL;
	int rc = 2;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_callers_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (!o.caller_model != !o.persona) {
		fprintf(stderr, "formdesk callers: --caller-model and --persona go together\n");
		return 2;
	}
	if (o.persona && o.behaviours) {
		fprintf(stderr, "formdesk callers: --behaviours: a persona caller speaks as the model "
				"plays her; behaviours are for the offline callers\n");
		return 2;
	}
	/* a persona caller means every answer: her expected form is the profile's */
	if (!o.behaviours)
		o.behaviours = o.persona ? "plain" : "all";
	/* Everything is checked before the store is opened: bad input runs nothing. */
	if (compose_new("callers", &co, COMPOSE_FORM | COMPOSE_CONFIG | COMPOSE_TODAY |
						 COMPOSE_BACKENDS | COMPOSE_LEXICON, &c) != ERR_OK)
		goto out;
	if (o.expect_form && form_load(o.expect_form, &expect_form, &issues) != ERR_OK) {
		fprintf(stderr, "formdesk callers: %s: the expected form cannot be loaded\n",
			o.expect_form);
		compose_say_issues(&issues);
		goto out;
	}
	const struct form *want = expect_form ? expect_form : c->form;
	struct callers_profiles *check = NULL;
	e = callers_profiles_load(o.profiles, want, &prof, &msg);
	if (e == ERR_OK && want != c->form)
		e = callers_profiles_load(o.profiles, c->form, &check, &msg);
	callers_profiles_free(check);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk callers: %s\n", msg ? msg : "the profiles cannot be loaded");
		goto out;
	}
	if (callers_mix_parse(o.behaviours, want, &mix, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk callers: --behaviours %s\n", msg ? msg : "out of memory");
		goto out;
	}
	if (o.persona && persona_load(o.persona, &persona, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk callers: %s\n", msg ? msg : "the persona cannot be loaded");
		goto out;
	}
	if (persona && persona_connect(persona, o.caller_model, o.temperature, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk callers: --caller-model %s: %s\n", o.caller_model,
			msg ? msg : "cannot be used");
		goto out;
	}
	if (o.audio && callervoice_new(o.voice, o.condition, &voice, &msg) != ERR_OK) {
		fprintf(stderr, "formdesk callers: --audio: %s\n", msg ? msg : "no voice");
		goto out;
	}
	if (!co.today)
		callers_profiles_today(prof, &c->today);
	if (compose_store(c, co.db) != ERR_OK)
		goto out;
	compose_engine(c, &cfg);
	cfg.telephone = o.audio;
	if (!(corpus_name = str_printf("callers:%s", callers_profiles_name(prof)[0]
							      ? callers_profiles_name(prof) : o.profiles)))
		goto out;
	cfg.corpus_name = corpus_name;
	if (compose_run(c, &co, "callers", &cfg) != ERR_OK ||
	    callersrun_new(&cfg, on_event, NULL, &run) != ERR_OK)
		goto out;

	int n_callers = callers_profiles_count(prof);
	int per = callers_mix_count(mix);
	int calls = o.calls ? o.calls : persona ? n_callers : n_callers * (per ? per : 1);
	int limit = o.turn_limit ? o.turn_limit : 4 * c->form->n_questions + 8;
	int total = calls * o.repeat, done = 0;
	bool tty = isatty(STDERR_FILENO);
	if (persona)
		limit = persona_turn_limit(persona, limit);
	if (!(rep = callersrun_report_new(want, o.repeat)))
		goto out;
	for (int i = 0; i < calls; i++) {
		struct callers_call *call = NULL;
		if ((e = callers_plan(prof, mix, want, i, o.seed, c->today, &call)) != ERR_OK) {
			fprintf(stderr, "formdesk callers: call %d: %s\n", i + 1, err_str(e));
			goto out;
		}
		for (int k = 0; k < o.repeat; k++) {
			struct callersrun_outcome out;
			struct callersrun_source src = {.next = callers_source_next, .ud = call};
			bool used[CALLERS_N];
			if (persona) {
				persona_begin(persona, prof, call);
				src = (struct callersrun_source){.next = persona_next, .ud = persona};
			}
			if (voice) {
				src.speak = callervoice_speak;
				src.speak_ud = voice;
			}
			for (int b = 0; b < CALLERS_N; b++)
				used[b] = !persona && callers_call_uses(call, b);
			e = callersrun_call(run, callers_call_corpus(call), &src, limit, &out);
			if (e == ERR_OK)
				e = callersrun_report_add(rep, used, callers_call_corpus(call)->id, &out, k);
			if (e != ERR_OK) {
				fprintf(stderr, "formdesk callers: call %s: %s\n",
					callers_call_corpus(call)->id, err_str(e));
				callers_call_free(call);
				goto out;
			}
			if (tty)
				progress(++done, total);
		}
		callers_call_free(call);
	}
	cJSON *sum = callersrun_report_json(rep);
	char *line = NULL;
	if (!sum || !cJSON_AddNumberToObject(sum, "run", (double)cfg.run_id) ||
	    (persona && !persona_add_usage(persona, sum)) || !(line = cJSON_PrintUnformatted(sum))) {
		cJSON_Delete(sum);
		goto out;
	}
	if (!o.json) {
		callersrun_report_print(rep, stdout);
		if (persona)
			persona_print_usage(persona, stdout);
		putchar('\n');
	}
	puts(line);
	free(line);
	cJSON_Delete(sum);
	rc = 0;
out:
	callersrun_free(run);
	compose_run_end(c, cfg.run_id);
	callersrun_report_free(rep);
	callervoice_free(voice);
	persona_free(persona);
	callers_mix_free(mix);
	callers_profiles_free(prof);
	form_free(expect_form);
	form_issues_free(&issues);
	free(corpus_name);
	free(msg);
	compose_free(c);
	return rc;
}
