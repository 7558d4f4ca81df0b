/* opts: the one option parser of every formdesk command. A command describes its options
 * in one table (a row per option: name, kind, where the value goes, the value's name, one
 * line of help), and the same table drives getopt_long, the checks of each value, the
 * messages and the usage text. Every command's table is in cli/commands.c, in one file as
 * in curl's single option table (src/tool_getparam.c).
 *
 * Conventions, the same for every command: options are "--name VALUE" or "--name=VALUE"
 * (or a bare "--name" for a flag), in any order, mixed with the positional arguments
 * (order kept); "--" ends the options; a repeated option keeps its last value; names are
 * matched whole (no abbreviations); -h and --help print the usage on stdout. Messages go
 * to stderr as "formdesk COMMAND: ...", naming the option; exit status 2 for bad usage. */
#ifndef FORMDESK_OPTS_H
#define FORMDESK_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What an option's value is, and the C type it is stored as. */
enum opts_kind {
	OPTS_FLAG,   /* no value; bool, set to true */
	OPTS_STRING, /* const char *, pointing into argv (not copied) */
	OPTS_LIST,   /* const char *, items joined by commas ("a,b"), pointing into argv */
	OPTS_INT,    /* int, a whole number in [min, max] */
	OPTS_UINT,   /* unsigned, a whole number in [min, max] (max up to UINT_MAX) */
	OPTS_DOUBLE, /* double, a finite number in [min, max] ((min, max] with OPTS_ABOVE_MIN) */
};

enum opts_flags {
	OPTS_REQUIRED = 1 << 0,  /* missing: "--name ARG is required" and the usage, exit 2 */
	OPTS_SHARED = 1 << 1,    /* stored in the shared struct (the composition root's options,
				    cli/compose.h), not the command's own */
	OPTS_ABOVE_MIN = 1 << 2, /* OPTS_DOUBLE: min itself is refused */
};

/* One option. */
struct opts_spec {
	const char *name;   /* without the dashes: "db" */
	enum opts_kind kind;
	size_t off;         /* where the value goes: offsetof in the command's options struct
			       (or the shared one, OPTS_SHARED) */
	const char *arg;    /* the value's name in the usage ("FILE"); NULL for a flag */
	const char *help;   /* one line in the usage's option list; NULL: not listed */
	unsigned flags;     /* enum opts_flags */
	double min, max;    /* OPTS_INT, OPTS_UINT, OPTS_DOUBLE: the range */
	const char *what;   /* the numbers: what a value must be, for the message
			       ("a whole number of ms from 0 to 60000"); NULL: said from the range */
};

/* A command: its options and positional arguments, and the usage text around them. */
struct opts_cmd {
	const char *name;   /* the words after "formdesk": "corpus build" */
	const struct opts_spec *spec;
	int n;              /* rows of spec */
	const char *args;   /* the positional arguments in the usage ("FILE", "A B"); NULL none */
	int min_args, max_args; /* how many positional arguments; fewer: "ARGS is required" */
	const char *about;  /* text after the option list; may be NULL */
	void (*more)(FILE *f); /* prints text after about (a key list); may be NULL */
};

#define OPTS_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum opts_result {
	OPTS_OK,   /* every argument read */
	OPTS_HELP, /* -h or --help: the usage was printed to stdout (exit status 0) */
	OPTS_BAD,  /* a message was printed to stderr (exit status 2) */
};

/* opts_parse: reads argv[1..argc-1] (argv[0] is the command's word) as command c's options,
 * storing each value at its row's offset in own (or in shared, for OPTS_SHARED rows; may be
 * NULL when there are none), and the positional arguments, in order, into args[0..] (room
 * for c->max_args; may be NULL when max_args is 0), their count in *n_args (may be NULL).
 * Values not given keep what the caller set. Errors (OPTS_BAD, with a message on stderr):
 * an unknown option or one written in short; an option without its value; a flag given a
 * value; a value out of its kind or range; a missing required option or positional
 * argument; too many positional arguments. After those whose fix is in the synopsis
 * (unknown, missing, too many) the synopsis follows.
 * Values read before an error stay set. */
enum opts_result opts_parse(const struct opts_cmd *c, int argc, char **argv, void *own,
			    void *shared, const char **args, int *n_args);

/* opts_usage: c's usage on f: "usage: formdesk NAME" and the synopsis made from the table
 * (required options bare, others in brackets, then the positional arguments), wrapped to
 * 80 columns; the option list (rows with help); about; more. */
void opts_usage(const struct opts_cmd *c, FILE *f);

/* opts_sub: a command whose one subcommand is word, c being that subcommand's table
 * (named "corpus build", "tts warm"): when argv[1] is word, fn(argc - 1, argv + 1)'s exit
 * status; -h or --help: c's usage on stdout, 0; anything else: "formdesk corpus: expected
 * 'build'" (c's first word) and the usage on stderr, 2. */
int opts_sub(const struct opts_cmd *c, const char *word, int (*fn)(int argc, char **argv),
	     int argc, char **argv);

/* opts_brief: c's synopsis in one line, without "usage: formdesk": the name, the required
 * options, the positional arguments, "[OPTIONS]" when there are other options. */
void opts_brief(const struct opts_cmd *c, FILE *f);

#endif
