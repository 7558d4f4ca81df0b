/* cloud: what every hosted speech client (stt_cloud, tts_cloud) holds: its provider, the
 * Google credentials when the provider's row needs OAuth, and the usage record of its
 * last blocking call. One place for taking the provider over, loading the key file and
 * answering backend_ops.usage, so the two clients differ only in their requests. */
#ifndef FORMDESK_CLOUD_H
#define FORMDESK_CLOUD_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "provider.h"
#include "provider_google.h"

struct cloud {
	struct provider *p;             /* owned */
	struct provider_google *google; /* owned; NULL unless p->info->oauth */
	struct backend_usage last;      /* the last blocking call's record */
	bool used;                      /* whether last holds one */
};

/* cloud_new: a client of size bytes (at least sizeof(struct cloud)) whose first member is
 * a struct cloud, zeroed, taking over provider p, also on failure. For an OAuth row the key
 * file named by p->key (GOOGLE_APPLICATION_CREDENTIALS) is read now and, when need_project,
 * it must name a project unless p->project does. Output: *out (caller frees with
 * cloud_free on its first member). why (size n) on failure. Errors: ERR_IO, ERR_PARSE
 * (credentials), ERR_NOTFOUND (no Google project), ERR_NOMEM. */
enum err cloud_new(size_t size, struct provider *p, bool need_project, void **out, char *why,
		   size_t n);

/* cloud_free: free what c owns (the provider, its key wiped, and the credentials) and the
 * client c begins; NULL does nothing. */
void cloud_free(struct cloud *c);

/* cloud_usage: the last blocking call's usage (borrowed from c), NULL before the first. */
const struct backend_usage *cloud_usage(const struct cloud *c);

/* cloud_ops_usage, cloud_ops_free: backend_ops.usage and .free (backend.h) for a client
 * whose ctx starts with its struct cloud: cloud_usage and cloud_free on it. */
const struct backend_usage *cloud_ops_usage(const void *ctx);
void cloud_ops_free(void *ctx);

#endif
