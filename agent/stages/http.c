#include "http.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/select.h>
#include <time.h>

#include "base/sbuf.h"
#include "secret.h"

#define HTTP_MAX_BODY (64u << 20)      /* a response larger than this is refused */
#define HTTP_DEFAULT_TIMEOUT_MS 30000L
#define HTTP_DEFAULT_BACKOFF_MS 500L
#define HTTP_MAX_WAIT_MS 30000L        /* longest backoff or Retry-After we honour */

struct http_req {
	char *method, *url;
	struct curl_slist *headers;
	char *body;
	size_t body_len;
	bool has_body;
	bool no_expect;             /* "Expect:" is in headers */
	/* multipart/form-data: the parts as they were added, the body once closed with the
	 * last boundary when the request is first sent */
	int n_parts;
	struct sbuf form;
	char boundary[40];
	long timeout_ms;
	int retries;
	long backoff_ms;
	http_data_fn observe;
	void *observe_ud;
	void (*observe_free)(void *);
	struct http_req *first;     /* sent before this one (http_req_after), NULL none */
	http_after_fn after;
	void *after_ud;
};

enum xfer_state { XFER_RUNNING, XFER_WAITING, XFER_COMPLETED };

struct http_xfer {
	struct http_client *c;
	struct http_req *req;       /* the request being sent */
	struct http_req *then;      /* the request waiting for req to end (http_req_after) */
	CURL *easy;
	http_done_fn done;
	void *ud;
	enum xfer_state state;
	struct sbuf body;           /* the attempt's response body so far */
	bool too_big;
	double t0, attempt_t0, due;
	double first_byte;          /* when the attempt's final response began, 0 not yet */
	int attempts;
	bool cut;                  /* the attempt's timeout was cut to the client's deadline */
	struct http_result *res;   /* set once COMPLETED */
	char errbuf[CURL_ERROR_SIZE];
	struct http_xfer *prev, *next;
};

struct http_client {
	CURLM *multi;
	struct http_xfer *head;
	int n;
	double deadline;           /* now_ms() by which every transfer ends; 0 none */
	char deadline_why[200];    /* the error of a transfer the deadline ends */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *dupn(const void *p, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

enum err http_req_new(const char *method, const char *url, struct http_req **out)
{
	struct http_req *r = calloc(1, sizeof(*r));
	if (!r)
		return ERR_NOMEM;
	r->method = strdup(method);
	r->url = strdup(url);
	r->timeout_ms = HTTP_DEFAULT_TIMEOUT_MS;
	r->backoff_ms = HTTP_DEFAULT_BACKOFF_MS;
	if (!r->method || !r->url) {
		http_req_free(r);
		return ERR_NOMEM;
	}
	*out = r;
	return ERR_OK;
}

void http_req_free(struct http_req *r)
{
	if (!r)
		return;
	free(r->method);
	free(r->url);
	curl_slist_free_all(r->headers);
	free(r->body);
	free(r->form.p);
	if (r->observe_free)
		r->observe_free(r->observe_ud);
	http_req_free(r->first);
	free(r);
}

void http_req_after(struct http_req *r, struct http_req *first, http_after_fn fn, void *ud)
{
	http_req_free(r->first);
	r->first = first;
	r->after = fn;
	r->after_ud = ud;
}

void http_req_observe(struct http_req *r, http_data_fn fn, void *ud, void (*free_ud)(void *))
{
	if (r->observe_free)
		r->observe_free(r->observe_ud);
	r->observe = fn;
	r->observe_ud = ud;
	r->observe_free = free_ud;
}

void *http_xfer_observer(const struct http_xfer *x, http_data_fn fn)
{
	return x && x->req && fn && x->req->observe == fn ? x->req->observe_ud : NULL;
}

enum err http_req_header(struct http_req *r, const char *name, const char *value)
{
	size_t n = strlen(name) + strlen(value) + 3;
	char *line = malloc(n);
	if (!line)
		return ERR_NOMEM;
	snprintf(line, n, "%s: %s", name, value);
	struct curl_slist *l = curl_slist_append(r->headers, line);
	/* the line may hold a key: wipe our copy (curl keeps its own) */
	memset(line, 0, n);
	free(line);
	if (!l)
		return ERR_NOMEM;
	r->headers = l;
	return ERR_OK;
}

enum err http_req_body(struct http_req *r, const void *data, size_t len, const char *content_type)
{
	char *b = dupn(data, len);
	if (!b)
		return ERR_NOMEM;
	if (content_type) {
		enum err e = http_req_header(r, "Content-Type", content_type);
		if (e) {
			free(b);
			return e;
		}
	}
	free(r->body);
	r->body = b;
	r->body_len = len;
	r->has_body = true;
	r->n_parts = 0; /* a form written before is replaced */
	free(r->form.p);
	r->form = (struct sbuf){0};
	return ERR_OK;
}

/* form_add: len bytes of s after the form's parts. */
static bool form_add(struct http_req *r, const void *s, size_t len)
{
	return sbuf_add(&r->form, s, len);
}

static bool form_str(struct http_req *r, const char *s)
{
	return form_add(r, s, strlen(s));
}

/* form_quoted: s as a quoted header parameter, '"', CR and LF escaped as libcurl and
 * HTML forms do (%22, %0D, %0A). */
static bool form_quoted(struct http_req *r, const char *s)
{
	bool ok = form_str(r, "\"");
	for (; ok && *s; s++)
		ok = *s == '"' ? form_str(r, "%22") : *s == '\r' ? form_str(r, "%0D")
		     : *s == '\n' ? form_str(r, "%0A") : form_add(r, s, 1);
	return ok && form_str(r, "\"");
}

/* The multipart body is written here, part by part, not by libcurl's MIME API: that one
 * copies every part again at each attempt, and its first use in a process seeds
 * libcurl's random source for the boundary, which cost 1.3 ms on the loop at the first
 * STT request of a live call (docs/latency.md). The boundary is random, as libcurl's. */
enum err http_req_part(struct http_req *r, const char *name, const void *data, size_t len,
		       const char *filename, const char *content_type)
{
	const char *type = content_type ? content_type : "application/octet-stream";
	size_t at = r->form.n;

	if (r->has_body)
		return ERR_INVALID; /* a body of its own, or a form already sent */
	if (!r->n_parts) {
		unsigned char rnd[12] = {0};
		if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
			unsigned long long t = (unsigned long long)(now_ms() * 1e3) ^ (uintptr_t)r;
			memcpy(rnd, &t, sizeof t);
		}
		char *b = r->boundary + snprintf(r->boundary, sizeof r->boundary, "formdesk-");
		for (size_t i = 0; i < sizeof rnd; i++, b += 2)
			snprintf(b, 3, "%02x", rnd[i]);
	}
	if (!form_str(r, "--") || !form_str(r, r->boundary) ||
	    !form_str(r, "\r\nContent-Disposition: form-data; name=") || !form_quoted(r, name) ||
	    (filename && (!form_str(r, "; filename=") || !form_quoted(r, filename))) ||
	    !form_str(r, "\r\n") ||
	    ((content_type || filename) &&
	     (!form_str(r, "Content-Type: ") || !form_str(r, type) || !form_str(r, "\r\n"))) ||
	    !form_str(r, "\r\n") || !form_add(r, data, len) || !form_str(r, "\r\n")) {
		r->form.n = at; /* the part is not added */
		if (r->form.p)
			r->form.p[at] = '\0';
		return ERR_NOMEM;
	}
	r->n_parts++;
	return ERR_OK;
}

/* form_close: the form's last boundary and its Content-Type, once, before it is first
 * sent. Errors: ERR_NOMEM. */
static enum err form_close(struct http_req *r)
{
	char type[100];

	if (!r->n_parts || r->has_body)
		return ERR_OK;
	snprintf(type, sizeof type, "multipart/form-data; boundary=%s", r->boundary);
	if (!form_str(r, "--") || !form_str(r, r->boundary) || !form_str(r, "--\r\n") ||
	    http_req_header(r, "Content-Type", type) != ERR_OK)
		return ERR_NOMEM;
	free(r->body);
	r->body = r->form.p;
	r->body_len = r->form.n;
	r->form = (struct sbuf){0};
	r->has_body = true;
	return ERR_OK;
}

void http_req_limits(struct http_req *r, long timeout_ms, int retries, long backoff_ms)
{
	if (timeout_ms > 0)
		r->timeout_ms = timeout_ms;
	r->retries = retries > 0 ? retries : 0;
	if (backoff_ms > 0)
		r->backoff_ms = backoff_ms;
}

void http_result_free(struct http_result *res)
{
	if (!res)
		return;
	free(res->body);
	if (res->observer_free)
		res->observer_free(res->observer);
	free(res);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct http_xfer *x = ud;
	size_t n = size * nmemb;
	if (x->body.n + n + 1 > HTTP_MAX_BODY) {
		x->too_big = true;
		return 0; /* aborts the transfer */
	}
	if (!sbuf_add(&x->body, data, n))
		return 0;
	if (x->req->observe && n) {
		long status = 0;
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
		if (status >= 200 && status < 300)
			x->req->observe(x->req->observe_ud, data, n, x->attempts, now_ms() - x->t0);
	}
	return n;
}

/* on_header: stamp the first byte of the final response. libcurl's own start-transfer
 * time counts an interim "HTTP/1.1 100 Continue" (sent at once for an upload), so a
 * server that answered after 1 s was measured at 1 ms. */
static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	struct http_xfer *x = ud;
	size_t n = size * nmemb;
	if (!x->first_byte && n > 9 && memcmp(data, "HTTP/", 5) == 0) {
		const char *sp = memchr(data, ' ', n);
		if (sp && (size_t)(sp - data) + 1 < n && sp[1] != '1')
			x->first_byte = now_ms();
	}
	return n;
}

static void drop_easy(struct http_xfer *x)
{
	if (x->easy) {
		curl_multi_remove_handle(x->c->multi, x->easy);
		curl_easy_cleanup(x->easy);
		x->easy = NULL;
	}
}

/* One attempt: a fresh easy handle from the request description. */
static enum err start_attempt(struct http_xfer *x)
{
	struct http_req *r = x->req;
	CURL *e = curl_easy_init();
	if (!e)
		return ERR_NOMEM;
	x->easy = e;
	sbuf_clear(&x->body);
	x->too_big = false;
	x->first_byte = 0;
	x->errbuf[0] = '\0';
	curl_easy_setopt(e, CURLOPT_URL, r->url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	long timeout = r->timeout_ms;
	x->cut = false;
	if (x->c->deadline > 0 && x->c->deadline - now_ms() < (double)timeout) {
		double left = x->c->deadline - now_ms();
		timeout = left > 1 ? (long)left : 1; /* at once: curl ends it as timed out */
		x->cut = true;
	}
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout < 10000 ? timeout : 10000L);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "formdesk/0.1");
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	/* names resolved once stay in the multi handle's cache for 10 minutes (curl's
	 * default is 1): a turn's requests seldom resolve at all */
	curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, 600L);
	/* No "Expect: 100-continue" before a body: a server that does not answer it costs
	 * a whole second's wait (libcurl's default) on every upload, the STT audio first. */
	if (form_close(r) != ERR_OK)
		return ERR_NOMEM;
	if (r->has_body && !r->no_expect) {
		struct curl_slist *l = curl_slist_append(r->headers, "Expect:");
		if (!l)
			return ERR_NOMEM;
		r->headers = l;
		r->no_expect = true;
	}
	if (r->headers)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
	if (r->has_body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
	}
	if (strcmp(r->method, "GET") == 0)
		curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	else if (strcmp(r->method, "POST") != 0)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
	else if (!r->has_body) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, 0L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
	}
	x->attempt_t0 = now_ms();
	x->attempts++;
	x->state = XFER_RUNNING;
	if (curl_multi_add_handle(x->c->multi, e) != CURLM_OK)
		return ERR_BACKEND;
	return ERR_OK;
}

static void unlink_xfer(struct http_xfer *x)
{
	struct http_client *c = x->c;
	if (x->prev)
		x->prev->next = x->next;
	else
		c->head = x->next;
	if (x->next)
		x->next->prev = x->prev;
	x->prev = x->next = NULL;
	c->n--;
}

static void free_xfer(struct http_xfer *x)
{
	drop_easy(x);
	http_req_free(x->req);
	http_req_free(x->then);
	http_result_free(x->res);
	free(x->body.p);
	free(x);
}

enum err http_client_new(struct http_client **out)
{
	static bool global_done;
	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return ERR_BACKEND;
		global_done = true;
	}
	struct http_client *c = calloc(1, sizeof(*c));
	if (!c)
		return ERR_NOMEM;
	c->multi = curl_multi_init();
	if (!c->multi) {
		free(c);
		return ERR_BACKEND;
	}
	*out = c;
	return ERR_OK;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	http_cancel_all(c);
	curl_multi_cleanup(c->multi);
	free(c);
}

static enum err move_on(struct http_client *c);

enum err http_start(struct http_client *c, struct http_req *req, http_done_fn done, void *ud,
		    struct http_xfer **xfer)
{
	struct http_xfer *x = calloc(1, sizeof(*x));
	if (!x) {
		http_req_free(req);
		return ERR_NOMEM;
	}
	x->c = c;
	x->req = req;
	if (req->first) { /* it waits for another: that one goes first */
		x->then = req;
		x->req = req->first;
		req->first = NULL;
	}
	x->done = done;
	x->ud = ud;
	x->t0 = now_ms();
	x->next = c->head;
	if (c->head)
		c->head->prev = x;
	c->head = x;
	c->n++;
	enum err e = start_attempt(x);
	if (e) {
		unlink_xfer(x);
		free_xfer(x);
		return e;
	}
	/* on its way now (connected, its first bytes sent), not at the owner's next
	 * http_poll: a live turn's STT request went out only after the loop had drained the
	 * rest of the audio and come round (up to 2.8 ms, docs/latency.md). What ends here is
	 * handed over by the next http_poll, without a wait. */
	move_on(c);
	if (xfer)
		*xfer = x;
	return ERR_OK;
}

void http_cancel(struct http_client *c, struct http_xfer *x)
{
	(void)c;
	if (!x)
		return;
	unlink_xfer(x);
	free_xfer(x);
}

void http_cancel_all(struct http_client *c)
{
	while (c->head)
		http_cancel(c, c->head);
}

int http_active(const struct http_client *c)
{
	return c->n;
}

static bool retryable(long status)
{
	return status == 429 || (status >= 500 && status <= 599);
}

/* chain: the request x->then waited for has ended with *res: let it complete x->then and
 * send that in its place. Output: true when it is on its way (*res freed, NULL); false
 * when the transfer ends with *res, which then says why (the first request's failure as fn
 * words it, or a start that failed). */
static bool chain(struct http_xfer *x, struct http_result **resp)
{
	struct http_result *res = *resp;
	struct http_req *r = x->then;
	char why[sizeof res->error] = "";
	enum err e = r->after ? r->after(r->after_ud, res, r, why, sizeof why) : ERR_OK;

	x->then = NULL;
	http_req_free(x->req);
	x->req = r;
	if (e == ERR_OK) {
		x->t0 = now_ms();
		x->attempts = 0;
		if (start_attempt(x) == ERR_OK) {
			http_result_free(res);
			*resp = NULL;
			return true;
		}
		drop_easy(x);
		snprintf(why, sizeof why, "could not start the request");
	}
	res->err = ERR_BACKEND;
	res->status = 0;
	res->body_len = 0;
	if (res->body)
		res->body[0] = '\0';
	snprintf(res->error, sizeof res->error, "%s", why[0] ? why : err_str(e));
	return false;
}

/* The attempt of x finished with code: retry it later, or complete it. */
static void attempt_done(struct http_xfer *x, CURLcode code)
{
	struct http_req *r = x->req;
	long status = 0;
	curl_off_t retry_after = 0, ttfb_us = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &retry_after);
	curl_easy_getinfo(x->easy, CURLINFO_STARTTRANSFER_TIME_T, &ttfb_us);
	long wait = r->backoff_ms;
	if (retry_after > 0)
		wait = retry_after > HTTP_MAX_WAIT_MS / 1000 ? HTTP_MAX_WAIT_MS : (long)retry_after * 1000L;
	/* no retry the client's deadline would cut: the answer in hand stands */
	if (code == CURLE_OK && retryable(status) && r->retries > 0 &&
	    !(x->c->deadline > 0 && now_ms() + (double)wait >= x->c->deadline)) {
		drop_easy(x);
		r->retries--;
		r->backoff_ms = r->backoff_ms * 2 > HTTP_MAX_WAIT_MS ? HTTP_MAX_WAIT_MS : r->backoff_ms * 2;
		x->due = now_ms() + (double)wait;
		x->state = XFER_WAITING;
		return;
	}

	struct http_result *res = calloc(1, sizeof(*res));
	double end = now_ms();
	if (res) {
		res->status = code == CURLE_OK ? status : 0;
		res->body = x->body.p ? x->body.p : dupn("", 0);
		res->body_len = x->body.p ? x->body.n : 0;
		x->body = (struct sbuf){0};
		res->total_ms = end - x->t0;
		res->attempts = x->attempts;
		res->ttfb_ms = x->first_byte > 0 ? x->first_byte - x->t0
						 : (x->attempt_t0 - x->t0) + (double)ttfb_us / 1e3;
		if (code != CURLE_OK) {
			res->err = ERR_BACKEND;
			res->status = status;
			if (x->too_big)
				snprintf(res->error, sizeof(res->error), "response larger than %u bytes",
					 HTTP_MAX_BODY);
			else if (code == CURLE_OPERATION_TIMEDOUT && x->cut)
				snprintf(res->error, sizeof(res->error), "%s", x->c->deadline_why);
			else if (code == CURLE_OPERATION_TIMEDOUT)
				snprintf(res->error, sizeof(res->error), "timed out after %ld ms",
					 r->timeout_ms);
			else
				snprintf(res->error, sizeof(res->error), "%.60s%s%.180s", curl_easy_strerror(code),
					 x->errbuf[0] ? ": " : "", x->errbuf);
		} else if (!res->body) {
			res->err = ERR_NOMEM;
		}
		/* a provider's words enter here: a key it quotes goes before anyone reads them */
		res->body_len = secret_scrub(res->body, res->body_len);
		secret_scrub_str(res->error);
		/* the observer's state goes with the result */
		res->observer = r->observe_ud;
		res->observer_free = r->observe_free;
		r->observe_ud = NULL;
		r->observe_free = NULL;
		r->observe = NULL;
	}
	drop_easy(x);
	if (x->then && res && chain(x, &res))
		return;
	x->res = res;
	x->state = XFER_COMPLETED;
}

static enum err start_due(struct http_client *c)
{
	double t = now_ms();
	for (struct http_xfer *x = c->head; x; x = x->next) {
		if (x->state != XFER_WAITING || x->due > t)
			continue;
		if (start_attempt(x) != ERR_OK) {
			drop_easy(x);
			x->res = calloc(1, sizeof(*x->res));
			if (x->res) {
				x->res->err = ERR_BACKEND;
				snprintf(x->res->error, sizeof(x->res->error), "could not start a retry");
				x->res->body = dupn("", 0);
			}
			x->state = XFER_COMPLETED;
		}
	}
	return ERR_OK;
}

/* Deliver completed transfers one at a time: a callback may start or cancel others. */
static void deliver(struct http_client *c)
{
	for (;;) {
		struct http_xfer *x = c->head;
		while (x && x->state != XFER_COMPLETED)
			x = x->next;
		if (!x)
			return;
		unlink_xfer(x);
		struct http_result *res = x->res;
		x->res = NULL;
		http_done_fn done = x->done;
		void *ud = x->ud;
		free_xfer(x);
		if (!res)
			continue; /* out of memory: nothing to hand over */
		done(ud, res);
	}
}

void http_client_deadline(struct http_client *c, long in_ms, const char *why)
{
	c->deadline = in_ms > 0 ? now_ms() + (double)in_ms : 0;
	snprintf(c->deadline_why, sizeof(c->deadline_why), "%s", why ? why : "deadline passed");
}

/* end_overdue: every transfer of c the client's deadline has passed for ends now (as a
 * timed-out attempt whose timeout the deadline cut). */
static void end_overdue(struct http_client *c)
{
	if (!(c->deadline > 0) || now_ms() < c->deadline)
		return;
	for (struct http_xfer *x = c->head; x; x = x->next)
		if (x->state != XFER_COMPLETED) {
			x->cut = true;
			attempt_done(x, CURLE_OPERATION_TIMEDOUT);
		}
}

/* move_on: libcurl moves every transfer of c on without waiting; the attempts that ended
 * are taken (attempt_done: completed, or a retry or the chained request is due), to be
 * handed over by deliver. Errors: ERR_BACKEND (libcurl failed). */
static enum err move_on(struct http_client *c)
{
	int running = 0, left;
	CURLMsg *m;

	if (curl_multi_perform(c->multi, &running) != CURLM_OK)
		return ERR_BACKEND;
	while ((m = curl_multi_info_read(c->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		struct http_xfer *x = NULL;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (x)
			attempt_done(x, m->data.result);
	}
	return ERR_OK;
}

enum err http_poll(struct http_client *c, int timeout_ms, struct curl_waitfd *extra,
		   unsigned n_extra)
{
	end_overdue(c);
	start_due(c);
	double t = now_ms();
	int wait = timeout_ms < 0 ? 0 : timeout_ms;
	for (struct http_xfer *x = c->head; x; x = x->next) {
		if (x->state == XFER_COMPLETED)
			wait = 0;
		else if (x->state == XFER_WAITING) {
			double left = x->due - t;
			if (left < wait)
				wait = left > 0 ? (int)left + 1 : 0;
		}
		if (x->state != XFER_COMPLETED && c->deadline > 0 && c->deadline - t < wait)
			wait = c->deadline > t ? (int)(c->deadline - t) + 1 : 0;
	}
	if (curl_multi_poll(c->multi, extra, n_extra, wait, NULL) != CURLM_OK ||
	    move_on(c) != ERR_OK)
		return ERR_BACKEND;
	end_overdue(c);
	start_due(c);
	deliver(c);
	return ERR_OK;
}

/* lower: *t lowered to ms (a negative *t is no limit yet). */
static void lower(int *t, long ms)
{
	if (ms < 0)
		return;
	if (*t < 0 || ms < *t)
		*t = (int)ms;
}

unsigned http_client_waitfds(struct http_client *c, struct curl_waitfd *fds, unsigned max,
			     int *timeout_ms)
{
	fd_set r, w, x;
	int maxfd = -1;
	unsigned n = 0;
	long t = -1;
	if (!c->n)
		return 0;
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_ZERO(&x);
	if (curl_multi_fdset(c->multi, &r, &w, &x, &maxfd) != CURLM_OK)
		maxfd = -1;
	for (int fd = 0; fd <= maxfd && n < max; fd++) {
		short ev = (short)((FD_ISSET(fd, &r) ? CURL_WAIT_POLLIN : 0) |
				   (FD_ISSET(fd, &w) ? CURL_WAIT_POLLOUT : 0) |
				   (FD_ISSET(fd, &x) ? CURL_WAIT_POLLPRI : 0));
		if (ev)
			fds[n++] = (struct curl_waitfd){.fd = fd, .events = ev, .revents = 0};
	}
	if (curl_multi_timeout(c->multi, &t) != CURLM_OK || (maxfd < 0 && t < 0))
		t = 10; /* nothing to watch (a name being resolved): look again soon */
	lower(timeout_ms, t);
	double now = now_ms();
	for (struct http_xfer *xf = c->head; xf; xf = xf->next) {
		if (xf->state == XFER_COMPLETED)
			lower(timeout_ms, 0);
		else if (xf->state == XFER_WAITING)
			lower(timeout_ms, xf->due > now ? (long)(xf->due - now) + 1 : 0);
	}
	if (c->deadline > 0)
		lower(timeout_ms, c->deadline > now ? (long)(c->deadline - now) + 1 : 0);
	return n;
}

bool http_async_dns(void)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	return v && (v->features & CURL_VERSION_ASYNCHDNS);
}

static struct http_client *shared;

static void store_result(void *ud, struct http_result *res)
{
	*(struct http_result **)ud = res;
}

enum err http_perform(struct http_req *req, struct http_result **out)
{
	enum err e;
	if (!shared && (e = http_client_new(&shared)) != ERR_OK) {
		http_req_free(req);
		return e;
	}
	struct http_result *res = NULL;
	struct http_xfer *x = NULL;
	e = http_start(shared, req, store_result, &res, &x);
	if (e)
		return e;
	while (!res) {
		e = http_poll(shared, 1000, NULL, 0);
		if (e) {
			if (!res)
				http_cancel(shared, x);
			return e;
		}
	}
	*out = res;
	return ERR_OK;
}

enum err http_perform_deadline(long in_ms, const char *why)
{
	enum err e;
	if (!shared && (e = http_client_new(&shared)) != ERR_OK)
		return e;
	http_client_deadline(shared, in_ms, why);
	return ERR_OK;
}

void http_shared_free(void)
{
	http_client_free(shared);
	shared = NULL;
}
