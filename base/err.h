/* err: the one error enum of formdesk and its message function. It sits in base/, the
 * folder below every other (DESIGN.md), so audio/ and agent/ share it without audio/
 * depending on agent/. */
#ifndef FORMDESK_ERR_H
#define FORMDESK_ERR_H

enum err {
	ERR_OK = 0,
	ERR_NOMEM,       /* allocation failed */
	ERR_IO,          /* a file could not be opened, read or written */
	ERR_PARSE,       /* malformed input (JSON, TSV, manifest, audio header) */
	ERR_INVALID,     /* well-formed input that breaks a rule */
	ERR_NOTFOUND,    /* a named thing (field, call, backend, file) does not exist */
	ERR_UNSUPPORTED, /* a valid request this build cannot serve */
	ERR_AUDIO,       /* an audio library failed */
	ERR_DB,          /* SQLite failed */
	ERR_BACKEND,     /* a model or STT backend failed */
	ERR_CANCELLED,   /* work abandoned on purpose (barge-in, quit) */
};

/* err_str: a short English message for e. Input: any enum err value (others give
 * "unknown error"). Output: a static string, never NULL; the caller must not free it. */
const char *err_str(enum err e);

#endif
