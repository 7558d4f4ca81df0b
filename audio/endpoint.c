/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "endpoint.h"
struct endpoint_options endpoint_defaults(void) { struct endpoint_options o = {100, 200, 400, -50}; return o; }
enum err endpoint_find(const float *s, size_t n, int r, const struct endpoint_options *o, struct endpoint_segment **g, int *ng) { (void)s; (void)n; (void)r; (void)o; (void)g; *ng = 0; return ERR_UNSUPPORTED; }
