/* queue: draws the items to label from the calls recorded in the session store, and
 * stores them (labels.h) so every annotator sees the same items under the same ids.
 *
 * - name-match: for each recorded call of a corpus with expected forms, each string field
 *   (form type "string") whose expected value and captured value both exist: the
 *   expected value beside the captured one, with the transcript and audio of the turn
 *   that captured it. Key "call C field F".
 * - stt: each caller turn whose STT transcript differs from the corpus's reference
 *   transcript (identical text needs no person to judge it). Key "turn T".
 * - turn-errors: each turn of a failed call, or of a call whose final form or status is
 *   not the one its corpus expects, with its stage records (transcript, extraction,
 *   captures, verdicts, decision, reply, error). Key "turn T".
 *
 * A call names its corpus by name (calls.corpus); the corpus folder is found with
 * corpus_resolve(), or given by the caller. Calls whose corpus cannot be loaded are
 * passed over with a note. */
#ifndef FORMDESK_QUEUE_H
#define FORMDESK_QUEUE_H

#include "agent/err.h"
#include "annotations/labels.h"

/* queue_build: draw task t's items from the calls in l's database and store the new ones
 * (one transaction). corpus_dir: the folder of the calls' corpus, or NULL to find each
 * corpus by its name. Output: *notes (caller frees; NULL when there is nothing to say)
 * lines naming calls that were passed over and why; *added (may be NULL) the number of
 * items drawn. Errors: ERR_DB, ERR_NOMEM. */
enum err queue_build(struct labels *l, enum labels_task t, const char *corpus_dir, char **notes,
		     int *added);

#endif
