/* extract_rules: the offline rule-based EXTRACT backend "rules" (the default). Reads the
 * caller's words with the lexicon's word lists and returns every field answered in the
 * turn, with the skip flag for "don't know" / declined answers. */
#ifndef FORMDESK_EXTRACT_RULES_H
#define FORMDESK_EXTRACT_RULES_H

#include "backend.h"

/* extract_rules_extract: see struct extract_backend.extract. ctx is unused (NULL).
 * Output: *out new extraction (caller frees with extraction_free). Errors: ERR_NOMEM. */
enum err extract_rules_extract(void *ctx, const struct extract_request *req, struct extraction **out);

#endif
