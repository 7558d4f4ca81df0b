/* export: labels and the items they label, in shapes other labelling tools read.
 *
 * JSONL: one Label Studio task per line:
 *   {"id": item id, "data": {"task","key","call_id","corpus","corpus_call_id","turn",
 *    "field","expected","captured","transcript","audio","context",
 *    "final_label","final_by","final_at","final_note"},   (a reviewer's decision, adjud.h;
 *                                                          null when none)
 *    "annotations": [{"id","completed_by","created_at","updated_at","result":[
 *      {"from_name":"label","to_name":"item","type":"choices",
 *       "value":{"choices":["same"]}},
 *      {"from_name":"note","to_name":"item","type":"textarea","value":{"text":["..."]}}]}],
 *    "predictions": [{"model_version":"JUDGE@VERSION","created_at","result":[...]}]}
 * CSV (RFC 4180, a header line): one row per label: id, item_id, task, key, call_id,
 *   corpus, corpus_call_id, turn, field, expected, captured, transcript, audio,
 *   completed_by, choice, note, created_at, updated_at, final_label, final_by, final_at:
 *   each annotator's choice with the item's final label beside it. */
#ifndef FORMDESK_EXPORT_H
#define FORMDESK_EXPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "base/err.h"
#include "labels.h"

enum export_format { EXPORT_JSONL, EXPORT_CSV };

/* export_write: write the labels of every task (or of task only when only_task is not
 * NULL) to f; annotator: only that annotator's labels (NULL: everyone's). all: also the
 * items nobody has labelled (JSONL: with empty annotations; CSV: one row with empty label
 * columns). Errors: ERR_DB, ERR_IO (writing f failed), ERR_NOMEM. */
enum err export_write(struct labels *l, FILE *f, enum export_format fmt,
		      const enum labels_task *only_task, const char *annotator, bool all);

#endif
