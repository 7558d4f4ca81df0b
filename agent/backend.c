#include "backend.h"

#include <string.h>

#include "extract_rules.h"
#include "reply_script.h"
#include "stt_reference.h"

/* provider part of "PROVIDER[:MODEL]" equals name */
static int provider_is(const char *spec, const char *name)
{
	size_t n = strlen(name);
	return strncmp(spec, name, n) == 0 && (spec[n] == '\0' || spec[n] == ':');
}

enum err backend_stt(const char *spec, struct stt_backend *out, const char **why)
{
	if (provider_is(spec, "reference")) {
		*out = (struct stt_backend){"reference", stt_reference_transcribe, NULL};
		return ERR_OK;
	}
	if (why)
		*why = "unknown STT provider (known: reference)";
	return ERR_NOTFOUND;
}

enum err backend_extract(const char *spec, struct extract_backend *out, const char **why)
{
	if (provider_is(spec, "rules")) {
		*out = (struct extract_backend){"rules", extract_rules_extract, NULL};
		return ERR_OK;
	}
	if (why)
		*why = "unknown EXTRACT provider (known: rules)";
	return ERR_NOTFOUND;
}

enum err backend_reply(const char *spec, struct reply_backend *out, const char **why)
{
	if (provider_is(spec, "script")) {
		*out = (struct reply_backend){"script", reply_script_reply, NULL};
		return ERR_OK;
	}
	if (why)
		*why = "unknown REPLY provider (known: script)";
	return ERR_NOTFOUND;
}
