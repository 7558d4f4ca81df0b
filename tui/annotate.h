/* annotate: the labelling screen (ncursesw). One item at a time, from the stored queue
 * of a task (annotations/queue.h), shown and answered as the task's table says
 * (annotations/task.h): for name-match the expected value beside the captured one with
 * the caller's words; for stt the reference transcript beside the STT one; for
 * turn-errors the turn's stage records and the taxonomy to tag it with. One key per
 * action (ANNOTATE_KEYS) and per answer (the task's); every label is committed
 * (annotations/labels.h) before the next item shows, under the annotator's name. The annotator sees only their own labels.
 * The screen opens at the first item they have not labelled, so quitting and starting
 * again resumes where they stopped; items skipped come back then. Identical items are one
 * entry, labelled once for all of them (one label row per item), with their count shown.
 * Arrows step through every entry, g jumps, f filters, / searches, ! flags for review;
 * on a turn where more than one stage failed, + adds a second tag.
 *
 * Audio: p plays the turn's recording on the default sound device through the project's
 * audio sink (audio/sink.h), or through the command in $FORMDESK_PLAYER when it is set
 * (run with the file as its one argument, e.g. aplay or paplay). The status line says
 * when the turn has no audio, the file is missing or cannot be decoded, there is no
 * sound device, or the player failed; and when the recording has played. v (turn-errors)
 * says what the agent said in that turn in the chosen voice (--tts: espeak, or a hosted
 * voice through the TTS cache), played the same way once it is synthesized; meanwhile the
 * status line says "synthesizing ..." and the screen goes on (tui/voice.h). */
#ifndef FORMDESK_ANNOTATE_H
#define FORMDESK_ANNOTATE_H

#include "agent/stages/backend.h"
#include "base/err.h"
#include "annotations/labels.h"

/* The annotator's actions, listed once for the key map, the help overlay, the key hints
 * and dispatch: X(action, key code as wget_wch gives it, key as shown, hint on the key
 * line, what it does, tasks: 't' tasks answered with tags (task_ops.tags), '*' all). The
 * answers themselves and their keys are the task's (annotations/task.h). */
#define ANNOTATE_KEYS(X) \
	X(note, 'e', "e", "note", "write a note on this turn (Enter keeps it, Esc drops it)", 't') \
	X(addtag, '+', "+", "add tag", "then a tag's key: add it to this turn's tags, or take it off", 't') \
	X(skip, ' ', "space", "skip", "skip: leave the item for later", '*') \
	X(undo, KEY_BACKSPACE, "backspace", "undo", "undo your last label or skip", '*') \
	X(play, 'p', "p", "play", "play the turn's audio", '*') \
	X(next, KEY_RIGHT, "→ >", "next", "next item, labelled or not", '*') \
	X(prev, KEY_LEFT, "← <", "previous", "previous item", '*') \
	X(jump, 'g', "g", "go to", "go to item number N", '*') \
	X(filter, 'f', "f", "filter", \
	  "filter: field NAME, call ID, run N, mine, unlabelled, flagged, all", '*') \
	X(search, '/', "/", "search", "show only items that hold some text (empty: all)", '*') \
	X(flag, '!', "!", "flag", "flag the item for review, or take the flag off", '*') \
	X(voice, 'v', "v", "voice", "hear what the agent said, in the chosen voice (--tts)", 't') \
	X(help, '?', "?", "help", "show or hide this help", '*') \
	X(quit, 'q', "q", "quit", "quit (every label is already saved)", '*')

/* annotate_run: run the screen over task t's stored items for annotator until they quit
 * (q, or SIGINT/SIGTERM/SIGHUP), as view says (annotations/queue.h: identical items one
 * entry, exact matches, order, field / call / run; NULL the defaults); voice (borrowed,
 * NULL: none) says the agent's words (v). stdin and stdout must be a terminal and the
 * locale set. While the screen is up stderr goes to /dev/null. Output: on failure *errmsg
 * (caller frees; may be NULL). Errors: ERR_INVALID (t is no task), ERR_IO (no usable
 * terminal), ERR_DB (a label could not be saved: the screen closes and says so),
 * ERR_BACKEND (no HTTP client for the voice), ERR_NOMEM. */
struct queue_view;
enum err annotate_run(struct labels *l, enum labels_task t, const char *annotator,
		      const struct queue_view *view, const struct backend *voice, char **errmsg);

#endif
