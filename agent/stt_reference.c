#include "stt_reference.h"

#include <stdlib.h>
#include <string.h>

enum err stt_reference_transcribe(void *ctx, const struct stt_request *req, char **text)
{
	(void)ctx;
	if (!req->reference)
		return ERR_NOTFOUND;
	char *s = strdup(req->reference);
	if (!s)
		return ERR_NOMEM;
	*text = s;
	return ERR_OK;
}
