/* endpoint: VAD-driven endpointing: where the caller's utterances start and end.
 * Defaults are the FormBharo pilot settings (FormBharo paper, arXiv 2608.06027, pilot
 * settings): speech start after 0.1 s, stop after 0.2 s of silence, then 0.4 s more before
 * the turn is complete.
 *
 * Two ways in: endpoint_find() cuts a whole recording; struct endpoint is fed audio as it
 * arrives (live capture) and reports speech start, speech end and turn end as events.
 * Both run the same state machine on 10 ms frames:
 * - speech starts when start_ms of consecutive speech frames are heard (a frame is speech
 *   when the VAD says so, it is at least min_loudness_db loud and above the noise floor,
 *   and, by the caller gate, near enough to the caller's own level; endpoint.c);
 * - speech ends when stop_ms of consecutive non-speech frames follow;
 * - the turn ends when turn_wait_ms more pass without speech starting again; speech that
 *   starts within the wait joins the same turn.
 * Reported boundaries are where the speech itself starts and ends (the first and last
 * speech frames), not the moments they were decided. */
#ifndef FORMDESK_ENDPOINT_H
#define FORMDESK_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include "base/err.h"
#include "vad.h"

struct endpoint_options {
	int start_ms;      /* speech needed before an utterance starts (100) */
	int stop_ms;       /* silence that ends speech (200) */
	int turn_wait_ms;  /* more silence before the turn is complete (400) */
	double min_loudness_db; /* frames quieter than this (dBFS) are silence */
	enum vad_kind vad; /* the detector (VAD_WEBRTC; see endpoint.c for why) */
	double caller_gate_db; /* dB: frames this far below the caller's own speech level
				* are not hers unless the room is quiet (the caller gate,
				* endpoint.c); 0 turns the gate off (15) */
	double caller_level_db; /* dBFS: her level if known before she is heard (the
				 * 80th-percentile 10 ms frame of her speech, as
				 * endpoint_caller_level_db gives it); 0: not known (0) */
};

/* One utterance, in ms from the start of the audio. */
struct endpoint_segment {
	long start_ms;
	long end_ms;
};

/* endpoint_defaults: the pilot settings above, min_loudness_db -50 dBFS, the WebRTC VAD
 * and the caller gate at 15 dB (her level not known yet). */
struct endpoint_options endpoint_defaults(void);

/* endpoint_find: every turn (the speech from a start to a turn end, pauses shorter than
 * stop_ms + turn_wait_ms included) in n_samples mono float samples at rate Hz (8000 or
 * 16000); the end of the audio ends any open turn. opt NULL means endpoint_defaults().
 * Output: *segs (caller frees with free()) and *n_segs, possibly 0 (then *segs is NULL).
 * Errors: ERR_INVALID (unsupported rate, negative durations), ERR_AUDIO, ERR_NOMEM. */
enum err endpoint_find(const float *samples, size_t n_samples, int rate,
		       const struct endpoint_options *opt, struct endpoint_segment **segs, int *n_segs);

/* endpoint_extent: where the speech of a clean recording (one utterance, little noise)
 * lies, by an energy reference, not the VAD: from the first to the last run of 5 10 ms
 * frames (50 ms: a recorder's click is not speech) louder than both the loudest frame
 * - 35 dB and the quietest tenth of frames + 10 dB. The truth endpointing is measured
 * against (tests, endpoint-eval). Input: n samples at rate Hz (borrowed). Output: *first,
 * *end (samples, end exclusive, multiples of 10 ms). Returns false when there is no such
 * run (or no memory); then *first and *end are untouched. */
bool endpoint_extent(const float *s, size_t n, int rate, size_t *first, size_t *end);

/* Streaming. */
enum endpoint_event_kind {
	ENDPOINT_SPEECH_START, /* start_ms: where the speech began */
	ENDPOINT_SPEECH_END,   /* start_ms, end_ms: the utterance just ended */
	ENDPOINT_TURN_END,     /* start_ms, end_ms: the whole turn (first start, last end) */
};

struct endpoint_event {
	enum endpoint_event_kind kind;
	long start_ms;   /* ms from the first sample fed */
	long end_ms;     /* as start_ms; for SPEECH_START equal to start_ms */
	long decided_ms; /* the stream position (ms) at which the event was decided */
};

struct endpoint;

/* endpoint_new: an endpointer for mono audio at rate Hz (8000 or 16000) with opt (copied;
 * NULL for endpoint_defaults()). Output: *out (caller frees with endpoint_free).
 * Errors: ERR_INVALID, ERR_AUDIO (the VAD library failed), ERR_NOMEM. */
enum err endpoint_new(int rate, const struct endpoint_options *opt, struct endpoint **out);

/* endpoint_free: release ep; endpoint_free(NULL) does nothing. */
void endpoint_free(struct endpoint *ep);

/* endpoint_feed: n mono float samples (borrowed), any count; a partial 10 ms frame is kept
 * for the next call. Events it decides are queued for endpoint_next().
 * Errors: ERR_AUDIO (the VAD failed), ERR_NOMEM. */
enum err endpoint_feed(struct endpoint *ep, const float *samples, size_t n);

/* endpoint_finish: the audio has ended: closes an open utterance and turn as if enough
 * silence had followed (their events are queued). Errors: ERR_NOMEM. */
enum err endpoint_finish(struct endpoint *ep);

/* endpoint_next: take the oldest queued event into *ev. Output: true if there was one. */
bool endpoint_next(struct endpoint *ep, struct endpoint_event *ev);

/* endpoint_speaking: true while the endpointer considers the caller to be speaking
 * (between SPEECH_START and SPEECH_END), for a status display. */
bool endpoint_speaking(const struct endpoint *ep);

/* endpoint_caller_level_db: the caller's speech level as the gate follows it (dBFS, the
 * 80th-percentile 10 ms frame of her last 3 s of speech; 0 while not known), to seed the
 * next endpointer of the same call (caller_level_db). */
double endpoint_caller_level_db(const struct endpoint *ep);

/* endpoint_level_db: loudness of the last full 10 ms frame in dBFS (RMS; -120 for
 * silence), for a level meter. */
double endpoint_level_db(const struct endpoint *ep);

#endif
