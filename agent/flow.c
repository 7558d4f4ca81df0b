/* Placeholder until this module is written: every function fails with ERR_UNSUPPORTED. */
#include "flow.h"
enum err flow_new(const struct form *f, const struct lexicon *l, struct ymd t, struct flow **o) { (void)f; (void)l; (void)t; (void)o; return ERR_UNSUPPORTED; }
void flow_free(struct flow *f) { (void)f; }
enum err flow_start(struct flow *f, cJSON **o) { (void)f; (void)o; return ERR_UNSUPPORTED; }
enum err flow_turn(struct flow *f, const struct extraction *e, cJSON **o) { (void)f; (void)e; (void)o; return ERR_UNSUPPORTED; }
enum err flow_check(const struct form *f, const struct lexicon *l, struct ymd t, int a, const struct extraction *e, cJSON **o) { (void)f; (void)l; (void)t; (void)a; (void)e; (void)o; return ERR_UNSUPPORTED; }
const cJSON *flow_form_data(const struct flow *f) { (void)f; return NULL; }
const cJSON *flow_form_status(const struct flow *f) { (void)f; return NULL; }
enum call_status flow_status(const struct flow *f) { (void)f; return CALL_FAILED; }
enum field_status flow_field_status(const struct flow *f, int q) { (void)f; (void)q; return FIELD_EMPTY; }
int flow_retries_used(const struct flow *f, int q) { (void)f; (void)q; return 0; }
int flow_retry_limit(const struct flow *f, int q) { (void)f; (void)q; return 0; }
int flow_current(const struct flow *f) { (void)f; return -1; }
bool flow_branch_active(const struct flow *f, int b) { (void)f; (void)b; return false; }
const char *call_status_name(enum call_status s) { (void)s; return "failed"; }
const char *field_status_name(enum field_status s) { (void)s; return "empty"; }
