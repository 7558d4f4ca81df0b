/* paths: print every path through a form, one JSON line each (rule in sessions/corpus/paths.h).
 * Exit status: 0 printed, 2 bad usage, unreadable or refused form, bad --unknown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compose.h"
#include "opts.h"
#include "agent/rules/form.h"
#include "sessions/corpus/paths.h"

static int print_path(void *ctx, long number, const enum paths_answer *answers)
{
	const struct form *f = ctx;
	char *line = paths_json(f, number, answers);
	if (!line)
		return 1;
	puts(line);
	free(line);
	return 0;
}

int cmd_paths(int argc, char **argv)
{
	struct paths_opts o = {0};
	struct compose_opts co = {0};
	enum opts_result pr = opts_parse(&cmd_paths_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;

	int rc = 2;
	struct compose *c = NULL;
	bool *unknown = NULL;
	char *why = NULL;
	enum err e;
	if (compose_new("paths", &co, COMPOSE_FORM, &c) != ERR_OK)
		goto out;
	const struct form *f = c->form;
	const char *form_path = c->form_path, *unknown_list = o.unknown;
	unknown = calloc(f->n_questions > 0 ? (size_t)f->n_questions : 1, sizeof *unknown);
	if (!unknown) {
		fprintf(stderr, "formdesk paths: %s\n", err_str(ERR_NOMEM));
		goto out;
	}
	e = paths_parse_unknown(f, unknown_list, unknown, &why);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk paths: %s: %s\n", form_path, why ? why : err_str(e));
		goto out;
	}
	e = paths_each(f, unknown, print_path, (void *)f, NULL);
	if (e == ERR_INVALID) {
		fprintf(stderr, "formdesk paths: %s: the form has more than %ld paths (each question "
				"that a branch or end_call_values depends on doubles them)\n",
			form_path, PATHS_MAX);
		goto out;
	}
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk paths: %s\n", err_str(e == ERR_CANCELLED ? ERR_NOMEM : e));
		goto out;
	}
	rc = fflush(stdout) == 0 ? 0 : 2;
out:
	free(why);
	free(unknown);
	compose_free(c);
	return rc;
}
