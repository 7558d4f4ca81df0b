/* engine: runs a call turn by turn through the agent into the store (engine.h).
 * One caller turn: audio (16 kHz mono) -> endpointer -> STT -> EXTRACT -> rule layer ->
 * REPLY -> one store transaction, with an event to the listener after each stage. The
 * network stages run on the engine's HTTP client; the turn in progress is a small state
 * machine that drive() moves on as far as it can, until a request is in flight. */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/stages/provider.h"
#include "agent/stages/reply_script.h"
#include "agent/stages/textcheck.h"
#include "agent/hindi/turnkind.h"
#include "audio/audiofile.h"
#include "audio/channel.h"
#include "sessions/corpus/corpus.h"
#include "sessions/store/store.h"
#include "sessions/store/turncol.h"

/* The rate every stage below the audio reader works at: the endpointer takes 8 or 16 kHz
 * and the STT services take 16 kHz. */
#define ENGINE_RATE 16000

/* Where a turn is: each state runs its stage (at once, or by starting a request and
 * waiting for it), then moves to the next. */
enum turn_state { T_STT, T_EXTRACT, T_RULES, T_REPLY, T_DONE };

struct turn {
	int index;              /* caller turn number; 0 for the call's opening */
	enum turn_state state;
	bool started;           /* the state's stage has begun */
	struct http_xfer *xfer; /* the request in flight, NULL when none */
	struct http_result *res; /* its answer, delivered and not yet read */
	enum engine_stage stage; /* of xfer */
	double stage_t0, t_start;
	struct engine_timings tm;

	/* what the caller said: owned copies */
	char *audio, *condition, *utterance_id, *reference;
	const char *input;      /* static: "corpus", "typed", "mic" */
	bool silence, barge_in, recorded;
	bool typed;             /* words typed at the desk: STT is skipped */
	long barge_in_ms, rec_start_ms, rec_end_ms;
	const char *barge_during; /* static */
	long agent_ms;          /* length of the agent's words the barge-in cut, ms (0: not known) */
	bool cut_inside;        /* the barge-in cut the agent's last reply before its end */
	bool backchannel;       /* a backchannel during the agent's words: no answer, the agent
	                           goes on (agent/hindi/turnkind.h) */
	bool held;              /* an unfinished turn: not judged, its words join the next */
	int joins;              /* the earlier turn whose words this one carries, 0 none */
	char *carried;          /* words of that turn known before this one's STT: said first */
	float *samples;
	size_t n_samples;
	struct endpoint_segment *segs;
	int n_segs;
	bool speech;
	struct stt_request sreq;

	char *transcript, *said, *errs;
	bool heard;             /* the transcript went into the history */
	char *ack;              /* the acknowledgement said at once (ENGINE_ACK sent), NULL
	                           while none was */
	double ack_ms;          /* when: ms after EXTRACT began */
	double wait_ms;         /* the endpointer's wait before the turn began, ms */
	double ago_ms;          /* the end of the caller's speech before the turn began, ms */
	char wait_by[72];       /* what governs it */
	struct extraction *ex;
	struct extract_request xreq;
	cJSON *caller, *ex_json;
	struct decision *dec;   /* the rule layer's decision, NULL until the rules ran */
	cJSON *decision;        /* dec as JSON, made once: REPLY's tool call and the store's */
	struct reply_request rreq;
	char *spoken;           /* REPLY's sentences handed out while its answer streamed
	                           (ENGINE_REPLY_SENTENCE), joined by spaces; NULL none */
	int n_spoken;
	double first_ms;        /* when the first was complete: ms after REPLY began */
};

struct engine {
	struct engine_config cfg;
	engine_listener listener;
	void *ud;
	struct http_client *http;

	const struct corpus_call *call; /* NULL for a live call */
	struct flow *flow;
	cJSON *history;       /* [{"role","content"}], the agent's and the caller's words */
	long long row;        /* the call's row in the store */
	bool recording;       /* row is valid */
	bool open;            /* the call has begun and not ended */
	bool begun;           /* engine_start_call succeeded for the current call */
	int next;             /* the caller turns started so far */
	enum call_status status;
	struct turn *t;       /* the opening or turn in progress, NULL when none */
	enum err fatal;       /* a failure while moving a turn on, for the next return */
	int failing;          /* the stage whose failure is being noted, -1 otherwise */
	struct turn *spare;   /* a finished turn's memory, for the next (a turn is large
	                         enough that allocating each afresh shows in a benchmark) */

	/* turn-taking (docs/turn-taking.md) */
	struct {
		float *samples;      /* audio of a turn cut before its words were known */
		size_t n;
		char *text;          /* words of a turn cut or held before they were judged */
		char *reference;     /* the reference transcript of samples */
		int turn;            /* the turn they were said in; 0: nothing carried */
		bool recorded;
		long rec_start_ms;
	} carry;
	int holds;            /* unfinished turns held in a row */
	char *said;           /* the agent's last words, whole; NULL none */
	int said_turn;        /* the turn whose reply they are (0: the opening) */
	int said_hist;        /* their item in history, -1 none */
	size_t resume;        /* where in said the agent goes on after a backchannel */

	/* the current call's totals */
	double cost_usd, stage_ms[ENGINE_STAGES], turn_total, turn_max;
	int requests, failed_requests;
	double spent_ms;      /* the agent's turns so far, the opening included (the call
	                         deadline's measure) */
	long turn_dl, call_dl; /* the deadlines in force, ms; 0 none */
	double call_over_at;  /* now_ms() when the call's deadline passes, when it is what the
	                         turn in progress was armed with; else 0 */
	struct latency *lats; /* each caller turn that reached a first sound, in order */
	int n_lats, cap_lats;
};

static const char *const stage_names[ENGINE_STAGES] = {"STT", "EXTRACT", "REPLY"};
static const char *const stage_keys[ENGINE_STAGES] = {"stt", "extract", "reply"};

const char *engine_stage_name(enum engine_stage s)
{
	return s >= 0 && s < ENGINE_STAGES ? stage_names[s] : "?";
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void emit(struct engine *e, enum engine_event_kind kind, int turn, const char *text,
		 const cJSON *json, const struct engine_timings *t)
{
	struct engine_event ev = {
		.kind = kind,
		.call_id = e->call ? e->call->id : e->begun ? "live" : NULL,
		.turn = turn,
		.text = text,
		.json = json,
		.timings = t,
		.stage = kind == ENGINE_ERROR ? e->failing : -1,
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

/* The longest text a turn keeps of the caller's or the agent's words, bytes: what is longer
 * is cut (and said to be), so the history sent back to a model with every request and the
 * store stay bounded whatever a backend returns. */
#define ENGINE_MAX_TEXT 2000

/* bound_text: cut *s (owned) to ENGINE_MAX_TEXT bytes at a character's edge, marking the
 * cut with " [...]". Returns how many bytes were cut, 0 when it fit (or s is NULL). */
static size_t bound_text(char **s)
{
	size_t len = *s ? strlen(*s) : 0;
	if (len <= ENGINE_MAX_TEXT)
		return 0;
	size_t keep = textcheck_cut(*s, len, ENGINE_MAX_TEXT - 6);
	memcpy(*s + keep, " [...]", 7); /* fits: len > ENGINE_MAX_TEXT >= keep + 6 */
	return len - keep;
}

/* refused: whether EXTRACT's acknowledgement must not be said before the reply, by
 * flow_check (which changes nothing: the same rules the turn's decision applies next):
 * a value the rules refuse, or a question asked that gets no answer (nothing for it, or a
 * required one skipped) while no other field is answered: the question is then asked
 * again with a retry, whose line says what was wrong, and "जी" before it says the
 * opposite. Output: *no. Errors: ERR_NOMEM. */
static enum err refused(struct engine *e, const struct extraction *ex, bool *no)
{
	cJSON *res = NULL, *c;
	int asked = flow_current(e->flow);
	bool other = false, asked_ok = false;
	*no = false;
	if (!ex)
		return ERR_OK;
	enum err err = flow_check(e->cfg.form, e->cfg.lex, e->cfg.today, asked, ex, &res);
	if (err != ERR_OK)
		return err;
	cJSON_ArrayForEach(c, res) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(c, "status");
		const char *st = cJSON_IsString(s) ? s->valuestring : "";
		bool is_asked = asked >= 0 && strcmp(c->string, e->cfg.form->questions[asked].name) == 0;
		if (strcmp(st, "invalid") == 0)
			*no = true;
		else if (is_asked)
			asked_ok = strcmp(st, "answered") == 0 ||
				   (strcmp(st, "skipped") == 0 && !e->cfg.form->questions[asked].required);
		else if (strcmp(st, "answered") == 0)
			other = true;
	}
	if (asked >= 0 && !asked_ok && !other)
		*no = true;
	cJSON_Delete(res);
	return ERR_OK;
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

/* ---- turn-taking (docs/turn-taking.md) ---- */

/* An unfinished turn ("umm", "mera naam...") is held at most this many times in a row;
 * then what was said is judged as it is. */
#define ENGINE_MAX_HOLDS 2

/* What stands in the history and the store in place of the agent's words a barge-in cut
 * off: the words heard, then ENGINE_CUT_MARK, so the models know the caller interrupted
 * and did not hear the rest; ENGINE_UNHEARD_MARK when none was heard. */
#define ENGINE_CUT_MARK "[cut off here: the caller interrupted and did not hear the rest]"
#define ENGINE_UNHEARD_MARK "[not heard: the caller interrupted before these words began]"

/* Audio carried from a cut turn goes before the next turn's with this much silence (ms)
 * between them. */
#define ENGINE_JOIN_GAP_MS 500

/* carry_drop: forget the words carried to the next turn. */
static void carry_drop(struct engine *e)
{
	free(e->carry.samples);
	free(e->carry.text);
	free(e->carry.reference);
	memset(&e->carry, 0, sizeof e->carry);
}

/* join: "a b"; either may be NULL or empty. Output: new string (caller frees), NULL when
 * out of memory. */
static char *join(const char *a, const char *b)
{
	char *s = NULL;
	a = a ? a : "";
	b = b ? b : "";
	if (asprintf(&s, "%s%s%s", a, *a && *b ? " " : "", b) < 0)
		return NULL;
	return s;
}

/* agent_said: the agent said text as the reply of turn: into the history, and kept whole
 * for a barge-in that cuts it. Errors: ERR_NOMEM. */
static enum err agent_said(struct engine *e, int turn, const char *text)
{
	enum err err = history_add(e, "agent", text);
	if (err != ERR_OK)
		return err;
	free(e->said);
	if (!(e->said = strdup(text)))
		return ERR_NOMEM;
	e->said_turn = turn;
	e->said_hist = cJSON_GetArraySize(e->history) - 1;
	e->resume = 0;
	return ERR_OK;
}

/* cut_agent: a barge-in stopped the agent's last words played_ms in (of total_ms; 0: not
 * known, taken at turnkind's pace). Only what was heard stays, in the history (EXTRACT's
 * and REPLY's requests) and in the store (turns.reply, or calls.opening), marked as cut
 * off; e->resume is where the agent goes on after a backchannel. Output: true when the
 * cut fell before the words' end. A store failure is an error event, not an error. */
static bool cut_agent(struct engine *e, long played_ms, long total_ms)
{
	char *content = NULL;
	cJSON *item, *text;
	size_t len, heard;

	if (!e->said || e->said_hist < 0)
		return false;
	len = strlen(e->said);
	heard = turnkind_heard(e->said, played_ms, total_ms, &e->resume);
	if (heard >= len)
		return false;
	if (asprintf(&content, "%.*s%s%s", (int)heard, e->said, heard ? " " : "",
		     heard ? ENGINE_CUT_MARK : ENGINE_UNHEARD_MARK) < 0)
		return true;
	item = cJSON_GetArrayItem(e->history, e->said_hist);
	if (item && (text = cJSON_CreateString(content)) &&
	    !cJSON_ReplaceItemInObjectCaseSensitive(item, "content", text))
		cJSON_Delete(text);
	if (item && !cJSON_GetObjectItemCaseSensitive(item, "cut_off"))
		cJSON_AddTrueToObject(item, "cut_off");
	if (e->recording &&
	    store_turn_reply_played(e->cfg.store, e->row, e->said_turn, content) != ERR_OK)
		emit(e, ENGINE_ERROR, e->said_turn, store_error(e->cfg.store), NULL, NULL);
	e->said_hist = -1; /* cut once */
	free(content);
	return true;
}

/* carry_keep: t is cancelled before the rules judged it (a barge-in while its STT or
 * EXTRACT was in flight): its words go to the next turn, which hears them first, so
 * nothing the caller said is lost. Words already transcribed go as text; otherwise its
 * audio (and reference) go, to be transcribed with the next turn's. Errors: ERR_NOMEM. */
static enum err carry_keep(struct engine *e, struct turn *t)
{
	carry_drop(e);
	e->carry.turn = t->joins ? t->joins : t->index;
	e->carry.recorded = t->recorded;
	e->carry.rec_start_ms = t->rec_start_ms;
	if (t->transcript && t->transcript[0]) {
		if (!(e->carry.text = strdup(t->transcript)))
			return ERR_NOMEM;
		return ERR_OK;
	}
	e->carry.text = t->carried;
	t->carried = NULL;
	e->carry.samples = t->samples;
	e->carry.n = t->n_samples;
	t->samples = NULL;
	t->n_samples = 0;
	e->carry.reference = t->reference;
	t->reference = NULL;
	return ERR_OK;
}

/* carry_apply: the words carried from a cut or held turn go first in t (its audio already
 * read): text said before its STT's words, audio before its audio. Output: *from_audio
 * set when t now has audio. Errors: ERR_NOMEM. */
static enum err carry_apply(struct engine *e, struct turn *t, bool *from_audio)
{
	char *j;

	if (!e->carry.turn)
		return ERR_OK;
	t->joins = e->carry.turn;
	if (e->carry.samples && (*from_audio || !t->reference)) {
		/* a pause between the two, as there was one: STT hears two phrases */
		size_t gap = (size_t)ENGINE_JOIN_GAP_MS * (ENGINE_RATE / 1000);
		float *all = calloc(e->carry.n + gap + t->n_samples, sizeof *all);
		if (!all)
			return ERR_NOMEM;
		memcpy(all, e->carry.samples, e->carry.n * sizeof *all);
		if (t->n_samples)
			memcpy(all + e->carry.n + gap, t->samples, t->n_samples * sizeof *all);
		free(t->samples);
		t->samples = all;
		t->n_samples += e->carry.n + gap;
		*from_audio = true;
		if (e->carry.reference) {
			if (!(j = join(e->carry.reference, t->reference)))
				return ERR_NOMEM;
			free(t->reference);
			t->reference = j;
		}
	} else if (e->carry.samples || e->carry.reference) {
		/* typed words after audio not yet transcribed: its reference is all there is */
		if (!(j = join(e->carry.text, e->carry.reference)))
			return ERR_NOMEM;
		free(e->carry.text);
		e->carry.text = j;
	}
	t->carried = e->carry.text;
	e->carry.text = NULL;
	if (e->carry.recorded && t->recorded)
		t->rec_start_ms = e->carry.rec_start_ms;
	carry_drop(e);
	return ERR_OK;
}

/* turn_kind: t's words are known (after STT, with the carried words first): a backchannel
 * during the agent's words goes no further (no EXTRACT, no rules, no retry: the agent
 * goes on from the sentence it was cut in), an unfinished turn of speech is held (its
 * words join the next turn); anything else is judged. Errors: ERR_NOMEM. */
static enum err turn_kind(struct engine *e, struct turn *t)
{
	if (t->carried) {
		char *j = join(t->carried, t->transcript);
		if (!j)
			return ERR_NOMEM;
		free(t->transcript);
		t->transcript = j[0] ? j : NULL;
		if (!j[0])
			free(j);
		free(t->carried);
		t->carried = NULL;
	}
	if (!t->transcript || !t->transcript[0]) {
		e->holds = 0;
		return ERR_OK;
	}
	if (t->cut_inside && (!t->n_segs || t->tm.speech_ms <= TURNKIND_BACKCHANNEL_MS) &&
	    turnkind_backchannel(e->cfg.lex, t->transcript)) {
		t->backchannel = true;
		if (e->said && e->resume < strlen(e->said) && !(t->said = strdup(e->said + e->resume)))
			return ERR_NOMEM;
		t->state = T_DONE;
		return ERR_OK;
	}
	/* Only an endpointer cuts a hesitation short: words typed at the desk (or a corpus
	 * turn without audio) end where the operator ended them. */
	if (!t->silence && t->samples && e->holds < ENGINE_MAX_HOLDS &&
	    turnkind_unfinished(e->cfg.lex, t->transcript)) {
		t->held = true;
		e->holds++;
		carry_drop(e);
		if (!(e->carry.text = strdup(t->transcript)))
			return ERR_NOMEM;
		e->carry.turn = t->joins ? t->joins : t->index;
		e->carry.recorded = t->recorded;
		e->carry.rec_start_ms = t->rec_start_ms;
		t->state = T_DONE;
		return ERR_OK;
	}
	e->holds = 0;
	return ERR_OK;
}

enum err engine_new(const struct engine_config *cfg, engine_listener listener, void *ud,
		    struct engine **out)
{
	struct engine *e = calloc(1, sizeof *e);
	enum err err;
	if (!e)
		return ERR_NOMEM;
	if ((err = http_client_new(&e->http)) != ERR_OK) {
		free(e);
		return err;
	}
	e->cfg = *cfg;
	e->listener = listener;
	e->ud = ud;
	e->failing = -1;
	provider_config_deadlines(&e->turn_dl, &e->call_dl);
	if (cfg->turn_deadline_ms)
		e->turn_dl = cfg->turn_deadline_ms;
	if (cfg->call_deadline_ms)
		e->call_dl = cfg->call_deadline_ms;
	e->said_hist = -1;
	*out = e;
	return ERR_OK;
}

/* arm_deadline: a turn (or the opening) begins: its requests end by the turn's deadline,
 * or by what is left of the call's when that comes first (agent/stages/http.h). */
static void arm_deadline(struct engine *e)
{
	char why[160];
	long in = e->turn_dl > 0 ? e->turn_dl : 0;
	double left = e->call_dl > 0 ? (double)e->call_dl - e->spent_ms : 0;
	e->call_over_at = 0;
	if (e->call_dl > 0 && (in == 0 || left < (double)in)) {
		in = left > 1 ? (long)left : 1;
		e->call_over_at = now_ms() + (double)in;
		snprintf(why, sizeof why, "the call's deadline of %ld ms passed", e->call_dl);
	} else {
		snprintf(why, sizeof why, "the turn's deadline of %ld ms passed", e->turn_dl);
	}
	http_client_deadline(e->http, in, why);
}

/* over_deadline: the turn (or opening) t has ended: count its time against the call's
 * deadline. Returns the reason the call ends for (static), NULL while time is left. */
static const char *over_deadline(struct engine *e, const struct turn *t)
{
	static char why[160];
	double now = now_ms();
	e->spent_ms += now - t->t_start;
	/* 5 ms: a timer may fire that much early, and a request the call's deadline ended
	 * has used up the call's time */
	if (!(e->call_dl > 0) || (e->spent_ms < (double)e->call_dl &&
				  !(e->call_over_at > 0 && now + 5 >= e->call_over_at)))
		return NULL;
	snprintf(why, sizeof why, "deadline: the agent's turns took %.0f ms, the call's deadline "
		 "is %ld ms", e->spent_ms, e->call_dl);
	return why;
}

static void turn_free(struct engine *e, struct turn *t)
{
	if (!t)
		return;
	if (t->xfer)
		http_cancel(e->http, t->xfer);
	http_result_free(t->res);
	free(t->audio);
	free(t->condition);
	free(t->utterance_id);
	free(t->reference);
	free(t->carried);
	free(t->samples);
	free(t->segs);
	free(t->transcript);
	free(t->said);
	free(t->errs);
	free(t->ack);
	free(t->spoken);
	extraction_free(t->ex);
	cJSON_Delete(t->caller);
	cJSON_Delete(t->ex_json);
	decision_free(t->dec);
	cJSON_Delete(t->decision);
	if (!e->spare)
		e->spare = t;
	else
		free(t);
}

/* turn_new: a zeroed turn, the spare one when there is one; NULL when out of memory. */
static struct turn *turn_new(struct engine *e)
{
	struct turn *t = e->spare;
	e->spare = NULL;
	if (t)
		memset(t, 0, sizeof *t);
	return t ? t : calloc(1, sizeof *t);
}

cJSON *engine_usage_json(const struct engine *e)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddNumberToObject(o, "cost_usd", e->cost_usd) ||
	    !cJSON_AddNumberToObject(o, "requests", e->requests) ||
	    !cJSON_AddNumberToObject(o, "failed_requests", e->failed_requests) ||
	    !cJSON_AddNumberToObject(o, "stt_ms", e->stage_ms[ENGINE_STAGE_STT]) ||
	    !cJSON_AddNumberToObject(o, "extract_ms", e->stage_ms[ENGINE_STAGE_EXTRACT]) ||
	    !cJSON_AddNumberToObject(o, "reply_ms", e->stage_ms[ENGINE_STAGE_REPLY]) ||
	    !cJSON_AddNumberToObject(o, "turn_ms_total", e->turn_total) ||
	    !cJSON_AddNumberToObject(o, "turn_ms_max", e->turn_max))
		goto fail;
	cJSON *a = cJSON_AddArrayToObject(o, "turn_latency");
	for (int i = 0; a && i < e->n_lats; i++) {
		cJSON *x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(a, x) ||
		    !cJSON_AddNumberToObject(x, "turn", e->lats[i].turn) ||
		    !cJSON_AddItemToObject(x, "latency", latency_to_json(&e->lats[i]))) {
			cJSON_Delete(x);
			goto fail;
		}
	}
	if (a)
		return o;
fail:
	cJSON_Delete(o);
	return NULL;
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
	if (e->recording) {
		if (!(data = cJSON_PrintUnformatted(flow_form_data(e->flow))) ||
		    !(fstatus = cJSON_PrintUnformatted(flow_form_status(e->flow))))
			goto out;
		err = store_call_end(e->cfg.store, e->row, call_status_name(status), reason, data,
				     fstatus, turns);
		if (err != ERR_OK) {
			emit(e, ENGINE_ERROR, turns, store_error(e->cfg.store), NULL, NULL);
			goto out;
		}
	}
	err = ERR_NOMEM;
	if (!(both = cJSON_CreateObject()) ||
	    /* references: the event's json lives during the callback only */
	    !cJSON_AddItemReferenceToObject(both, "form_data", (cJSON *)flow_form_data(e->flow)) ||
	    !cJSON_AddItemReferenceToObject(both, "form_status",
					    (cJSON *)flow_form_status(e->flow)) ||
	    !cJSON_AddStringToObject(both, "reason", reason ? reason : "") ||
	    !cJSON_AddItemToObject(both, "usage", engine_usage_json(e)))
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
	turn_free(e, e->t);
	e->t = NULL;
	flow_free(e->flow);
	e->flow = NULL;
	cJSON_Delete(e->history);
	e->history = NULL;
	e->call = NULL;
	e->recording = false;
	e->open = false;
	e->begun = false;
	e->next = 0;
	e->status = CALL_IN_PROGRESS;
	e->cost_usd = e->turn_total = e->turn_max = 0;
	memset(e->stage_ms, 0, sizeof e->stage_ms);
	e->requests = e->failed_requests = 0;
	e->spent_ms = 0;
	carry_drop(e);
	free(e->said);
	e->said = NULL;
	e->said_hist = -1;
	e->said_turn = 0;
	e->resume = 0;
	e->holds = 0;
	e->n_lats = 0;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->t)
		engine_cancel(e, "the session ended");
	if (e->open)
		finish(e, CALL_FAILED, "abandoned: the session ended during the call");
	drop_call(e);
	http_client_free(e->http);
	free(e->spare);
	free(e->lats);
	free(e);
}

/* end_reason: the decision's reason, for the calls table. */
static const char *end_reason(const struct decision *d)
{
	return d ? d->reason : NULL;
}

/* ---- one stage, at once or over the network ---- */

static void on_done(void *ud, struct http_result *res)
{
	struct engine *e = ud;
	if (e->t && e->t->xfer) {
		e->t->xfer = NULL;
		e->t->res = res;
	} else {
		http_result_free(res);
	}
}

/* account: the stage's request measurements into the turn and the call's totals. */
static void account(struct engine *e, struct turn *t, enum engine_stage s,
		    const struct backend_usage *u)
{
	t->tm.has_usage[s] = true;
	t->tm.usage[s] = *u;
	e->requests++;
	if (u->error[0])
		e->failed_requests++;
	if (u->cost_usd > 0) {
		t->tm.cost_usd += u->cost_usd;
		e->cost_usd += u->cost_usd;
	}
}

/* begin_request: start req (taken over) for stage s of t. Output: true when it is in
 * flight; false when it could not start (recorded in u->error). */
static bool begin_request(struct engine *e, struct turn *t, enum engine_stage s,
			  struct http_req *req, struct backend_usage *u)
{
	enum err err = http_start(e->http, req, on_done, e, &t->xfer);
	if (err != ERR_OK) {
		t->xfer = NULL;
		snprintf(u->error, sizeof u->error, "%s: cannot start the request: %s", u->provider,
			 err_str(err));
		return false;
	}
	t->stage = s;
	t->tm.usage[s] = *u; /* provider and model, for a cancel */
	return true;
}

/* latency_text: l as JSON text (caller frees), NULL when out of memory. */
static char *latency_text(const struct latency *l)
{
	cJSON *j = latency_to_json(l);
	char *s = j ? cJSON_PrintUnformatted(j) : NULL;

	cJSON_Delete(j);
	return s;
}

/* sounded: t's first sound (its acknowledgement, ack true, or its reply) is out now, as
 * far as the engine goes: its latency in parts (sessions/store/latency.h), TTS and playback 0
 * until whoever speaks it says how long they took (engine_latency_played). Not again
 * once known, nor for the opening. */
static void sounded(struct engine *e, struct turn *t, bool ack)
{
	struct latency *l = &t->tm.latency;
	double now = now_ms();
	const char *stt_by = t->typed ? "typed: no STT" : !t->speech ? "silence: no STT"
			     : e->cfg.stt.name;

	if (t->index == 0 || l->known)
		return;
	memset(l, 0, sizeof *l);
	l->turn = t->index;
	l->origin = t->t_start - (t->ago_ms > t->wait_ms ? t->ago_ms : t->wait_ms);
	latency_set(l, LATENCY_ENDPOINT, t->wait_ms, t->wait_by);
	latency_set(l, LATENCY_STT, t->tm.stt_ms, stt_by);
	latency_set(l, LATENCY_EXTRACT, ack ? t->ack_ms : t->tm.extract_ms, e->cfg.extract.name);
	latency_set(l, LATENCY_RULES, ack ? 0 : t->tm.rules_ms, "rule layer");
	/* a streamed REPLY is on the way only to its first sentence */
	latency_set(l, LATENCY_REPLY, ack ? 0 : t->n_spoken ? t->first_ms : t->tm.reply_ms,
		    e->cfg.reply.name);
	latency_set(l, LATENCY_TTS, 0, "not spoken");
	latency_set(l, LATENCY_PLAYBACK, 0, "not played");
	latency_close(l, now - l->origin);
	if (e->n_lats == e->cap_lats) {
		int cap = e->cap_lats ? 2 * e->cap_lats : 16;
		struct latency *v = realloc(e->lats, (size_t)cap * sizeof *v);
		if (!v)
			return; /* the figure stays with the turn; the call's list goes without */
		e->lats = v;
		e->cap_lats = cap;
	}
	e->lats[e->n_lats++] = *l;
}

bool engine_latency(const struct engine *e, struct latency *out)
{
	if (!e->n_lats)
		return false;
	*out = e->lats[e->n_lats - 1];
	return true;
}

bool engine_latency_played(struct engine *e, int turn, double tts_ms, const char *tts_by,
			   double playback_ms, const char *playback_by, double at_ms,
			   struct latency *out)
{
	struct latency *l = e->n_lats ? &e->lats[e->n_lats - 1] : NULL;
	char *text;

	if (!l || l->turn != turn || l->played)
		return false;
	l->played = true;
	latency_set(l, LATENCY_TTS, tts_ms, tts_by);
	latency_set(l, LATENCY_PLAYBACK, playback_ms, playback_by);
	latency_close(l, at_ms - l->origin);
	if (out)
		*out = *l;
	if (e->t && e->t->index == turn) { /* not stored yet: stored with the turn */
		e->t->tm.latency = *l;
		return true;
	}
	if (!e->recording)
		return true;
	if (!(text = latency_text(l)))
		emit(e, ENGINE_ERROR, turn, "the turn's latency: out of memory", NULL, NULL);
	else if (store_turn_latency(e->cfg.store, e->row, turn, text) != ERR_OK)
		emit(e, ENGINE_ERROR, turn, store_error(e->cfg.store), NULL, NULL);
	free(text);
	return true;
}

/* say_ack: the turn's acknowledgement is known: keep text (taken over) as said, and tell
 * the listener at once (ENGINE_ACK), before the rest of EXTRACT's answer. */
static void say_ack(struct engine *e, struct turn *t, char *text)
{
	t->ack = text;
	t->ack_ms = now_ms() - t->stage_t0;
	sounded(e, t, true);
	emit(e, ENGINE_ACK, t->index, t->ack, NULL, NULL);
}

/* poll_ack: while EXTRACT's request is in flight, take its streamed acknowledgement as
 * soon as it is complete (agent/stages/backend.h: backend_ack). */
static void poll_ack(struct engine *e)
{
	struct turn *t = e->t;
	char *text = NULL;

	if (!t || t->state != T_EXTRACT || !t->xfer || t->stage != ENGINE_STAGE_EXTRACT || t->ack)
		return;
	if (backend_ack(&e->cfg.extract, t->xfer, &text)) {
		if (text && text[0])
			say_ack(e, t, text);
		else
			free(text);
	}
}

/* say_sentence: text (taken over) is the next sentence of t's reply, complete while the
 * rest still streams: keep it as said, its first sound timed, and tell the listener at
 * once (ENGINE_REPLY_SENTENCE). Errors: ERR_NOMEM (text not said). */
static enum err say_sentence(struct engine *e, struct turn *t, char *text)
{
	char *all = t->spoken ? join(t->spoken, text) : strdup(text);

	if (!all) {
		free(text);
		return ERR_NOMEM;
	}
	free(t->spoken);
	t->spoken = all;
	if (t->n_spoken++ == 0) {
		t->first_ms = now_ms() - t->stage_t0;
		sounded(e, t, false);
	}
	emit(e, ENGINE_REPLY_SENTENCE, t->index, text, NULL, NULL);
	free(text);
	return ERR_OK;
}

/* poll_sentences: while REPLY's request of a caller turn is in flight, hand out each
 * sentence of its streamed line as soon as it is complete (agent/stages/backend.h:
 * backend_sentence). The opening is said whole: its line begins with the form's intro. */
static void poll_sentences(struct engine *e)
{
	struct turn *t = e->t;
	char *text = NULL;

	while (t && t->index > 0 && t->state == T_REPLY && t->xfer &&
	       t->stage == ENGINE_STAGE_REPLY && backend_sentence(&e->cfg.reply, t->xfer, &text))
		if (say_sentence(e, t, text) != ERR_OK && !e->fatal)
			e->fatal = ERR_NOMEM;
}

/* ---- the turn's states ---- */

/* The stages' places: the backend, the turn's request and output slot, its timing. */
struct slot {
	const struct backend *b;
	const void *req;
	void *out;
	double *ms;
};

static struct slot slot_of(struct engine *e, struct turn *t, enum engine_stage s)
{
	switch (s) {
	case ENGINE_STAGE_STT:
		return (struct slot){&e->cfg.stt, &t->sreq, &t->transcript, &t->tm.stt_ms};
	case ENGINE_STAGE_EXTRACT:
		return (struct slot){&e->cfg.extract, &t->xreq, &t->ex, &t->tm.extract_ms};
	default:
		return (struct slot){&e->cfg.reply, &t->rreq, &t->said, &t->tm.reply_ms};
	}
}

/* run_stage: one stage of t on its backend (agent/stages/backend.h), its request already in
 * the turn: the first time, start the network request (true: in flight, come back when
 * it has finished) or, offline, make the call at once; the second time, read the
 * finished request's result. Output: the stage's output in its slot, its timing, the
 * request's usage accounted; *err the stage's result (false returned). */
static bool run_stage(struct engine *e, struct turn *t, enum engine_stage s, enum err *err)
{
	struct slot sl = slot_of(e, t, s);
	struct backend_usage u;
	struct http_req *req = NULL;

	if (!t->res) {
		*err = backend_start(sl.b, sl.req, &req, &u);
		if (*err == ERR_OK && begin_request(e, t, s, req, &u))
			return true;
		if (*err == ERR_UNSUPPORTED) {
			*err = backend_call(sl.b, sl.req, sl.out);
		} else {
			if (*err == ERR_OK)
				*err = ERR_BACKEND;
			account(e, t, s, &u);
		}
	} else {
		u = t->tm.usage[s];
		*err = backend_finish(sl.b, sl.req, t->res, sl.out, &u);
		http_result_free(t->res);
		t->res = NULL;
		/* An acknowledgement said from the stream stands, even when the answer then
		 * failed: keep when it came. */
		if (s == ENGINE_STAGE_EXTRACT && t->ack && !(u.ack_ms > 0))
			u.ack_ms = t->ack_ms;
		account(e, t, s, &u);
	}
	*sl.ms = now_ms() - t->stage_t0;
	e->stage_ms[s] += *sl.ms;
	return false;
}

/* stage_failed: note why stage s of t failed (err), and what was done instead (then). */
static void stage_failed(struct engine *e, struct turn *t, enum engine_stage s, enum err err,
			 const char *then)
{
	const struct backend *b = slot_of(e, t, s).b;
	const char *why = t->tm.has_usage[s] && t->tm.usage[s].error[0] ? t->tm.usage[s].error
									 : err_str(err);
	e->failing = (int)s;
	note(e, t->index, &t->errs, "%s (%s): %s%s", stage_keys[s], b->name ? b->name : "?", why,
	     then);
	e->failing = -1;
}

static void stt_run(struct engine *e, struct turn *t)
{
	enum err err;

	if (!t->started) {
		t->started = true;
		t->stage_t0 = now_ms();
		if (!t->speech) {
			t->state = T_EXTRACT;
			t->started = false;
			return;
		}
		if (t->typed) { /* the caller's words as typed: no STT */
			if (!(t->transcript = strdup(t->reference)))
				note(e, t->index, &t->errs, "typed words: %s", err_str(ERR_NOMEM));
			t->state = T_EXTRACT;
			t->started = false;
			return;
		}
		t->sreq = (struct stt_request){.reference = t->reference, .language = "hi",
					       .sample_rate = ENGINE_RATE};
		if (t->samples && t->n_segs > 0) {
			size_t a = (size_t)t->segs[0].start_ms * (ENGINE_RATE / 1000);
			size_t b = (size_t)t->segs[t->n_segs - 1].end_ms * (ENGINE_RATE / 1000);
			if (b > t->n_samples)
				b = t->n_samples;
			if (a < b) {
				t->sreq.samples = t->samples + a;
				t->sreq.n_samples = b - a;
			}
		}
	}
	if (run_stage(e, t, ENGINE_STAGE_STT, &err))
		return;
	if (err != ERR_OK) {
		free(t->transcript);
		t->transcript = NULL;
		stage_failed(e, t, ENGINE_STAGE_STT, err, "");
	}
	t->state = T_EXTRACT;
	t->started = false;
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

/* The caller's words are known (or are silence): show them, then EXTRACT. */
static enum err caller_says(struct engine *e, struct turn *t)
{
	if (!(t->caller = cJSON_CreateObject()) ||
	    !cJSON_AddItemToObject(t->caller, "audio",
				   t->audio ? cJSON_CreateString(t->audio) : cJSON_CreateNull()) ||
	    !cJSON_AddItemToObject(t->caller, "segments", segments_json(t->segs, t->n_segs)) ||
	    !cJSON_AddItemToObject(t->caller, "condition",
				   t->condition ? cJSON_CreateString(t->condition)
						: cJSON_CreateNull()) ||
	    !cJSON_AddItemToObject(t->caller, "utterance_id",
				   t->utterance_id ? cJSON_CreateString(t->utterance_id)
						   : cJSON_CreateNull()) ||
	    !cJSON_AddStringToObject(t->caller, "input", t->input ? t->input : "corpus") ||
	    !cJSON_AddBoolToObject(t->caller, "silence", t->silence))
		return ERR_NOMEM;
	if ((t->backchannel && !cJSON_AddTrueToObject(t->caller, "backchannel")) ||
	    (t->held && !cJSON_AddTrueToObject(t->caller, "held")) ||
	    (t->joins && !cJSON_AddNumberToObject(t->caller, "joins_turn", t->joins)))
		return ERR_NOMEM;
	if (t->barge_in) {
		cJSON *b = cJSON_AddObjectToObject(t->caller, "barge_in");
		if (!b || !cJSON_AddNumberToObject(b, "at_ms", (double)t->barge_in_ms) ||
		    !cJSON_AddStringToObject(b, "during", t->barge_during))
			return ERR_NOMEM;
	}
	emit(e, ENGINE_CALLER_SAYS, t->index, t->transcript, t->caller, NULL);
	return ERR_OK;
}

static enum err extract_run(struct engine *e, struct turn *t)
{
	enum err err;

	if (!t->started) {
		t->started = true;
		if (!t->transcript || !t->transcript[0]) {
			t->state = T_RULES;
			t->started = false;
			return ERR_OK;
		}
		size_t cut = bound_text(&t->transcript);
		if (cut)
			note(e, t->index, &t->errs, "transcript: %zu bytes cut (at most %d are kept)", cut,
			     ENGINE_MAX_TEXT);
		t->stage_t0 = now_ms();
		t->xreq = (struct extract_request){
			.form = e->cfg.form,
			.lex = e->cfg.lex,
			.asked = flow_current(e->flow),
			.transcript = t->transcript,
			.history = e->history,
			.today = e->cfg.today,
		};
	}
	if (run_stage(e, t, ENGINE_STAGE_EXTRACT, &err))
		return ERR_OK;
	t->state = T_RULES;
	t->started = false;
	if (err != ERR_OK) {
		extraction_free(t->ex);
		t->ex = NULL;
		stage_failed(e, t, ENGINE_STAGE_EXTRACT, err, "");
	} else {
		if (!(t->ex_json = extraction_to_json(t->ex)))
			return ERR_NOMEM;
		/* No acknowledgement came from a stream (offline backends, unstreamed
		 * answers): the extraction's is said now, so every backend behaves alike; but
		 * not for an answer the rules will refuse ("thank you, the form is complete"
		 * while the question is asked again). A streamed one was said before anyone
		 * could judge: it stands. */
		bool no;
		if ((err = refused(e, t->ex, &no)) != ERR_OK)
			return err;
		if (!t->ack && t->ex && t->ex->ack && t->ex->ack[0] && !no) {
			char *text = strdup(t->ex->ack);
			if (!text)
				return ERR_NOMEM;
			say_ack(e, t, text);
		}
		emit(e, ENGINE_EXTRACTED, t->index, NULL, t->ex_json, NULL);
	}
	if ((err = history_add(e, "user", t->transcript)) != ERR_OK)
		return err;
	t->heard = true;
	return ERR_OK;
}

/* decided: t's decision is made (t->dec): mark a barge-in on it, turn it into JSON once
 * (for REPLY and the store) and tell the listener. Errors: ERR_NOMEM. */
static enum err decided(struct engine *e, struct turn *t)
{
	if (t->barge_in) {
		t->dec->barge_in = true;
		t->dec->barge_in_at_ms = t->barge_in_ms;
		free(t->dec->barge_in_during);
		if (!(t->dec->barge_in_during = strdup(t->barge_during)))
			return ERR_NOMEM;
	}
	/* nothing was said: a re-ask states no error (agent/stages/reply_script.h) */
	t->dec->silence = t->index > 0 && (!t->transcript || !t->transcript[0]);
	cJSON_Delete(t->decision);
	if (!(t->decision = decision_to_json(t->dec)))
		return ERR_NOMEM;
	struct engine_event ev = {
		.kind = ENGINE_DECISION,
		.call_id = e->call ? e->call->id : e->begun ? "live" : NULL,
		.turn = t->index,
		.json = t->decision,
		.decision = t->dec,
		.status = e->status,
	};
	if (e->listener)
		e->listener(e->ud, &ev);
	return ERR_OK;
}

static enum err rules_run(struct engine *e, struct turn *t)
{
	double t0 = now_ms();
	enum err err = flow_turn(e->flow, t->ex, &t->dec);
	t->tm.rules_ms = now_ms() - t0;
	if (err != ERR_OK || (err = decided(e, t)) != ERR_OK)
		return err;
	t->state = T_REPLY;
	t->started = false;
	return ERR_OK;
}

/* reply_rest: REPLY of t ended after sentences of it were said while it streamed: say
 * the rest. A whole line that goes on from the sentences said gives the rest of it; one
 * that does not (a failed or refused answer, whose place the script's words took; an
 * end_call's message), is said whole after them. Either way t->said becomes all the
 * caller hears (the sentences, then the rest), as stored and put in the history.
 * Errors: ERR_NOMEM. */
static enum err reply_rest(struct engine *e, struct turn *t)
{
	size_t n = strlen(t->spoken);
	const char *rest = t->said ? t->said : "";
	char *all;

	if (strncmp(rest, t->spoken, n) == 0 && (rest[n] == ' ' || rest[n] == '\0')) {
		rest += n;
		rest += strspn(rest, " ");
	}
	if (!(all = join(t->spoken, rest)))
		return ERR_NOMEM;
	if (*rest) {
		t->n_spoken++;
		emit(e, ENGINE_REPLY_SENTENCE, t->index, rest, NULL, NULL);
	}
	free(t->said);
	t->said = all;
	return ERR_OK;
}

static void reply_run(struct engine *e, struct turn *t)
{
	enum err err;

	if (!t->started) {
		t->started = true;
		t->stage_t0 = now_ms();
		t->rreq = (struct reply_request){e->cfg.form, t->decision, e->history, t->dec};
	}
	if (run_stage(e, t, ENGINE_STAGE_REPLY, &err))
		return;
	if (err != ERR_OK) {
		free(t->said);
		t->said = NULL;
		/* The decision stands; the form's own words say it (FormBharo: REPLY only
		 * phrases, it never decides). */
		if (reply_script_reply(NULL, &t->rreq, &t->said) != ERR_OK)
			t->said = NULL;
		stage_failed(e, t, ENGINE_STAGE_REPLY, err,
			     !t->said ? "" : t->n_spoken ? "; the script's words were said after the "
			     "sentences already said" : "; the script's words were said instead");
	}
	if (t->n_spoken && reply_rest(e, t) != ERR_OK && !e->fatal)
		e->fatal = ERR_NOMEM;
	size_t cut = bound_text(&t->said);
	if (cut)
		note(e, t->index, &t->errs, "reply: %zu bytes cut (at most %d are said and kept)", cut,
		     ENGINE_MAX_TEXT);
	t->state = T_DONE;
	t->started = false;
}

/* ---- recording ---- */

/* usage_rows: the stages' requests of t as store rows (in rows, *n of them). */
static void usage_rows(const struct turn *t, struct store_usage rows[ENGINE_STAGES], int *n)
{
	*n = 0;
	for (int s = 0; s < ENGINE_STAGES; s++) {
		if (!t->tm.has_usage[s])
			continue;
		struct store_usage *r = &rows[(*n)++];
		*r = (struct store_usage){.stage = stage_keys[s], .backend = t->tm.usage[s]};
		if (s != ENGINE_STAGE_EXTRACT) /* only EXTRACT has an acknowledgement */
			r->backend.ack_ms = -1;
	}
}

/* end_if_due: after turn t (or the opening) is recorded, end the call when the rules
 * ended it, when t ran over the call's deadline, or with hung_up as the reason when the
 * recorded caller has no turn left (hung_up NULL: the caller still has one). Errors: as
 * finish. */
static enum err end_if_due(struct engine *e, const struct turn *t, const char *hung_up)
{
	const char *late = over_deadline(e, t);
	if (flow_status(e->flow) != CALL_IN_PROGRESS)
		return finish(e, flow_status(e->flow), end_reason(t->dec));
	if (late)
		return finish(e, CALL_FAILED, late);
	if (hung_up)
		return finish(e, CALL_FAILED, hung_up);
	return ERR_OK;
}

/* opening_done: the opening's words are known (or were cancelled): record the call,
 * say them, end the call if there is nothing to ask. */
static enum err opening_done(struct engine *e, struct turn *t)
{
	char today[16];
	struct store_usage rows[ENGINE_STAGES];
	int n_rows;
	enum err err = ERR_NOMEM;

	if (t->said && (err = agent_said(e, 0, t->said)) != ERR_OK)
		goto out;
	if (e->cfg.store) {
		snprintf(today, sizeof today, "%04d-%02d-%02d", e->cfg.today.y, e->cfg.today.m,
			 e->cfg.today.d);
		usage_rows(t, rows, &n_rows);
		struct store_call_info info = {
			.corpus = e->call ? e->cfg.corpus_name : NULL,
			.corpus_call_id = e->call ? e->call->id : "live",
			.caller = e->call ? e->call->caller : NULL,
			.path = e->call ? e->call->path : NULL,
			.form_path = e->cfg.form_path,
			.form_title = e->cfg.form->title,
			.stt = e->cfg.stt.name,
			.extract = e->cfg.extract.name,
			.reply = e->cfg.reply.name,
			.today = today,
			.opening = t->said,
			.opening_decision_json = t->decision,
			.usage = rows,
			.n_usage = n_rows,
			.run_id = e->cfg.run_id,
		};
		if ((err = store_call_begin(e->cfg.store, &info, &e->row)) != ERR_OK) {
			emit(e, ENGINE_ERROR, 0, store_error(e->cfg.store), NULL, NULL);
			e->open = false;
			goto out;
		}
		e->recording = true;
	}
	if (t->said)
		emit(e, ENGINE_AGENT_SAYS, 0, t->said, NULL, NULL);
	/* A form with nothing to ask ends at once. */
	err = end_if_due(e, t, e->call && e->call->n_turns == 0
				       ? "the caller hung up: the call has no caller turns"
				       : NULL);
out:
	return err;
}

/* turn_done: record the finished (or cancelled) turn t in one transaction, tell the
 * listener, end the call when the rules or the caller's turns say so. */
static enum err turn_done(struct engine *e, struct turn *t)
{
	char *seg_text = NULL, *ex_text = NULL;
	struct store_usage rows[ENGINE_STAGES];
	int n_rows;
	enum err err;

	if (t->said) {
		if ((err = agent_said(e, t->index, t->said)) != ERR_OK)
			return err;
		cJSON *streamed = NULL;
		if (!t->tm.cancelled)
			sounded(e, t, false);
		/* said sentence by sentence already: the listener shows it, but says no more */
		if (t->n_spoken && (!(streamed = cJSON_CreateObject()) ||
				    !cJSON_AddNumberToObject(streamed, "sentences", t->n_spoken))) {
			cJSON_Delete(streamed);
			return ERR_NOMEM;
		}
		emit(e, ENGINE_AGENT_SAYS, t->index, t->said, streamed, NULL);
		cJSON_Delete(streamed);
	}
	t->tm.total_ms = now_ms() - t->t_start;
	e->turn_total += t->tm.total_ms;
	if (t->tm.total_ms > e->turn_max)
		e->turn_max = t->tm.total_ms;

	err = ERR_NOMEM;
	/* the records as text only for the store and the turn's columns on screen */
	if ((e->recording || e->listener) &&
	    (!(seg_text = cJSON_PrintUnformatted(cJSON_GetObjectItem(t->caller, "segments"))) ||
	     (t->ex_json && !(ex_text = cJSON_PrintUnformatted(t->ex_json)))))
		goto out;
	/* the turn as the store gets it, recorded or not: its registered columns
	 * (sessions/store/turncol.h) are computed from it, in the store and for the screen */
	{
		char shown[512] = "";
		usage_rows(t, rows, &n_rows);
		struct store_turn st = {
			.index = t->index,
			.utterance_id = t->utterance_id,
			.audio = t->audio,
			.condition = t->condition,
			.seg_start_ms = t->n_segs ? t->segs[0].start_ms : -1,
			.seg_end_ms = t->n_segs ? t->segs[t->n_segs - 1].end_ms : -1,
			.segments = seg_text,
			.transcript = t->transcript,
			.extraction = ex_text,
			.decision_json = t->decision,
			.reply = t->said,
			.audio_ms = t->tm.audio_ms,
			.vad_ms = t->tm.vad_ms,
			.stt_ms = t->tm.stt_ms,
			.extract_ms = t->tm.extract_ms,
			.rules_ms = t->tm.rules_ms,
			.reply_ms = t->tm.reply_ms,
			.total_ms = t->tm.total_ms,
			.speech_ms = t->tm.speech_ms,
			.error = t->errs,
			.cancelled = t->tm.cancelled,
			.input = t->input,
			.barge_in = t->barge_in,
			.barge_in_ms = t->barge_in_ms,
			.silence = t->silence,
			.recorded = t->recorded,
			.caller_audio_start_ms = t->rec_start_ms,
			.caller_audio_end_ms = t->rec_end_ms,
			.ack = t->ack,
			.usage = rows,
			.n_usage = n_rows,
			.latency_parts = t->tm.latency.known ? &t->tm.latency : NULL,
			.dec = t->dec,
			.extraction_json = t->ex_json,
		};
		if (e->recording && (err = store_turn_add(e->cfg.store, e->row, &st)) != ERR_OK) {
			emit(e, ENGINE_ERROR, t->index, store_error(e->cfg.store), NULL, NULL);
			goto out;
		}
		if (e->listener)
			turncol_shown(&st, shown, sizeof shown);
		emit(e, ENGINE_TURN_DONE, t->index, shown, NULL, &t->tm);
	}

	err = end_if_due(e, t, e->call && e->next >= e->call->n_turns
				       ? "the caller hung up: the call's recorded turns ran out"
				       : NULL);
out:
	free(seg_text);
	free(ex_text);
	return err;
}

/* drive: move the turn in progress on as far as it goes without waiting. A failure
 * (ERR_NOMEM, ERR_DB) drops the turn and is kept in e->fatal. */
static void drive(struct engine *e)
{
	struct turn *t;
	enum err err = ERR_OK;

	while ((t = e->t) && !t->xfer && err == ERR_OK) {
		switch (t->state) {
		case T_STT:
			stt_run(e, t);
			if (t->state == T_EXTRACT && t->index > 0 && (err = turn_kind(e, t)) == ERR_OK)
				err = caller_says(e, t);
			break;
		case T_EXTRACT:
			err = extract_run(e, t);
			break;
		case T_RULES:
			err = rules_run(e, t);
			break;
		case T_REPLY:
			reply_run(e, t);
			break;
		case T_DONE:
			e->t = NULL;
			err = t->index == 0 ? opening_done(e, t) : turn_done(e, t);
			turn_free(e, t);
			t = NULL;
			break;
		}
	}
	if (err != ERR_OK) {
		if (e->t) {
			turn_free(e, e->t);
			e->t = NULL;
		}
		if (!e->fatal)
			e->fatal = err;
	}
}

static enum err take_fatal(struct engine *e)
{
	enum err err = e->fatal;
	e->fatal = ERR_OK;
	return err;
}

/* ---- the public driving calls ---- */

enum err engine_start_call(struct engine *e, const struct corpus_call *call)
{
	struct turn *t = NULL;
	enum err err;

	if (e->t)
		engine_cancel(e, "the next call was started");
	if (e->open)
		finish(e, CALL_FAILED, "abandoned: the next call was started");
	drop_call(e);
	e->fatal = ERR_OK;
	e->call = call;
	e->begun = true;
	if (!(e->history = cJSON_CreateArray()) || !(t = turn_new(e))) {
		err = ERR_NOMEM;
		goto out;
	}
	t->index = 0;
	t->t_start = now_ms();
	arm_deadline(e);
	if ((err = flow_new(e->cfg.form, e->cfg.lex, e->cfg.today, &e->flow)) != ERR_OK ||
	    (err = flow_start(e->flow, &t->dec)) != ERR_OK)
		goto out;
	e->open = true;
	emit(e, ENGINE_CALL_START, 0, call ? call->id : "live", NULL, NULL);
	if ((err = decided(e, t)) != ERR_OK)
		goto out;
	t->state = T_REPLY;
	e->t = t;
	t = NULL;
	drive(e);
	err = take_fatal(e);
out:
	turn_free(e, t);
	if (err != ERR_OK && !e->recording)
		e->open = false;
	return err;
}

/* read_audio: decode and endpoint the turn's audio file (when it has one). */
static void read_audio(struct engine *e, struct turn *t)
{
	char *msg = NULL;
	enum err err;
	double t0 = now_ms();

	err = audiofile_read(t->audio, ENGINE_RATE, &t->samples, &t->n_samples, &msg);
	t->tm.audio_ms = now_ms() - t0;
	if (err != ERR_OK) {
		note(e, t->index, &t->errs, "audio: %s", msg ? msg : err_str(err));
		t->samples = NULL;
		t->n_samples = 0;
	}
	free(msg);
}

/* find_speech: where the speech of t's audio lies: given (n_given of them), as a live
 * endpointer already found it, or else endpointed here. */
static void find_speech(struct engine *e, struct turn *t, const struct endpoint_segment *given,
			int n_given)
{
	double t0 = now_ms();
	enum err err = ERR_NOMEM;

	if (!t->samples)
		return;
	if (given && n_given > 0) {
		if ((t->segs = malloc((size_t)n_given * sizeof *t->segs))) {
			memcpy(t->segs, given, (size_t)n_given * sizeof *t->segs);
			t->n_segs = n_given;
			err = ERR_OK;
		}
	} else {
		err = endpoint_find(t->samples, t->n_samples, ENGINE_RATE, &e->cfg.endpoint,
				    &t->segs, &t->n_segs);
	}
	t->tm.vad_ms = now_ms() - t0;
	if (err != ERR_OK) {
		note(e, t->index, &t->errs, "endpointer: %s (%s)", err_str(err),
		     t->audio ? t->audio : "live audio");
		t->segs = NULL;
		t->n_segs = 0;
	}
	for (int i = 0; i < t->n_segs; i++)
		t->tm.speech_ms += (double)(t->segs[i].end_ms - t->segs[i].start_ms);
}

/* telephone: the turn's audio through the telephone channel (the paper's pilot ran over
 * 8 kHz mu-law telephony); its condition gains "+telephone". A channel failure is noted
 * and the audio kept as it was. Errors: ERR_NOMEM. */
static enum err telephone(struct engine *e, struct turn *t)
{
	float *out = NULL;
	size_t m = 0;
	char *msg = NULL, *cond = NULL;
	double t0 = now_ms();
	enum err err;

	if (!t->samples)
		return ERR_OK;
	err = channel_telephone(t->samples, t->n_samples, ENGINE_RATE, &out, &m, &msg);
	t->tm.audio_ms += now_ms() - t0;
	if (err == ERR_NOMEM) {
		free(msg);
		return err;
	}
	if (err != ERR_OK) {
		note(e, t->index, &t->errs, "telephone channel: %s", msg ? msg : err_str(err));
		free(msg);
		return ERR_OK;
	}
	free(msg);
	if (asprintf(&cond, "%s+telephone", t->condition ? t->condition : "live") < 0) {
		free(out);
		return ERR_NOMEM;
	}
	free(t->samples);
	t->samples = out;
	t->n_samples = m;
	free(t->condition);
	t->condition = cond;
	return ERR_OK;
}

/* barging: the next turn (in, or the corpus call's next) begins as a barge-in. */
static bool barging(const struct engine *e, const struct engine_input *in)
{
	if (in)
		return in->barge_in;
	return e->call && e->next < e->call->n_turns && e->call->turns[e->next].barge_in_ms >= 0;
}

enum err engine_start_turn(struct engine *e, const struct engine_input *in)
{
	struct turn *t;
	bool from_audio;
	enum err err = ERR_NOMEM;

	if (!e->flow)
		return ERR_INVALID;
	if (e->t && e->open && barging(e, in) && (err = engine_cancel(e, "barge-in")) != ERR_OK)
		return err;
	if (e->t)
		return ERR_INVALID;
	if (!e->open)
		return ERR_OK;
	if (!in && (!e->call || e->next >= e->call->n_turns))
		return ERR_INVALID;
	err = ERR_NOMEM;
	if (!(t = turn_new(e)))
		return ERR_NOMEM;
	t->t_start = now_ms();
	arm_deadline(e);
	if (in) {
		if ((in->audio && !(t->audio = strdup(in->audio))) ||
		    (in->condition && !(t->condition = strdup(in->condition))) ||
		    (in->utterance_id && !(t->utterance_id = strdup(in->utterance_id))) ||
		    (in->transcript && !(t->reference = strdup(in->transcript))))
			goto fail;
		if (in->samples && in->n_samples) {
			if (!(t->samples = malloc(in->n_samples * sizeof *t->samples)))
				goto fail;
			memcpy(t->samples, in->samples, in->n_samples * sizeof *t->samples);
			t->n_samples = in->n_samples;
		}
		from_audio = t->samples != NULL;
		t->input = in->input && strcmp(in->input, "typed") == 0 ? "typed"
			   : in->input && strcmp(in->input, "mic") == 0 ? "mic"
			   : from_audio ? "mic" : "typed";
		t->silence = in->silence;
		t->barge_in = in->barge_in;
		t->barge_in_ms = in->barge_in_ms;
		t->agent_ms = in->agent_ms;
		t->barge_during = in->barge_in_during && strcmp(in->barge_in_during, "thinking") == 0
					  ? "thinking" : "speaking";
		t->recorded = in->recorded;
		t->wait_ms = in->endpoint_wait_ms > 0 ? in->endpoint_wait_ms : 0;
		t->ago_ms = in->speech_end_ago_ms > 0 ? in->speech_end_ago_ms : 0;
		snprintf(t->wait_by, sizeof t->wait_by, "%s",
			 in->endpoint_by ? in->endpoint_by : "typed: the turn ends on Enter");
		t->rec_start_ms = in->caller_audio_start_ms;
		t->rec_end_ms = in->caller_audio_end_ms;
	} else {
		const struct corpus_turn *ct = &e->call->turns[e->next];
		if (!(t->audio = dup_or_null(ct->audio)) != !ct->audio ||
		    !(t->condition = dup_or_null(ct->condition)) != !ct->condition ||
		    !(t->utterance_id = dup_or_null(ct->utterance_id)) != !ct->utterance_id ||
		    !(t->reference = dup_or_null(ct->transcript)) != !ct->transcript)
			goto fail;
		from_audio = ct->audio != NULL;
		t->input = "corpus";
		snprintf(t->wait_by, sizeof t->wait_by, "recorded turn: read whole");
		t->barge_in = ct->barge_in_ms >= 0;
		t->barge_in_ms = ct->barge_in_ms;
		t->barge_during = "speaking";
	}
	t->index = ++e->next;
	if (from_audio && !in)
		read_audio(e, t);
	if (from_audio && e->cfg.telephone && (err = telephone(e, t)) != ERR_OK)
		goto fail;
	/* The agent's words this turn cut off count as heard only as far as they played
	 * (not when the words cut were an acknowledgement: agent_ms < 0); words of a turn cut
	 * or held before they were judged go first. */
	if (t->barge_in && strcmp(t->barge_during, "speaking") == 0 && t->agent_ms >= 0)
		t->cut_inside = cut_agent(e, t->barge_in_ms, t->agent_ms);
	size_t own = t->n_samples;
	if ((err = carry_apply(e, t, &from_audio)) != ERR_OK)
		goto fail;
	/* Audio and endpointing. A turn without audio is typed text: its transcript is what
	 * the caller said. A live endpointer's segments hold while no carried audio went
	 * before hers. */
	if (from_audio) {
		bool given = in && in->segs && in->n_segs > 0 && t->n_samples == own;
		find_speech(e, t, given ? in->segs : NULL, given ? in->n_segs : 0);
		t->speech = t->n_segs > 0;
	} else {
		t->speech = t->reference != NULL;
		t->typed = in && t->speech;
	}
	t->state = T_STT;
	e->t = t;
	drive(e);
	return take_fatal(e);
fail:
	turn_free(e, t);
	return err;
}

enum err engine_poll(struct engine *e, int timeout_ms, struct curl_waitfd *extra,
		     unsigned n_extra)
{
	enum err err = http_poll(e->http, timeout_ms, extra, n_extra);
	poll_ack(e);
	poll_sentences(e);
	drive(e);
	if (err != ERR_OK)
		return err;
	return take_fatal(e);
}

bool engine_busy(const struct engine *e)
{
	return e->t != NULL;
}

bool engine_waiting(const struct engine *e, enum engine_stage *stage, const char **backend,
		    double *waited_ms)
{
	const struct turn *t = e->t;
	if (!t || !t->xfer)
		return false;
	if (stage)
		*stage = t->stage;
	if (backend)
		*backend = t->stage == ENGINE_STAGE_STT ? e->cfg.stt.name
			   : t->stage == ENGINE_STAGE_EXTRACT ? e->cfg.extract.name
							      : e->cfg.reply.name;
	if (waited_ms)
		*waited_ms = now_ms() - t->stage_t0;
	return true;
}

enum err engine_cancel(struct engine *e, const char *reason)
{
	struct turn *t = e->t;
	const char *where;
	enum err err;

	if (!t)
		return ERR_OK;
	e->t = NULL;
	if (t->xfer)
		where = engine_stage_name(t->stage);
	else
		where = t->state == T_STT ? "STT" : t->state == T_EXTRACT ? "EXTRACT"
			: t->state == T_RULES ? "the rules" : t->state == T_REPLY ? "REPLY"
			: "the record";
	if (t->xfer) {
		struct backend_usage u = t->tm.usage[t->stage];
		double ms = now_ms() - t->stage_t0;
		http_cancel(e->http, t->xfer);
		t->xfer = NULL;
		u.total_ms = ms;
		if (t->stage == ENGINE_STAGE_EXTRACT && t->ack)
			u.ack_ms = t->ack_ms;
		snprintf(u.error, sizeof u.error, "cancelled after %.0f ms: %s", ms,
			 reason ? reason : "cancelled");
		account(e, t, t->stage, &u);
		if (t->stage == ENGINE_STAGE_STT)
			t->tm.stt_ms = ms;
		else if (t->stage == ENGINE_STAGE_EXTRACT)
			t->tm.extract_ms = ms;
		else
			t->tm.reply_ms = ms;
		e->stage_ms[t->stage] += ms;
	}
	http_result_free(t->res);
	t->res = NULL;
	t->tm.cancelled = true;
	note(e, t->index, &t->errs, "%s cancelled while waiting for %s: %s",
	     t->index ? "turn" : "the opening", where, reason ? reason : "cancelled");
	err = ERR_OK;
	if (t->index == 0) {
		free(t->said);
		t->said = NULL;
		err = opening_done(e, t);
	} else {
		/* Cut before the rules judged it: what she said goes to the next turn. */
		bool keep = e->open && !t->dec && !t->backchannel && !t->held &&
			    (t->speech || t->carried || (t->transcript && t->transcript[0]));
		if (keep)
			err = carry_keep(e, t);
		else if (t->transcript && !t->heard && t->transcript[0] &&
			 history_add(e, "user", t->transcript) != ERR_OK)
			err = ERR_NOMEM;
		if (err == ERR_OK && !t->caller)
			err = caller_says(e, t);
		if (err == ERR_OK) {
			/* the sentences of a streamed reply said before the cut were heard (as
			 * far as they played: the next turn's barge-in cuts them to that) */
			free(t->said);
			t->said = t->spoken;
			t->spoken = NULL;
			err = turn_done(e, t);
		}
	}
	turn_free(e, t);
	return err;
}

enum err engine_hang_up(struct engine *e, const char *reason)
{
	enum err err = ERR_OK;
	if (e->t)
		err = engine_cancel(e, reason);
	if (e->open) {
		enum err err2 = finish(e, CALL_FAILED, reason);
		if (err == ERR_OK)
			err = err2;
	}
	return err;
}

bool engine_call_open(const struct engine *e)
{
	return e->open;
}

long long engine_call_row(const struct engine *e)
{
	return e->recording ? e->row : -1;
}

int engine_turns(const struct engine *e)
{
	return e->next;
}

/* wait_idle: poll until the opening or turn in progress is done. */
static enum err wait_idle(struct engine *e)
{
	while (e->t) {
		enum err err = engine_poll(e, 1000, NULL, 0);
		if (err != ERR_OK) {
			engine_cancel(e, err_str(err));
			return err;
		}
	}
	return take_fatal(e);
}

enum err engine_begin(struct engine *e, const struct corpus_call *call)
{
	enum err err = engine_start_call(e, call);
	if (err != ERR_OK)
		return err;
	return wait_idle(e);
}

enum err engine_step(struct engine *e, bool *ended)
{
	enum err err;

	*ended = true;
	if (!e->flow)
		return ERR_INVALID;
	if (!e->open)
		return ERR_OK;
	if (e->t && (err = wait_idle(e)) != ERR_OK)
		return err;
	if (!e->open)
		return ERR_OK;
	err = engine_start_turn(e, NULL);
	if (err == ERR_OK)
		err = wait_idle(e);
	*ended = !e->open;
	return err;
}

const struct flow *engine_flow(const struct engine *e)
{
	return e ? e->flow : NULL;
}
