/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "engine.h"
enum err engine_new(const struct engine_config *c, engine_listener l, void *u, struct engine **o) { (void)c; (void)l; (void)u; (void)o; return ERR_UNSUPPORTED; }
void engine_free(struct engine *e) { (void)e; }
enum err engine_begin(struct engine *e, const struct corpus_call *c) { (void)e; (void)c; return ERR_UNSUPPORTED; }
enum err engine_step(struct engine *e, bool *d) { (void)e; *d = true; return ERR_UNSUPPORTED; }
const struct flow *engine_flow(const struct engine *e) { (void)e; return NULL; }
