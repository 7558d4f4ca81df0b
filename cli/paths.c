/* paths: print every path through a form, one JSON line each (rule in sessions/paths.h).
 * Exit status: 0 printed, 2 bad usage, unreadable or refused form, bad --unknown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "agent/form.h"
#include "sessions/paths.h"

static const char usage_text[] = "usage: formdesk paths --form FILE [--unknown FIELD,...]\n";

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
	const char *form_path = NULL, *unknown_list = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--form") && i + 1 < argc) {
			form_path = argv[++i];
		} else if (!strcmp(argv[i], "--unknown") && i + 1 < argc) {
			unknown_list = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		} else {
			fprintf(stderr, "formdesk paths: unexpected argument '%s'\n%s", argv[i],
				usage_text);
			return 2;
		}
	}
	if (!form_path) {
		fprintf(stderr, "formdesk paths: --form is required\n%s", usage_text);
		return 2;
	}

	int rc = 2;
	struct form *f = NULL;
	struct form_issues is = {0};
	bool *unknown = NULL;
	char *why = NULL;
	enum err e = form_load(form_path, &f, &is);
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk paths: %s: %s\n", form_path, err_str(e));
		for (int i = 0; i < is.n; i++)
			fprintf(stderr, "  %s%s%s\n", is.v[i].field, *is.v[i].field ? ": " : "",
				is.v[i].message);
		goto out;
	}
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
	e = paths_each(f, unknown, print_path, f, NULL);
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
	form_free(f);
	form_issues_free(&is);
	return rc;
}
