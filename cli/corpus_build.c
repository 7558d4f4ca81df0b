/* corpus_build: formdesk corpus build --form FILE --profiles FILE --out DIR
 *   [--unknown F,...] [--conditions ideal,noise,distance,pace] [--synthesize]
 *
 * Writes a benchmark corpus (corpus/README.md) from caller profiles along every branch
 * path of the form, one acoustic condition per call (sessions/corpus/corpusgen.h; the profile
 * format is in docs/evaluation.md). stderr: what was written, and any condition left out
 * because its audio cannot be made. Exit status: 0 written, 2 bad usage or bad input. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "commands.h"
#include "base/file.h"
#include "compose.h"
#include "opts.h"
#include "agent/rules/form.h"
#include "sessions/corpus/corpusgen.h"

/* line_of: the 1-based line of offset off in text. */
static int line_of(const char *text, const char *at)
{
	int line = 1;
	for (const char *p = text; *p && p < at; p++)
		line += *p == '\n';
	return line;
}

static int corpus_build(int argc, char **argv)
{
	struct corpusgen_options o = {0};
	struct corpusgen_result r;
	struct compose_opts co = {0};
	struct compose *c = NULL;
	cJSON *profiles = NULL;
	char *text = NULL, *msg = NULL;
	int rc = 2;
	enum err e;

	enum opts_result pr = opts_parse(&cmd_corpus_opts, argc, argv, &o, &co, NULL, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	if (compose_new("corpus build", &co, COMPOSE_FORM, &c) != ERR_OK)
		goto out;
	o.form_path = co.form; /* as given: recorded in corpus.json */
	if (file_read(o.profiles_path, &text, NULL) != ERR_OK) {
		fprintf(stderr, "formdesk corpus build: %s: cannot read: %s\n", o.profiles_path,
			strerror(errno));
		goto out;
	}
	if (!(profiles = cJSON_Parse(text))) {
		const char *at = cJSON_GetErrorPtr();
		fprintf(stderr, "formdesk corpus build: %s:%d: bad JSON near '%.20s'\n",
			o.profiles_path, at ? line_of(text, at) : 1, at ? at : "");
		goto out;
	}
	if ((e = corpusgen_build(c->form, profiles, &o, &r, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk corpus build: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	fprintf(stderr,
		"formdesk corpus build: %s: %d calls, %d utterances (%d recorded, %d synthesized, "
		"%d acoustic variants)\n",
		o.out_dir, r.calls, r.utterances, r.recorded, r.synthesized, r.variants);
	if (r.dropped[0])
		fprintf(stderr,
			"formdesk corpus build: conditions left out: %s (no recording, and no "
			"ideal audio to make their variants from)\n",
			r.dropped);
	rc = 0;
out:
	compose_free(c);
	cJSON_Delete(profiles);
	free(text);
	free(msg);
	return rc;
}

int cmd_corpus(int argc, char **argv)
{
	return opts_sub(&cmd_corpus_opts, "build", corpus_build, argc, argv);
}
