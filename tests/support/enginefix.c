#include "enginefix.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "agent/hindi/lexicon.h"
#include "agent/rules/form.h"
#include "sessions/store/store.h"
#include "tmpdir.h"

#define FORM "forms/armman_enrollment.json"

void enginefix_open(struct enginefix *fx, const char *name, const char *corpus, struct backend stt,
		    struct backend extract, struct backend reply, engine_listener listener, void *ud)
{
	struct engine_config cfg = {0};
	assert_int_equal(tmpdir_make(fx->dir, sizeof fx->dir, name), 0);
	snprintf(fx->db, sizeof fx->db, "%s/e.db", fx->dir);
	assert_int_equal(form_load(FORM, &fx->form, NULL), ERR_OK);
	assert_int_equal(store_open(fx->db, &fx->store, NULL), ERR_OK);
	cfg.form = fx->form;
	cfg.form_path = FORM;
	cfg.corpus_name = corpus;
	cfg.stt = stt;
	cfg.extract = extract;
	cfg.reply = reply;
	cfg.store = fx->store;
	cfg.today = (struct ymd){2025, 3, 15};
	cfg.endpoint = endpoint_defaults();
	assert_int_equal(engine_new(&cfg, listener, ud, &fx->engine), ERR_OK);
}

void enginefix_close(struct enginefix *fx)
{
	engine_free(fx->engine);
	store_close(fx->store);
	form_free(fx->form);
	if (fx->dir[0] && tmpdir_remove(fx->dir) != 0)
		fprintf(stderr, "could not remove %s\n", fx->dir);
}

void enginefix_rig(const char *db, const char *stt, const char *extract, struct form **form,
		   struct lexicon **lex, struct store **store, struct engine_config *cfg)
{
	char *msg = NULL;
	const char *why = NULL;

	assert_int_equal(form_load(FORM, form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), lex, &msg), ERR_OK);
	free(msg);
	assert_int_equal(store_open(db, store, NULL), ERR_OK);
	*cfg = (struct engine_config){.form_path = FORM, .today = {2025, 3, 15}, .form = *form,
				      .lex = *lex, .store = *store, .endpoint = endpoint_defaults()};
	assert_int_equal(backend_stt(stt, &cfg->stt, &why), ERR_OK);
	assert_int_equal(backend_extract(extract, &cfg->extract, &why), ERR_OK);
	assert_int_equal(backend_reply("script", &cfg->reply, &why), ERR_OK);
}

void enginefix_unrig(struct engine *e, struct store *store, struct lexicon *lex, struct form *form)
{
	engine_free(e);
	store_close(store);
	lexicon_free(lex);
	form_free(form);
}
