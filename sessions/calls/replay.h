/* replay: recorded calls played again, turn by turn, through a changed form, backends or
 * options, into a new run (source "replay").
 *
 * Each recorded caller turn answered one question (its decision's "asked"). The replayed
 * call asks what its own rules ask; each time it asks question F it hears the next
 * recorded turn that answered F, in the order they were said (so a re-ask hears the
 * caller's second answer). When the new path asks a question the recording never
 * answered (or answered fewer times), the caller is silent for that turn: the turn is
 * recorded as a silence turn with condition REPLAY_UNANSWERED, and the diff names it.
 * A caller who left the recorded call (a corpus call whose turns ran out, a live caller
 * who went: status failed, reason "the caller hung up..." or "abandoned...") leaves again,
 * with the same reason, once every recording of hers the new path asks for has been
 * heard; a call the rules ended goes on until the rules end it. A caller kept on silence
 * (an until-answered question) hangs up after REPLAY_MAX_SILENCE such turns.
 *
 * What is heard: with words (the STT backend "reference"), the recorded transcript, as
 * typed words (a turn with none is silence); otherwise the recorded audio (--from audio in formdesk replay): a corpus
 * turn's file, or a microphone turn's stretch of the call's caller.wav (with 300 ms
 * either side, for the endpointer), with the recorded transcript as the reference.
 * A recorded call with the same form, backends and options replays into the same
 * transcripts, extractions, decisions and replies. */
#ifndef FORMDESK_REPLAY_H
#define FORMDESK_REPLAY_H

#include <stdbool.h>
#include "base/err.h"
#include "runs.h"

struct store;
struct store_call_row;

#define REPLAY_UNANSWERED "unanswered"
#define REPLAY_MAX_SILENCE 20

struct replay_spec {
	struct store *src;         /* where the calls were recorded (borrowed) */
	struct runs_spec run;      /* the new run: cfg (form, lex, backends, options; its
	                              store is where the run is recorded), specs, form_json,
	                              replay_of; source is set to "replay" */
	bool words;                /* play the recorded words, not the audio */
	bool today_set;            /* cfg's today holds for every call; else each call has
	                              the today it was recorded with */
};

struct replay_stats {
	int calls;                 /* calls replayed */
	int turns;                 /* caller turns played */
	int unanswered;            /* of them, questions the recording never answered */
};

/* replay_check: whether calls (n of them, rows of spec->src) can be replayed as spec says,
 * before anything is written: each call fits the form (at least one question it answered
 * is in it, or it answered none) and, without words, each turn's recording is there.
 * Output: on failure *errmsg (caller frees) names the call and the field or file.
 * Errors: ERR_INVALID (a call does not fit the form), ERR_NOTFOUND (a recording is gone),
 * ERR_DB, ERR_NOMEM. */
enum err replay_check(const struct replay_spec *spec, const struct store_call_row *calls, int n,
		      char **errmsg);

/* replay_run: replay_check, then record a new run and replay calls into it, in order.
 * Output: *run the new run's id, *stats; on failure *errmsg (caller frees) says why.
 * Errors: as replay_check, and ERR_DB, ERR_NOMEM, ERR_BACKEND from the engine. */
enum err replay_run(const struct replay_spec *spec, const struct store_call_row *calls, int n,
		    long long *run, struct replay_stats *stats, char **errmsg);

#endif
