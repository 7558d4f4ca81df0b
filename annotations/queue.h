/* queue: draws the items to label from the calls recorded in the session store, and
 * stores them (labels.h) so every annotator sees the same items under the same ids. Which
 * items a task draws from a call is the task's own hook (annotations/task.h); this module
 * reads the calls, hands each to the hook and keeps what it adds. Today:
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
 * items drawn. Errors: ERR_INVALID (t is no task), ERR_DB, ERR_NOMEM. */
enum err queue_build(struct labels *l, enum labels_task t, const char *corpus_dir, char **notes,
		     int *added);

/* ---- for the tasks (annotations/task_*.c): the item makers a task's queue hook calls
 * with the builder it is given. Each adds items to b; a failure is kept in b (the build
 * stops and queue_build returns it) or, for a call that cannot be read, noted. */
struct queue_build;

/* queue_field_items: for call id of corpus corpus_name (its corpus call call_id, run
 * with the form at form_path, final form_data JSON text), one item per open-text field
 * (form type string, not a digit field or code) whose expected and captured values are
 * both there, keyed "call C field F", with the turn that captured it. */
void queue_field_items(struct queue_build *b, long long id, const char *corpus_name,
		       const char *call_id, const char *form_path, const char *form_data);
/* queue_call_wrong: whether the finished call's final form (data, fstatus: JSON text) or
 * status is not what its corpus expects; false when the corpus has no expectation. */
bool queue_call_wrong(struct queue_build *b, const char *corpus_name, const char *call_id,
		      const char *form_path, const char *status, const char *data,
		      const char *fstatus);
/* queue_turn_items: one item per turn of call, keyed "turn T", with its stage records
 * and the call's status and reason. */
void queue_turn_items(struct queue_build *b, long long call, const char *corpus_name,
		      const char *call_id, const char *status, const char *reason);
/* queue_stt_items: one item per caller turn of call whose STT transcript differs from
 * the corpus's reference transcript, keyed "turn T". */
void queue_stt_items(struct queue_build *b, long long call, const char *corpus_name,
		     const char *call_id);

#endif
