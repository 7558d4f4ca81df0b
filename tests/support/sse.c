#include "sse.h"

cJSON *sse_openai_chunk(const char *content, const char *finish)
{
	cJSON *c = cJSON_Parse("{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\","
			       "\"created\":1767225600,\"model\":\"gpt-5.4-mini\",\"choices\":[{\"index\":0,"
			       "\"delta\":{},\"finish_reason\":null}]}");
	cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "choices"), 0);
	if (content)
		cJSON_AddStringToObject(cJSON_GetObjectItem(choice, "delta"), "content", content);
	if (finish)
		cJSON_ReplaceItemInObject(choice, "finish_reason", cJSON_CreateString(finish));
	return c;
}
