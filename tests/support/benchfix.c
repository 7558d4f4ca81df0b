#include "benchfix.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "sessions/corpus/corpus.h"

#define FORM "tests/data/bench_form.json"

void benchfix_open(struct benchfix *b, const char *name, struct bench_config base)
{
	char *msg = NULL;
	assert_int_equal(form_load(FORM, &b->form, NULL), ERR_OK);
	if (corpus_load("tests/data/bench_corpus", &b->corpus, &msg) != ERR_OK)
		fail_msg("tests/data/bench_corpus: %s", msg ? msg : "?");
	assert_int_equal(lexicon_load(lexicon_default_dir(), &b->lex, NULL), ERR_OK);
	b->cfg = base;
	b->cfg.form = b->form;
	b->cfg.form_path = FORM;
	b->cfg.lex = b->lex;
	b->cfg.corpus = b->corpus;
	b->cfg.today = b->corpus->today;
	snprintf(b->db, sizeof b->db, "/tmp/test_%s_%d.db", name, (int)getpid());
	snprintf(b->out, sizeof b->out, "/tmp/test_%s_%d", name, (int)getpid());
	unlink(b->db);
}

int benchfix_close(struct benchfix *b)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf %s %s %s-wal %s-shm", b->out, b->db, b->db, b->db);
	if (system(cmd) != 0)
		return -1;
	form_free(b->form);
	corpus_free(b->corpus);
	lexicon_free(b->lex);
	return 0;
}

long benchfix_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? (long)v->valuedouble : 0;
}
