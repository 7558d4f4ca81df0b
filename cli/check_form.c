/* check-form: print FormBharo's validation issues for a form config, then formdesk's
 * warnings about what would misbehave (agent/rules/formlint.h).
 * Exit status: 0 valid (no refusal; warnings, if any, on stderr), 1 refused (the issues
 * as {"validation_issues":[...]} on stdout) or, with --strict, warned, 2 unreadable file
 * or bad usage (stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "commands.h"
#include "opts.h"
#include "agent/rules/form.h"
#include "agent/rules/formlint.h"

int cmd_check_form(int argc, char **argv)
{
	const char *path = NULL;
	struct check_form_opts o = {0};
	enum opts_result pr = opts_parse(&cmd_check_form_opts, argc, argv, &o, NULL, &path, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	bool strict = o.strict;
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
