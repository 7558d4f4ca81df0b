/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "lexicon.h"
#include <stddef.h>
enum err lexicon_load(const char *d, struct lexicon **o, char **e) { (void)d; (void)o; if (e) *e = NULL; return ERR_UNSUPPORTED; }
void lexicon_free(struct lexicon *l) { (void)l; }
const char *lexicon_default_dir(void) { return "agent/words"; }
