/* live: turn-taking for a live call at the desk: the caller's audio from the microphone
 * (or anything fed in 10 ms pieces), the agent's words out through a sink, and the
 * decisions between them that no language model makes:
 * - endpointing (audio/endpoint.h), waiting longer before ending the turn while the field
 *   being asked is a number or a phone number, so digits read in groups are not cut off;
 * - barge-in: speech that starts while the agent is speaking or thinking stops playback at
 *   once (sink_stop) and is reported, with when it happened, so the loop cancels the
 *   engine's turn (engine_cancel(e, "barge-in")) and takes the new speech as the caller's
 *   turn; unless the form mutes the caller while the agent speaks
 *   (mute_user_while_agent_speaking), when that speech is ignored;
 * - silence: if the caller says nothing for silence_ms (3.0 s, the FormBharo pilot's
 *   re-prompt setting) after the agent stops, it is reported once, so the loop can run a
 *   silent turn through the engine (whose retry rules decide the re-prompt or the end).
 *
 * live never waits: the loop feeds it what capture_read() returned and the time, and takes
 * events; the agent's TTS requests run on live's own HTTP client, which the loop waits on
 * beside its own descriptors (live_waitfds), and espeak-ng on the TTS backend's worker
 * thread. Time in events is call time: ms of caller audio fed since live_new (the
 * caller's timeline, which the recorder shares). */
#ifndef FORMDESK_LIVE_H
#define FORMDESK_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "agent/stages/tts.h"
#include "audio/endpoint.h"

#define LIVE_RATE 16000 /* Hz: what the endpointer and the engine take */

struct sink;
struct recorder;
struct curl_waitfd;

struct live_options {
	struct endpoint_options endpoint; /* the paper's pilot settings by default */
	int number_turn_wait_ms;  /* turn wait while a number/phone field is asked (1200) */
	int silence_ms;           /* re-prompt after this much silence (3000) */
	bool mute_while_agent_speaks; /* the form's mute_user_while_agent_speaking */
};

/* live_defaults: the pilot settings (endpoint_defaults()), 1200 ms for numbers, 3000 ms
 * of silence, no mute. */
struct live_options live_defaults(void);

enum live_state {
	LIVE_IDLE,      /* nothing said yet */
	LIVE_SPEAKING,  /* the agent's words are playing */
	LIVE_LISTENING, /* the agent has stopped; the caller's turn */
	LIVE_THINKING,  /* the caller's turn ended; the engine is working on it */
};

enum live_event_kind {
	LIVE_SPEECH_START, /* at_ms: where the caller's speech began */
	LIVE_BARGE_IN,     /* at_ms: when speech was decided during agent speech or thinking;
	                      during: LIVE_SPEAKING or LIVE_THINKING; played_ms: how much of
	                      the agent's words had played; stop_ms: wall time from the
	                      decision to the sink reporting playback stopped */
	LIVE_TURN_END,     /* samples/n_samples: the caller's turn (16 kHz), from start_ms to
	                      end_ms plus a little margin; valid until the next live call;
	                      speech: where start_ms..end_ms lie in them */
	LIVE_AGENT_DONE,   /* the agent's words played out (not stopped) */
	LIVE_SILENCE,      /* at_ms: silence_ms passed after the agent stopped */
};

struct live_event {
	enum live_event_kind kind;
	long at_ms;
	long start_ms, end_ms;      /* LIVE_TURN_END */
	long decided_ms;            /* LIVE_TURN_END: where the endpointer decided it ended */
	enum live_state during;     /* LIVE_BARGE_IN */
	long played_ms;             /* LIVE_BARGE_IN */
	double stop_ms;             /* LIVE_BARGE_IN */
	const float *samples;       /* LIVE_TURN_END */
	size_t n_samples;
	struct endpoint_segment speech; /* LIVE_TURN_END: ms from the first of samples */
};

struct live;

/* live_new: turn-taking with sink (borrowed; plays at its own rate: the agent's audio is
 * resampled to it; NULL when there is no output: the words are recorded, not played, and
 * the agent "stops" at once), tts (copied, from backend_tts; "none" plays nothing and the
 * agent "stops" at once),
 * recorder (borrowed, may be NULL: then nothing is recorded) and opt (copied; NULL for
 * live_defaults()). Output: *out (caller frees with live_free). Errors: ERR_INVALID
 * (options), ERR_AUDIO (the endpointer would not start), ERR_NOMEM. */
enum err live_new(struct sink *sink, const struct backend *tts, struct recorder *rec,
		  const struct live_options *opt, struct live **out);
void live_free(struct live *l);

/* live_say: the agent says text, asking a field that takes a number (numeric true: the
 * longer turn wait) or not. It never waits for the voice: the TTS request starts
 * (backend_speak_start) on live's own HTTP client and returns; its audio goes to the sink
 * piece by piece as it arrives, from live_tick / live_feed (the loop waits on the request
 * with live_waitfds), the first piece timed (live_first_audio). espeak-ng synthesizes on
 * a thread of its own, its pieces taken the same way; "none" and the TTS cache's kept
 * sentences answer before live_say returns.
 * The agent is LIVE_SPEAKING from now until the words have played (a barge-in meanwhile,
 * even before any sound, cancels the request). Said while the agent is already speaking
 * or synthesizing, text is queued after what is playing, in the same speech (a reply said
 * sentence by sentence). now_ms: the loop's clock (any monotonic ms). Errors: ERR_NOMEM
 * (also: more than 32 texts queued), ERR_AUDIO (the sink), the TTS backend's for a request
 * that could not start (a request that fails later is dropped: its words are not heard). */
enum err live_say(struct live *l, const char *text, bool numeric, double now_ms);

/* live_waitfds: while a TTS request of live_say is in flight, what the loop must also wait
 * on (http_client_waitfds, agent/stages/http.h): up to max descriptors into fds, and
 * *timeout_ms lowered to when live_tick is due. Output: the number of fds filled (0: none
 * in flight). */
unsigned live_waitfds(struct live *l, struct curl_waitfd *fds, unsigned max, int *timeout_ms);

/* When the first audio of a live_say's words went to the sink (or, without one, arrived). */
struct live_first_audio {
	double tts_ms;   /* from the start of its TTS request to that audio, wall ms */
	double play_ms;  /* handing it to the sink, wall ms */
	double wall_ms;  /* when it was handed over: monotonic ms (CLOCK_MONOTONIC) */
};

/* live_first_audio: the first audio of the latest live_say whose words have sounded,
 * once: true the first time it is asked after that audio went out (*out filled), false
 * otherwise. */
bool live_first_audio(struct live *l, struct live_first_audio *out);

/* live_late_error: the first error of a TTS request (or of playing its audio) that came
 * after live_say returned, once (then ERR_OK until the next); its words were not all
 * heard. */
enum err live_late_error(struct live *l);

/* live_synthesizing: a TTS request of live_say is in flight or queued. */
bool live_synthesizing(const struct live *l);

/* live_say_samples: as live_say with audio already made: n samples at rate Hz (copied). */
enum err live_say_samples(struct live *l, const float *samples, size_t n, int rate, bool numeric,
			  double now_ms);

/* live_tts_ms: the last TTS request's time from its start to its first audio (to its end
 * when it gave none), wall ms; 0 before any. */
double live_tts_ms(const struct live *l);

/* live_thinking: the engine has taken the caller's turn (LIVE_THINKING; speech now is a
 * barge-in) or has finished it without the agent speaking (false: back to listening). */
void live_thinking(struct live *l, bool thinking, double now_ms);

/* live_feed: n samples of caller audio at LIVE_RATE (borrowed), in order, any count.
 * Runs the endpointer; events are queued for live_next. Errors: ERR_AUDIO, ERR_NOMEM. */
enum err live_feed(struct live *l, const float *samples, size_t n, double now_ms);

/* live_tick: move the TTS request in flight on (its pieces to the sink, the next queued
 * text), notice the agent's words finishing and the silence timer (call it each time the
 * loop wakes). */
void live_tick(struct live *l, double now_ms);

/* live_interrupt: the caller has begun a turn by other means than speech (typed words at
 * the desk): while the agent speaks or thinks, that is a barge-in, handled as one heard
 * (playback stopped at once, LIVE_BARGE_IN queued). Output: true if it was a barge-in. */
bool live_interrupt(struct live *l, double now_ms);

/* live_next: the oldest queued event into *ev. Output: true if there was one. */
bool live_next(struct live *l, struct live_event *ev);

/* For the status bar. */
enum live_state live_state(const struct live *l);
bool live_caller_speaking(const struct live *l); /* the VAD hears speech now */
double live_level_db(const struct live *l);       /* input level, dBFS, last 10 ms */
int live_turn_wait_ms(const struct live *l);      /* the turn wait in force */

/* Where things lie on the call's timeline (ms of caller audio fed since live_new, the
 * caller recording's timeline): live_call_ms now; live_agent_start_ms where the agent's
 * last words began (the agent's recording is padded to it); live_agent_ms their length
 * (ms at LIVE_RATE; 0 for "none"). */
long live_call_ms(const struct live *l);
long live_agent_start_ms(const struct live *l);
long live_agent_ms(const struct live *l);

#endif
