/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "form.h"
#include <stdlib.h>
enum err form_parse(const char *t, struct form **o, struct form_issues *i) { (void)t; (void)o; if (i) { i->v = NULL; i->n = 0; } return ERR_UNSUPPORTED; }
enum err form_load(const char *p, struct form **o, struct form_issues *i) { (void)p; return form_parse(NULL, o, i); }
void form_free(struct form *f) { (void)f; }
void form_issues_free(struct form_issues *i) { (void)i; }
char *form_issues_json(const struct form_issues *i) { (void)i; return NULL; }
int form_find(const struct form *f, const char *n) { (void)f; (void)n; return -1; }
const char *form_type_name(enum form_type t) { (void)t; return "string"; }
