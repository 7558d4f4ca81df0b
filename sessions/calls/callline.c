#include "callline.h"

#include <stdio.h>
#include <stdlib.h>

bool callline_add_usage(cJSON *o, const cJSON *usage)
{
	cJSON *lat = NULL;
#define NUM(key) cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, key))
	bool ok = cJSON_AddNumberToObject(o, "cost_usd", NUM("cost_usd")) &&
		  (lat = cJSON_AddObjectToObject(o, "latency_ms")) &&
		  cJSON_AddNumberToObject(lat, "stt", NUM("stt_ms")) &&
		  cJSON_AddNumberToObject(lat, "extract", NUM("extract_ms")) &&
		  cJSON_AddNumberToObject(lat, "reply", NUM("reply_ms")) &&
		  cJSON_AddNumberToObject(lat, "turns", NUM("turn_ms_total")) &&
		  cJSON_AddNumberToObject(lat, "turn_max", NUM("turn_ms_max")) &&
		  cJSON_AddNumberToObject(o, "requests", NUM("requests")) &&
		  cJSON_AddNumberToObject(o, "failed_requests", NUM("failed_requests"));
#undef NUM
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(usage, "turn_latency");
	return ok && cJSON_AddItemToObject(o, "per_turn", turns ? cJSON_Duplicate(turns, 1)
								: cJSON_CreateArray());
}

bool callline_add_outcome(cJSON *o, enum call_status status, const char *reason,
			  const cJSON *form_data, const cJSON *form_status, int turns)
{
	return cJSON_AddStringToObject(o, "status", call_status_name(status)) &&
	       cJSON_AddStringToObject(o, "reason", reason) &&
	       cJSON_AddItemToObject(o, "form_data", cJSON_Duplicate(form_data, 1)) &&
	       cJSON_AddItemToObject(o, "form_status", cJSON_Duplicate(form_status, 1)) &&
	       cJSON_AddNumberToObject(o, "turns", turns);
}

bool callline_print(const cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	if (!s)
		return false;
	puts(s);
	fflush(stdout);
	free(s);
	return true;
}
