/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "corpus.h"
#include <string.h>
char *corpus_resolve(const char *a) { return strdup(a); }
enum err corpus_load(const char *d, struct corpus **o, char **e) { (void)d; (void)o; if (e) *e = 0; return ERR_UNSUPPORTED; }
void corpus_free(struct corpus *c) { (void)c; }
