/* fuzz_extract: a caller's words from any bytes through the offline extractor (fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "agent/stages/backend.h"
#include "agent/stages/extract_rules.h"
#include "agent/rules/extraction.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"

static struct form *form;
static struct lexicon *lex;

static void load(void)
{
	char *msg = NULL;
	if (form_load("forms/armman_enrollment.json", &form, NULL) != ERR_OK ||
	    lexicon_load(lexicon_default_dir(), &lex, &msg) != ERR_OK) {
		fprintf(stderr, "fuzz extract: run from the source folder (form, word lists): %s\n",
			msg ? msg : "");
		abort();
	}
}

int fuzz_extract(const uint8_t *data, size_t len)
{
	if (!form)
		load();
	char *text = fuzz_text(data, len);
	if (!text)
		return 0;
	const struct ymd today = {2025, 3, 15};
	for (int q = -1; q < form->n_questions; q++) {
		struct extract_request req = {.form = form, .lex = lex, .asked = q, .transcript = text,
					      .today = today};
		struct extraction *ex = NULL;
		cJSON *res = NULL;
		if (extract_rules_extract(NULL, &req, &ex) == ERR_OK &&
		    flow_check(form, lex, today, q, ex, &res) == ERR_OK)
			cJSON_Delete(res);
		extraction_free(ex);
	}
	free(text);
	return 0;
}
