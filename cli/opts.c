/* opts: the one option parser of every formdesk command (see opts.h). getopt_long does the
 * scanning; this file turns the command's table into getopt_long's, checks and stores the
 * values, and writes the messages and the usage. */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's code for row i: above every character. */
#define ROW_VAL 256
#define MAX_ROWS 64 /* rows read of a table; no command has half as many */

/* The name the messages begin with: "formdesk COMMAND" or "formdesk". */
static void prefix(const struct opts_cmd *c)
{
	fprintf(stderr, "formdesk%s%s: ", c->name[0] ? " " : "", c->name);
}

static void *slot(const struct opts_spec *o, void *own, void *shared)
{
	return (char *)((o->flags & OPTS_SHARED) ? shared : own) + o->off;
}

/* The range in words, when the row does not say what a value must be. */
static void say_range(const struct opts_spec *o)
{
	if (o->what)
		fputs(o->what, stderr);
	else if (o->kind == OPTS_INT || o->kind == OPTS_UINT)
		fprintf(stderr, "a whole number from %.0f to %.0f", o->min, o->max);
	else if (o->flags & OPTS_ABOVE_MIN)
		fprintf(stderr, "a number above %g, at most %g", o->min, o->max);
	else
		fprintf(stderr, "a number from %g to %g", o->min, o->max);
}

/* store: check value v against row o and store it. Returns false after the message. */
static bool store(const struct opts_cmd *c, const struct opts_spec *o, const char *v, void *own,
		  void *shared)
{
	void *p = slot(o, own, shared);
	char *end = NULL;

	switch (o->kind) {
	case OPTS_FLAG:
		*(bool *)p = true;
		return true;
	case OPTS_STRING:
	case OPTS_LIST:
		*(const char **)p = v;
		return true;
	case OPTS_INT:
	case OPTS_UINT: {
		errno = 0;
		long long n = strtoll(v, &end, 10);
		if (!errno && end != v && !*end && n >= o->min && n <= o->max) {
			if (o->kind == OPTS_INT)
				*(int *)p = (int)n;
			else
				*(unsigned *)p = (unsigned)n;
			return true;
		}
		break;
	}
	case OPTS_DOUBLE: {
		errno = 0;
		double x = strtod(v, &end);
		bool low = (o->flags & OPTS_ABOVE_MIN) ? !(x > o->min) : !(x >= o->min);
		if (!errno && end != v && !*end && isfinite(x) && !low && x <= o->max) {
			*(double *)p = x;
			return true;
		}
		break;
	}
	}
	prefix(c);
	fprintf(stderr, "--%s: '%s' is not ", o->name, v);
	say_range(o);
	fputc('\n', stderr);
	return false;
}

/* written_whole: the option element text names row o whole ("--name" or "--name=..."):
 * getopt_long would also take an unambiguous abbreviation, which formdesk does not. */
static bool written_whole(const char *text, const struct opts_spec *o)
{
	size_t n = strlen(o->name);
	return text && text[0] == '-' && text[1] == '-' && strncmp(text + 2, o->name, n) == 0 &&
	       (text[2 + n] == '\0' || text[2 + n] == '=');
}

static void synopsis(const struct opts_cmd *c, FILE *f);

static void unknown(const struct opts_cmd *c, const char *text)
{
	prefix(c);
	fprintf(stderr, "unknown option '%s'\n", text);
	synopsis(c, stderr);
}

/* positional: keep a as the next positional argument, or say there is one too many. */
static bool positional(const struct opts_cmd *c, const char *a, const char **args, int *k)
{
	if (*k >= c->max_args) {
		prefix(c);
		fprintf(stderr, "unexpected argument '%s'\n", a);
		synopsis(c, stderr);
		return false;
	}
	args[(*k)++] = a;
	return true;
}

enum opts_result opts_parse(const struct opts_cmd *c, int argc, char **argv, void *own,
			    void *shared, const char **args, int *n_args)
{
	struct option lo[MAX_ROWS + 2];
	bool seen[MAX_ROWS] = {false};
	int n = c->n < MAX_ROWS ? c->n : MAX_ROWS, k = 0, r;

	for (int i = 0; i < n; i++)
		lo[i] = (struct option){c->spec[i].name,
					c->spec[i].kind == OPTS_FLAG ? no_argument : required_argument,
					NULL, ROW_VAL + i};
	lo[n] = (struct option){"help", no_argument, NULL, 'h'};
	lo[n + 1] = (struct option){0};
	if (n_args)
		*n_args = 0;
	opterr = 0;
	optind = 0; /* a full reset: commands may be run more than once in a process */
	/* "-": positional arguments come back in order, as code 1; ":": a missing value is
	 * told apart from an unknown option. */
	while ((r = getopt_long(argc, argv, "-:h", lo, NULL)) != -1) {
		/* The element the option was written in: the one before the value when the
		 * value was the next element. */
		const char *text = optind >= 1 ? argv[optind - 1] : NULL;
		if (optarg && optind >= 2 && optarg == argv[optind - 1] && r != 1)
			text = argv[optind - 2];
		if (r == 'h') {
			if (text && strncmp(text, "--", 2) == 0 && strcmp(text, "--help") != 0) {
				unknown(c, text);
				return OPTS_BAD;
			}
			opts_usage(c, stdout);
			return OPTS_HELP;
		}
		if (r == 1) {
			if (!positional(c, optarg, args, &k))
				return OPTS_BAD;
			continue;
		}
		if (r == ':') {
			/* optopt is the row's code; a short option has none but -h */
			const char *name = optopt >= ROW_VAL && optopt < ROW_VAL + n
						   ? c->spec[optopt - ROW_VAL].name : "?";
			if (optopt >= ROW_VAL && !written_whole(text, &c->spec[optopt - ROW_VAL])) {
				unknown(c, text);
				return OPTS_BAD;
			}
			prefix(c);
			fprintf(stderr, "--%s needs a value\n", name);
			return OPTS_BAD;
		}
		if (r == '?') {
			if (optopt >= ROW_VAL && optopt < ROW_VAL + n &&
			    written_whole(text, &c->spec[optopt - ROW_VAL])) {
				prefix(c);
				fprintf(stderr, "--%s takes no value\n", c->spec[optopt - ROW_VAL].name);
				return OPTS_BAD;
			}
			if (optopt > 0 && optopt < ROW_VAL) {
				char s[3] = {'-', (char)optopt, '\0'};
				unknown(c, s);
			} else {
				unknown(c, text ? text : "?");
			}
			return OPTS_BAD;
		}
		const struct opts_spec *o = &c->spec[r - ROW_VAL];
		if (!written_whole(text, o)) {
			unknown(c, text);
			return OPTS_BAD;
		}
		if (!store(c, o, optarg, own, shared))
			return OPTS_BAD;
		seen[r - ROW_VAL] = true;
	}
	/* After "--": the rest are positional. */
	for (int i = optind; i < argc; i++)
		if (!positional(c, argv[i], args, &k))
			return OPTS_BAD;
	for (int i = 0; i < n; i++)
		if ((c->spec[i].flags & OPTS_REQUIRED) && !seen[i]) {
			prefix(c);
			fprintf(stderr, "--%s%s%s is required\n", c->spec[i].name,
				c->spec[i].arg ? " " : "", c->spec[i].arg ? c->spec[i].arg : "");
			synopsis(c, stderr);
			return OPTS_BAD;
		}
	if (k < c->min_args) {
		prefix(c);
		fprintf(stderr, "%s is required\n", c->args ? c->args : "an argument");
		synopsis(c, stderr);
		return OPTS_BAD;
	}
	if (n_args)
		*n_args = k;
	return OPTS_OK;
}

/* Synopsis words, wrapped: a word that would pass column 80 starts a new line indented
 * under the first option. */
struct wrap {
	FILE *f;
	int col, indent;
};

static void word(struct wrap *w, const char *text)
{
	int len = (int)strlen(text);
	if (w->col + 1 + len > 80 && w->col > w->indent) {
		fprintf(w->f, "\n%*s", w->indent, "");
		w->col = w->indent;
	} else {
		fputc(' ', w->f);
		w->col++;
	}
	fputs(text, w->f);
	w->col += len;
}

/* synopsis: the usage's first line(s), made from the table. */
static void synopsis(const struct opts_cmd *c, FILE *f)
{
	struct wrap w = {.f = f};

	w.col = fprintf(f, "usage: formdesk%s%s", c->name[0] ? " " : "", c->name);
	w.indent = w.col + 1;
	for (int i = 0; i < c->n; i++) {
		const struct opts_spec *o = &c->spec[i];
		bool req = o->flags & OPTS_REQUIRED;
		char buf[128];
		snprintf(buf, sizeof buf, "%s--%s%s%s%s", req ? "" : "[", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "", req ? "" : "]");
		word(&w, buf);
	}
	if (c->args)
		word(&w, c->args);
	fputc('\n', f);
}

/* help_text: an option's help after column col (where the cursor is), its words wrapped
 * before column 80 and aligned one column further. */
static void help_text(FILE *f, const char *help, int col)
{
	struct wrap w = {.f = f, .col = col, .indent = col + 1};
	char word_buf[128];

	for (const char *p = help; *p;) {
		size_t n = strcspn(p, " ");
		snprintf(word_buf, sizeof word_buf, "%.*s", (int)n, p);
		word(&w, word_buf);
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

void opts_usage(const struct opts_cmd *c, FILE *f)
{
	int width = 0;

	synopsis(c, f);
	for (int i = 0; i < c->n; i++) {
		const struct opts_spec *o = &c->spec[i];
		int len = (int)(strlen(o->name) + (o->arg ? strlen(o->arg) + 1 : 0));
		if (o->help && len > width)
			width = len;
	}
	if (width > 24)
		width = 24;
	for (int i = 0; i < c->n; i++) {
		const struct opts_spec *o = &c->spec[i];
		char head[128];
		if (!o->help)
			continue;
		snprintf(head, sizeof head, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		if ((int)strlen(head) > width)
			fprintf(f, "  --%s\n%*s", head, width + 5, "");
		else
			fprintf(f, "  --%-*s ", width, head);
		help_text(f, o->help, width + 5);
	}
	if (c->about)
		fputs(c->about, f);
	if (c->more)
		c->more(f);
}

void opts_brief(const struct opts_cmd *c, FILE *f)
{
	bool more = false;

	fputs(c->name, f);
	for (int i = 0; i < c->n; i++) {
		const struct opts_spec *o = &c->spec[i];
		if (o->flags & OPTS_REQUIRED)
			fprintf(f, " --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			more = true;
	}
	if (c->args)
		fprintf(f, " %s", c->args);
	if (more)
		fputs(" [OPTIONS]", f);
}

int opts_sub(const struct opts_cmd *c, const char *word, int (*fn)(int argc, char **argv),
	     int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], word) == 0)
		return fn(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		opts_usage(c, stdout);
		return 0;
	}
	/* c is the word's command ("corpus build"): the message names the first word */
	fprintf(stderr, "formdesk %.*s: expected '%s'\n", (int)strcspn(c->name, " "), c->name, word);
	opts_usage(c, stderr);
	return 2;
}
