/* llm_stream: streamed answers and the early acknowledgement (llm_stream.h). */
#include "llm_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "base/sbuf.h"
#include "base/utf8.h"
#include "secret.h"

/* The scanner of one growing JSON text: where it stopped and what it was inside. */
struct scan {
	size_t pos;        /* next byte to look at */
	int depth;         /* of objects and arrays; 0 before the top-level object */
	bool in_str, esc;
	size_t str_start;  /* offset of the opening quote of the current string */
	bool want_key;     /* at depth 1, the next string is a member name */
	bool key_ack;      /* the member being read at depth 1 is "ack" */
	bool done;         /* the ack was found, or the top-level object ended */
};

struct llm_stream {
	enum provider_protocol proto;
	struct sbuf line;     /* the incomplete line */
	bool last_cr;         /* the last byte was CR (an LF right after it ends nothing) */
	struct sbuf data;     /* the data lines of the event being read */
	char event[40];       /* its event type */
	struct sbuf text, tool, refusal;
	char *tool_name, *finish;
	long tokens_in, tokens_out;
	int tool_block;       /* Anthropic: index of the first tool_use block, -1 none */
	bool ended, any, failed;
	char error[200];
	struct scan scan_text, scan_tool;
	char *ack;
	double ack_ms;
	bool ack_taken;
	int attempt;          /* the HTTP attempt being read, 0 before the first byte */
	size_t said;          /* bytes of text handed out as sentences */
};

enum err llm_stream_new(enum provider_protocol proto, struct llm_stream **out)
{
	if (proto != PROTO_OPENAI_CHAT && proto != PROTO_ANTHROPIC)
		return ERR_UNSUPPORTED;
	struct llm_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return ERR_NOMEM;
	s->proto = proto;
	llm_stream_reset(s);
	*out = s;
	return ERR_OK;
}

void llm_stream_free(void *v)
{
	struct llm_stream *s = v;
	if (!s)
		return;
	free(s->line.p);
	free(s->data.p);
	free(s->text.p);
	free(s->tool.p);
	free(s->refusal.p);
	free(s->tool_name);
	free(s->finish);
	free(s->ack);
	free(s);
}

void llm_stream_reset(struct llm_stream *s)
{
	sbuf_clear(&s->line);
	sbuf_clear(&s->data);
	sbuf_clear(&s->text);
	sbuf_clear(&s->tool);
	sbuf_clear(&s->refusal);
	s->last_cr = false;
	s->event[0] = '\0';
	free(s->tool_name);
	free(s->finish);
	free(s->ack);
	s->tool_name = s->finish = s->ack = NULL;
	s->tokens_in = s->tokens_out = -1;
	s->tool_block = -1;
	s->ended = s->any = s->failed = false;
	s->error[0] = '\0';
	s->scan_text = s->scan_tool = (struct scan){0};
	s->ack_ms = -1;
	s->said = 0;
}

/* scan: move sc over the new bytes of b; decode the ack when its string closes. */
static bool scan(struct llm_stream *s, struct scan *sc, const struct sbuf *b, double at_ms)
{
	size_t i;
	for (i = sc->pos; i < b->n && !sc->done; i++) {
		char c = b->p[i];
		if (sc->in_str) {
			if (sc->esc) {
				sc->esc = false;
			} else if (c == '\\') {
				sc->esc = true;
			} else if (c == '"') {
				sc->in_str = false;
				if (sc->depth != 1)
					continue;
				size_t len = i - sc->str_start + 1;
				if (sc->want_key) {
					sc->key_ack = len == 5 && memcmp(b->p + sc->str_start, "\"ack\"", 5) == 0;
					sc->want_key = false;
				} else if (sc->key_ack) {
					cJSON *v = cJSON_ParseWithLength(b->p + sc->str_start, len);
					sc->done = true;
					if (cJSON_IsString(v) && !s->ack) {
						s->ack = strdup(v->valuestring);
						s->ack_ms = at_ms;
						if (!s->ack) {
							cJSON_Delete(v);
							return false;
						}
					}
					cJSON_Delete(v);
				}
			}
			continue;
		}
		switch (c) {
		case '{':
		case '[':
			if (sc->depth > 0)
				sc->depth++;
			else if (c == '{') {
				sc->depth = 1;
				sc->want_key = true;
			}
			break;
		case '}':
		case ']':
			if (sc->depth > 0 && --sc->depth == 0)
				sc->done = true; /* the object ended without an ack */
			break;
		case '"':
			if (sc->depth > 0) {
				sc->in_str = true;
				sc->str_start = i;
			}
			break;
		case ',':
			if (sc->depth == 1) {
				sc->want_key = true;
				sc->key_ack = false;
			}
			break;
		default:
			break;
		}
	}
	sc->pos = i;
	return true;
}

static bool set_str(char **slot, const char *v)
{
	if (*slot)
		return true;
	*slot = strdup(v);
	return *slot != NULL;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static void provider_error(struct llm_stream *s, const cJSON *err)
{
	const cJSON *m = get(err, "message");
	snprintf(s->error, sizeof(s->error), "provider error: %.160s",
		 cJSON_IsString(m) ? m->valuestring : cJSON_IsString(err) ? err->valuestring : "unknown");
}

static bool openai_event(struct llm_stream *s, const cJSON *root)
{
	const cJSON *err = get(root, "error");
	if (err && !cJSON_IsNull(err)) {
		provider_error(s, err);
		return true;
	}
	const cJSON *usage = get(root, "usage");
	if (!cJSON_IsObject(usage)) /* Groq: the last chunk's x_groq.usage (groq-python,
				       src/groq/types/chat/chat_completion_chunk.py, XGroq) */
		usage = get(get(root, "x_groq"), "usage");
	const cJSON *pt = get(usage, "prompt_tokens"), *ct = get(usage, "completion_tokens");
	if (!llm_count(pt, "usage.prompt_tokens", &s->tokens_in, s->error, sizeof(s->error)) ||
	    !llm_count(ct, "usage.completion_tokens", &s->tokens_out, s->error, sizeof(s->error)))
		return true;
	const cJSON *choice = cJSON_GetArrayItem(get(root, "choices"), 0);
	if (choice || usage)
		s->any = true;
	const cJSON *delta = get(choice, "delta");
	const cJSON *content = get(delta, "content"), *refusal = get(delta, "refusal");
	const cJSON *call = cJSON_GetArrayItem(get(delta, "tool_calls"), 0);
	const cJSON *fn = get(call, "function");
	const cJSON *name = get(fn, "name"), *args = get(fn, "arguments");
	const cJSON *fr = get(choice, "finish_reason");
	if (cJSON_IsString(content) && !sbuf_add(&s->text, content->valuestring, strlen(content->valuestring)))
		return false;
	if (cJSON_IsString(refusal) &&
	    !sbuf_add(&s->refusal, refusal->valuestring, strlen(refusal->valuestring)))
		return false;
	/* only the first tool call's pieces (index 0) */
	const cJSON *idx = get(call, "index");
	bool first = !cJSON_IsNumber(idx) || idx->valuedouble == 0;
	if (first && cJSON_IsString(name) && name->valuestring[0] && !set_str(&s->tool_name, name->valuestring))
		return false;
	if (first && cJSON_IsString(args) && !sbuf_add(&s->tool, args->valuestring, strlen(args->valuestring)))
		return false;
	if (cJSON_IsString(fr) && !set_str(&s->finish, fr->valuestring))
		return false;
	return true;
}

static bool anthropic_event(struct llm_stream *s, const cJSON *root)
{
	const cJSON *type = get(root, "type");
	if (!cJSON_IsString(type))
		return true;
	const char *t = type->valuestring;
	s->any = true;
	if (strcmp(t, "error") == 0) {
		provider_error(s, get(root, "error"));
	} else if (strcmp(t, "message_start") == 0) {
		const cJSON *u = get(get(root, "message"), "usage");
		const cJSON *it = get(u, "input_tokens"), *ot = get(u, "output_tokens");
		if (!llm_count(it, "message.usage.input_tokens", &s->tokens_in, s->error, sizeof(s->error)) ||
		    !llm_count(ot, "message.usage.output_tokens", &s->tokens_out, s->error, sizeof(s->error)))
			return true;
	} else if (strcmp(t, "content_block_start") == 0) {
		const cJSON *b = get(root, "content_block"), *idx = get(root, "index");
		const cJSON *bt = get(b, "type"), *name = get(b, "name");
		if (cJSON_IsString(bt) && strcmp(bt->valuestring, "tool_use") == 0 && s->tool_block < 0) {
			s->tool_block = cJSON_IsNumber(idx) ? idx->valueint : 0;
			if (cJSON_IsString(name) && !set_str(&s->tool_name, name->valuestring))
				return false;
		}
	} else if (strcmp(t, "content_block_delta") == 0) {
		const cJSON *d = get(root, "delta"), *idx = get(root, "index");
		const cJSON *dt = get(d, "type");
		if (!cJSON_IsString(dt))
			return true;
		if (strcmp(dt->valuestring, "text_delta") == 0) {
			const cJSON *x = get(d, "text");
			if (cJSON_IsString(x) && !sbuf_add(&s->text, x->valuestring, strlen(x->valuestring)))
				return false;
		} else if (strcmp(dt->valuestring, "input_json_delta") == 0 &&
			   (!cJSON_IsNumber(idx) || idx->valueint == s->tool_block)) {
			const cJSON *x = get(d, "partial_json");
			if (cJSON_IsString(x) && !sbuf_add(&s->tool, x->valuestring, strlen(x->valuestring)))
				return false;
		}
	} else if (strcmp(t, "message_delta") == 0) {
		const cJSON *sr = get(get(root, "delta"), "stop_reason");
		const cJSON *ot = get(get(root, "usage"), "output_tokens");
		if (cJSON_IsString(sr) && !set_str(&s->finish, sr->valuestring))
			return false;
		if (!llm_count(ot, "usage.output_tokens", &s->tokens_out, s->error, sizeof(s->error)))
			return true;
	} else if (strcmp(t, "message_stop") == 0) {
		s->ended = true;
	}
	return true;
}

/* dispatch: the event read so far (data lines joined by LF). */
static bool dispatch(struct llm_stream *s, double at_ms)
{
	bool ok = true;
	if (s->data.n == 0)
		goto out;
	if (s->data.p[s->data.n - 1] == '\n')
		s->data.p[--s->data.n] = '\0';
	if (strcmp(s->data.p, "[DONE]") == 0) {
		s->ended = true;
		goto out;
	}
	cJSON *root = cJSON_ParseWithLength(s->data.p, s->data.n);
	if (cJSON_IsObject(root))
		ok = s->proto == PROTO_ANTHROPIC ? anthropic_event(s, root) : openai_event(s, root);
	cJSON_Delete(root);
	if (ok)
		ok = scan(s, &s->scan_text, &s->text, at_ms) && scan(s, &s->scan_tool, &s->tool, at_ms);
out:
	sbuf_clear(&s->data);
	s->event[0] = '\0';
	return ok;
}

/* line: one complete line (without its end). */
static bool line(struct llm_stream *s, const char *p, size_t n, double at_ms)
{
	if (n == 0)
		return dispatch(s, at_ms);
	if (p[0] == ':')
		return true; /* a comment (OpenRouter sends ": OPENROUTER PROCESSING") */
	const char *colon = memchr(p, ':', n);
	size_t fl = colon ? (size_t)(colon - p) : n;
	const char *v = colon ? colon + 1 : p + n;
	size_t vl = (size_t)(p + n - v);
	if (vl && *v == ' ') {
		v++;
		vl--;
	}
	if (fl == 4 && memcmp(p, "data", 4) == 0)
		return sbuf_add(&s->data, v, vl) && sbuf_add(&s->data, "\n", 1);
	if (fl == 5 && memcmp(p, "event", 5) == 0)
		snprintf(s->event, sizeof(s->event), "%.*s", (int)(vl < 39 ? vl : 39), v);
	return true;
}

enum err llm_stream_feed(struct llm_stream *s, const char *data, size_t len, double at_ms)
{
	if (s->failed)
		return ERR_NOMEM;
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		if (c == '\n' && s->last_cr) {
			s->last_cr = false;
			continue;
		}
		s->last_cr = c == '\r';
		if (c == '\n' || c == '\r') {
			if (!line(s, s->line.p ? s->line.p : "", s->line.n, at_ms))
				goto fail;
			sbuf_clear(&s->line);
			continue;
		}
		/* copy the run of ordinary bytes at once */
		size_t j = i;
		while (j < len && data[j] != '\n' && data[j] != '\r')
			j++;
		if (!sbuf_add(&s->line, data + i, j - i))
			goto fail;
		i = j - 1;
	}
	return ERR_OK;
fail:
	s->failed = true;
	return ERR_NOMEM;
}

void llm_stream_observe(void *ud, const char *data, size_t len, int attempt, double at_ms)
{
	struct llm_stream *s = ud;
	if (attempt != s->attempt) {
		if (s->attempt)
			llm_stream_reset(s); /* a retry: a new body */
		s->attempt = attempt;
	}
	llm_stream_feed(s, data, len, at_ms);
}

const char *llm_stream_ack(const struct llm_stream *s, double *at_ms)
{
	if (at_ms)
		*at_ms = s->ack ? s->ack_ms : -1;
	return s->ack;
}

bool llm_stream_take_ack(struct llm_stream *s, char **text)
{
	if (!s->ack || s->ack_taken || !s->ack[0])
		return false;
	char *t = strdup(s->ack);
	if (!t)
		return false;
	s->ack_taken = true;
	*text = t;
	return true;
}

/* ---- sentences ---- */

/* The words after which a "." ends no sentence (compared without case for Latin). */
static const char *const ABBREV[] = {
	"dr", "mr", "mrs", "ms", "smt", "shri", "sh", "st", "rs", "no", "nos", "vs", "etc",
	"e.g", "i.e", "govt", "hon", "pvt", "ltd", "डॉ", "श्री", "कु", "सु", "रु", "नं",
};

static bool space_at(const char *p, size_t i, size_t n)
{
	return i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n');
}

/* terminator: the length of the sentence end at p[i] ("।", "॥", "?", "!", "."), else 0. */
static size_t terminator(const char *p, size_t i, size_t n)
{
	if (p[i] == '?' || p[i] == '!' || p[i] == '.')
		return 1;
	if (i + 3 <= n && (unsigned char)p[i] == 0xE0 && (unsigned char)p[i + 1] == 0xA5 &&
	    ((unsigned char)p[i + 2] == 0xA4 || (unsigned char)p[i + 2] == 0xA5))
		return 3;
	return 0;
}

/* closer: the length of a closing quote or bracket at p[i] (" ' ) ] ” ’ »), else 0. */
static size_t closer(const char *p, size_t i, size_t n)
{
	if (p[i] == '"' || p[i] == '\'' || p[i] == ')' || p[i] == ']')
		return 1;
	if (i + 3 <= n && memcmp(p + i, "\xE2\x80", 2) == 0 &&
	    ((unsigned char)p[i + 2] == 0x9D || (unsigned char)p[i + 2] == 0x99))
		return 3;
	if (i + 2 <= n && (unsigned char)p[i] == 0xC2 && (unsigned char)p[i + 1] == 0xBB)
		return 2;
	return 0;
}

/* abbreviation: the word that ends at p[i] (the "." at i) is one of ABBREV. */
static bool abbreviation(const char *p, size_t from, size_t i)
{
	size_t a = i;
	while (a > from && !space_at(p, a - 1, i) && p[a - 1] != '(' && p[a - 1] != '"')
		a--;
	size_t len = i - a;
	if (len == 1 && ((p[a] | 0x20) >= 'a' && (p[a] | 0x20) <= 'z'))
		return true; /* an initial: "A. K. Sharma" */
	for (size_t k = 0; k < sizeof ABBREV / sizeof ABBREV[0]; k++)
		if (strlen(ABBREV[k]) == len && strncasecmp(p + a, ABBREV[k], len) == 0)
			return true;
	return false;
}

/* sentence_end: where the first complete sentence of p[from..n) ends (exclusive, its
 * closing marks included), 0 when none is complete yet. */
static size_t sentence_end(const char *p, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++) {
		if (p[i] == '\n')
			return i + 1;
		size_t k = terminator(p, i, n);
		if (!k || (p[i] == '.' && abbreviation(p, from, i)))
			continue;
		size_t j = i + k, m;
		while (j < n && ((m = terminator(p, j, n)) || (m = closer(p, j, n))))
			j += m;
		if (j >= n)
			return 0; /* what follows decides: wait for it */
		if (space_at(p, j, n))
			return j;
		i = j - 1; /* "3.5", "?x": no end here */
	}
	return 0;
}

/* one_line: s (n bytes) with whitespace runs as one space, ends trimmed (caller frees),
 * NULL when out of memory. */
static char *one_line(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	size_t k = 0;
	bool space = false;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (space_at(s, i, n)) {
			space = k > 0;
			continue;
		}
		if (space)
			o[k++] = ' ';
		space = false;
		o[k++] = s[i];
	}
	o[k] = '\0';
	return o;
}

bool llm_stream_take_sentence(struct llm_stream *s, char **text)
{
	if (s->tool_name || s->refusal.n || s->tool.n)
		return false; /* not a line to say (a tool call, a refusal) */
	for (;;) {
		size_t end = s->text.n > s->said ? sentence_end(s->text.p, s->said, s->text.n) : 0;
		if (!end)
			return false;
		char *t = one_line(s->text.p + s->said, end - s->said);
		if (!t)
			return false;
		s->said = end;
		if (t[0]) {
			*text = t;
			return true;
		}
		free(t);
	}
}

static char *take(struct sbuf *b)
{
	return b->n ? strdup(b->p) : NULL;
}

enum err llm_stream_result(struct llm_stream *s, struct llm_result **out, char *why, size_t n)
{
	/* a last line or event the body did not close */
	if (s->line.n) {
		if (!line(s, s->line.p, s->line.n, s->ack_ms))
			s->failed = true;
		sbuf_clear(&s->line);
	}
	if (!s->failed && !dispatch(s, s->ack_ms))
		s->failed = true;
	if (s->failed)
		return ERR_NOMEM;
	if (s->error[0]) {
		snprintf(why, n, "%s", s->error);
		return ERR_BACKEND;
	}
	if (!s->any) {
		snprintf(why, n, "the streamed answer holds no %s events",
			 s->proto == PROTO_ANTHROPIC ? "Messages" : "chat.completion.chunk");
		return ERR_PARSE;
	}
	struct llm_result *r = calloc(1, sizeof(*r));
	if (!r)
		return ERR_NOMEM;
	r->tokens_in = s->tokens_in;
	r->tokens_out = s->tokens_out;
	r->cut_short = !s->ended;
	bool bad = (s->text.n && !(r->text = take(&s->text))) ||
		   (s->refusal.n && !(r->refusal = take(&s->refusal))) ||
		   (s->tool_name && !(r->tool_name = strdup(s->tool_name))) ||
		   (s->finish && !(r->finish = strdup(s->finish)));
	if (!bad && s->tool_name && !(r->tool_args = strdup(s->tool.n ? s->tool.p : "{}")))
		bad = true;
	if (!bad && !r->refusal && r->finish &&
	    (strcmp(r->finish, "content_filter") == 0 || strcmp(r->finish, "refusal") == 0) &&
	    !(r->refusal = strdup(r->text ? r->text : "the model declined to answer")))
		bad = true;
	if (bad) {
		llm_result_free(r);
		return ERR_NOMEM;
	}
	*out = r;
	return ERR_OK;
}

bool llm_stream_is_sse(const char *body, size_t len)
{
	size_t i = 0;
	while (i < len && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r' || body[i] == '\n'))
		i++;
	if (i >= len || body[i] == '{')
		return false;
	for (const char *p = body + i; p && p < body + len;) {
		size_t left = (size_t)(body + len - p);
		if ((left >= 5 && memcmp(p, "data:", 5) == 0) || (left >= 6 && memcmp(p, "event:", 6) == 0))
			return true;
		const char *nl = memchr(p, '\n', left);
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

enum err llm_stream_parse(enum provider_protocol proto, const char *body, size_t len,
			  struct llm_result **out, char *why, size_t n)
{
	struct llm_stream *s = NULL;
	enum err e = llm_stream_new(proto, &s);
	if (e)
		return e;
	if ((e = llm_stream_feed(s, body, len, 0)) == ERR_OK)
		e = llm_stream_result(s, out, why, n);
	llm_stream_free(s);
	return e;
}

bool llm_stream_piece(const struct http_xfer *x, bool (*take_fn)(struct llm_stream *, char **),
		      char **text)
{
	struct llm_stream *s = http_xfer_observer(x, llm_stream_observe);
	if (!s || !take_fn(s, text))
		return false;
	secret_scrub_str(*text);
	if (utf8_bad(*text, strlen(*text), false)) {
		free(*text);
		*text = NULL;
		return false;
	}
	return true;
}
