#include "cloud.h"

#include <stdio.h>
#include <stdlib.h>

enum err cloud_new(size_t size, struct provider *p, bool need_project, void **out, char *why,
		   size_t n)
{
	struct cloud *c = calloc(1, size);
	if (!c) {
		provider_free(p);
		return ERR_NOMEM;
	}
	c->p = p;
	enum err e = ERR_OK;
	if (p->info->oauth)
		e = provider_google_load(p->key, &c->google, why, n);
	if (!e && p->info->oauth && need_project && !p->project &&
	    !provider_google_project(c->google)) {
		snprintf(why, n, "google: no project (set \"project\" in the config file)");
		e = ERR_NOTFOUND;
	}
	if (e)
		cloud_free(c);
	else
		*out = c;
	return e;
}

void cloud_free(struct cloud *c)
{
	if (!c)
		return;
	provider_google_free(c->google);
	provider_free(c->p);
	free(c);
}

const struct backend_usage *cloud_usage(const struct cloud *c)
{
	return c->used ? &c->last : NULL;
}

const struct backend_usage *cloud_ops_usage(const void *ctx)
{
	return cloud_usage(ctx);
}

void cloud_ops_free(void *ctx)
{
	cloud_free(ctx);
}
