/* benchfix: the benchmark as the bench tests set it up: the bench form and corpus
 * (tests/data/bench_form.json, tests/data/bench_corpus), the word lists, a configuration
 * on them, and where the run's database and report go, so each test file states only its
 * backends and options. */
#ifndef FORMDESK_TESTS_BENCHFIX_H
#define FORMDESK_TESTS_BENCHFIX_H

#include <cjson/cJSON.h>

#include "sessions/eval/bench.h"

struct benchfix {
	struct form *form;
	struct corpus *corpus;
	struct lexicon *lex;
	struct bench_config cfg;
	char db[64], out[64]; /* /tmp/test_NAME_PID.db and the report folder /tmp/test_NAME_PID */
};

/* benchfix_open: fill b: the form, the corpus and the word lists loaded, cfg = base (the
 * test's backends, specs and options) with the form, its path, the words, the corpus and
 * its today filled in, db and out named after name and this process (the database removed
 * if a run before left it). Anything that fails fails the running test. */
void benchfix_open(struct benchfix *b, const char *name, struct bench_config base);

/* benchfix_close: remove db (with its -wal and -shm) and out, and free what
 * benchfix_open loaded. Returns 0, or -1 when the files could not be removed (a cmocka
 * teardown's answer). */
int benchfix_close(struct benchfix *b);

/* benchfix_num: the number at key k of a stored row's JSON o, truncated; 0 when it is
 * missing or not a number. */
long benchfix_num(const cJSON *o, const char *k);

#endif
