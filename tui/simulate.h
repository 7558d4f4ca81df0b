/* simulate: the simulator's screen: plays a corpus's recorded calls through the agent on
 * screen, turn by turn, recording them in the store; or, with typed or mic (or the keys t
 * and m), holds live calls (sessions/calls/livecall.h): the operator types the caller's words, or
 * speaks them into the microphone. One loop waits in one place (screen_wait_in: the
 * engine's requests, the keyboard, signals; while capturing, at most LIVECALL_POLL_MS),
 * advances the playback on its timer or the live call, and dispatches keys. headless runs
 * a live call without a screen and prints one JSON line per call. The command that reads
 * the options and builds what this plays is cli/simulate.c. */
#ifndef FORMDESK_SIMULATE_H
#define FORMDESK_SIMULATE_H

#include <stdbool.h>

#include "sessions/calls/livecall.h"

struct corpus;
struct engine_config;

/* What the simulator plays, all borrowed for the call of simulate_run. */
struct simulate_setup {
	const struct engine_config *cfg; /* form, word lists, backends, store, today, endpointing */
	const struct corpus *corpus;     /* the calls to play; NULL: a session of live calls */
	const char *corpus_label;        /* the corpus's name in the title */
	const char *db_path;             /* the store's file: the screen's log goes beside it */
	double speed;                    /* > 0; 2 plays twice as fast */
	bool typed, mic;                 /* start with a live call of that kind (one at most) */
	bool headless;                   /* the live call without a screen (typed or mic) */
	struct livecall_options live;    /* the live calls' options; mic is set per call */
};

/* simulate_run: open the live desk first when a live call is asked for (so "no audio input
 * device" comes before the screen), then the screen (stdin and stdout terminals, the
 * locale set), and run until q or a quit signal; or, headless, run the live call without
 * a screen. Messages go to stderr as "formdesk: ..."; what was printed while the screen was
 * up is kept in DB.log. Returns the exit status: 0 done, 2 a device or the screen could
 * not open, 128 + N after signal N. */
int simulate_run(const struct simulate_setup *setup);

#endif
