#include "err.h"

const char *err_str(enum err e)
{
	switch (e) {
	case ERR_OK: return "ok";
	case ERR_NOMEM: return "out of memory";
	case ERR_IO: return "input/output error";
	case ERR_PARSE: return "malformed input";
	case ERR_INVALID: return "invalid value";
	case ERR_NOTFOUND: return "not found";
	case ERR_UNSUPPORTED: return "not supported";
	case ERR_AUDIO: return "audio library error";
	case ERR_DB: return "database error";
	case ERR_BACKEND: return "backend error";
	case ERR_CANCELLED: return "cancelled";
	}
	return "unknown error";
}
