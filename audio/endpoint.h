/* endpoint: VAD-driven endpointing: where the caller's utterances start and end.
 * Defaults are the FormBharo pilot settings (FormBharo paper, arXiv 2608.06027, pilot
 * settings): speech start after 0.1 s, stop after 0.2 s of silence, then 0.4 s more before
 * the turn is complete. */
#ifndef FORMDESK_ENDPOINT_H
#define FORMDESK_ENDPOINT_H

#include <stddef.h>
#include "agent/err.h"

struct endpoint_options {
	int start_ms;      /* speech needed before an utterance starts (100) */
	int stop_ms;       /* silence that ends speech (200) */
	int turn_wait_ms;  /* more silence before the turn is complete (400) */
	double min_loudness_db; /* frames quieter than this (dBFS) are silence */
};

/* One utterance, in ms from the start of the audio. */
struct endpoint_segment {
	long start_ms;
	long end_ms;
};

/* endpoint_defaults: the pilot settings above. */
struct endpoint_options endpoint_defaults(void);

/* endpoint_find: every utterance in n_samples mono float samples at rate Hz (8000 or
 * 16000). Output: *segs (caller frees with free()) and *n_segs, possibly 0.
 * Errors: ERR_INVALID (unsupported rate), ERR_AUDIO, ERR_NOMEM. */
enum err endpoint_find(const float *samples, size_t n_samples, int rate,
		       const struct endpoint_options *opt, struct endpoint_segment **segs, int *n_segs);

#endif
