/* lexicon: the word lists the rule layer and the offline extractor read at load
 * (numbers, months, yes/no, don't-know phrases, carrier phrases, fillers, ...). They are
 * data files in agent/words/ (documented in agent/words/README.md) so a programme team can
 * extend them without touching C. */
#ifndef FORMDESK_LEXICON_H
#define FORMDESK_LEXICON_H

#include "err.h"

struct lexicon;

/* lexicon_load: read every word list in dir. Output: *out on ERR_OK (caller frees with
 * lexicon_free); on failure *errmsg (caller frees, may be NULL to ignore) names the file,
 * line and what is wrong. Errors: ERR_IO, ERR_PARSE, ERR_NOMEM. */
enum err lexicon_load(const char *dir, struct lexicon **out, char **errmsg);
void lexicon_free(struct lexicon *lex);

/* lexicon_default_dir: where the word lists are: $FORMDESK_WORDS if set, else
 * agent/words beside the running binary, else the source tree's agent/words. Static
 * string. */
const char *lexicon_default_dir(void);

#endif
