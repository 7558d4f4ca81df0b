/* store: the SQLite session store: every call, turn, transcript, extraction, verdict,
 * decision, final form and status, with timings. WAL journal; one transaction per turn,
 * so a crash or a kill never loses a finished turn. */
#ifndef FORMDESK_STORE_H
#define FORMDESK_STORE_H

#include "agent/err.h"

struct store;

/* store_open: open (creating if needed) the database at path and bring its schema up to
 * date. Output: *out (caller frees with store_close); on failure *errmsg (caller frees;
 * may be NULL) names the file and SQLite's message. Errors: ERR_DB, ERR_NOMEM. */
enum err store_open(const char *path, struct store **out, char **errmsg);
/* store_close: close st; NULL does nothing. */
void store_close(struct store *st);

#endif
