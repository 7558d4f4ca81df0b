/* bench_endpointeval: `formdesk endpoint-eval`'s table on the bundled corpora (made by
 * `make corpora`): the demo corpus (synthetic speech, turns grouped by the kind of field
 * asked) and the real-speech corpus (RESPIN read sentences: kind "other"), answers joined
 * by 300, 500, 700 and 900 ms pauses; stop 200 ms with turn waits from 200 to 1600 ms.
 * Printed, never judged; a corpus that is absent is skipped, saying so. */
#include <stdio.h>
#include <stdlib.h>

#include "sessions/corpus/corpus.h"
#include "sessions/eval/endpointeval.h"

static void one(const char *dir)
{
	static const int gaps[] = {300, 500, 700, 900};
	static const struct endpointeval_setting s[] = {
		{200, 200}, {200, 400}, {200, 600}, {200, 800}, {200, 1200}, {200, 1600},
	};
	struct endpointeval_options o = {gaps, 4, false, NULL};
	struct endpointeval_row *rows = NULL;
	struct corpus *c = NULL;
	struct form *f = NULL;
	char *msg = NULL;
	int n = 0;

	if (corpus_load(dir, &c, &msg) != ERR_OK) {
		printf("endpoint-eval %s: skipped (%s)\n", dir, msg ? msg : "cannot load");
		free(msg);
		return;
	}
	if (c->form)
		form_load(c->form, &f, NULL);
	if (endpointeval_run(c, f, s, (int)(sizeof(s) / sizeof(s[0])), &o, &rows, &n, &msg) == ERR_OK) {
		printf("endpoint-eval %s (%s): answers of two utterances joined by 300, 500, 700 or 900 ms\n",
		       dir, c->synthetic ? "synthetic speech" : "real speech");
		endpointeval_print(stdout, rows, n);
	} else {
		printf("endpoint-eval %s: failed (%s)\n", dir, msg ? msg : "no utterances");
	}
	free(msg);
	free(rows);
	form_free(f);
	corpus_free(c);
}

int main(void)
{
	one("corpus/demo");
	one("corpus/respin");
	return 0;
}
