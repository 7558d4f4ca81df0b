/* stt_reference: the offline STT backend "reference": returns the corpus's reference
 * transcript for the utterance, as in the FormBharo paper's reference-transcript
 * condition. */
#ifndef FORMDESK_STT_REFERENCE_H
#define FORMDESK_STT_REFERENCE_H

#include "backend.h"

/* The backend's ops (backend.h), no ctx. Its call gives a copy of req->reference.
 * Output: *text new string (caller frees). Errors: ERR_NOTFOUND when the turn has no
 * reference, ERR_NOMEM. */
extern const struct backend_ops stt_reference_ops;

#endif
