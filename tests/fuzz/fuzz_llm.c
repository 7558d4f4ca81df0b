/* fuzz_llm: chat-completions and Anthropic answers from any bytes (fuzz.h). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "agent/stages/llm.h"
#include "agent/stages/llm_stream.h"
#include "agent/stages/provider.h"

static int one(const char *provider, const uint8_t *data, size_t len)
{
	struct provider p = {.info = provider_find(provider, PROVIDER_LLM)};
	if (!p.info || len < 1)
		return 0;
	/* the first byte: where the streamed body is cut in two pieces */
	size_t cut = len > 1 ? 1 + data[0] % (len - 1) : 0;
	data++;
	len--;
	struct llm_result *r = NULL;
	char why[200];
	if (llm_parse(&p, (const char *)data, len, &r, why, sizeof(why)) == ERR_OK)
		llm_result_free(r);
	struct llm_stream *s = NULL;
	if (llm_stream_new(p.info->protocol, &s) != ERR_OK)
		return 0;
	cut = cut > len ? len : cut;
	char *ack = NULL;
	if (llm_stream_feed(s, (const char *)data, cut, 1) == ERR_OK &&
	    (llm_stream_take_ack(s, &ack), llm_stream_feed(s, (const char *)data + cut, len - cut, 2)) == ERR_OK &&
	    llm_stream_result(s, &r, why, sizeof(why)) == ERR_OK)
		llm_result_free(r);
	free(ack);
	llm_stream_free(s);
	return 0;
}

int fuzz_chat(const uint8_t *data, size_t len)
{
	return one("openai", data, len);
}

int fuzz_anthropic(const uint8_t *data, size_t len)
{
	return one("anthropic", data, len);
}
