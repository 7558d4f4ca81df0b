/* extraction: what an EXTRACT backend returns for one caller turn, before the rule layer
 * has normalized or validated anything (FormBharo paper: every field answered in the turn,
 * categorical answers as the option's index, a skip flag, a short acknowledgement). */
#ifndef FORMDESK_EXTRACTION_H
#define FORMDESK_EXTRACTION_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct extraction_item {
	char *field;   /* question name as the backend gave it; may name no question (a fault) */
	cJSON *value;  /* raw value: string, number, bool, or option index (number) for a select;
	                  NULL when skip is set or nothing usable was said */
	bool skip;     /* skip flag: the caller does not know or declines */
	char *reason;  /* with skip: "dont_know", "declined" or "none"; else NULL */
	char *span;    /* the caller's words it came from, NULL if unknown */
};

struct extraction {
	struct extraction_item *items;
	int n;
	char *ack;     /* short acknowledgement, NULL if none */
	char *fault;   /* backend fault (invalid JSON, refusal, timeout), NULL if none */
};

/* extraction_new: an empty extraction. Output: new object (caller frees with
 * extraction_free), NULL on allocation failure. */
struct extraction *extraction_new(void);
/* extraction_free: free ex and all it owns; NULL does nothing. */
void extraction_free(struct extraction *ex);
/* extraction_add: append an item. field and span are copied; value is taken over (freed
 * with ex even on failure); reason is copied. Errors: ERR_NOMEM. */
enum err extraction_add(struct extraction *ex, const char *field, cJSON *value, bool skip,
			const char *reason, const char *span);
/* extraction_find: the last item for field, or NULL. */
const struct extraction_item *extraction_find(const struct extraction *ex, const char *field);
/* extraction_to_json: {"fields":[{"field","value","skip","reason","span"}],"ack","fault"}.
 * Output: new cJSON (caller frees with cJSON_Delete), NULL on ERR_NOMEM. */
cJSON *extraction_to_json(const struct extraction *ex);
/* extraction_set_text: replace *slot (ack or fault) with a copy of s (NULL clears).
 * Errors: ERR_NOMEM. */
enum err extraction_set_text(char **slot, const char *s);

#endif
