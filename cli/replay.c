/* replay: recorded calls played again through a changed form, backends or options, into a
 * new run (sessions/calls/replay.h).
 *
 * formdesk replay --db FILE (--run R | --call N[,N...] ...) [--form FILE]
 *                 [--stt P[:M]] [--extract P[:M]] [--reply P[:M]] [--config FILE]
 *                 [--today YYYY-MM-DD] [--out-db FILE] [--from words|audio]
 *
 * Defaults: the run's own form (its content as kept with the run), the offline backends
 * (reference, rules, script: with --stt reference the recorded words are played, so a
 * replay needs no network and no recordings), each call's own today, the run's
 * telephone and endpointing options; the new run goes into --db unless --out-db names
 * another file. --from says what the caller's turns are played from: words (the recorded
 * transcripts, the default with --stt reference) or audio (the recordings, the default
 * with any other STT; with --stt reference the recorded transcript is the reference).
 * stdout: as its last line {"run":N,"db":FILE,"replay_of":R|null,"calls":N,"turns":N,
 * "unanswered":N} (unanswered: turns the new path asked that the recording never
 * answered, played as silence).
 * Exit status: 0 done; 2 bad usage, an unknown run or call, a form the calls do not fit,
 * a recording that is gone (nothing is written then), or a failure. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/stages/backend.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/provider.h"
#include "base/ymd.h"
#include "audio/vad.h"
#include "sessions/calls/engine.h"
#include "sessions/calls/replay.h"
#include "sessions/store/store.h"

#define MAX_CALLS 4096

/* parse_ids: the call ids in "N[,N...]" added to ids (*n of them, at most MAX_CALLS).
 * Returns false on a word that is not a positive id. */
static bool parse_ids(const char *s, long long *ids, int *n)
{
	while (*s) {
		char *end;
		long long v = strtoll(s, &end, 10);
		if (end == s || v <= 0 || (*end && *end != ',') || *n >= MAX_CALLS)
			return false;
		ids[(*n)++] = v;
		s = *end ? end + 1 : end;
	}
	return true;
}

/* run_options: the run's telephone and endpointing options into cfg. */
static void run_options(const char *json, struct engine_config *cfg)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;
	const cJSON *ep = cJSON_GetObjectItemCaseSensitive(o, "endpointing"), *v;

	cfg->telephone = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "telephone"));
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ep, "start_ms")))
		cfg->endpoint.start_ms = v->valueint;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ep, "stop_ms")))
		cfg->endpoint.stop_ms = v->valueint;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ep, "turn_wait_ms")))
		cfg->endpoint.turn_wait_ms = v->valueint;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(ep, "min_loudness_db")))
		cfg->endpoint.min_loudness_db = v->valuedouble;
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(ep, "vad")))
		vad_kind_parse(v->valuestring, &cfg->endpoint.vad);
	cJSON_Delete(o);
}

/* select_calls: the calls to replay: every finished call of run, or the calls ids.
 * Output: *out, *n (caller frees with store_calls_free). Errors print a message naming
 * the run or call. */
static int select_calls(struct store *st, long long run, const long long *ids, int n_ids,
			struct store_call_row **out, int *n)
{
	struct store_call_row *all = NULL;
	int cnt = 0;

	if (run) {
		struct store_call_filter f = {.run = run, .finished = true};
		if (store_calls(st, &f, out, n) != ERR_OK) {
			fprintf(stderr, "formdesk replay: %s\n", store_error(st));
			return 2;
		}
		return 0;
	}
	if (!(all = calloc((size_t)n_ids, sizeof *all)))
		return 2;
	for (int i = 0; i < n_ids; i++) {
		struct store_call_filter f = {.id = ids[i]};
		struct store_call_row *one = NULL;
		int k = 0;
		if (store_calls(st, &f, &one, &k) != ERR_OK) {
			fprintf(stderr, "formdesk replay: %s\n", store_error(st));
			goto fail;
		}
		if (k != 1 || strcmp(one[0].status, "in_progress") == 0) {
			fprintf(stderr, "formdesk replay: call %lld: %s in %s\n", ids[i],
				k ? "still in progress" : "no such call", store_path(st));
			store_calls_free(one, k);
			goto fail;
		}
		all[cnt++] = one[0]; /* the strings move into all */
		free(one);
	}
	*out = all;
	*n = cnt;
	return 0;
fail:
	store_calls_free(all, cnt);
	return 2;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o = {0};
	struct compose_opts co = {.stt = "reference", .extract = "rules", .reply = "script"};
	long long ids[MAX_CALLS], run = 0;
	int n_ids = 0, n_calls = 0, n_runs = 0, rc = 2;
	struct store *src = NULL, *dst = NULL;
	struct store_call_row *calls = NULL;
	struct store_run_row *runs = NULL;
	struct form *form = NULL;
	struct form_issues issues = {0};
	struct compose *c = NULL;
	struct engine_config cfg = {.endpoint = endpoint_defaults()};
	struct replay_stats stats;
	long long new_run = 0;
	char *msg = NULL;
	enum err e;

	/* --call may be given more than once: each is collected before the table sees it */
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--call") == 0 && !parse_ids(argv[i + 1], ids, &n_ids)) {
			fprintf(stderr, "formdesk replay: --call '%s': expected call ids N[,N...]\n",
				argv[i + 1]);
			return 2;
		}
	enum opts_result pr = opts_parse(&cmd_replay_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (o.call && n_ids == 0 && !parse_ids(o.call, ids, &n_ids)) { /* --call=N */
		fprintf(stderr, "formdesk replay: --call '%s': expected call ids N[,N...]\n", o.call);
		return 2;
	}
	const char *db = o.db, *run_s = o.run, *form_path = o.form, *stt = co.stt,
		   *extract = co.extract, *reply = co.reply, *today = co.today,
		   *out_db = o.out_db, *from_s = o.from;
	if (!db || (!run_s == !n_ids)) {
		fprintf(stderr, "formdesk replay: give one of --run R or --call N\n");
		opts_brief(&cmd_replay_opts, stderr);
		return 2;
	}
	if (run_s && (!parse_ids(run_s, &run, &(int){0}) || run <= 0)) {
		fprintf(stderr, "formdesk replay: --run '%s': expected a run id\n", run_s);
		return 2;
	}
	if (from_s && strcmp(from_s, "words") != 0 && strcmp(from_s, "audio") != 0) {
		fprintf(stderr, "formdesk replay: --from '%s': expected words or audio\n", from_s);
		return 2;
	}
	if (today && !ymd_parse_iso(today, &cfg.today)) {
		fprintf(stderr, "formdesk replay: --today '%s': expected a date YYYY-MM-DD\n", today);
		return 2;
	}
	if (compose_open_db("replay", db, STORE_EXISTING, &src) != ERR_OK)
		goto out;
	if (run && (e = store_runs(src, run, &runs, &n_runs)) == ERR_OK && n_runs == 0) {
		fprintf(stderr, "formdesk replay: run %lld: no such run in %s (formdesk runs --db %s "
				"lists them)\n", run, db, db);
		goto out;
	}
	if (select_calls(src, run, ids, n_ids, &calls, &n_calls) != 0)
		goto out;
	if (n_calls == 0) {
		fprintf(stderr, "formdesk replay: run %lld has no finished calls to replay\n", run);
		goto out;
	}
	if (!run && (store_runs(src, calls[0].info.run_id, &runs, &n_runs) != ERR_OK))
		goto out;
	const struct store_run_row *from = n_runs ? &runs[0] : NULL;

	/* the form: the one given, else the run's own as it was kept */
	if (form_path) {
		e = form_load(form_path, &form, &issues);
	} else if (from && from->info.form_json) {
		form_path = from->info.form_path;
		e = form_parse(from->info.form_json, &form, &issues);
	} else if ((form_path = from ? from->info.form_path : calls[0].info.form_path)) {
		e = form_load(form_path, &form, &issues);
	} else {
		e = ERR_NOTFOUND;
	}
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk replay: form %s: %s\n", form_path ? form_path : "(none kept)",
			err_str(e));
		compose_say_issues(&issues);
		goto out;
	}
	/* the provider config, the backends and the word lists: the composition root's */
	if (compose_new("replay", &co, COMPOSE_CONFIG | COMPOSE_BACKENDS | COMPOSE_LEXICON, &c) != ERR_OK)
		goto out;
	compose_backends(c, &cfg);
	if (from)
		run_options(from->info.options, &cfg);
	if (!today) {
		const char *t = calls[0].info.today;
		if (!t || !ymd_parse_iso(t, &cfg.today))
			cfg.today = ymd_today();
	}
	cfg.form = form;
	cfg.form_path = form_path;
	cfg.corpus_name = from ? from->info.corpus : calls[0].info.corpus;

	struct replay_spec rs = {
		.src = src,
		.run = {.cfg = &cfg, .stt = stt, .extract = extract, .reply = reply,
			.corpus_dir = from ? from->info.corpus_dir : NULL,
			.replay_of = from ? from->id : 0},
		.words = from_s ? strcmp(from_s, "words") == 0 : strcmp(stt, "reference") == 0,
		.today_set = today != NULL,
	};
	if (!form_path || form_path == (from ? from->info.form_path : NULL))
		rs.run.form_json = from ? from->info.form_json : NULL;
	/* nothing is written before every call is known to replay */
	free(msg);
	msg = NULL;
	if ((e = replay_check(&rs, calls, n_calls, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk replay: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	free(msg);
	msg = NULL;
	if (out_db && compose_open_db("replay", out_db, STORE_CREATE, &dst) != ERR_OK)
		goto out;
	cfg.store = dst ? dst : src;
	if ((e = replay_run(&rs, calls, n_calls, &new_run, &stats, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk replay: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	printf("{\"run\":%lld,\"db\":", new_run);
	{
		cJSON *s = cJSON_CreateString(out_db ? out_db : db);
		char *t = s ? cJSON_PrintUnformatted(s) : NULL;
		fputs(t ? t : "null", stdout);
		free(t);
		cJSON_Delete(s);
	}
	if (from)
		printf(",\"replay_of\":%lld", from->id);
	else
		printf(",\"replay_of\":null");
	printf(",\"calls\":%d,\"turns\":%d,\"unanswered\":%d}\n", stats.calls, stats.turns,
	       stats.unanswered);
	rc = 0;
out:
	store_calls_free(calls, n_calls);
	store_runs_free(runs, n_runs);
	store_close(dst);
	store_close(src);
	form_free(form);
	form_issues_free(&issues);
	free(msg);
	compose_free(c);
	return rc;
}
