#include "extraction.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct extraction *extraction_new(void)
{
	return calloc(1, sizeof(struct extraction));
}

void extraction_free(struct extraction *ex)
{
	if (!ex)
		return;
	for (int i = 0; i < ex->n; i++) {
		free(ex->items[i].field);
		cJSON_Delete(ex->items[i].value);
		free(ex->items[i].reason);
		free(ex->items[i].span);
	}
	free(ex->items);
	free(ex->ack);
	free(ex->fault);
	free(ex);
}

enum err extraction_add(struct extraction *ex, const char *field, cJSON *value, bool skip,
			const char *reason, const char *span)
{
	struct extraction_item *v = realloc(ex->items, (size_t)(ex->n + 1) * sizeof(*v));
	if (!v) {
		cJSON_Delete(value);
		return ERR_NOMEM;
	}
	ex->items = v;
	struct extraction_item *it = &v[ex->n];
	it->field = dup_or_null(field);
	it->value = value;
	it->skip = skip;
	it->reason = dup_or_null(reason);
	it->span = dup_or_null(span);
	if ((field && !it->field) || (reason && !it->reason) || (span && !it->span)) {
		free(it->field);
		free(it->reason);
		free(it->span);
		cJSON_Delete(value);
		return ERR_NOMEM;
	}
	ex->n++;
	return ERR_OK;
}

const struct extraction_item *extraction_find(const struct extraction *ex, const char *field)
{
	for (int i = ex->n - 1; i >= 0; i--)
		if (ex->items[i].field && strcmp(ex->items[i].field, field) == 0)
			return &ex->items[i];
	return NULL;
}

enum err extraction_set_text(char **slot, const char *s)
{
	char *c = dup_or_null(s);
	if (s && !c)
		return ERR_NOMEM;
	free(*slot);
	*slot = c;
	return ERR_OK;
}

cJSON *extraction_to_json(const struct extraction *ex)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(o, "fields");
	if (!arr)
		goto fail;
	for (int i = 0; i < ex->n; i++) {
		const struct extraction_item *it = &ex->items[i];
		cJSON *e = cJSON_CreateObject();
		if (!e)
			goto fail;
		cJSON_AddItemToArray(arr, e);
		cJSON_AddItemToObject(e, "field", it->field ? cJSON_CreateString(it->field) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "value", it->value ? cJSON_Duplicate(it->value, 1) : cJSON_CreateNull());
		cJSON_AddBoolToObject(e, "skip", it->skip);
		cJSON_AddItemToObject(e, "reason", it->reason ? cJSON_CreateString(it->reason) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "span", it->span ? cJSON_CreateString(it->span) : cJSON_CreateNull());
	}
	cJSON_AddItemToObject(o, "ack", ex->ack ? cJSON_CreateString(ex->ack) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "fault", ex->fault ? cJSON_CreateString(ex->fault) : cJSON_CreateNull());
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}
