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

int enginefix_teardown(void **state)
{
	struct enginefix *fx = *state; /* the fixture's first member: same address */
	enginefix_close(fx);
	free(fx);
	return 0;
}

void enginefix_rig_open(struct enginefix_rig *r, const char *db, const char *stt, const char *extract)
{
	char *msg = NULL;
	const char *why = NULL;

	assert_int_equal(form_load(FORM, &r->form, NULL), ERR_OK);
	assert_int_equal(lexicon_load(lexicon_default_dir(), &r->lex, &msg), ERR_OK);
	free(msg);
	assert_int_equal(store_open(db, &r->store, NULL), ERR_OK);
	r->cfg = (struct engine_config){.form_path = FORM, .today = {2025, 3, 15}, .form = r->form,
					.lex = r->lex, .store = r->store, .endpoint = endpoint_defaults()};
	assert_int_equal(backend_stt(stt, &r->cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract(extract, &r->cfg.extract, &why), ERR_OK);
	assert_int_equal(backend_reply("script", &r->cfg.reply, &why), ERR_OK);
}

void enginefix_rig_close(struct enginefix_rig *r, struct engine *e)
{
	engine_free(e);
	store_close(r->store);
	lexicon_free(r->lex);
	form_free(r->form);
}
