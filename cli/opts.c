/* opts: the options of a formdesk command (see opts.h). */
#include "cli/opts.h"

#include <string.h>

enum opts_result opts_parse(const char *cmd, int argc, char **argv, const struct opts_spec *spec,
			    int n, void (*usage)(FILE *f))
{
	for (int i = 1; i < argc; i++) {
		const struct opts_spec *o = NULL;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return OPTS_HELP;
		}
		for (int k = 0; k < n && !o; k++)
			if (strcmp(argv[i], spec[k].name) == 0)
				o = &spec[k];
		if (!o) {
			fprintf(stderr, "formdesk %s: unknown option '%s'\n", cmd, argv[i]);
			usage(stderr);
			return OPTS_BAD;
		}
		if (o->flag) {
			*o->flag = true;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "formdesk %s: %s needs a value\n", cmd, argv[i]);
			return OPTS_BAD;
		}
		*o->value = argv[++i];
	}
	return OPTS_OK;
}
