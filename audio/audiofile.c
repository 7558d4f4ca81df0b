/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "audiofile.h"
enum err audiofile_read(const char *p, int r, float **s, size_t *n, char **e) { (void)p; (void)r; (void)s; (void)n; if (e) *e = 0; return ERR_UNSUPPORTED; }
enum err audiofile_write(const char *p, const float *s, size_t n, int r, char **e) { (void)p; (void)s; (void)n; (void)r; if (e) *e = 0; return ERR_UNSUPPORTED; }
