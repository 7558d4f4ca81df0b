/* export: labels as Label Studio JSONL or CSV (export.h). */
#include "export.h"

#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "adjud.h"
#include "sessions/corpus/csv.h"

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* result: one Label Studio result, {"from_name": from, "to_name": "item", "type": type,
 * "value": {key: [text]}}. */
static cJSON *result(const char *from, const char *type, const char *key, const char *text)
{
	cJSON *r = cJSON_CreateObject(), *val = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	cJSON_AddStringToObject(r, "from_name", from);
	cJSON_AddStringToObject(r, "to_name", "item");
	cJSON_AddStringToObject(r, "type", type);
	cJSON_AddItemToArray(arr, cJSON_CreateString(text));
	cJSON_AddItemToObject(val, key, arr);
	cJSON_AddItemToObject(r, "value", val);
	return r;
}

static cJSON *choice_result(const char *choice, const char *note)
{
	cJSON *res = cJSON_CreateArray();
	cJSON_AddItemToArray(res, result("label", "choices", "choices", choice));
	if (note)
		cJSON_AddItemToArray(res, result("note", "textarea", "text", note));
	return res;
}

/* predictions: the judges' decisions on item, Label Studio "predictions". */
static cJSON *predictions(struct labels *l, long long item, enum err *e)
{
	static const char sql[] = "SELECT judge, prompt_version, decision, created_at"
				  " FROM ann_judgements WHERE item_id = ? ORDER BY judge, prompt_version";
	sqlite3_stmt *q = NULL;
	cJSON *a = cJSON_CreateArray();

	if (sqlite3_prepare_v2(labels_db(l), sql, -1, &q, NULL) != SQLITE_OK) {
		*e = labels_fail(l, "reading judges' decisions");
		return a;
	}
	sqlite3_bind_int64(q, 1, item);
	while (sqlite3_step(q) == SQLITE_ROW) {
		cJSON *p = cJSON_CreateObject();
		char mv[512];
		snprintf(mv, sizeof mv, "%s@%s", sqlite3_column_text(q, 0), sqlite3_column_text(q, 1));
		cJSON_AddStringToObject(p, "model_version", mv);
		add_str(p, "created_at", (const char *)sqlite3_column_text(q, 3));
		cJSON_AddItemToObject(p, "result",
				      choice_result((const char *)sqlite3_column_text(q, 2), NULL));
		cJSON_AddItemToArray(a, p);
	}
	sqlite3_finalize(q);
	return a;
}

static enum err write_task(struct labels *l, FILE *f, enum export_format fmt,
			   enum labels_task t, const char *who, bool all)
{
	struct labels_item *items = NULL;
	struct labels_label *lb = NULL;
	struct adjud_final *fin = NULL;
	int n_items = 0, n_lb = 0, n_fin = 0;
	enum err e;

	if ((e = labels_items(l, t, &items, &n_items)) != ERR_OK ||
	    (e = labels_all(l, t, &lb, &n_lb)) != ERR_OK ||
	    (e = adjud_finals(l, t, &fin, &n_fin)) != ERR_OK)
		goto out;
	if (who) { /* one annotator's labels only: keep theirs, in order */
		int m = 0;
		for (int j = 0; j < n_lb; j++) {
			if (strcmp(lb[j].annotator, who) == 0) {
				struct labels_label x = lb[m];
				lb[m++] = lb[j];
				lb[j] = x;
			}
		}
		for (int j = m; j < n_lb; j++) {
			free(lb[j].annotator);
			free(lb[j].label);
			free(lb[j].note);
			free(lb[j].created_at);
			free(lb[j].updated_at);
		}
		n_lb = m;
	}
	for (int i = 0, j = 0; i < n_items && e == ERR_OK; i++) {
		const struct labels_item *it = &items[i];
		int first;
		for (; j < n_lb && lb[j].item < it->id; j++)
			;
		first = j;
		while (j < n_lb && lb[j].item == it->id)
			j++;
		if (first == j && !all)
			continue;
		const struct adjud_final *fl = adjud_find(fin, n_fin, it->id);
		if (fmt == EXPORT_CSV) {
			char num[3][32];
			snprintf(num[0], sizeof num[0], "%lld", it->id);
			snprintf(num[1], sizeof num[1], "%lld", it->call_id);
			snprintf(num[2], sizeof num[2], "%d", it->turn);
			for (int m = first; m < j || (m == first && first == j); m++) {
				const struct labels_label *x = m < j ? &lb[m] : NULL;
				char id[32] = "";
				if (x)
					snprintf(id, sizeof id, "%lld", x->id);
				const char *row[] = {
					id, num[0], labels_task_name(t), it->key,
					it->call_id ? num[1] : "", it->corpus, it->corpus_call_id,
					it->turn ? num[2] : "", it->field, it->expected, it->captured,
					it->transcript, it->audio, x ? x->annotator : NULL,
					x ? x->label : NULL, x ? x->note : NULL,
					x ? x->created_at : NULL, x ? x->updated_at : NULL,
					fl ? fl->label : NULL, fl ? fl->reviewer : NULL,
					fl ? fl->decided_at : NULL};
				for (size_t c = 0; c < sizeof row / sizeof row[0]; c++) {
					if (c)
						fputc(',', f);
					csv_write_field(f, row[c] ? row[c] : "");
				}
				fputs("\r\n", f);
			}
			continue;
		}
		cJSON *o = cJSON_CreateObject(), *data = cJSON_CreateObject(),
		      *anns = cJSON_CreateArray();
		char *text;
		cJSON_AddNumberToObject(o, "id", (double)it->id);
		cJSON_AddStringToObject(data, "task", labels_task_name(t));
		add_str(data, "key", it->key);
		cJSON_AddNumberToObject(data, "call_id", (double)it->call_id);
		add_str(data, "corpus", it->corpus);
		add_str(data, "corpus_call_id", it->corpus_call_id);
		cJSON_AddNumberToObject(data, "turn", it->turn);
		add_str(data, "field", it->field);
		add_str(data, "expected", it->expected);
		add_str(data, "captured", it->captured);
		add_str(data, "transcript", it->transcript);
		add_str(data, "audio", it->audio);
		cJSON *ctx = it->context ? cJSON_Parse(it->context) : NULL;
		if (ctx)
			cJSON_AddItemToObject(data, "context", ctx);
		else
			cJSON_AddNullToObject(data, "context");
		add_str(data, "final_label", fl ? fl->label : NULL);
		add_str(data, "final_by", fl ? fl->reviewer : NULL);
		add_str(data, "final_at", fl ? fl->decided_at : NULL);
		add_str(data, "final_note", fl ? fl->note : NULL);
		cJSON_AddItemToObject(o, "data", data);
		for (int m = first; m < j; m++) {
			cJSON *a = cJSON_CreateObject();
			cJSON_AddNumberToObject(a, "id", (double)lb[m].id);
			cJSON_AddStringToObject(a, "completed_by", lb[m].annotator);
			add_str(a, "created_at", lb[m].created_at);
			add_str(a, "updated_at", lb[m].updated_at);
			cJSON_AddItemToObject(a, "result", choice_result(lb[m].label, lb[m].note));
			cJSON_AddItemToArray(anns, a);
		}
		cJSON_AddItemToObject(o, "annotations", anns);
		cJSON_AddItemToObject(o, "predictions", predictions(l, it->id, &e));
		text = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (!text) {
			e = ERR_NOMEM;
			break;
		}
		fputs(text, f);
		fputc('\n', f);
		free(text);
	}
	if (e == ERR_OK && ferror(f))
		e = ERR_IO;
out:
	labels_items_free(items, n_items);
	labels_all_free(lb, n_lb);
	adjud_finals_free(fin, n_fin);
	return e;
}

enum err export_write(struct labels *l, FILE *f, enum export_format fmt,
		      const enum labels_task *only_task, const char *annotator, bool all)
{
	enum err e = ERR_OK;

	if (fmt == EXPORT_CSV)
		fputs("id,item_id,task,key,call_id,corpus,corpus_call_id,turn,field,expected,"
		      "captured,transcript,audio,completed_by,choice,note,created_at,updated_at,"
		      "final_label,final_by,final_at\r\n",
		      f);
	for (int t = 0; t < LABELS_NTASKS && e == ERR_OK; t++)
		if (!only_task || *only_task == (enum labels_task)t)
			e = write_task(l, f, fmt, (enum labels_task)t, annotator, all);
	if (e == ERR_OK && (fflush(f) != 0 || ferror(f)))
		e = ERR_IO;
	return e;
}
