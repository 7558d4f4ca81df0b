/* fuzz_stt: each speech-to-text provider's answer from any bytes (fuzz.h). */
#include "fuzz.h"

#include <stdlib.h>

#include "agent/stages/provider.h"
#include "agent/stages/stt_cloud.h"

int fuzz_stt(const uint8_t *data, size_t len)
{
	static const char *const names[] = {"elevenlabs", "sarvam", "deepgram", "openai",
					    "groq", "google", "whispercpp"};
	if (len < 1)
		return 0;
	struct provider p = {.info = provider_find(names[data[0] % 7], PROVIDER_STT)};
	if (!p.info)
		return 0;
	char *text = NULL;
	if (stt_cloud_parse(&p, (const char *)data + 1, len - 1, &text) == ERR_OK)
		free(text);
	return 0;
}
