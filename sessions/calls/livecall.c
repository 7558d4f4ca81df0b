/* livecall: a live call at the desk, end to end (see livecall.h). */
#include "livecall.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/utf8.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/stages/tts.h"
#include "audio/capture.h"
#include "audio/recorder.h"
#include "audio/sink.h"
#include "sessions/store/store.h"
#include "ttscache.h"

/* At most this much audio (samples at LIVE_RATE) is taken from the ring per wake, so a
 * capture device that runs faster than real time cannot keep the loop from the screen. */
#define MAX_PASS (LIVE_RATE / 2)
#define CHUNK 1600 /* samples read at a time: 100 ms */
#define LIVECALL_MAX_FDS 32 /* descriptors the loop waits on: the caller's and the TTS's */

/* Where a turn's reply lies in the agent's recording, ms (store_turn_agent_audio). */
struct place {
	bool set;
	long long row;
	int turn;
	long start, end;
};

struct livecall {
	struct engine_config cfg;
	struct livecall_options o;
	engine_listener listener;
	void *ud;
	struct engine *eng;
	struct backend tts;
	struct ttscache *ttsc;     /* a hosted voice's cache beside the database, or NULL */
	struct capture *cap;
	bool capturing;
	bool more;             /* the last drain left audio in the ring */
	struct sink *sink;
	struct recorder *rec;
	struct live *live;
	char note[320];
	char **refs;
	int n_refs, next_ref;
	bool audio_clock;      /* the sink plays on the captured audio's clock */
	double audio_ms;       /* caller audio captured since livecall_new, ms */

	/* the current call */
	char *say;             /* the agent's words to speak next, NULL when none */
	char *ack;             /* EXTRACT's acknowledgement to speak at once, NULL when none */
	bool acking;           /* the acknowledgement is playing: the reply waits for it */
	char **sents;          /* a streamed reply's sentences still to say, in order
	                          (ENGINE_REPLY_SENTENCE): each is handed to live_say as soon
	                          as it is complete (the first once the acknowledgement has
	                          played); live queues it after those playing */
	int n_sents, cap_sents;
	int sent_turn;         /* the caller turn they answer */
	bool sent_more;        /* more of that reply may come (the engine is not done) */
	long sent_prior_ms;    /* ms of its sentences that played in speeches before the one
	                          playing (a speech holds the sentences queued together) */
	bool synth_cut;        /* words were still being synthesized when the last barge-in
	                          came: their length is not known */
	int ack_turn;          /* the caller turn the acknowledgement answers */
	struct latency lat;    /* the last turn's end of speech to first sound, for the status */
	int say_turn;          /* the caller turn they answer (0: the opening) */
	int sound_turn;        /* the caller turn whose first sound is being synthesized */
	bool start_pending;    /* agent_start is where the turn's words were said, to be moved
	                          to where their first audio went out */
	int agent_turn;        /* the turn whose reply is playing or last played, -1 none */
	long agent_start;      /* where it began on the call's timeline, ms */
	bool ended;            /* the engine ended the call */
	bool barged;           /* a barge-in awaits the caller turn it starts */
	long barge_ms;
	long barge_agent_ms;   /* the length of the words the barge-in cut (-1: the
	                          acknowledgement, no reply) */
	enum live_state barge_during;
	bool turn_over;        /* the endpointer ended the caller's turn; no speech since */
	bool speak_now;        /* inside engine_start_turn or engine_poll: words the engine
	                          says are spoken from its event, before it goes on */
	int in_event;          /* the caller turn whose event is being spoken from (0: none) */
	struct place place;    /* that turn's reply's place, stored once the engine has
	                          stored the turn (after_engine) */
	int n_barge, n_silence;
	char audio_dir[PATH_MAX];
	float buf[CHUNK];
};

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static double now_of(const struct livecall *lc)
{
	return lc->audio_clock ? lc->audio_ms : mono_ms();
}

static double audio_clock(void *ud)
{
	return ((const struct livecall *)ud)->audio_ms;
}

static void set_note(struct livecall *lc, const char *what, const char *why)
{
	snprintf(lc->note, sizeof lc->note, "%s%s%s", what, why && *why ? ": " : "",
		 why ? why : "");
	for (char *p = lc->note; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

/* sents_clear: no sentence of a streamed reply is left to say. */
static void sents_clear(struct livecall *lc)
{
	for (int i = 0; i < lc->n_sents; i++)
		free(lc->sents[i]);
	lc->n_sents = 0;
	lc->sent_more = false;
}

/* sents_push: a copy of text (UTF-8) is the next sentence of turn's reply to say. A
 * sentence that cannot be kept (out of memory) is left out. */
static void sents_push(struct livecall *lc, int turn, const char *text)
{
	if (turn != lc->sent_turn || !lc->sent_more) { /* a new reply */
		sents_clear(lc);
		lc->sent_turn = turn;
		lc->sent_prior_ms = 0;
	}
	lc->sent_more = true;
	if (lc->n_sents == lc->cap_sents) {
		int cap = lc->cap_sents ? 2 * lc->cap_sents : 8;
		char **v = realloc(lc->sents, (size_t)cap * sizeof *v);
		if (!v)
			return;
		lc->sents = v;
		lc->cap_sents = cap;
	}
	if ((lc->sents[lc->n_sents] = strdup(text)))
		lc->n_sents++;
}

static void speak(struct livecall *lc);

/* on_engine: the engine's events: the agent's words (the acknowledgement, said before
 * them; a streamed reply's sentences as they come) are kept to be spoken; during a turn
 * (speak_now) they are spoken at once, from the event, so their TTS request starts before
 * the engine goes on (the rules and REPLY after an acknowledgement, the store's write of
 * the turn after its reply); else once the engine call returns. Everything goes on to the
 * listener. */
static void on_engine(void *ud, const struct engine_event *ev)
{
	struct livecall *lc = ud;
	bool words = false;

	if (ev->kind == ENGINE_ACK && ev->text) {
		free(lc->ack);
		lc->ack = strdup(ev->text);
		lc->ack_turn = ev->turn;
		words = true;
	} else if (ev->kind == ENGINE_REPLY_SENTENCE && ev->text) {
		sents_push(lc, ev->turn, ev->text);
		words = true;
	} else if (ev->kind == ENGINE_AGENT_SAYS && ev->text &&
		   cJSON_GetObjectItemCaseSensitive(ev->json, "sentences")) {
		/* said sentence by sentence: nothing more of it comes */
		if (ev->turn == lc->sent_turn)
			lc->sent_more = false;
	} else if (ev->kind == ENGINE_AGENT_SAYS && ev->text) {
		free(lc->say);
		lc->say = strdup(ev->text);
		lc->say_turn = ev->turn;
		words = true;
	} else if (ev->kind == ENGINE_CALL_END) {
		lc->ended = true;
	}
	if (words && lc->speak_now && lc->live && ev->turn > 0) {
		lc->in_event = ev->turn;
		speak(lc);
		lc->in_event = 0;
	}
	if (lc->listener)
		lc->listener(lc->ud, ev);
}

/* read_refs: the references file, one transcript a non-empty line. */
static enum err read_refs(struct livecall *lc, const char *path, char **errmsg)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	enum err e = ERR_OK;

	if (!f) {
		if (errmsg && asprintf(errmsg, "%s: cannot read the references", path) < 0)
			*errmsg = NULL;
		return ERR_IO;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		char **v = realloc(lc->refs, (size_t)(lc->n_refs + 1) * sizeof *v);
		if (!v || !(v[lc->n_refs] = strdup(line))) {
			if (v)
				lc->refs = v;
			e = ERR_NOMEM;
			break;
		}
		lc->refs = v;
		lc->n_refs++;
	}
	free(line);
	fclose(f);
	return e;
}

enum err livecall_new(const struct engine_config *cfg, const struct livecall_options *opt,
		      engine_listener listener, void *ud, struct livecall **out, char **errmsg)
{
	struct livecall *lc = calloc(1, sizeof *lc);
	const char *why = NULL;
	char *msg = NULL;
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	if (!lc)
		goto out;
	lc->cfg = *cfg;
	lc->o = *opt;
	lc->o.live.mute_while_agent_speaks = cfg->form && cfg->form->mute_user_while_agent_speaking;
	lc->listener = listener;
	lc->ud = ud;
	lc->agent_turn = -1;
	if (opt->mic &&
	    (e = capture_open(opt->input_device, LIVE_RATE, LIVECALL_RING_MS, &lc->cap, &msg)) != ERR_OK)
		goto out;
	if ((e = backend_tts(opt->tts, &lc->tts, &why)) != ERR_OK) {
		if (errmsg && asprintf(errmsg, "--tts %s: %s", opt->tts ? opt->tts : TTS_DEFAULT,
				       why ? why : err_str(e)) < 0)
			*errmsg = NULL;
		goto out;
	}
	if ((e = ttscache_wrap(opt->db_path, &lc->tts, &lc->ttsc)) != ERR_OK)
		goto out;
	lc->audio_clock = opt->mic && opt->output_file;
	if (opt->output_file) {
		if ((e = sink_open_file(opt->output_file, LIVE_RATE, lc->audio_clock ? audio_clock : NULL,
					lc, &lc->sink, &msg)) != ERR_OK)
			goto out;
	} else if (!lc->tts.ops->silent) {
		if ((e = sink_open_device(opt->output_device, LIVE_RATE, &lc->sink, &msg)) != ERR_OK) {
			if (opt->output_device)
				goto out;
			/* No output: the words are shown (and recorded), not spoken. */
			set_note(lc, "no audio output device: the agent's words are shown, not spoken",
				 NULL);
			free(msg);
			msg = NULL;
			e = ERR_OK;
		}
	}
	if (opt->references && (e = read_refs(lc, opt->references, &msg)) != ERR_OK)
		goto out;
	if ((e = engine_new(cfg, on_engine, lc, &lc->eng)) != ERR_OK)
		goto out;
	if (!opt->mic && (e = live_new(lc->sink, &lc->tts, NULL, &lc->o.live, &lc->live)) != ERR_OK)
		goto out;
	*out = lc;
	lc = NULL;
	e = ERR_OK;
out:
	if (e != ERR_OK && errmsg && !*errmsg)
		*errmsg = msg ? msg : strdup(err_str(e));
	else
		free(msg);
	livecall_free(lc);
	return e;
}

/* end_recording: close the current call's recordings. */
static void end_recording(struct livecall *lc)
{
	char *msg = NULL;

	if (lc->rec && recorder_close(lc->rec, false, &msg) != ERR_OK && lc->listener) {
		struct engine_event ev = {.kind = ENGINE_ERROR, .text = msg ? msg : "recording"};
		lc->listener(lc->ud, &ev);
	}
	free(msg);
	lc->rec = NULL;
}

void livecall_free(struct livecall *lc)
{
	if (!lc)
		return;
	capture_free(lc->cap); /* first: no more callbacks */
	engine_free(lc->eng);
	live_free(lc->live);
	ttscache_free(lc->ttsc);
	end_recording(lc);
	sink_free(lc->sink);
	for (int i = 0; i < lc->n_refs; i++)
		free(lc->refs[i]);
	free(lc->refs);
	free(lc->say);
	free(lc->ack);
	sents_clear(lc);
	free(lc->sents);
	free(lc);
}

static void error_event(struct livecall *lc, const char *what, enum err e)
{
	char msg[256];
	struct engine_event ev = {.kind = ENGINE_ERROR, .text = msg, .call_id = "live"};

	snprintf(msg, sizeof msg, "%s: %s", what, err_str(e));
	if (lc->listener)
		lc->listener(lc->ud, &ev);
}

/* agent_audio: the reply of lc->agent_turn lies from agent_start to end_ms on the call's
 * timeline: store it (microphone calls that are recorded), make the files crash-safe. */
static void agent_audio(struct livecall *lc, long end_ms)
{
	long long row = engine_call_row(lc->eng);

	if (!lc->rec)
		return;
	recorder_turn_end(lc->rec, NULL);
	if (lc->agent_turn > 0 && lc->agent_turn == lc->in_event && row >= 0 && lc->cfg.store)
		/* said from the engine's event: the turn's row is not written yet */
		lc->place = (struct place){true, row, lc->agent_turn, lc->agent_start, end_ms};
	else if (lc->agent_turn > 0 && row >= 0 && lc->cfg.store &&
		 store_turn_agent_audio(lc->cfg.store, row, lc->agent_turn, lc->agent_start, end_ms) != ERR_OK)
		error_event(lc, "recording the reply's place", ERR_DB);
	lc->agent_turn = -1;
}

/* numeric: the question asked now takes a number (a number, a phone number, digits). */
static bool numeric(const struct livecall *lc)
{
	const struct flow *fl = engine_flow(lc->eng);
	int q = fl ? flow_current(fl) : -1;
	const struct form_question *fq;

	if (q < 0 || !lc->cfg.form || q >= lc->cfg.form->n_questions)
		return false;
	fq = &lc->cfg.form->questions[q];
	return fq->type == FORM_NUMBER || form_counts_digits(fq);
}

/* open_recording: a microphone call's recordings and turn-taking, once the engine has
 * recorded the call (its row id names the folder). */
static enum err open_recording(struct livecall *lc)
{
	long long row = engine_call_row(lc->eng);
	char *msg = NULL;
	enum err e;

	lc->audio_dir[0] = '\0';
	if (lc->o.db_path && row >= 0 &&
	    recorder_dir(lc->o.db_path, row, lc->audio_dir, sizeof lc->audio_dir) == 0) {
		if ((e = recorder_open(lc->audio_dir, LIVE_RATE, &lc->rec, &msg)) != ERR_OK) {
			struct engine_event ev = {.kind = ENGINE_ERROR, .call_id = "live",
						  .text = msg ? msg : "cannot record the call"};
			if (lc->listener)
				lc->listener(lc->ud, &ev);
			free(msg);
			lc->rec = NULL;
			lc->audio_dir[0] = '\0';
		} else {
			/* the disk's work off the loop: a turn's fsync must not delay the answer */
			if (recorder_background(lc->rec, NULL) != ERR_OK)
				error_event(lc, "recording off the loop", ERR_NOMEM);
			if (lc->cfg.store &&
			    store_call_audio_dir(lc->cfg.store, row, lc->audio_dir) != ERR_OK)
				error_event(lc, "naming the call's recordings", ERR_DB);
		}
	}
	return live_new(lc->sink, &lc->tts, lc->rec, &lc->o.live, &lc->live);
}

/* say_timed: live_say, timed: the first sound of caller turn `turn` (its acknowledgement
 * or its reply, whichever plays first) completes the turn's latency with the synthesis
 * and the start of playback when its first audio reaches the sink (live_first_audio,
 * played()). */
static enum err say_timed(struct livecall *lc, int turn, const char *text, double now)
{
	lc->sound_turn = turn;
	return live_say(lc->live, text, numeric(lc), now);
}

/* played: a TTS request that failed late is reported; once the first audio of words said
 * has gone to the output (live_first_audio), the turn they answer has its time to first
 * audio and playback start (engine_latency_played leaves a turn already sounded alone). */
static void played(struct livecall *lc)
{
	struct live_first_audio f;
	const char *out = lc->sink ? sink_device_name(lc->sink) : "no output";
	enum err e;
	/* said from the engine's event while it records the turn: the figure waits for the
	 * turn's row */
	if (lc->in_event && !engine_busy(lc->eng))
		return;
	e = lc->live ? live_late_error(lc->live) : ERR_OK;
	if (e)
		error_event(lc, "speaking the agent's words", e);
	if (!lc->live || !live_first_audio(lc->live, &f))
		return;
	if (lc->start_pending) /* where the turn's words began, now that they have */
		lc->agent_start = live_agent_start_ms(lc->live);
	lc->start_pending = false;
	if (lc->sound_turn > 0)
		engine_latency_played(lc->eng, lc->sound_turn, f.tts_ms,
				      lc->tts.name ? lc->tts.name : "tts", f.play_ms,
				      out ? out : "output", f.wall_ms, &lc->lat);
}

/* speak_ack: say the pending acknowledgement at once, while the engine still works on
 * the turn (the FormBharo paper: spoken to cut perceived latency). It is agent speech like
 * any other (a barge-in stops it and cancels the turn) but no turn's reply: it is not
 * placed in the store. Once it has played (or at once, when nothing plays) the agent is
 * thinking again while the engine is busy, so the caller's speech stays a barge-in. */
static void speak_ack(struct livecall *lc)
{
	double now = now_of(lc);
	char *text = lc->ack;
	enum err e;

	lc->ack = NULL;
	if (!lc->live) { /* no turn-taking yet: nobody to say it to */
		free(text);
		return;
	}
	if (lc->agent_turn >= 0) /* words still playing are cut by the new ones */
		agent_audio(lc, live_call_ms(lc->live));
	e = say_timed(lc, lc->ack_turn, text, now);
	free(text);
	if (e != ERR_OK)
		error_event(lc, "speaking the acknowledgement", e);
	lc->acking = live_state(lc->live) == LIVE_SPEAKING;
	if (!lc->acking && engine_busy(lc->eng))
		live_thinking(lc->live, true, now);
}

/* speak_sentence: hand the next sentence of a streamed reply to the turn-taking the moment
 * it is complete: said while the reply's earlier sentences still play or synthesize, it is
 * queued after them in the same speech (live_say), so its synthesis overlaps their playback
 * and it follows them with no pause but the queue's. The first of a turn begins the reply's
 * place in the recordings (and is its first sound); a sentence that starts a new speech
 * (the ones before have played out) adds their length to sent_prior_ms, so the reply lies
 * from its first sentence to its last. */
static void speak_sentence(struct livecall *lc)
{
	double now = now_of(lc);
	char *text = lc->sents[0];
	enum err e;

	memmove(lc->sents, lc->sents + 1, (size_t)--lc->n_sents * sizeof *lc->sents);
	if (lc->agent_turn == lc->sent_turn) {
		if (live_state(lc->live) != LIVE_SPEAKING) /* the speech before has ended */
			lc->sent_prior_ms += live_agent_ms(lc->live);
	} else {
		if (lc->agent_turn >= 0) /* words still playing are cut by the new ones */
			agent_audio(lc, live_call_ms(lc->live));
		lc->sent_prior_ms = 0;
	}
	e = say_timed(lc, lc->sent_turn, text, now);
	free(text);
	if (e != ERR_OK)
		error_event(lc, "speaking the agent's words", e);
	if (lc->agent_turn != lc->sent_turn) {
		lc->agent_turn = lc->sent_turn;
		lc->agent_start = live_agent_start_ms(lc->live);
		lc->start_pending = true;
	}
	/* a kept sentence sounds within live_say: its first audio is taken now, before the
	 * next sentence's request replaces it */
	played(lc);
}

/* speak: say the agent's pending words: the acknowledgement at once, the reply once the
 * acknowledgement has played; a streamed reply's sentences each as soon as it is complete
 * (its first once nothing else plays). */
static void speak(struct livecall *lc)
{
	double now = now_of(lc);
	enum err e;

	if (lc->ack)
		speak_ack(lc);
	if (lc->n_sents) {
		if (lc->live && live_state(lc->live) == LIVE_SPEAKING && lc->agent_turn != lc->sent_turn)
			return; /* the acknowledgement first */
		lc->acking = false;
		if (!lc->live && (e = open_recording(lc)) != ERR_OK) {
			error_event(lc, "turn-taking", e);
			sents_clear(lc);
			return;
		}
		while (lc->n_sents)
			speak_sentence(lc);
		if (live_state(lc->live) != LIVE_SPEAKING && !lc->sent_more)
			agent_audio(lc, live_agent_start_ms(lc->live) + live_agent_ms(lc->live));
		return;
	}
	if (!lc->say)
		return;
	if (lc->acking && lc->live && live_state(lc->live) == LIVE_SPEAKING)
		return;
	lc->acking = false;
	if (!lc->live && (e = open_recording(lc)) != ERR_OK) {
		error_event(lc, "turn-taking", e);
		free(lc->say);
		lc->say = NULL;
		return;
	}
	if (lc->agent_turn >= 0) /* words still playing are cut by the new ones */
		agent_audio(lc, live_call_ms(lc->live));
	e = say_timed(lc, lc->say_turn, lc->say, now);
	if (e != ERR_OK)
		error_event(lc, "speaking the agent's words", e);
	free(lc->say);
	lc->say = NULL;
	lc->agent_turn = lc->say_turn;
	lc->agent_start = live_agent_start_ms(lc->live);
	lc->start_pending = true;
	if (live_state(lc->live) != LIVE_SPEAKING) /* nothing to play: said at once */
		agent_audio(lc, lc->agent_start + live_agent_ms(lc->live));
}

/* after_engine: the engine has moved on: speak its words, or, when it finished a turn
 * without any, listen again. */
static void after_engine(struct livecall *lc)
{
	if (lc->place.set) { /* the engine has stored the turn: its reply's place now */
		lc->place.set = false;
		if (store_turn_agent_audio(lc->cfg.store, lc->place.row, lc->place.turn,
					   lc->place.start, lc->place.end) != ERR_OK)
			error_event(lc, "recording the reply's place", ERR_DB);
	}
	speak(lc);
	/* a streamed reply whose last sentence played before the engine said it was the last:
	 * its place in the recordings ends with that sentence */
	if (lc->live && lc->agent_turn >= 0 && lc->agent_turn == lc->sent_turn && !lc->sent_more &&
	    !lc->n_sents && live_state(lc->live) != LIVE_SPEAKING)
		agent_audio(lc, live_agent_start_ms(lc->live) + live_agent_ms(lc->live));
	if (lc->live && !engine_busy(lc->eng) && live_state(lc->live) == LIVE_THINKING)
		live_thinking(lc->live, false, now_of(lc));
}

/* start_turn: the caller's turn in (its barge-in filled in here) into the engine. */
static void start_turn(struct livecall *lc, struct engine_input *in)
{
	enum err e;

	if (lc->barged) {
		in->barge_in = true;
		in->barge_in_ms = lc->barge_ms;
		in->agent_ms = lc->barge_agent_ms;
		in->barge_in_during = lc->barge_during == LIVE_THINKING ? "thinking" : "speaking";
		lc->barged = false;
	}
	if (lc->live)
		live_thinking(lc->live, true, now_of(lc));
	lc->speak_now = true;
	e = engine_start_turn(lc->eng, in);
	lc->speak_now = false;
	if (e != ERR_OK)
		error_event(lc, "the caller's turn", e);
	after_engine(lc);
}

/* events: act on what the turn-taking decided. */
static void events(struct livecall *lc)
{
	struct live_event ev;

	played(lc);
	while (lc->live && live_next(lc->live, &ev)) {
		switch (ev.kind) {
		case LIVE_SPEECH_START:
			lc->turn_over = false;
			break;
		case LIVE_BARGE_IN:
			lc->n_barge++;
			lc->barged = true;
			lc->barge_during = ev.during;
			lc->barge_ms = ev.during == LIVE_SPEAKING ? ev.played_ms : 0;
			/* the engine keeps only the words she heard of the reply cut; of a
			 * streamed reply, its sentences played before count too, and its length
			 * is known only when nothing of it was left to say or synthesize (else
			 * 0: the engine takes the words at turnkind's pace) */
			lc->barge_agent_ms = lc->acking ? -1 : live_agent_ms(lc->live);
			if (!lc->acking && lc->agent_turn >= 0 && lc->agent_turn == lc->sent_turn) {
				if (ev.during == LIVE_SPEAKING)
					lc->barge_ms += lc->sent_prior_ms;
				lc->barge_agent_ms = lc->n_sents || lc->sent_more || lc->synth_cut
							     ? 0 : lc->sent_prior_ms + lc->barge_agent_ms;
			}
			if (ev.during == LIVE_SPEAKING && lc->agent_turn >= 0)
				agent_audio(lc, live_agent_start_ms(lc->live) + ev.played_ms);
			if (engine_busy(lc->eng) && engine_cancel(lc->eng, "barge-in") != ERR_OK)
				error_event(lc, "cancelling the agent's turn", ERR_DB);
			free(lc->say); /* words of a cancelled turn are not said */
			lc->say = NULL;
			sents_clear(lc); /* nor the rest of a streamed reply */
			free(lc->ack);
			lc->ack = NULL;
			lc->acking = false;
			break;
		case LIVE_TURN_END: {
			char by[72];
			struct engine_input in = {
				.samples = ev.samples, .n_samples = ev.n_samples, .input = "mic",
				/* the endpointer has found her speech: not looked for again */
				.segs = &ev.speech, .n_segs = 1,
				.recorded = lc->rec != NULL, .caller_audio_start_ms = ev.start_ms,
				.caller_audio_end_ms = ev.end_ms,
				/* audio ms: the caller's timeline is real time as captured */
				.endpoint_wait_ms = (double)(ev.decided_ms - ev.end_ms),
				.speech_end_ago_ms = (double)(live_call_ms(lc->live) - ev.end_ms),
				.endpoint_by = by,
			};
			snprintf(by, sizeof by, "endpointer: stop %d ms + turn wait %d ms",
				 lc->o.live.endpoint.stop_ms, live_turn_wait_ms(lc->live));
			lc->turn_over = true;
			if (lc->next_ref < lc->n_refs)
				in.transcript = lc->refs[lc->next_ref++];
			if (lc->rec)
				recorder_turn_end(lc->rec, NULL);
			start_turn(lc, &in);
			break;
		}
		case LIVE_AGENT_DONE:
			if (lc->acking) {
				/* the acknowledgement has played: the reply follows, or the
				 * agent is still thinking */
				lc->acking = false;
				if (engine_busy(lc->eng))
					live_thinking(lc->live, true, now_of(lc));
			} else if (lc->agent_turn >= 0 && lc->agent_turn == lc->sent_turn &&
				   (lc->n_sents || lc->sent_more)) {
				/* the sentences of a streamed reply said so far have played:
				 * the next is said when it comes (speak); till then the agent
				 * thinks */
				if (!lc->n_sents)
					live_thinking(lc->live, true, now_of(lc));
			} else if (lc->agent_turn >= 0) {
				agent_audio(lc, live_agent_start_ms(lc->live) + live_agent_ms(lc->live));
			}
			break;
		case LIVE_SILENCE:
			if (lc->o.mic && engine_call_open(lc->eng)) {
				char by[72];
				struct engine_input in = {.input = "mic", .silence = true,
							  .endpoint_by = by};
				/* no speech ended: the figure runs from the silence timer */
				snprintf(by, sizeof by, "silence: nothing said for %d ms",
					 lc->o.live.silence_ms);
				lc->n_silence++;
				start_turn(lc, &in);
			}
			break;
		}
	}
}

enum err livecall_start(struct livecall *lc)
{
	enum err e;

	free(lc->say);
	lc->say = NULL;
	free(lc->ack);
	lc->ack = NULL;
	lc->acking = false;
	sents_clear(lc);
	if (engine_call_open(lc->eng))
		engine_hang_up(lc->eng, "abandoned: the next call was started");
	if (lc->o.mic) {
		live_free(lc->live);
		lc->live = NULL;
		end_recording(lc);
	}
	lc->agent_turn = -1;
	lc->ended = lc->barged = lc->turn_over = false;
	lc->n_barge = lc->n_silence = 0;
	lc->next_ref = 0;
	memset(&lc->lat, 0, sizeof lc->lat);
	lc->audio_dir[0] = '\0';
	if ((e = engine_start_call(lc->eng, NULL)) != ERR_OK)
		return e;
	if (lc->cap && !lc->capturing) {
		if ((e = capture_start(lc->cap)) != ERR_OK)
			return e;
		lc->capturing = true;
	}
	after_engine(lc);
	return ERR_OK;
}

enum err livecall_typed(struct livecall *lc, const char *text)
{
	struct engine_input in = {.input = "typed"};

	if (!engine_call_open(lc->eng))
		return ERR_OK;
	const char *bad = text ? utf8_bad(text, strlen(text), false) : NULL;
	if (bad) {
		char msg[160];
		struct engine_event ev = {.kind = ENGINE_ERROR, .text = msg, .call_id = "live"};
		snprintf(msg, sizeof msg, "typed line: not valid UTF-8 at byte %zu; refused, not a turn",
			 (size_t)(bad - text) + 1);
		if (lc->listener)
			lc->listener(lc->ud, &ev);
		return ERR_INVALID;
	}
	lc->synth_cut = lc->live && live_synthesizing(lc->live);
	if (lc->live && live_interrupt(lc->live, now_of(lc)))
		events(lc);
	else if (engine_busy(lc->eng))
		engine_cancel(lc->eng, "barge-in");
	if (text && *text) {
		in.transcript = text;
	} else {
		in.silence = true;
		lc->n_silence++;
	}
	start_turn(lc, &in);
	return ERR_OK;
}

/* drain: the captured audio into the turn-taking, at most MAX_PASS samples. Output: true
 * when more is waiting. */
static bool drain(struct livecall *lc)
{
	size_t total = 0, n;

	/* On the captured audio's clock (a source faster than real time) the words' synthesis
	 * takes no call time, as when it blocked: the caller's audio waits in the ring. */
	while (total < MAX_PASS && !(lc->audio_clock && lc->live && live_synthesizing(lc->live)) &&
	       (n = capture_read(lc->cap, lc->buf, CHUNK)) > 0) {
		total += n;
		lc->audio_ms += (double)n * 1000.0 / LIVE_RATE;
		/* Before the call is recorded, and after it has ended, nobody listens. */
		if (!lc->live || !engine_call_open(lc->eng))
			continue;
		lc->synth_cut = live_synthesizing(lc->live);
		if (live_feed(lc->live, lc->buf, n, now_of(lc)) != ERR_OK)
			error_event(lc, "endpointing", ERR_AUDIO);
		events(lc);
	}
	return total >= MAX_PASS;
}

enum err livecall_poll(struct livecall *lc, int timeout_ms, struct curl_waitfd *extra,
		       unsigned n_extra)
{
	enum err e;

	if (lc->capturing && (timeout_ms < 0 || timeout_ms > LIVECALL_POLL_MS))
		timeout_ms = LIVECALL_POLL_MS;
	if (lc->live && live_state(lc->live) == LIVE_SPEAKING && lc->sink && !lc->audio_clock) {
		int left = sink_remaining_ms(lc->sink) + 1;
		if (timeout_ms < 0 || timeout_ms > left)
			timeout_ms = left;
	}
	/* Audio already waiting in the ring is taken at once. */
	if (lc->more)
		timeout_ms = 0;
	/* the agent's TTS request wakes the loop too: its descriptors beside the caller's */
	struct curl_waitfd fds[LIVECALL_MAX_FDS];
	unsigned n = n_extra < LIVECALL_MAX_FDS ? n_extra : LIVECALL_MAX_FDS;
	if (n)
		memcpy(fds, extra, n * sizeof(*fds));
	if (lc->live)
		n += live_waitfds(lc->live, fds + n, LIVECALL_MAX_FDS - n, &timeout_ms);
	lc->speak_now = true;
	e = engine_poll(lc->eng, timeout_ms, fds, n);
	lc->speak_now = false;
	for (unsigned i = 0; i < n_extra && i < n; i++)
		extra[i].revents = fds[i].revents;
	after_engine(lc);
	lc->more = lc->capturing && drain(lc);
	if (lc->live) {
		live_tick(lc->live, now_of(lc));
		events(lc);
	}
	after_engine(lc);
	return e;
}

enum err livecall_hang_up(struct livecall *lc, const char *reason)
{
	if (lc->sink)
		sink_stop(lc->sink, NULL);
	free(lc->say);
	lc->say = NULL;
	free(lc->ack);
	lc->ack = NULL;
	lc->acking = false;
	sents_clear(lc);
	return engine_hang_up(lc->eng, reason);
}

bool livecall_call_open(const struct livecall *lc)
{
	return engine_call_open(lc->eng);
}

bool livecall_done(const struct livecall *lc)
{
	return !engine_call_open(lc->eng) && !lc->say && !lc->n_sents &&
	       (!lc->live || live_state(lc->live) != LIVE_SPEAKING);
}

bool livecall_listening(const struct livecall *lc)
{
	return !engine_busy(lc->eng) && !lc->say && !lc->ack && !lc->n_sents &&
	       (!lc->live || (live_state(lc->live) != LIVE_SPEAKING &&
			      live_state(lc->live) != LIVE_THINKING));
}

static const char *state_name(enum live_state s)
{
	switch (s) {
	case LIVE_SPEAKING: return "agent speaking";
	case LIVE_THINKING: return "agent thinking";
	case LIVE_LISTENING: return "listening";
	case LIVE_IDLE: break;
	}
	return "waiting";
}

void livecall_status(const struct livecall *lc, char *buf, size_t n)
{
	const char *agent = !lc->live ? "waiting"
			    : !engine_call_open(lc->eng) && live_state(lc->live) != LIVE_SPEAKING
				    ? "call over"
				    : state_name(live_state(lc->live));
	char lat[200];
	latency_line(&lc->lat, lat, sizeof lat);
	if (!lc->o.mic) {
		snprintf(buf, n, "typed  ·  %s%s%s", agent, lat[0] ? "  ·  " : "", lat);
		return;
	}
	double db = lc->live ? live_level_db(lc->live) : -120;
	char meter[11];
	int cells = (int)lround((db + 60.0) / 6.0); /* -60..0 dBFS in ten cells */
	if (cells < 0)
		cells = 0;
	if (cells > 10)
		cells = 10;
	for (int i = 0; i < 10; i++)
		meter[i] = i < cells ? '#' : '-';
	meter[10] = '\0';
	snprintf(buf, n, "mic [%s] %4.0f dB  ·  %s  ·  %s  ·  wait %d ms  ·  overruns %llu  ·  %s%s%s",
		 meter, db < -99 ? -99.0 : db,
		 lc->live && live_caller_speaking(lc->live) ? "VAD speech" : "VAD silence",
		 lc->turn_over ? "turn over" : "turn open",
		 lc->live ? live_turn_wait_ms(lc->live) : lc->o.live.endpoint.turn_wait_ms,
		 (unsigned long long)capture_overruns(lc->cap), agent, lat[0] ? "  ·  " : "", lat);
}

bool livecall_latency(const struct livecall *lc, struct latency *out)
{
	*out = lc->lat;
	return lc->lat.known;
}

const char *livecall_note(const struct livecall *lc)
{
	return lc->note;
}

const struct engine *livecall_engine(const struct livecall *lc)
{
	return lc->eng;
}

const char *livecall_audio_dir(const struct livecall *lc)
{
	return lc->audio_dir;
}

void livecall_counts(const struct livecall *lc, int *barge_ins, int *silences)
{
	if (barge_ins)
		*barge_ins = lc->n_barge;
	if (silences)
		*silences = lc->n_silence;
}
