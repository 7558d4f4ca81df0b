/* mockserver: a local HTTP server for tests (libmicrohttpd), listening on 127.0.0.1 on a
 * port chosen at run time. It records every request (method, path, query arguments,
 * headers, body, multipart parts) and answers from a queue of scripted replies, or from
 * a handler. A reply can wait before answering (a slow provider). */
#ifndef FORMDESK_MOCKSERVER_H
#define FORMDESK_MOCKSERVER_H

#include <stdbool.h>
#include <stddef.h>

struct mock_reply {
	int status;
	const char *content_type; /* NULL: application/json */
	const char *body;         /* NULL: empty */
	const char *headers;      /* extra headers, "Name: value" lines separated by '\n' */
	int delay_ms;             /* wait before answering, counted from when the whole request
	                             has arrived (its parsing and the handler are inside it) */
};

struct mock_part {
	char *name, *filename, *type;
	char *data;
	size_t len;
};

struct mock_request {
	char *method, *path;
	char **hname, **hvalue; /* headers, names lower-cased */
	int n_headers;
	char **aname, **avalue; /* query arguments */
	int n_args;
	char *body;             /* NUL-terminated */
	size_t body_len;
	struct mock_part *parts; /* multipart/form-data parts, parsed */
	int n_parts;
	double received_ms;     /* loopwait_ms() when the whole request had arrived */
};

/* A handler decides the reply itself (called on the server's threads; strings it sets
 * must stay valid until the server stops). */
typedef void (*mock_handler)(void *ud, const struct mock_request *req, struct mock_reply *out);

struct mockserver;

/* mockserver_start: a running server, NULL on failure. */
struct mockserver *mockserver_start(void);
/* mockserver_stop: stop it and free everything it recorded; NULL does nothing. */
void mockserver_stop(struct mockserver *ms);
/* mockserver_url: "http://127.0.0.1:PORT" (owned by ms). */
const char *mockserver_url(const struct mockserver *ms);
/* mockserver_push: queue a reply (strings copied); replies are used in order, then the
 * default (200, "{}"). */
void mockserver_push(struct mockserver *ms, struct mock_reply r);
/* mockserver_set_default: the reply once the queue is empty (strings copied). */
void mockserver_set_default(struct mockserver *ms, struct mock_reply r);
/* mockserver_set_handler: answer every request by h (the queue is then unused). */
void mockserver_set_handler(struct mockserver *ms, mock_handler h, void *ud);
/* mockserver_record: whether requests are kept (default true). */
void mockserver_record(struct mockserver *ms, bool on);
/* mockserver_count: requests received since the start or the last clear (recorded or not). */
int mockserver_count(struct mockserver *ms);
/* mockserver_request: the i-th recorded request (owned by ms), NULL if none. */
const struct mock_request *mockserver_request(struct mockserver *ms, int i);
/* mockserver_push_pieces: queue a reply whose body is sent in pieces (chunked transfer
 * encoding), as a streaming server does: each piece ends at the next of cuts (n byte
 * offsets, ascending, inside the body; others are ignored), the last at the body's end,
 * and is handed over on its own. hold_last: wait before the last piece until
 * mockserver_release. cut_off: close the connection instead of ending the body. */
void mockserver_push_pieces(struct mockserver *ms, struct mock_reply r, const size_t *cuts, int n,
			    bool hold_last, bool cut_off);

/* mockserver_push_paced: as mockserver_push_pieces (nothing held), waiting piece_ms
 * before each piece after the first, as a model streaming its answer does. */
void mockserver_push_paced(struct mockserver *ms, struct mock_reply r, const size_t *cuts, int n,
			   int piece_ms, bool cut_off);

/* mockserver_push_bytes / mockserver_push_pieces_bytes: as mockserver_push and
 * mockserver_push_pieces with a body of len bytes, which may hold NULs (audio). */
void mockserver_push_bytes(struct mockserver *ms, struct mock_reply r, size_t len);
void mockserver_push_pieces_bytes(struct mockserver *ms, struct mock_reply r, size_t len,
				  const size_t *cuts, int n, bool hold_last, bool cut_off);

/* mockserver_release: let a reply held before its last piece (hold_last) finish. */
void mockserver_release(struct mockserver *ms);

/* mockserver_clear: forget recorded requests and queued replies (and a release). */
void mockserver_clear(struct mockserver *ms);

/* mockserver_answer: mockserver_clear, then queue one reply: 200, application/json, body
 * (copied): the next request's answer, as a provider's usual answer. */
void mockserver_answer(struct mockserver *ms, const char *body);

/* mock_header / mock_arg: value of header (case-insensitive) or query argument, NULL if
 * absent. mock_part_named: the part called name, NULL if absent. */
const char *mock_header(const struct mock_request *r, const char *name);
const char *mock_arg(const struct mock_request *r, const char *name);
const struct mock_part *mock_part_named(const struct mock_request *r, const char *name);

/* mock_body_has: whether the request body contains s (the whole body, bytes). */
bool mock_body_has(const struct mock_request *r, const char *s);

#endif
