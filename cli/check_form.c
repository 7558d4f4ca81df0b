/* check-form: print FormBharo's validation issues for a form config.
 * Exit status: 0 valid (nothing printed), 1 refused (the issues as
 * {"validation_issues":[...]} on stdout), 2 unreadable file or bad usage (stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "agent/form.h"

int cmd_check_form(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: formdesk check-form FILE\n");
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: formdesk check-form FILE\n");
		return 2;
	}
	struct form *f = NULL;
	struct form_issues is = {0};
	int rc = 2;
	enum err e = form_load(argv[1], &f, &is);
	if (e == ERR_OK) {
		rc = 0;
	} else if (e == ERR_IO) {
		fprintf(stderr, "formdesk check-form: cannot read %s\n",
			is.n ? is.v[0].message : argv[1]);
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
		fprintf(stderr, "formdesk check-form: %s: %s\n", argv[1], err_str(e));
	}
	form_free(f);
	form_issues_free(&is);
	return rc;
}
