/* Placeholder until this module is written. */
#include "store.h"
#include <stddef.h>
enum err store_open(const char *p, struct store **o, char **e) { (void)p; (void)o; if (e) *e = NULL; return ERR_UNSUPPORTED; }
void store_close(struct store *s) { (void)s; }
