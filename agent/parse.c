/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "parse.h"
#include <stddef.h>
enum err parse_digits(const struct lexicon *l, const char *t, char **o) { (void)l; (void)t; *o = NULL; return ERR_UNSUPPORTED; }
enum err parse_number(const struct lexicon *l, const char *t, bool *f, double *v) { (void)l; (void)t; (void)v; *f = false; return ERR_UNSUPPORTED; }
enum err parse_date(const struct lexicon *l, const char *t, struct ymd td, bool p, bool *f, bool *v, struct ymd *o) { (void)l; (void)t; (void)td; (void)p; (void)v; (void)o; *f = false; return ERR_UNSUPPORTED; }
int parse_yesno(const struct lexicon *l, const char *t) { (void)l; (void)t; return -1; }
