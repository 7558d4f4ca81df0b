/* Provider conformance, the error side: each provider's documented error bodies
 * (tests/data/provider_errors.tsv, one test a row) give a stored error that keeps the
 * provider's own message, after the HTTP status, and never the key. The same text is
 * what the screens show (the usage record's error). The request side and the documented
 * successful answers are checked per provider in test_llm.c (tests/data/llm_<p>/expect)
 * and test_stt.c (tests/data/stt_<p>/expect). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/stages/llm.h"
#include "agent/stages/provider.h"
#include "tests/support/reqcheck.h"
#include "tests/support/table.h"

#define DATA "tests/data/provider_errors.tsv"
#define KEY "sk-contract-key-0000"

static void run_row(void **state)
{
	const struct table_row *r = *state;
	const char *kind = r->col[0], *name = r->col[1], *file = r->col[3], *want = r->col[4];
	const struct provider_info *info =
		provider_find(name, strcmp(kind, "stt") == 0 ? PROVIDER_STT : PROVIDER_LLM);
	if (!info)
		fail_msg("%s: no %s provider %s", r->name, kind, name);
	char model[] = "m", base[] = "http://127.0.0.1:9", key[] = KEY;
	struct provider p = {.info = info, .model = model, .base_url = base, .key = key};
	char *body = reqcheck_file_text(file);
	if (!body)
		fail_msg("%s: cannot read %s", r->name, file);
	struct http_result res = {.err = ERR_OK, .status = atol(r->col[2]), .body = body,
				  .body_len = strlen(body), .attempts = 1};
	char why[256] = "";
	assert_true(llm_http_error(&p, &res, why, sizeof(why)));
	if (!strstr(why, want))
		fail_msg("%s: error \"%s\" does not say \"%s\"", r->name, why, want);
	if (strstr(why, KEY))
		fail_msg("%s: the key is in the error", r->name);
	free(body);
}

int main(void)
{
	return table_run("providers", DATA, 6, 6, 0, run_row, NULL, 0);
}
