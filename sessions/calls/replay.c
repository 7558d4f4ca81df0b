/* replay: recorded calls played again through a change (see replay.h). */
#include "replay.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "agent/rules/decision.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "base/ymd.h"
#include "base/str.h"
#include "audio/audiofile.h"
#include "sessions/corpus/corpus.h"
#include "engine.h"
#include "sessions/store/store.h"

#define MIC_RATE 16000
#define MIC_PAD_MS 300 /* either side of a microphone turn, for the endpointer */
#define HUNG_UP "the caller hung up" /* the engine's reason when a corpus call's turns ran out */
#define ABANDONED "abandoned"        /* a live call's, when the caller went */

/* One recorded caller turn and the question it answered. */
struct rec {
	const struct store_turn_row *row;
	char *asked;   /* the field asked before it, NULL unknown */
	bool used;
};

/* One recorded call, read for replaying. */
struct recorded {
	const struct store_call_row *call;
	struct store_turn_row *turns;
	int n;
	struct rec *recs;
};

static void recorded_free(struct recorded *r)
{
	if (r->recs)
		for (int i = 0; i < r->n; i++)
			free(r->recs[i].asked);
	free(r->recs);
	store_turns_free(r->turns, r->n);
	memset(r, 0, sizeof *r);
}

/* call_name: how a message names a recorded call (static buffer of the caller). */
static const char *call_name(const struct store_call_row *c, char *buf, size_t n)
{
	if (c->info.corpus && c->info.corpus_call_id)
		snprintf(buf, n, "call %lld (%s/%s)", c->id, c->info.corpus, c->info.corpus_call_id);
	else
		snprintf(buf, n, "call %lld", c->id);
	return buf;
}

/* recorded_read: call's turns and the question each answered. Errors: ERR_DB, ERR_NOMEM. */
static enum err recorded_read(struct store *st, const struct store_call_row *call,
			      struct recorded *r)
{
	enum err e;

	memset(r, 0, sizeof *r);
	r->call = call;
	if ((e = store_turns(st, call->id, &r->turns, &r->n)) != ERR_OK)
		return e;
	if (r->n && !(r->recs = calloc((size_t)r->n, sizeof *r->recs)))
		return ERR_NOMEM;
	for (int i = 0; i < r->n; i++) {
		struct decision *d = runs_decision(r->turns[i].t.decision);
		r->recs[i].row = &r->turns[i];
		if (d && d->asked && !(r->recs[i].asked = strdup(d->asked))) {
			decision_free(d);
			return ERR_NOMEM;
		}
		decision_free(d);
	}
	return ERR_OK;
}

/* mic_file: the caller's recording of a microphone turn's call (buf of size n). */
static const char *mic_file(const struct store_call_row *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s/caller.wav", c->audio_dir ? c->audio_dir : ".");
	return buf;
}

static bool is_mic(const struct store_turn_row *t)
{
	return t->t.input && strcmp(t->t.input, "mic") == 0;
}

/* check_one: the rules of replay_check for one call. */
static enum err check_one(const struct replay_spec *spec, const struct recorded *r,
			  char **errmsg)
{
	const struct form *form = spec->run.cfg->form;
	char name[160], file[PATH_MAX];
	bool asked_any = false, fits = false;

	for (int i = 0; i < r->n; i++) {
		const struct store_turn_row *t = r->recs[i].row;
		if (r->recs[i].asked) {
			asked_any = true;
			fits = fits || form_find(form, r->recs[i].asked) >= 0;
		}
		if (spec->words || t->t.silence)
			continue;
		if (is_mic(t) && t->t.recorded) {
			if (access(mic_file(r->call, file, sizeof file), R_OK) != 0) {
				*errmsg = str_printf("%s, turn %d: its recording %s is gone (replay its words "
					      "with --stt reference)",
					      call_name(r->call, name, sizeof name), t->t.index, file);
				return ERR_NOTFOUND;
			}
		} else if (t->t.audio && !is_mic(t) && access(t->t.audio, R_OK) != 0) {
			*errmsg = str_printf("%s, turn %d: its recording %s is gone (replay its words with "
				      "--stt reference)",
				      call_name(r->call, name, sizeof name), t->t.index, t->t.audio);
			return ERR_NOTFOUND;
		}
	}
	if (asked_any && !fits) {
		*errmsg = str_printf("%s does not fit the form '%s': none of the questions it answered "
			      "(first: %s) is in it",
			      call_name(r->call, name, sizeof name), form->title ? form->title : "?",
			      r->recs[0].asked ? r->recs[0].asked : "?");
		return ERR_INVALID;
	}
	return ERR_OK;
}

enum err replay_check(const struct replay_spec *spec, const struct store_call_row *calls, int n,
		      char **errmsg)
{
	enum err e = ERR_OK;

	*errmsg = NULL;
	for (int i = 0; i < n && e == ERR_OK; i++) {
		struct recorded r;
		if ((e = recorded_read(spec->src, &calls[i], &r)) == ERR_OK)
			e = check_one(spec, &r, errmsg);
		else
			*errmsg = strdup(store_error(spec->src));
		recorded_free(&r);
	}
	if (e != ERR_OK && !*errmsg)
		*errmsg = strdup(err_str(e));
	return e;
}

/* The engine's errors go to stderr, naming the call and turn. */
static void on_event(void *ud, const struct engine_event *ev)
{
	(void)ud;
	if (ev->kind == ENGINE_ERROR)
		fprintf(stderr, "formdesk replay: call %s, turn %d: %s\n",
			ev->call_id ? ev->call_id : "?", ev->turn, ev->text ? ev->text : "error");
}

/* next_rec: the next recorded turn not yet heard that answered field (NULL: none). */
static struct rec *next_rec(struct recorded *r, const char *field)
{
	for (int i = 0; i < r->n && field; i++)
		if (!r->recs[i].used && r->recs[i].asked && strcmp(r->recs[i].asked, field) == 0)
			return &r->recs[i];
	return NULL;
}

/* mic_samples: the stretch of the caller's recording of turn t (with MIC_PAD_MS either
 * side), 16 kHz mono. Output: *s (caller frees), *n. Errors: as audiofile_read. */
static enum err mic_samples(const struct store_call_row *c, const struct store_turn_row *t,
			    float **s, size_t *n)
{
	char file[PATH_MAX], *msg = NULL;
	float *all = NULL;
	size_t len = 0, a, b;
	enum err e;

	if ((e = audiofile_read(mic_file(c, file, sizeof file), MIC_RATE, &all, &len, &msg)) !=
	    ERR_OK) {
		fprintf(stderr, "formdesk replay: %s\n", msg ? msg : err_str(e));
		free(msg);
		return e;
	}
	a = t->t.caller_audio_start_ms > MIC_PAD_MS
		    ? (size_t)(t->t.caller_audio_start_ms - MIC_PAD_MS) * MIC_RATE / 1000 : 0;
	b = (size_t)(t->t.caller_audio_end_ms + MIC_PAD_MS) * MIC_RATE / 1000;
	if (b > len)
		b = len;
	if (a > b)
		a = b;
	memmove(all, all + a, (b - a) * sizeof *all);
	*s = all;
	*n = b - a;
	return ERR_OK;
}

/* play_turn: start the turn that answers with rec (NULL: silence) in slot idx of sc, and
 * wait until it is done. */
static enum err play_turn(const struct replay_spec *spec, struct engine *e,
			  const struct recorded *r, struct corpus_call *sc, int idx,
			  const struct rec *rec)
{
	struct engine_input in = {.silence = true, .condition = REPLAY_UNANSWERED};
	const struct store_turn *t = rec ? &rec->row->t : NULL;
	float *samples = NULL;
	enum err err;

	if (t && !spec->words && !t->silence && !is_mic(rec->row) && t->audio) {
		/* a corpus recording: the engine reads it as it reads a corpus turn */
		sc->turns[idx] = (struct corpus_turn){
			.utterance_id = (char *)t->utterance_id, .audio = (char *)t->audio,
			.transcript = (char *)t->transcript, .condition = (char *)t->condition,
			.barge_in_ms = t->barge_in ? t->barge_in_ms : -1};
		err = engine_start_turn(e, NULL);
	} else {
		if (t) {
			in = (struct engine_input){
				.transcript = t->silence ? NULL : t->transcript,
				.audio = t->audio, .condition = t->condition,
				.utterance_id = t->utterance_id, .input = "typed",
				.silence = t->silence || !t->transcript, .barge_in = t->barge_in,
				.barge_in_ms = t->barge_in_ms};
			if (!spec->words && is_mic(rec->row) && t->recorded && !t->silence) {
				if ((err = mic_samples(r->call, rec->row, &samples, &in.n_samples)) !=
				    ERR_OK)
					return err;
				in.samples = samples;
				in.input = "mic";
			}
		}
		err = engine_start_turn(e, &in);
	}
	free(samples);
	while (err == ERR_OK && engine_busy(e))
		err = engine_poll(e, 50, NULL, 0);
	return err;
}

/* replay_one: replay recorded call r into the run of cfg. */
static enum err replay_one(const struct replay_spec *spec, const struct engine_config *base,
			   struct recorded *r, struct replay_stats *stats)
{
	struct engine_config cfg = *base;
	struct engine *e = NULL;
	struct corpus_call sc = {0};
	const struct form *form = cfg.form;
	const char *reason = r->call->reason ? r->call->reason : "";
	/* the caller left (a corpus call's turns ran out, a live caller went): she does so
	 * again once every recording she made has been heard */
	bool hung_up = r->call->status && strcmp(r->call->status, "failed") == 0 &&
		       (strncmp(reason, HUNG_UP, strlen(HUNG_UP)) == 0 ||
			strncmp(reason, ABANDONED, strlen(ABANDONED)) == 0);
	int left = 0, silences = 0;
	enum err err;

	/* the call as it was made: its corpus and today, unless the run overrides today */
	cfg.corpus_name = r->call->info.corpus;
	if (!spec->today_set && r->call->info.today)
		ymd_parse_iso(r->call->info.today, &cfg.today);
	sc.id = (char *)(r->call->info.corpus_call_id ? r->call->info.corpus_call_id : "live");
	sc.caller = (char *)r->call->info.caller;
	sc.path = (char *)r->call->info.path;
	sc.n_turns = r->n + REPLAY_MAX_SILENCE + 1;
	if (!(sc.turns = calloc((size_t)sc.n_turns, sizeof *sc.turns)))
		return ERR_NOMEM;
	for (int i = 0; i < r->n; i++)
		if (r->recs[i].asked && form_find(form, r->recs[i].asked) >= 0)
			left++;
	if (left == 0 && hung_up && strncmp(reason, HUNG_UP, strlen(HUNG_UP)) == 0)
		sc.n_turns = 0; /* the engine says so itself, as for the corpus call */
	if ((err = engine_new(&cfg, on_event, NULL, &e)) != ERR_OK)
		goto out;
	if ((err = engine_begin(e, &sc)) != ERR_OK)
		goto out;
	if (engine_call_row(e) > 0 &&
	    (err = store_call_replay_of(cfg.store, engine_call_row(e), r->call->id)) != ERR_OK)
		goto out;
	while (engine_call_open(e)) {
		int q = flow_current(engine_flow(e)), idx = engine_turns(e);
		struct rec *rec;

		if (hung_up && left == 0) {
			err = engine_hang_up(e, reason);
			break;
		}
		if ((rec = next_rec(r, q >= 0 ? form->questions[q].name : NULL))) {
			rec->used = true;
			left--;
		} else if (++silences > REPLAY_MAX_SILENCE) {
			err = engine_hang_up(e, "the caller hung up: the recording answers nothing more");
			break;
		} else {
			stats->unanswered++;
		}
		if ((err = play_turn(spec, e, r, &sc, idx, rec)) != ERR_OK)
			break;
		stats->turns++;
	}
	stats->calls++;
out:
	engine_free(e);
	free(sc.turns);
	return err;
}

enum err replay_run(const struct replay_spec *spec, const struct store_call_row *calls, int n,
		    long long *run, struct replay_stats *stats, char **errmsg)
{
	struct runs_spec rs = spec->run;
	struct engine_config cfg = *spec->run.cfg;
	struct store *dst = cfg.store;
	enum err e;

	memset(stats, 0, sizeof *stats);
	if ((e = replay_check(spec, calls, n, errmsg)) != ERR_OK)
		return e;
	rs.source = "replay";
	if ((e = runs_begin(dst, &rs, &cfg.run_id, errmsg)) != ERR_OK)
		return e;
	for (int i = 0; i < n && e == ERR_OK; i++) {
		struct recorded r;
		char name[160];
		/* a store's failure is named by the store it happened in */
		struct store *where = spec->src;
		if ((e = recorded_read(spec->src, &calls[i], &r)) == ERR_OK) {
			where = dst;
			e = replay_one(spec, &cfg, &r, stats);
		}
		if (e != ERR_OK)
			*errmsg = str_printf("%s: %s", call_name(&calls[i], name, sizeof name),
					      e == ERR_DB ? store_error(where) : err_str(e));
		recorded_free(&r);
	}
	if (runs_end(dst, cfg.run_id) != ERR_OK && e == ERR_OK) {
		*errmsg = strdup(store_error(dst));
		e = ERR_DB;
	}
	*run = cfg.run_id;
	return e;
}
