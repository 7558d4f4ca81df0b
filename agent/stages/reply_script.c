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

/* phrase: the words for decision d (see reply_script_reply) into b. Errors: ERR_INVALID
 * (an ask_question for no question of f). */
static enum err phrase(struct buf *b, const struct form *f, const struct decision *d)
{
	if (d->turn == 0)
		say(b, f->intro, NULL);
	for (int i = 0; i < d->n_skipped; i++) {
		int q = form_find(f, d->skipped[i]);
		if (q >= 0)
			say(b, f->questions[q].skip_message, NULL);
	}
	if (d->tool == DECISION_ASK_QUESTION) {
		int q = form_find(f, d->ask.field);
		if (q < 0)
			return ERR_INVALID;
		const struct form_question *qq = &f->questions[q];
		int retry = d->ask.retry;
		const char *line = qq->script && !blank(qq->script) ? qq->script : qq->label;
		if (retry > 0 && d->silence && !d->ask.error) {
			/* nothing was said: nothing was wrong; a retry message may say what was */
			say(b, !blank(f->reask) ? f->reask : REPLY_SCRIPT_REASK, NULL);
		} else if (retry > 0 && retry <= qq->n_retry_messages &&
			   !blank(qq->retry_messages[retry - 1])) {
			line = qq->retry_messages[retry - 1];
		}
		say(b, line, d->ask.error);
	} else {
		const char *script = d->end.script;
		if (!script)
			script = d->end.status == CALL_COMPLETE ? f->outro : f->outro_incomplete;
		say(b, script, NULL);
	}
	return ERR_OK;
}

enum err reply_script_reply(void *ctx, const struct reply_request *req, char **text)
{
	(void)ctx;
	struct decision *d = NULL;
	/* The record is read by its one decoder (unless the struct came with it); one
	 * without a tool call reads as a question for no field, which is refused below. */
	if (!req->form || (!req->dec && decision_from_json(req->decision, &d) != ERR_OK))
		return ERR_INVALID;
	struct buf b = {NULL, 0, 0, true};
	put(&b, "", 0);
	enum err e = phrase(&b, req->form, req->dec ? req->dec : d);
	decision_free(d);
	if (e == ERR_OK && !b.ok)
		e = ERR_NOMEM;
	if (e != ERR_OK) {
		free(b.s);
		return e;
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
