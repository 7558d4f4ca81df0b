#include "mockserver.h"
#include "loopwait.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <microhttpd.h>

struct stored_reply {
	int status, delay_ms, piece_ms;
	char *content_type, *body, *headers;
	size_t body_len;
	size_t *cuts;
	int n_cuts;
	bool hold_last, cut_off;
};

struct mockserver {
	struct MHD_Daemon *d;
	char url[64];
	pthread_mutex_t lock;
	struct stored_reply *queue;
	int n_queue, head;
	struct stored_reply def;
	mock_handler handler;
	void *ud;
	bool record;
	volatile bool stopping;
	volatile bool released;
	struct mock_request **reqs;
	int n_reqs, count;
};

struct conn {
	char *body;
	size_t len, cap;
};

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *dupn(const char *p, size_t n)
{
	char *s = malloc(n + 1);
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* store_n: r kept in d, its body len bytes long. */
static void store_n(struct stored_reply *d, struct mock_reply r, size_t len)
{
	d->status = r.status ? r.status : 200;
	d->delay_ms = r.delay_ms;
	d->piece_ms = 0;
	d->content_type = dup0(r.content_type ? r.content_type : "application/json");
	d->body_len = r.body ? len : 0;
	d->body = dupn(r.body ? r.body : "", d->body_len);
	d->headers = dup0(r.headers);
	d->cuts = NULL;
	d->n_cuts = 0;
	d->hold_last = d->cut_off = false;
}

static void store(struct stored_reply *d, struct mock_reply r)
{
	store_n(d, r, r.body ? strlen(r.body) : 0);
}

static void unstore(struct stored_reply *d)
{
	free(d->cuts);
	d->cuts = NULL;
	free(d->content_type);
	free(d->body);
	free(d->headers);
}

static void free_request(struct mock_request *r)
{
	if (!r)
		return;
	free(r->method);
	free(r->path);
	for (int i = 0; i < r->n_headers; i++) {
		free(r->hname[i]);
		free(r->hvalue[i]);
	}
	free(r->hname);
	free(r->hvalue);
	for (int i = 0; i < r->n_args; i++) {
		free(r->aname[i]);
		free(r->avalue[i]);
	}
	free(r->aname);
	free(r->avalue);
	for (int i = 0; i < r->n_parts; i++) {
		free(r->parts[i].name);
		free(r->parts[i].filename);
		free(r->parts[i].type);
		free(r->parts[i].data);
	}
	free(r->parts);
	free(r->body);
	free(r);
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	struct mock_request *r = cls;
	(void)kind;
	r->hname = realloc(r->hname, (size_t)(r->n_headers + 1) * sizeof(char *));
	r->hvalue = realloc(r->hvalue, (size_t)(r->n_headers + 1) * sizeof(char *));
	char *n = strdup(k);
	for (char *c = n; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	r->hname[r->n_headers] = n;
	r->hvalue[r->n_headers] = strdup(v ? v : "");
	r->n_headers++;
	return MHD_YES;
}

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	struct mock_request *r = cls;
	(void)kind;
	r->aname = realloc(r->aname, (size_t)(r->n_args + 1) * sizeof(char *));
	r->avalue = realloc(r->avalue, (size_t)(r->n_args + 1) * sizeof(char *));
	r->aname[r->n_args] = strdup(k);
	r->avalue[r->n_args] = strdup(v ? v : "");
	r->n_args++;
	return MHD_YES;
}

static const char *memfind(const char *h, size_t hl, const char *n, size_t nl)
{
	if (nl == 0 || hl < nl)
		return NULL;
	for (size_t i = 0; i + nl <= hl; i++)
		if (h[i] == n[0] && memcmp(h + i, n, nl) == 0)
			return h + i;
	return NULL;
}

/* value of attr="..." in a header line, copied */
static char *attr(const char *line, size_t len, const char *name)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "%s=\"", name);
	const char *p = memfind(line, len, pat, strlen(pat));
	if (!p)
		return NULL;
	p += strlen(pat);
	const char *q = memchr(p, '"', (size_t)(line + len - p));
	return q ? dupn(p, (size_t)(q - p)) : NULL;
}

/* multipart/form-data (RFC 7578) */
static void parse_parts(struct mock_request *r)
{
	const char *ct = mock_header(r, "content-type");
	const char *b = ct ? strstr(ct, "boundary=") : NULL;
	if (!b)
		return;
	char delim[200];
	snprintf(delim, sizeof(delim), "--%s", b + 9);
	size_t dl = strlen(delim);
	const char *end = r->body + r->body_len;
	const char *p = memfind(r->body, r->body_len, delim, dl);
	while (p) {
		p += dl;
		if (end - p >= 2 && p[0] == '-' && p[1] == '-')
			break;
		p += 2; /* CRLF */
		const char *hend = memfind(p, (size_t)(end - p), "\r\n\r\n", 4);
		if (!hend)
			break;
		const char *data = hend + 4;
		const char *next = memfind(data, (size_t)(end - data), delim, dl);
		if (!next)
			break;
		struct mock_part part = {0};
		part.name = attr(p, (size_t)(hend - p), "name");
		part.filename = attr(p, (size_t)(hend - p), "filename");
		const char *t = memfind(p, (size_t)(hend - p), "Content-Type: ", 14);
		if (t) {
			const char *te = memfind(t, (size_t)(hend - t), "\r\n", 2);
			part.type = dupn(t + 14, (size_t)((te ? te : hend) - (t + 14)));
		}
		part.len = (size_t)(next - 2 - data); /* CRLF before the delimiter */
		part.data = dupn(data, part.len);
		r->parts = realloc(r->parts, (size_t)(r->n_parts + 1) * sizeof(*r->parts));
		r->parts[r->n_parts++] = part;
		p = next;
	}
}

/* wait_until: until loopwait_ms() reaches end, waking early when the server stops */
static void wait_until(struct mockserver *ms, double end)
{
	for (double left = end - loopwait_ms(); left > 0 && !ms->stopping; left = end - loopwait_ms()) {
		double step = left < 20 ? left : 20;
		struct timespec ts = {0, (long)(step * 1e6)};
		nanosleep(&ts, NULL);
	}
}

/* wait ms_total milliseconds by the clock, waking early when the server stops */
static void wait_ms(struct mockserver *ms, int ms_total)
{
	wait_until(ms, loopwait_ms() + ms_total);
}

/* A body handed over in pieces (struct mock_reply.cuts). */
struct pieces {
	struct mockserver *ms;
	char *body;
	size_t len, off;
	size_t *ends;
	int n, i, piece_ms;
	bool hold_last, cut_off;
};

static ssize_t read_piece(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pieces *pc = cls;
	(void)pos;
	if (pc->i >= pc->n)
		return pc->cut_off ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
	if (pc->i == pc->n - 1 && pc->hold_last && pc->off == (pc->i ? pc->ends[pc->i - 1] : 0))
		while (!pc->ms->released && !pc->ms->stopping) {
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
		}
	if (pc->i > 0 && pc->piece_ms > 0 && pc->off == pc->ends[pc->i - 1])
		wait_ms(pc->ms, pc->piece_ms);
	size_t k = pc->ends[pc->i] - pc->off;
	if (k > max)
		k = max;
	memcpy(buf, pc->body + pc->off, k);
	pc->off += k;
	if (pc->off == pc->ends[pc->i])
		pc->i++;
	return (ssize_t)k;
}

static void free_pieces(void *cls)
{
	struct pieces *pc = cls;
	free(pc->body);
	free(pc->ends);
	free(pc);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct mockserver *ms = cls;
	(void)version;
	struct conn *cn = *con_cls;
	if (!cn) {
		cn = calloc(1, sizeof(*cn));
		*con_cls = cn;
		return MHD_YES;
	}
	if (*upload_size) {
		if (cn->len + *upload_size + 1 > cn->cap) {
			cn->cap = (cn->len + *upload_size + 1) * 2;
			cn->body = realloc(cn->body, cn->cap);
		}
		memcpy(cn->body + cn->len, upload, *upload_size);
		cn->len += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	/* the whole request is in: a reply's delay counts from here, so the time the server
	 * takes to parse and record it is not added to the delay */
	double whole = loopwait_ms();
	struct mock_request *r = calloc(1, sizeof(*r));
	r->method = strdup(method);
	r->path = strdup(url);
	r->body = dupn(cn->body ? cn->body : "", cn->len);
	r->body_len = cn->len;
	r->received_ms = whole;
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, r);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, r);
	parse_parts(r);

	struct stored_reply rep = {0};
	struct mock_reply hr = {0};
	mock_handler h;
	void *ud;
	pthread_mutex_lock(&ms->lock);
	ms->count++;
	h = ms->handler;
	ud = ms->ud;
	if (!h) {
		const struct stored_reply *src = ms->head < ms->n_queue ? &ms->queue[ms->head++] : &ms->def;
		rep.status = src->status;
		rep.delay_ms = src->delay_ms;
		rep.piece_ms = src->piece_ms;
		rep.content_type = dup0(src->content_type);
		rep.body = dupn(src->body, src->body_len);
		rep.body_len = src->body_len;
		rep.headers = dup0(src->headers);
		if (src->n_cuts > 0 && (rep.cuts = malloc((size_t)src->n_cuts * sizeof(*rep.cuts)))) {
			memcpy(rep.cuts, src->cuts, (size_t)src->n_cuts * sizeof(*rep.cuts));
			rep.n_cuts = src->n_cuts;
		}
		rep.hold_last = src->hold_last;
		rep.cut_off = src->cut_off;
	}
	pthread_mutex_unlock(&ms->lock);
	if (h) {
		h(ud, r, &hr);
		store(&rep, hr);
	}
	pthread_mutex_lock(&ms->lock);
	if (ms->record) {
		ms->reqs = realloc(ms->reqs, (size_t)(ms->n_reqs + 1) * sizeof(*ms->reqs));
		ms->reqs[ms->n_reqs++] = r;
		r = NULL;
	}
	pthread_mutex_unlock(&ms->lock);
	free_request(r);

	if (rep.delay_ms > 0)
		wait_until(ms, whole + rep.delay_ms);
	struct MHD_Response *resp;
	if (rep.n_cuts > 0) {
		struct pieces *pc = calloc(1, sizeof(*pc));
		pc->ms = ms;
		pc->len = rep.body_len;
		pc->body = dupn(rep.body, pc->len);
		pc->ends = malloc((size_t)(rep.n_cuts + 1) * sizeof(*pc->ends));
		for (int i = 0; i < rep.n_cuts; i++)
			if (rep.cuts[i] > (pc->n ? pc->ends[pc->n - 1] : 0) && rep.cuts[i] < pc->len)
				pc->ends[pc->n++] = rep.cuts[i];
		pc->ends[pc->n++] = pc->len;
		pc->hold_last = rep.hold_last;
		pc->cut_off = rep.cut_off;
		pc->piece_ms = rep.piece_ms;
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, read_piece, pc,
							 free_pieces);
	} else {
		resp = MHD_create_response_from_buffer(rep.body_len, rep.body, MHD_RESPMEM_MUST_COPY);
	}
	MHD_add_response_header(resp, "Content-Type", rep.content_type);
	if (rep.headers) {
		char *hs = strdup(rep.headers), *save = NULL;
		for (char *line = strtok_r(hs, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *colon = strchr(line, ':');
			if (!colon)
				continue;
			*colon = '\0';
			const char *v = colon + 1;
			while (*v == ' ')
				v++;
			MHD_add_response_header(resp, line, v);
		}
		free(hs);
	}
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)rep.status, resp);
	MHD_destroy_response(resp);
	unstore(&rep);
	return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
	(void)cls;
	(void)c;
	(void)t;
	struct conn *cn = *con_cls;
	if (cn) {
		free(cn->body);
		free(cn);
		*con_cls = NULL;
	}
}

struct mockserver *mockserver_start(void)
{
	struct mockserver *ms = calloc(1, sizeof(*ms));
	if (!ms)
		return NULL;
	pthread_mutex_init(&ms->lock, NULL);
	ms->record = true;
	store(&ms->def, (struct mock_reply){200, NULL, "{}", NULL, 0});
	struct sockaddr_in sa = {0};
	sa.sin_family = AF_INET;
	sa.sin_port = 0;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ms->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
				 MHD_USE_POLL,
				 0, NULL, NULL, handle, ms, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				 MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	if (!ms->d) {
		unstore(&ms->def);
		free(ms);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(ms->d, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(ms->url, sizeof(ms->url), "http://127.0.0.1:%u", info ? (unsigned)info->port : 0u);
	return ms;
}

void mockserver_push_pieces(struct mockserver *ms, struct mock_reply r, const size_t *cuts, int n,
			    bool hold_last, bool cut_off)
{
	mockserver_push_pieces_bytes(ms, r, r.body ? strlen(r.body) : 0, cuts, n, hold_last, cut_off);
}

void mockserver_push_pieces_bytes(struct mockserver *ms, struct mock_reply r, size_t len,
				  const size_t *cuts, int n, bool hold_last, bool cut_off)
{
	pthread_mutex_lock(&ms->lock);
	ms->queue = realloc(ms->queue, (size_t)(ms->n_queue + 1) * sizeof(*ms->queue));
	struct stored_reply *d = &ms->queue[ms->n_queue++];
	store_n(d, r, len);
	if (n > 0 && (d->cuts = malloc((size_t)n * sizeof(*d->cuts)))) {
		memcpy(d->cuts, cuts, (size_t)n * sizeof(*d->cuts));
		d->n_cuts = n;
	}
	d->hold_last = hold_last;
	d->cut_off = cut_off;
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_push_paced(struct mockserver *ms, struct mock_reply r, const size_t *cuts, int n,
			   int piece_ms, bool cut_off)
{
	mockserver_push_pieces(ms, r, cuts, n, false, cut_off);
	pthread_mutex_lock(&ms->lock);
	ms->queue[ms->n_queue - 1].piece_ms = piece_ms;
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_release(struct mockserver *ms)
{
	ms->released = true;
}

void mockserver_clear(struct mockserver *ms)
{
	pthread_mutex_lock(&ms->lock);
	ms->released = false;
	for (int i = 0; i < ms->n_reqs; i++)
		free_request(ms->reqs[i]);
	free(ms->reqs);
	ms->reqs = NULL;
	ms->n_reqs = 0;
	for (int i = 0; i < ms->n_queue; i++)
		unstore(&ms->queue[i]);
	free(ms->queue);
	ms->queue = NULL;
	ms->n_queue = ms->head = 0;
	ms->count = 0;
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_answer(struct mockserver *ms, const char *body)
{
	mockserver_clear(ms);
	mockserver_push(ms, (struct mock_reply){200, NULL, body, NULL, 0});
}

void mockserver_stop(struct mockserver *ms)
{
	if (!ms)
		return;
	ms->stopping = true;
	MHD_stop_daemon(ms->d);
	mockserver_clear(ms);
	unstore(&ms->def);
	pthread_mutex_destroy(&ms->lock);
	free(ms);
}

const char *mockserver_url(const struct mockserver *ms)
{
	return ms->url;
}

void mockserver_push(struct mockserver *ms, struct mock_reply r)
{
	pthread_mutex_lock(&ms->lock);
	ms->queue = realloc(ms->queue, (size_t)(ms->n_queue + 1) * sizeof(*ms->queue));
	store(&ms->queue[ms->n_queue++], r);
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_push_bytes(struct mockserver *ms, struct mock_reply r, size_t len)
{
	pthread_mutex_lock(&ms->lock);
	ms->queue = realloc(ms->queue, (size_t)(ms->n_queue + 1) * sizeof(*ms->queue));
	store_n(&ms->queue[ms->n_queue++], r, len);
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_set_default(struct mockserver *ms, struct mock_reply r)
{
	pthread_mutex_lock(&ms->lock);
	unstore(&ms->def);
	store(&ms->def, r);
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_set_handler(struct mockserver *ms, mock_handler h, void *ud)
{
	pthread_mutex_lock(&ms->lock);
	ms->handler = h;
	ms->ud = ud;
	pthread_mutex_unlock(&ms->lock);
}

void mockserver_record(struct mockserver *ms, bool on)
{
	pthread_mutex_lock(&ms->lock);
	ms->record = on;
	pthread_mutex_unlock(&ms->lock);
}

int mockserver_count(struct mockserver *ms)
{
	pthread_mutex_lock(&ms->lock);
	int n = ms->count;
	pthread_mutex_unlock(&ms->lock);
	return n;
}

const struct mock_request *mockserver_request(struct mockserver *ms, int i)
{
	pthread_mutex_lock(&ms->lock);
	const struct mock_request *r = i >= 0 && i < ms->n_reqs ? ms->reqs[i] : NULL;
	pthread_mutex_unlock(&ms->lock);
	return r;
}

const char *mock_header(const struct mock_request *r, const char *name)
{
	for (int i = 0; i < r->n_headers; i++)
		if (strcasecmp(r->hname[i], name) == 0)
			return r->hvalue[i];
	return NULL;
}

const char *mock_arg(const struct mock_request *r, const char *name)
{
	for (int i = 0; i < r->n_args; i++)
		if (strcmp(r->aname[i], name) == 0)
			return r->avalue[i];
	return NULL;
}

const struct mock_part *mock_part_named(const struct mock_request *r, const char *name)
{
	for (int i = 0; i < r->n_parts; i++)
		if (r->parts[i].name && strcmp(r->parts[i].name, name) == 0)
			return &r->parts[i];
	return NULL;
}

bool mock_body_has(const struct mock_request *r, const char *s)
{
	return memfind(r->body, r->body_len, s, strlen(s)) != NULL;
}
