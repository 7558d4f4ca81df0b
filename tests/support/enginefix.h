/* enginefix: the call engine as the engine tests set it up: the enrollment form, a new
 * store in a private folder under /tmp, and an engine on both with the backends a test
 * gives, so each test file states only its backends and what it listens for; or, for the
 * tests that make their own engine, the parts (enginefix_rig). */
#ifndef FORMDESK_TESTS_ENGINEFIX_H
#define FORMDESK_TESTS_ENGINEFIX_H

#include "agent/stages/backend.h"
#include "sessions/calls/engine.h"

struct enginefix {
	char dir[64], db[96]; /* the folder (removed by enginefix_close) and the store's file */
	struct form *form;
	struct store *store;
	struct engine *engine;
};

/* enginefix_open: fill fx: a new folder /tmp/formdesk-test-NAME-XXXXXX, the form
 * forms/armman_enrollment.json, a new store DIR/e.db, and an engine on them with the
 * backends stt, extract and reply (borrowed), the corpus name corpus (NULL: none), today
 * 2025-03-15, the default endpointing, and events to listener(ud). Anything that fails
 * fails the running test. */
void enginefix_open(struct enginefix *fx, const char *name, const char *corpus, struct backend stt,
		    struct backend extract, struct backend reply, engine_listener listener, void *ud);

/* enginefix_close: free what enginefix_open made and remove its folder; a fixture never
 * opened (all zero) does nothing. */
void enginefix_close(struct enginefix *fx);

/* enginefix_teardown: a cmocka teardown for a test whose setup put in *state a fixture
 * from calloc whose first member is a struct enginefix: enginefix_close on it, then free
 * it. Returns 0. */
int enginefix_teardown(void **state);

/* The parts of an engine driven through named backends (enginefix_rig_open). */
struct enginefix_rig {
	struct form *form;
	struct lexicon *lex;
	struct store *store;
	struct engine_config cfg; /* on the parts above; the caller may change it */
};

/* enginefix_rig_open: fill r: the enrollment form, the word lists, a store at db (opened or
 * created), and cfg on them with today 2025-03-15, the default endpointing, the STT and
 * EXTRACT backends named stt and extract (backend_stt / backend_extract specs) and the
 * script as REPLY, for the caller's engine_new. Free with enginefix_rig_close. Anything
 * that fails fails the running test. */
void enginefix_rig_open(struct enginefix_rig *r, const char *db, const char *stt, const char *extract);

/* enginefix_rig_close: free e (the caller's engine on r, may be NULL), then r's parts. */
void enginefix_rig_close(struct enginefix_rig *r, struct engine *e);

#endif
