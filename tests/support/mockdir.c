#include "mockdir.h"

#include <stdio.h>
#include <stdlib.h>

#include "agent/stages/backend.h"
#include "agent/stages/provider.h"
#include "mockserver.h"
#include "tmpdir.h"

/* What the last mockdir_open made, for the teardown: a test program opens one. */
static struct mockserver **opened_ms;
static const char *opened_dir;
static char provider_url[64], provider_key[64]; /* the variables mockdir_provider set */

int mockdir_open(char *dir, size_t n, const char *name, struct mockserver *(*start)(void),
		 struct mockserver **ms)
{
	opened_ms = ms;
	opened_dir = dir;
	*ms = NULL;
	dir[0] = '\0';
	unsetenv("FORMDESK_CONFIG");
	if (tmpdir_make(dir, n, name) != 0 || !(*ms = start()))
		return -1;
	return 0;
}

void mockdir_provider(const char *prefix, const char *key)
{
	snprintf(provider_url, sizeof provider_url, "%s_BASE_URL", prefix);
	snprintf(provider_key, sizeof provider_key, "%s_API_KEY", prefix);
	setenv(provider_url, mockserver_url(*opened_ms), 1);
	setenv(provider_key, key, 1);
}

int mockdir_teardown(void **state)
{
	(void)state;
	if (opened_ms)
		mockserver_stop(*opened_ms);
	backend_cleanup();
	provider_config_free();
	if (provider_url[0]) {
		unsetenv(provider_url);
		unsetenv(provider_key);
	}
	if (opened_dir && opened_dir[0])
		tmpdir_remove(opened_dir);
	return 0;
}
