/* formdesk: the desk tool for a FormBharo-style form-filling voice agent. With no
 * subcommand it opens the simulator; otherwise it dispatches to the subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

struct command {
	const char *word;
	int (*fn)(int argc, char **argv);
	const struct opts_cmd *opts;
	const char *summary;
};

static const struct command commands[] = {
#define X(word, fn, summary) {word, fn, &fn##_opts, summary},
	COMMANDS(X)
#undef X
};

static void usage(FILE *f)
{
	fprintf(f, "usage: formdesk [COMMAND] [OPTIONS]\n"
		   "With no command, or with options only, formdesk opens the simulator.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		fputs("  ", f);
		opts_brief(commands[i].opts, f);
		fprintf(f, ": %s\n", commands[i].summary);
	}
	fprintf(f, "\nformdesk COMMAND --help prints that command's usage.\n");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--list-devices") == 0)
		return cmd_devices(argc - 1, argv + 1);
	if (argc < 2 || argv[1][0] == '-')
		return cmd_simulate(argc, argv); /* argv[0] stands in for the word */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].word) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "formdesk: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
