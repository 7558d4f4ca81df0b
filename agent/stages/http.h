/* http: a small request layer over libcurl's multi interface. Requests run without
 * threads: the owner of the loop drives them with http_poll() (which waits in
 * curl_multi_poll(), optionally on its own descriptors too), and any transfer can be
 * cancelled at once. Retries with backoff on HTTP 429 and 5xx, honouring Retry-After,
 * are done here so every backend gets them.
 *
 * http_perform() is the blocking helper for synchronous callers: it runs one request on
 * a process-wide client (so connections are reused between calls) until it completes.
 *
 * Nothing here logs or returns request headers: keys travel only in headers, so they
 * never reach an error message. */
#ifndef FORMDESK_HTTP_H
#define FORMDESK_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <curl/curl.h>
#include "base/err.h"

struct http_req;
struct http_client;
struct http_xfer;

/* Outcome of one request (after its retries). */
struct http_result {
	enum err err;       /* ERR_OK when a response arrived (whatever its status);
	                       ERR_BACKEND on transport failure or timeout; ERR_NOMEM */
	long status;        /* HTTP status of the last attempt, 0 without a response */
	char *body;         /* response body, NUL-terminated (owned by the result); a key
	                       it quoted is already "***" (secret.h) */
	size_t body_len;    /* bytes, without the NUL */
	double ttfb_ms;     /* start of the request to the first response byte of the last
	                       attempt, milliseconds (retry waits included) */
	double total_ms;    /* start of the request to its end, milliseconds */
	int attempts;       /* 1 + retries made */
	char error[256];    /* transport error text when err != ERR_OK, else "" */
	void *observer;     /* the request's observer state (http_req_observe), handed over
	                       with the result and freed by http_result_free; NULL if none */
	void (*observer_free)(void *);
};

/* http_req_new: a request description. Inputs: method ("GET", "POST"), url (copied).
 * Output: *out (caller frees with http_req_free, or hands it to http_start /
 * http_perform, which take it over). Errors: ERR_NOMEM. Defaults: 30 s timeout, no
 * retries. */
enum err http_req_new(const char *method, const char *url, struct http_req **out);
void http_req_free(struct http_req *r);

/* http_req_header: add "name: value" (both copied). Errors: ERR_NOMEM. */
enum err http_req_header(struct http_req *r, const char *name, const char *value);

/* http_req_body: the request body (data copied, len bytes) and its Content-Type (copied;
 * NULL sends none). Errors: ERR_NOMEM. */
enum err http_req_body(struct http_req *r, const void *data, size_t len, const char *content_type);

/* http_req_part: add a multipart/form-data part (RFC 7578). name and data (len bytes)
 * copied into the request's body at once (the form is whole, but for its closing
 * boundary, when the last part is in); filename and content_type may be NULL (a plain
 * field; a file without a type is application/octet-stream). Errors: ERR_NOMEM,
 * ERR_INVALID (the request has a body of its own, http_req_body). */
enum err http_req_part(struct http_req *r, const char *name, const void *data, size_t len,
		       const char *filename, const char *content_type);

/* http_req_limits: timeout_ms for each attempt (0 keeps the default); retries = how many
 * more attempts after a 429 or 5xx answer; backoff_ms = the first wait when the server
 * gives no Retry-After (doubled each retry, at most 30 s; 0 keeps 500 ms). */
void http_req_limits(struct http_req *r, long timeout_ms, int retries, long backoff_ms);

/* Called with each piece of a 2xx response body as it arrives (data, len bytes, not
 * NUL-terminated, valid during the call), from inside http_poll / http_start /
 * http_perform: attempt
 * counts from 1 (a retry starts a new body: forget what the last attempt sent); at_ms is
 * the time since the request started, milliseconds. It must not start or cancel
 * transfers. The whole body is still collected in the result as usual. */
typedef void (*http_data_fn)(void *ud, const char *data, size_t len, int attempt, double at_ms);

/* http_req_observe: watch r's response body as it arrives (a streamed answer, read before
 * it ends). ud is taken over: freed by free_ud (may be NULL) with the request, or handed
 * to its result (http_result.observer) when the transfer ends. Replaces an earlier
 * observer (freeing its ud). */
void http_req_observe(struct http_req *r, http_data_fn fn, void *ud, void (*free_ud)(void *));

/* Called on the loop when the request r waits for (http_req_after) has ended: res is its
 * result (borrowed during the call). Complete r (e.g. add the Authorization header an
 * access token allows) and return ERR_OK to send it; or return an error with why (size n)
 * filled in, and the transfer ends with that error (res->err ERR_BACKEND, res->error why). */
typedef enum err (*http_after_fn)(void *ud, const struct http_result *res, struct http_req *r,
				  char *why, size_t n);

/* http_req_after: send first (taken over) before r, on the same transfer: r goes out only
 * once first has ended and fn (ud borrowed) has completed it. Nothing blocks meanwhile:
 * first runs on the client's multi handle like any request (its own limits and retries);
 * cancelling the transfer cancels whichever is running. r's timings (ttfb_ms, total_ms)
 * count from when r itself is sent. Replaces an earlier first (freeing it). */
void http_req_after(struct http_req *r, struct http_req *first, http_after_fn fn, void *ud);

/* http_xfer_observer: the ud given to http_req_observe for x's request when its observer
 * is fn, else NULL (so a caller only sees state of the type it knows). Valid while x is
 * (until done is called or x is cancelled). */
void *http_xfer_observer(const struct http_xfer *x, http_data_fn fn);

/* http_result_free: free res, its body and its observer state; NULL does nothing. */
void http_result_free(struct http_result *res);

/* Called once when a transfer ends (not when it is cancelled). res belongs to the
 * callback, which frees it with http_result_free. */
typedef void (*http_done_fn)(void *ud, struct http_result *res);

/* http_client_new: a client (one curl multi handle). Output: *out (caller frees with
 * http_client_free, which cancels what is still running). Errors: ERR_NOMEM,
 * ERR_BACKEND (libcurl could not start). */
enum err http_client_new(struct http_client **out);
void http_client_free(struct http_client *c);

/* http_client_deadline: every transfer of c, those running and those started later, ends
 * within in_ms milliseconds from now (0 or less: no deadline from now on): an attempt's
 * timeout is cut to the time left, a retry that could not start before it is not made
 * (the answer in hand stands), and a transfer still running then ends in the next
 * http_poll with err ERR_BACKEND and error why (copied, cut to 199 bytes; NULL: "deadline
 * passed"). Replaces the deadline set before. The engine sets one per turn. */
void http_client_deadline(struct http_client *c, long in_ms, const char *why);

/* http_start: begin req (taken over, also on failure) on c: it goes out at once (libcurl
 * moves every transfer of c on before http_start returns); done(ud, res) is called from a
 * later http_poll. Output: *xfer, if not NULL, the handle for http_cancel (valid until
 * done is called or it is cancelled). Errors: ERR_NOMEM, ERR_BACKEND. */
enum err http_start(struct http_client *c, struct http_req *req, http_done_fn done, void *ud,
		    struct http_xfer **xfer);

/* http_cancel: abort x now (its connection is closed, done is not called). */
void http_cancel(struct http_client *c, struct http_xfer *x);
/* http_cancel_all: abort every transfer of c. */
void http_cancel_all(struct http_client *c);
/* http_active: transfers started and not yet done or cancelled. */
int http_active(const struct http_client *c);

/* http_poll: move every transfer on, waiting at most timeout_ms (milliseconds) for
 * network activity, a due retry or one of the extra descriptors (may be NULL; their
 * revents are set, see curl_multi_poll). Calls done for every transfer that ended.
 * Errors: ERR_BACKEND (libcurl failed). */
enum err http_poll(struct http_client *c, int timeout_ms, struct curl_waitfd *extra,
		   unsigned n_extra);

/* http_client_waitfds: what a loop that waits on another client (or in poll()) must also
 * wait on for c's transfers to move: up to max of c's sockets into fds (events set, revents
 * 0) and *timeout_ms lowered (never raised; -1 stays when c has nothing to wait for) to
 * when c must be polled next (libcurl's timers, a due retry, the deadline). Then
 * http_poll(c, 0, ...) moves them on without waiting. Output: the number of fds filled.
 * (libcurl's curl_multi_fdset and curl_multi_timeout; a socket above FD_SETSIZE is not
 * listed, then the timeout is cut to 10 ms.) */
unsigned http_client_waitfds(struct http_client *c, struct curl_waitfd *fds, unsigned max,
			     int *timeout_ms);

/* http_async_dns: whether libcurl resolves names without blocking (its threaded or c-ares
 * resolver, CURL_VERSION_ASYNCHDNS): then a slow DNS server delays a request, never the
 * loop. Debian's libcurl has it. */
bool http_async_dns(void);

/* http_perform: run req (taken over) to its end on the process-wide client, blocking.
 * Output: *out the result (caller frees with http_result_free); check (*out)->err and
 * (*out)->status. Errors: ERR_NOMEM, ERR_BACKEND (the client could not start). */
enum err http_perform(struct http_req *req, struct http_result **out);

/* http_perform_deadline: every http_perform from now on ends within in_ms milliseconds
 * from now (0 or less: none), as http_client_deadline for the process-wide client; why
 * (copied) is the error of a request it ends. For commands that call a provider outside
 * the engine (extract), so they honour the same per-turn deadline. Errors: ERR_NOMEM,
 * ERR_BACKEND (the client could not start). */
enum err http_perform_deadline(long in_ms, const char *why);

/* http_shared_free: free the process-wide client (at exit; it is made again if needed). */
void http_shared_free(void);

#endif
