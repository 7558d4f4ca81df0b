/* opts: the options of a formdesk command: "--name VALUE" pairs and bare flags, in any
 * order, with -h/--help. */
#ifndef FORMDESK_OPTS_H
#define FORMDESK_OPTS_H

#include <stdbool.h>
#include <stdio.h>

/* One option a command accepts. Exactly one of value and flag is set. */
struct opts_spec {
	const char *name;   /* as typed, "--db" */
	const char **value; /* an option with a value: set to the argument after the name */
	bool *flag;         /* a bare flag: set to true */
};

enum opts_result {
	OPTS_OK,   /* every argument was an option of spec */
	OPTS_HELP, /* -h or --help: the usage was printed to stdout (exit status 0) */
	OPTS_BAD,  /* a message was printed to stderr (exit status 2) */
};

/* opts_parse: reads argv[1..argc-1] as the options spec[0..n-1] of the command cmd
 * ("annotate", for messages "formdesk annotate: ..."). Each value points into argv (not
 * copied); a repeated option keeps the last value. Stops at -h or --help (usage(stdout),
 * OPTS_HELP). Errors: an argument not in spec ("unknown option", then usage(stderr)) or
 * an option without its value ("needs a value") give OPTS_BAD; options read before the
 * error stay set. */
enum opts_result opts_parse(const char *cmd, int argc, char **argv, const struct opts_spec *spec,
			    int n, void (*usage)(FILE *f));

#endif
