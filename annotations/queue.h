/* queue: draws the items to label from the calls recorded in the session store, and
 * stores them (labels.h) so every annotator sees the same items under the same ids. Which
 * items a task draws from a call is the task's own hook (annotations/task.h); this module
 * reads the calls, hands each to the hook and keeps what it adds. Today:
 *
 * - name-match: for each recorded call of a corpus with expected forms, each string field
 *   (form type "string") whose expected value and captured value both exist: the
 *   expected value beside the captured one, with the transcript and audio of the turn
 *   that captured it; for a live call (no corpus) each captured string field, without an
 *   expected value. Key "call C field F".
 * - stt: each caller turn whose STT transcript differs from the corpus's reference
 *   transcript (identical text needs no person to judge it); for a live call each caller
 *   turn with a recording. Key "turn T".
 * - turn-errors: each turn of a call whose final form or status is not the one its corpus
 *   expects (failed, when it expects nothing), or of a live call; not of a call abandoned
 *   by the operator. With what the caller was answering and its stage records
 *   (transcript, extraction, captures, verdicts, decision, reply, error). Key "turn T".
 *
 * The screen shows them through queue_groups (below): identical items one entry, exact
 * matches left out unless asked, what the judges are least sure of first.
 *
 * A call names its corpus by name (calls.corpus); the corpus folder is found with
 * corpus_resolve(), or given by the caller. Calls whose corpus cannot be loaded are
 * passed over with a note. */
#ifndef FORMDESK_QUEUE_H
#define FORMDESK_QUEUE_H

#include "base/err.h"
#include "labels.h"

/* queue_build: draw task t's items from the calls in l's database and store the new ones
 * (one transaction). corpus_dir: the folder of the calls' corpus, or NULL to find each
 * corpus by its name. Output: *notes (caller frees; NULL when there is nothing to say)
 * lines naming calls that were passed over and why; *added (may be NULL) the number of
 * items drawn. Errors: ERR_INVALID (t is no task), ERR_DB, ERR_NOMEM. */
enum err queue_build(struct labels *l, enum labels_task t, const char *corpus_dir, char **notes,
		     int *added);

/* ---- the queue as the annotator sees it: identical items grouped, obvious ones left out,
 * ordered by what the judges are least sure of, filtered. */

/* How sure the judges are of a group's items, least sure first. */
enum queue_doubt {
	QUEUE_JUDGES_DISAGREE, /* two judges (or prompt versions) decided differently */
	QUEUE_JUDGE_UNSURE,    /* a judge said unsure */
	QUEUE_NOT_JUDGED,      /* no judge decided */
	QUEUE_JUDGES_AGREE,    /* every judge decided, the same, and not unsure */
};

struct queue_view {
	bool include_exact;   /* name-match and stt: keep items whose captured value is the
	                         expected one, letter case, Unicode compatibility forms and
	                         surrounding spaces aside (normalize_text_eq): nobody's
	                         question otherwise */
	bool stored_order;    /* by item id instead of by the judges' doubt */
	const char *field;    /* only items of this field (NULL any) */
	const char *call;     /* only items of this call: its corpus call id or its row id */
	long long run;        /* only items of calls of this run (0 any) */
};

/* One entry of the screen: identical items (same task, field, expected and captured
 * value, and for a task shown with its stage records the same words and records),
 * labelled once for all. */
struct queue_group {
	int *members;         /* indices into the items, by id (members[0] is shown) */
	int n;
	enum queue_doubt doubt;
};

/* queue_groups: the n items v of one task (labels_items order) as the annotator sees
 * them under o (NULL: the defaults): grouped, exact matches left out unless asked,
 * filtered, ordered by doubt (then by first id). Reads the judges' decisions
 * (ann_judgements) and, for a run filter, the store's calls. Output: *out, *n_out (caller
 * frees with queue_groups_free; *out may be NULL when *n_out is 0). Errors: ERR_DB,
 * ERR_NOMEM. */
enum err queue_groups(struct labels *l, const struct labels_item *v, int n,
		      const struct queue_view *o, struct queue_group **out, int *n_out);
void queue_groups_free(struct queue_group *g, int n);
/* queue_item_has: whether text (case-insensitive for ASCII letters; NULL or "" matches
 * all) is in what item it shows: key, corpus call id, field, expected, captured, the
 * caller's words, the stage records. */
bool queue_item_has(const struct labels_item *it, const char *text);

/* ---- for the tasks (annotations/task_*.c): the item makers a task's queue hook calls
 * with the builder it is given. Each adds items to b; a failure is kept in b (the build
 * stops and queue_build returns it) or, for a call that cannot be read, noted. */
struct queue_build;

/* queue_field_items: for call id of corpus corpus_name (its corpus call call_id, run
 * with the form at form_path, final form_data JSON text), one item per open-text field
 * (form type string, not a digit field or code) whose expected and captured values are
 * both there, keyed "call C field F", with the turn that captured it. A call without a
 * corpus (corpus_name NULL: a live call), or whose corpus call expects no form, gives one
 * item per captured open-text field, without an expected value. */
void queue_field_items(struct queue_build *b, long long id, const char *corpus_name,
		       const char *call_id, const char *form_path, const char *form_data);
/* queue_call_wrong: whether the finished call's final form (data, fstatus: JSON text) or
 * status is not what its corpus expects; false when the corpus has no expectation. */
bool queue_call_wrong(struct queue_build *b, const char *corpus_name, const char *call_id,
		      const char *form_path, const char *status, const char *data,
		      const char *fstatus);
/* queue_call_expectation: 1 when the finished call's status or final form is not what its
 * corpus expects, 0 when the corpus expects something and the call ended so, -1 when the
 * corpus (or the call in it) says nothing to compare with. */
int queue_call_expectation(struct queue_build *b, const char *corpus_name, const char *call_id,
			   const char *form_path, const char *status, const char *data,
			   const char *fstatus);
/* queue_turn_items: one item per turn of call c, keyed "turn T", with its stage records,
 * the call's status and reason, and what the caller was answering: the field asked
 * (item field), the agent's words, the call so far and the field's expected value when
 * the corpus gives one (item expected). */
struct task_call;
void queue_turn_items(struct queue_build *b, const struct task_call *c);
/* queue_abandoned: whether a call's reason says it was abandoned (the session or the
 * operator ended it before the caller did: quitting the simulator, hanging up at the
 * desk), which is no failure of the agent. */
bool queue_abandoned(const char *reason);
/* queue_stt_items: one item per caller turn of call whose STT transcript differs from
 * the corpus's reference transcript, keyed "turn T"; for a call without a corpus
 * (corpus_name NULL), each caller turn with a transcript and a recording, to judge by
 * ear (no reference). */
void queue_stt_items(struct queue_build *b, long long call, const char *corpus_name,
		     const char *call_id);

#endif
