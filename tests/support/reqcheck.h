/* reqcheck: checking the requests a test's local server received against an expect file,
 * the way a provider documents them. An expect file has one check a line ("#" comments
 * and blank lines skipped), a verb and its arguments separated by single spaces:
 *   spec TEXT               where the provider documents the request (returned)
 *   env NAME VALUE          set before the request is made; "{url}" in VALUE is the server's URL
 *   method M / path P       the request's method / path
 *   header NAME VALUE       a header's value; noheader NAME: the header is absent
 *   arg NAME VALUE          a query argument's value
 *   part NAME DATA          a multipart part's data
 *   json PATH VALUE         the JSON body's value at PATH (reqcheck_jpath), as reqcheck_value_is
 *   absent PATH             nothing at PATH in the JSON body
 *   contains PATH TEXT      the string at PATH contains TEXT
 * and verbs of the test's own (reqcheck_verb). A check that does not hold fails the test. */
#ifndef FORMDESK_TESTS_REQCHECK_H
#define FORMDESK_TESTS_REQCHECK_H

#include <stdbool.h>
#include <cjson/cJSON.h>

#include "mockserver.h"

/* reqcheck_verb: a test's own verb on request q (its body parsed as JSON, NULL if it is not
 * JSON) with arg and rest (NULL when the line had no third word). Returns 1 when the
 * check holds, 0 when it does not, -1 when verb is not one of the test's. */
typedef int (*reqcheck_verb)(const char *verb, const char *arg, const char *rest,
			   const struct mock_request *q, const cJSON *body);

/* reqcheck_file_text: the whole file at path as a new NUL-terminated string (caller frees),
 * NULL when it cannot be opened. */
char *reqcheck_file_text(const char *path);

/* reqcheck_jpath: the item of o at path: "a.b[0].c", a negative index counting from the end
 * ("[-1]" is the last element). Borrowed from o; NULL when there is none. */
const cJSON *reqcheck_jpath(const cJSON *o, const char *path);

/* reqcheck_value_is: whether v is the string want, or any other value that prints (compact
 * JSON) as want. NULL is never. */
bool reqcheck_value_is(const cJSON *v, const char *want);

/* reqcheck_run: run the expect file at file. env_only: only its env lines (the server ms
 * gives {url}); else every check against q (recorded by ms), with extra (may be NULL) for
 * the verbs the file may use beyond the common ones. Returns the file's spec text (static,
 * valid until the next call). A check that fails, or a file that
 * cannot be read, fails the running test. */
const char *reqcheck_run(const char *file, struct mockserver *ms, const struct mock_request *q,
			 bool env_only, reqcheck_verb extra);

/* reqcheck_case: the start of one provider's case, from its folder tests/data/NAME (an
 * expect file, and response.json, a documented answer, where the test answers with one):
 * the provider variables env (a NULL-ended list) unset, the loaded provider config
 * forgotten, and the expect file's env lines set (reqcheck_run with env_only; extra as
 * there). Output: *answer (when answer is not NULL) response.json's text (caller frees).
 * Returns the expect file's spec text (as reqcheck_run). A file that cannot be read fails
 * the running test. */
const char *reqcheck_case(const char *name, const char *const *env, struct mockserver *ms,
			  reqcheck_verb extra, char **answer);

/* reqcheck_case_request: every check of tests/data/NAME/expect against the request q
 * (recorded by ms), as reqcheck_run. */
void reqcheck_case_request(const char *name, struct mockserver *ms, const struct mock_request *q,
			   reqcheck_verb extra);

#endif
