/* engine: runs a corpus call turn by turn through the agent into the store (engine.h).
 * One caller turn: audio (16 kHz mono) -> endpointer -> STT -> EXTRACT -> rule layer ->
 * REPLY -> one store transaction, with an event to the listener after each stage. */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audio/audiofile.h"
#include "sessions/corpus.h"
#include "sessions/store.h"

/* The rate every stage below the audio reader works at: the endpointer takes 8 or 16 kHz
 * and the STT services take 16 kHz. */
#define ENGINE_RATE 16000

struct engine {
	struct engine_config cfg;
	engine_listener listener;
	void *ud;

	const struct corpus_call *call;
	struct flow *flow;
	cJSON *history;       /* [{"role","content"}], the agent's and the caller's words */
	long long row;        /* the call's row in the store */
	bool recording;       /* row is valid */
	bool open;            /* the call has begun and not ended */
	int next;             /* the corpus turn to play next */
	enum call_status status;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void emit(struct engine *e, enum engine_event_kind kind, int turn, const char *text,
		 const cJSON *json, const struct engine_timings *t)
{
	struct engine_event ev = {
		.kind = kind,
		.call_id = e->call ? e->call->id : NULL,
		.turn = turn,
		.text = text,
		.json = json,
		.timings = t,
		.status = e->status,
	};
	if (e->listener)
		e->listener(e->ud, &ev);
}

/* note: append "what" to the turn's error text (*errs, caller frees) and tell the
 * listener. */
static void note(struct engine *e, int turn, char **errs, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, *joined = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	emit(e, ENGINE_ERROR, turn, msg, NULL, NULL);
	if (*errs) {
		if (asprintf(&joined, "%s; %s", *errs, msg) >= 0) {
			free(*errs);
			*errs = joined;
		}
		free(msg);
	} else {
		*errs = msg;
	}
}

static enum err history_add(struct engine *e, const char *role, const char *content)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "role", role) ||
	    !cJSON_AddStringToObject(o, "content", content) || !cJSON_AddItemToArray(e->history, o)) {
		cJSON_Delete(o);
		return ERR_NOMEM;
	}
	return ERR_OK;
}

enum err engine_new(const struct engine_config *cfg, engine_listener listener, void *ud,
		    struct engine **out)
{
	struct engine *e = calloc(1, sizeof *e);
	if (!e)
		return ERR_NOMEM;
	e->cfg = *cfg;
	e->listener = listener;
	e->ud = ud;
	*out = e;
	return ERR_OK;
}

/* finish: end the open call with status and reason: record it, tell the listener. */
static enum err finish(struct engine *e, enum call_status status, const char *reason)
{
	char *data = NULL, *fstatus = NULL;
	cJSON *both = NULL;
	enum err err = ERR_NOMEM;
	int turns = e->next;

	e->open = false;
	e->status = status;
	if (!(data = cJSON_PrintUnformatted(flow_form_data(e->flow))) ||
	    !(fstatus = cJSON_PrintUnformatted(flow_form_status(e->flow))))
		goto out;
	if (e->recording) {
		err = store_call_end(e->cfg.store, e->row, call_status_name(status), reason, data,
				     fstatus, turns);
		if (err != ERR_OK) {
			emit(e, ENGINE_ERROR, turns, store_error(e->cfg.store), NULL, NULL);
			goto out;
		}
	}
	err = ERR_NOMEM;
	if (!(both = cJSON_CreateObject()) ||
	    !cJSON_AddItemToObject(both, "form_data", cJSON_Duplicate(flow_form_data(e->flow), 1)) ||
	    !cJSON_AddItemToObject(both, "form_status",
				   cJSON_Duplicate(flow_form_status(e->flow), 1)) ||
	    !cJSON_AddStringToObject(both, "reason", reason ? reason : ""))
		goto out;
	emit(e, ENGINE_CALL_END, turns, reason, both, NULL);
	err = ERR_OK;
out:
	cJSON_Delete(both);
	free(data);
	free(fstatus);
	return err;
}

static void drop_call(struct engine *e)
{
	flow_free(e->flow);
	e->flow = NULL;
	cJSON_Delete(e->history);
	e->history = NULL;
	e->call = NULL;
	e->recording = false;
	e->open = false;
	e->next = 0;
	e->status = CALL_IN_PROGRESS;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->open)
		finish(e, CALL_FAILED, "abandoned: the session ended during the call");
	drop_call(e);
	free(e);
}

/* reply: the agent's words for decision. Output: *text (caller frees), NULL when REPLY
 * failed (noted in *errs). */
static void reply(struct engine *e, int turn, const cJSON *decision, char **text, char **errs,
		  double *ms)
{
	struct reply_request req = {e->cfg.form, decision, e->history};
	double t0 = now_ms();
	enum err err;

	*text = NULL;
	err = e->cfg.reply.reply ? e->cfg.reply.reply(e->cfg.reply.ctx, &req, text)
				 : ERR_UNSUPPORTED;
	*ms = now_ms() - t0;
	if (err != ERR_OK) {
		*text = NULL;
		note(e, turn, errs, "reply (%s): %s", e->cfg.reply.name ? e->cfg.reply.name : "?",
		     err_str(err));
	}
}

/* end_reason: the decision's "reason", for the calls table. */
static const char *end_reason(const cJSON *decision)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(decision, "reason");
	return cJSON_IsString(r) ? r->valuestring : NULL;
}

enum err engine_begin(struct engine *e, const struct corpus_call *call)
{
	cJSON *decision = NULL;
	char *opening = NULL, *dtext = NULL, *errs = NULL;
	char today[16];
	double ms;
	enum err err;

	if (e->open)
		finish(e, CALL_FAILED, "abandoned: the next call was started");
	drop_call(e);
	e->call = call;
	if (!(e->history = cJSON_CreateArray())) {
		err = ERR_NOMEM;
		goto out;
	}
	if ((err = flow_new(e->cfg.form, e->cfg.lex, e->cfg.today, &e->flow)) != ERR_OK ||
	    (err = flow_start(e->flow, &decision)) != ERR_OK)
		goto out;
	e->open = true;
	emit(e, ENGINE_CALL_START, 0, call->id, NULL, NULL);
	emit(e, ENGINE_DECISION, 0, NULL, decision, NULL);
	reply(e, 0, decision, &opening, &errs, &ms);
	if (opening && (err = history_add(e, "agent", opening)) != ERR_OK)
		goto out;
	err = ERR_NOMEM;
	if (!(dtext = cJSON_PrintUnformatted(decision)))
		goto out;
	if (e->cfg.store) {
		snprintf(today, sizeof today, "%04d-%02d-%02d", e->cfg.today.y, e->cfg.today.m,
			 e->cfg.today.d);
		struct store_call_info info = {
			.corpus = e->cfg.corpus_name,
			.corpus_call_id = call->id,
			.caller = call->caller,
			.path = call->path,
			.form_path = e->cfg.form_path,
			.form_title = e->cfg.form->title,
			.stt = e->cfg.stt.name,
			.extract = e->cfg.extract.name,
			.reply = e->cfg.reply.name,
			.today = today,
			.opening = opening,
			.opening_decision = dtext,
		};
		if ((err = store_call_begin(e->cfg.store, &info, &e->row)) != ERR_OK) {
			emit(e, ENGINE_ERROR, 0, store_error(e->cfg.store), NULL, NULL);
			e->open = false;
			goto out;
		}
		e->recording = true;
	}
	if (opening)
		emit(e, ENGINE_AGENT_SAYS, 0, opening, NULL, NULL);
	err = ERR_OK;
	/* A form with nothing to ask ends at once. */
	if (flow_status(e->flow) != CALL_IN_PROGRESS)
		err = finish(e, flow_status(e->flow), end_reason(decision));
	else if (call->n_turns == 0)
		err = finish(e, CALL_FAILED, "the caller hung up: the call has no caller turns");
out:
	if (err != ERR_OK && e->open && !e->recording)
		e->open = false;
	cJSON_Delete(decision);
	free(opening);
	free(dtext);
	free(errs);
	return err;
}

/* segments_json: the endpointer's segments as [{"start_ms","end_ms"}]. */
static cJSON *segments_json(const struct endpoint_segment *segs, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; a && i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddNumberToObject(o, "start_ms", (double)segs[i].start_ms) ||
		    !cJSON_AddNumberToObject(o, "end_ms", (double)segs[i].end_ms) ||
		    !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

enum err engine_step(struct engine *e, bool *ended)
{
	const struct corpus_turn *turn;
	struct engine_timings tm = {0};
	float *samples = NULL;
	size_t n_samples = 0;
	struct endpoint_segment *segs = NULL;
	int n_segs = 0, index;
	bool speech;
	char *transcript = NULL, *said = NULL, *errs = NULL, *msg = NULL;
	char *seg_text = NULL, *ex_text = NULL, *dec_text = NULL;
	struct extraction *ex = NULL;
	cJSON *caller = NULL, *ex_json = NULL, *decision = NULL;
	double t0, t_start = now_ms();
	enum err err = ERR_OK;

	*ended = true;
	if (!e->flow)
		return ERR_INVALID;
	if (!e->open)
		return ERR_OK;
	turn = &e->call->turns[e->next];
	index = ++e->next;

	/* Audio and endpointing. A turn without audio is typed text: its transcript is what
	 * the caller said. */
	if (turn->audio) {
		t0 = now_ms();
		err = audiofile_read(turn->audio, ENGINE_RATE, &samples, &n_samples, &msg);
		tm.audio_ms = now_ms() - t0;
		if (err != ERR_OK) {
			note(e, index, &errs, "audio: %s", msg ? msg : err_str(err));
			samples = NULL;
			n_samples = 0;
		} else {
			t0 = now_ms();
			err = endpoint_find(samples, n_samples, ENGINE_RATE, &e->cfg.endpoint, &segs,
					    &n_segs);
			tm.vad_ms = now_ms() - t0;
			if (err != ERR_OK) {
				note(e, index, &errs, "endpointer: %s (%s)", err_str(err), turn->audio);
				segs = NULL;
				n_segs = 0;
			}
		}
		free(msg);
		msg = NULL;
		for (int i = 0; i < n_segs; i++)
			tm.speech_ms += (double)(segs[i].end_ms - segs[i].start_ms);
		speech = n_segs > 0;
	} else {
		speech = turn->transcript != NULL;
	}

	/* STT on the span from the first speech to the last. */
	if (speech) {
		struct stt_request req = {.reference = turn->transcript, .language = "hi",
					  .sample_rate = ENGINE_RATE};
		if (samples && n_segs > 0) {
			size_t a = (size_t)segs[0].start_ms * (ENGINE_RATE / 1000);
			size_t b = (size_t)segs[n_segs - 1].end_ms * (ENGINE_RATE / 1000);
			if (b > n_samples)
				b = n_samples;
			if (a < b) {
				req.samples = samples + a;
				req.n_samples = b - a;
			}
		}
		t0 = now_ms();
		err = e->cfg.stt.transcribe ? e->cfg.stt.transcribe(e->cfg.stt.ctx, &req, &transcript)
					    : ERR_UNSUPPORTED;
		tm.stt_ms = now_ms() - t0;
		if (err != ERR_OK) {
			transcript = NULL;
			note(e, index, &errs, "stt (%s): %s", e->cfg.stt.name ? e->cfg.stt.name : "?",
			     err_str(err));
		}
	}
	err = ERR_NOMEM;
	if (!(caller = cJSON_CreateObject()) ||
	    !cJSON_AddItemToObject(caller, "audio", turn->audio ? cJSON_CreateString(turn->audio)
								: cJSON_CreateNull()) ||
	    !cJSON_AddItemToObject(caller, "segments", segments_json(segs, n_segs)) ||
	    !cJSON_AddItemToObject(caller, "condition",
				   turn->condition ? cJSON_CreateString(turn->condition)
						   : cJSON_CreateNull()) ||
	    !cJSON_AddItemToObject(caller, "utterance_id",
				   turn->utterance_id ? cJSON_CreateString(turn->utterance_id)
						      : cJSON_CreateNull()))
		goto out;
	emit(e, ENGINE_CALLER_SAYS, index, transcript, caller, NULL);

	/* EXTRACT, with the question just asked and the history before this answer. */
	if (transcript && transcript[0]) {
		struct extract_request req = {
			.form = e->cfg.form,
			.lex = e->cfg.lex,
			.asked = flow_current(e->flow),
			.transcript = transcript,
			.history = e->history,
			.today = e->cfg.today,
		};
		t0 = now_ms();
		err = e->cfg.extract.extract ? e->cfg.extract.extract(e->cfg.extract.ctx, &req, &ex)
					     : ERR_UNSUPPORTED;
		tm.extract_ms = now_ms() - t0;
		if (err != ERR_OK) {
			ex = NULL;
			note(e, index, &errs, "extract (%s): %s",
			     e->cfg.extract.name ? e->cfg.extract.name : "?", err_str(err));
		} else {
			err = ERR_NOMEM;
			if (!(ex_json = extraction_to_json(ex)))
				goto out;
			emit(e, ENGINE_EXTRACTED, index, NULL, ex_json, NULL);
		}
		if ((err = history_add(e, "user", transcript)) != ERR_OK)
			goto out;
	}

	/* The rule layer decides; nothing captured (silence, a failed stage) uses a retry. */
	t0 = now_ms();
	err = flow_turn(e->flow, ex, &decision);
	tm.rules_ms = now_ms() - t0;
	if (err != ERR_OK)
		goto out;
	emit(e, ENGINE_DECISION, index, NULL, decision, NULL);

	reply(e, index, decision, &said, &errs, &tm.reply_ms);
	if (said) {
		if ((err = history_add(e, "agent", said)) != ERR_OK)
			goto out;
		emit(e, ENGINE_AGENT_SAYS, index, said, NULL, NULL);
	}
	tm.total_ms = now_ms() - t_start;

	err = ERR_NOMEM;
	if (!(seg_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(caller, "segments"))) ||
	    !(dec_text = cJSON_PrintUnformatted(decision)) ||
	    (ex_json && !(ex_text = cJSON_PrintUnformatted(ex_json))))
		goto out;
	if (e->recording) {
		struct store_turn st = {
			.index = index,
			.utterance_id = turn->utterance_id,
			.audio = turn->audio,
			.condition = turn->condition,
			.seg_start_ms = n_segs ? segs[0].start_ms : -1,
			.seg_end_ms = n_segs ? segs[n_segs - 1].end_ms : -1,
			.segments = seg_text,
			.transcript = transcript,
			.extraction = ex_text,
			.decision = dec_text,
			.reply = said,
			.audio_ms = tm.audio_ms,
			.vad_ms = tm.vad_ms,
			.stt_ms = tm.stt_ms,
			.extract_ms = tm.extract_ms,
			.rules_ms = tm.rules_ms,
			.reply_ms = tm.reply_ms,
			.total_ms = tm.total_ms,
			.speech_ms = tm.speech_ms,
			.error = errs,
		};
		if ((err = store_turn_add(e->cfg.store, e->row, &st)) != ERR_OK) {
			emit(e, ENGINE_ERROR, index, store_error(e->cfg.store), NULL, NULL);
			goto out;
		}
	}
	emit(e, ENGINE_TURN_DONE, index, NULL, NULL, &tm);

	err = ERR_OK;
	if (flow_status(e->flow) != CALL_IN_PROGRESS)
		err = finish(e, flow_status(e->flow), end_reason(decision));
	else if (e->next >= e->call->n_turns)
		err = finish(e, CALL_FAILED, "the caller hung up: the call's recorded turns ran out");
out:
	*ended = !e->open;
	free(samples);
	free(segs);
	free(transcript);
	free(said);
	free(errs);
	free(seg_text);
	free(ex_text);
	free(dec_text);
	extraction_free(ex);
	cJSON_Delete(caller);
	cJSON_Delete(ex_json);
	cJSON_Delete(decision);
	return err;
}

const struct flow *engine_flow(const struct engine *e)
{
	return e ? e->flow : NULL;
}
