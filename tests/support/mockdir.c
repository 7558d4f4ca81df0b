#include "mockdir.h"

#include <stdlib.h>

#include "agent/stages/provider.h"
#include "mockserver.h"
#include "tmpdir.h"

/* What the last mockdir_open made, for the teardown: a test program opens one. */
static struct mockserver **opened_ms;
static const char *opened_dir;

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

int mockdir_teardown(void **state)
{
	(void)state;
	if (opened_ms)
		mockserver_stop(*opened_ms);
	provider_config_free();
	if (opened_dir && opened_dir[0])
		tmpdir_remove(opened_dir);
	return 0;
}
