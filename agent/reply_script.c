/* reply_script: the offline REPLY backend. It says the rule layer's decision in the
 * form's own words (formbharo-docs question-types.mdx `script`, `skip_message`;
 * retries.mdx `retry_messages`, blank or missing -> the script again; scripts.intro /
 * outro / outro_incomplete). Sentences are joined by one space. */
#include "reply_script.h"

#include <stdlib.h>
#include <string.h>

/* A growing string; ok false once memory ran out. */
struct buf {
	char *s;
	size_t n, cap;
	bool ok;
};

static void put(struct buf *b, const char *s, size_t len)
{
	if (!b->ok)
		return;
	if (b->n + len + 1 > b->cap) {
		size_t cap = (b->n + len + 1) * 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->ok = false;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, len);
	b->n += len;
	b->s[b->n] = 0;
}

static bool blank(const char *s)
{
	return !s || strspn(s, " \t\r\n") == strlen(s);
}

/* Append a sentence, separated from what came before by a space. {error} is replaced by
 * error (or removed when there is none). */
static void say(struct buf *b, const char *s, const char *error)
{
	if (blank(s))
		return;
	s += strspn(s, " \t\r\n");
	size_t len = strlen(s);
	while (len && strchr(" \t\r\n", s[len - 1]))
		len--;
	if (b->n)
		put(b, " ", 1);
	const char *end = s + len;
	while (s < end) {
		const char *ph = strstr(s, "{error}");
		if (!ph || ph >= end) {
			put(b, s, (size_t)(end - s));
			break;
		}
		put(b, s, (size_t)(ph - s));
		if (error)
			put(b, error, strlen(error));
		s = ph + strlen("{error}");
	}
}

static const char *str_arg(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

enum err reply_script_reply(void *ctx, const struct reply_request *req, char **text)
{
	(void)ctx;
	const struct form *f = req->form;
	const cJSON *d = req->decision;
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(d, "tool_call");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(tc, "arguments");
	const char *name = str_arg(tc, "name");
	if (!f || !name || !cJSON_IsObject(args))
		return ERR_INVALID;
	struct buf b = {NULL, 0, 0, true};
	put(&b, "", 0);

	const cJSON *turn = cJSON_GetObjectItemCaseSensitive(d, "turn");
	if (cJSON_IsNumber(turn) && turn->valuedouble == 0)
		say(&b, f->intro, NULL);

	const cJSON *sk;
	cJSON_ArrayForEach(sk, cJSON_GetObjectItemCaseSensitive(d, "skipped")) {
		int q = cJSON_IsString(sk) ? form_find(f, sk->valuestring) : -1;
		if (q >= 0)
			say(&b, f->questions[q].skip_message, NULL);
	}

	if (strcmp(name, "ask_question") == 0) {
		int q = form_find(f, str_arg(args, "field"));
		if (q < 0) {
			free(b.s);
			return ERR_INVALID;
		}
		const struct form_question *qq = &f->questions[q];
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(args, "retry");
		int retry = cJSON_IsNumber(r) ? (int)r->valuedouble : 0;
		const char *line = qq->script && !blank(qq->script) ? qq->script : qq->label;
		if (retry > 0 && retry <= qq->n_retry_messages && !blank(qq->retry_messages[retry - 1]))
			line = qq->retry_messages[retry - 1];
		say(&b, line, str_arg(args, "error"));
	} else if (strcmp(name, "end_call") == 0) {
		const char *script = str_arg(args, "script");
		if (!script) {
			const char *st = str_arg(args, "status");
			script = st && strcmp(st, "complete") == 0 ? f->outro : f->outro_incomplete;
		}
		say(&b, script, NULL);
	} else {
		free(b.s);
		return ERR_INVALID;
	}
	if (!b.ok) {
		free(b.s);
		return ERR_NOMEM;
	}
	*text = b.s;
	return ERR_OK;
}

static enum err script_call(void *ctx, const void *req, void *out)
{
	return reply_script_reply(ctx, req, out);
}

const struct backend_ops reply_script_ops = {
	.stage = BACKEND_REPLY,
	.call = script_call,
};
