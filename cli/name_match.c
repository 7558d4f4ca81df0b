/* name-match: the deterministic name judge on two names (agent/namematch.h). */
#include <stdio.h>
#include <string.h>

#include "agent/namematch.h"
#include "commands.h"

int cmd_name_match(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: formdesk name-match A B\n"
		       "  prints same, different or unsure\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: formdesk name-match A B\n"
				"  prints same, different or unsure\n");
		return 2;
	}
	printf("%s\n", namematch_verdict_name(namematch_judge(argv[1], argv[2])));
	return 0;
}
