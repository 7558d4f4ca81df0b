/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "extract_rules.h"
enum err extract_rules_extract(void *c, const struct extract_request *r, struct extraction **o) { (void)c; (void)r; (void)o; return ERR_UNSUPPORTED; }
