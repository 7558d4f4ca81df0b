/* stt_reference: the offline STT backend "reference": returns the corpus's reference
 * transcript for the utterance, as in the FormBharo paper's reference-transcript
 * condition. */
#ifndef FORMDESK_STT_REFERENCE_H
#define FORMDESK_STT_REFERENCE_H

#include "backend.h"

/* stt_reference_transcribe: copy of req->reference. Output: *text new string (caller
 * frees). Errors: ERR_NOTFOUND when the turn has no reference, ERR_NOMEM. */
enum err stt_reference_transcribe(void *ctx, const struct stt_request *req, char **text);

#endif
