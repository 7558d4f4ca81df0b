/* adjudicate: the reviewer's screen (ncursesw). The items of a task whose annotators
 * disagree (annotations/adjud.h), one at a time: what the annotators saw (the task's rows,
 * annotations/task.h, and for a turn its stage records in brief), then each annotator's
 * label and note side by side, and the final
 * label when one was decided. The task's answer keys decide the final label, committed
 * under the reviewer's name before the screen moves on; a decision the rule refuses (a
 * disagreement that is the reviewer's own alone) is refused on the status line and
 * nothing is written. */
#ifndef FORMDESK_TUI_ADJUDICATE_H
#define FORMDESK_TUI_ADJUDICATE_H

#include "base/err.h"
#include "annotations/adjud.h"

/* The reviewer's actions, listed once for the key map and the key line:
 * X(action, key code as wget_wch gives it, a second key (0: none), key as shown, hint).
 * None is a task's answer key (a x u; 0-9 b n). */
#define ADJUDICATE_KEYS(X) \
	X(next, KEY_RIGHT, ']', "→ ]", "next") \
	X(prev, KEY_LEFT, '[', "← [", "previous") \
	X(tags, '+', 0, "+", "several tags: toggle with their keys") \
	X(confirm, '\n', '\r', "Enter", "decide the tags") \
	X(drop, 27, 0, "Esc", "drop them") \
	X(quit, 'q', 0, "q", "quit")

/* adjudicate_run: the screen over items (n of them; borrowed, their final labels updated
 * as decisions are made) of task t for reviewer. Output: on failure *errmsg (caller frees).
 * Errors: ERR_IO (no terminal), ERR_DB (a decision could not be stored), ERR_NOMEM. */
enum err adjudicate_run(struct labels *l, enum labels_task t, const char *reviewer,
			struct adjud_item *items, int n, char **errmsg);

#endif
