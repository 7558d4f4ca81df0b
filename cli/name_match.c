/* name-match: the deterministic name judge on two names (agent/hindi/namematch.h). */
#include <stdio.h>

#include "agent/hindi/namematch.h"
#include "commands.h"
#include "opts.h"

int cmd_name_match(int argc, char **argv)
{
	const char *ab[2] = {NULL, NULL};
	enum opts_result pr = opts_parse(&cmd_name_match_opts, argc, argv, NULL, NULL, ab, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	printf("%s\n", namematch_verdict_name(namematch_judge(ab[0], ab[1])));
	return 0;
}
