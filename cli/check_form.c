/* check-form: print FormBharo's validation issues for a form config, then formdesk's
 * warnings about what would misbehave (agent/formlint.h).
 * Exit status: 0 valid (no refusal; warnings, if any, on stderr), 1 refused (the issues
 * as {"validation_issues":[...]} on stdout) or, with --strict, warned, 2 unreadable file
 * or bad usage (stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "agent/form.h"
#include "agent/formlint.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: formdesk check-form [--strict] FILE\n"
		   "  FormBharo's refusals as {\"validation_issues\":[...]} on stdout (exit 1);\n"
		   "  warnings about what would misbehave on stderr (exit 0, or 1 with --strict)\n");
}

int cmd_check_form(int argc, char **argv)
{
	const char *path = NULL;
	bool strict = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--strict") == 0) {
			strict = true;
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	struct form *f = NULL;
	struct form_issues is = {0}, warns = {0};
	int rc = 2;
	enum err e = form_load(path, &f, &is);
	if (e == ERR_OK) {
		char prefix[600];
		snprintf(prefix, sizeof(prefix), "formdesk check-form: %s", path);
		e = formlint_check(f, &warns);
		int n = formlint_print(stderr, prefix, &warns);
		rc = e != ERR_OK ? 2 : strict && n > 0 ? 1 : 0;
		if (e != ERR_OK)
			fprintf(stderr, "formdesk check-form: %s\n", err_str(e));
	} else if (e == ERR_IO) {
		fprintf(stderr, "formdesk check-form: cannot read %s\n",
			is.n ? is.v[0].message : path);
	} else if (e == ERR_PARSE || e == ERR_INVALID) {
		char *js = form_issues_json(&is);
		if (js) {
			printf("%s\n", js);
			free(js);
			rc = 1;
		} else {
			fprintf(stderr, "formdesk check-form: %s\n", err_str(ERR_NOMEM));
		}
	} else {
		fprintf(stderr, "formdesk check-form: %s: %s\n", path, err_str(e));
	}
	form_free(f);
	form_issues_free(&is);
	form_issues_free(&warns);
	return rc;
}
