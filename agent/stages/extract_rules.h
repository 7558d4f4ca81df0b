/* extract_rules: the offline rule-based EXTRACT backend "rules" (the default). Reads the
 * caller's words with the lexicon's word lists and returns every field answered in the
 * turn, with the skip flag for "don't know" / declined answers. */
#ifndef FORMDESK_EXTRACT_RULES_H
#define FORMDESK_EXTRACT_RULES_H

#include "backend.h"

struct extract_rules;

/* The backend's ops (backend.h); its ctx is a struct extract_rules. */
extern const struct backend_ops extract_rules_ops;

/* extract_rules_new: the backend's ctx: it keeps the analysis of the last form seen.
 * Output: *out (caller frees with extract_rules_free). Errors: ERR_NOMEM. */
enum err extract_rules_new(struct extract_rules **out);
void extract_rules_free(struct extract_rules *x);

/* extract_rules_extract: EXTRACT on req (struct backend_ops call). ctx is a struct
 * extract_rules, or NULL to analyse the form for this call alone (slower). Output: *out
 * new extraction (caller frees with extraction_free). Errors: ERR_NOMEM. */
enum err extract_rules_extract(void *ctx, const struct extract_request *req, struct extraction **out);

#endif
