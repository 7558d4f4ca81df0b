/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "reply_script.h"
enum err reply_script_reply(void *c, const struct reply_request *r, char **t) { (void)c; (void)r; (void)t; return ERR_UNSUPPORTED; }
