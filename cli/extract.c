/* extract: run an EXTRACT backend (the offline "rules" by default, or a language model
 * named by --extract PROVIDER[:MODEL]) and the rule layer's check on one caller
 * utterance, as if question NAME had just been asked, and print flow_check's JSON object.
 * For a network backend the object gains "usage": the request's provider, model, time to
 * first byte and total time (ms), attempts, tokens in and out, and cost in USD (-1 when no
 * price is configured); never a key. The request ends by the per-turn deadline
 * (--turn-deadline-ms, else the config file's "deadlines", else 90 s), as a call's turn does.
 * Exit status: 0 printed, 1 the backend failed (the reason on stderr), 2 bad usage,
 * unreadable form, history, config or word lists, unknown field or provider, missing key
 * (the reason on stderr, naming the environment variable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/file.h"
#include "compose.h"
#include "opts.h"
#include "agent/stages/backend.h"
#include "agent/stages/extract_rules.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/stages/http.h"
#include "agent/stages/provider.h"

/* The history file: a JSON array of {"role","content"} strings. NULL with a message on
 * stderr when it is not. */
static cJSON *load_history(const char *path)
{
	char *s = NULL;
	if (file_read(path, &s, NULL) != ERR_OK) {
		fprintf(stderr, "formdesk extract: --history %s: cannot read the file\n", path);
		return NULL;
	}
	const char *end = NULL;
	cJSON *h = cJSON_ParseWithOpts(s, &end, 1);
	if (!h) {
		int line = 1;
		for (const char *p = s; end && p < end; p++)
			line += *p == '\n';
		fprintf(stderr, "formdesk extract: --history %s: line %d: not valid JSON\n", path, line);
		free(s);
		return NULL;
	}
	free(s);
	if (!cJSON_IsArray(h)) {
		fprintf(stderr, "formdesk extract: --history %s: expected a JSON array of "
				"{\"role\",\"content\"} objects\n", path);
		cJSON_Delete(h);
		return NULL;
	}
	int i = 0;
	const cJSON *el;
	cJSON_ArrayForEach(el, h) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(el, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(el, "content");
		if (!cJSON_IsString(role) || !cJSON_IsString(content)) {
			fprintf(stderr, "formdesk extract: --history %s: element %d: needs string "
					"fields \"role\" and \"content\"\n", path, i);
			cJSON_Delete(h);
			return NULL;
		}
		i++;
	}
	return h;
}

int cmd_extract(int argc, char **argv)
{
	struct extract_opts o = {0};
	struct compose_opts co = {.extract = "rules"};
	const char *text = NULL;
	const char *field;

	enum opts_result pr = opts_parse(&cmd_extract_opts, argc, argv, &o, &co, &text, NULL);
	if (pr != OPTS_OK)
		return pr == OPTS_HELP ? 0 : 2;
	field = o.field;

	int rc = 2;
	struct compose *c = NULL;
	struct extraction *ex = NULL;
	cJSON *hist = NULL, *res = NULL;
	enum err e;
	if (compose_new("extract", &co, COMPOSE_FORM | COMPOSE_TODAY | COMPOSE_LEXICON |
						 COMPOSE_CONFIG | COMPOSE_BACKENDS, &c) != ERR_OK)
		goto out;
	const struct form *f = c->form;
	const char *form_path = c->form_path;
	const struct lexicon *lex = c->lex;
	struct ymd today = c->today;
	int asked = form_find(f, field);
	if (asked < 0) {
		fprintf(stderr, "formdesk extract: --field '%s': no such question in %s (questions:",
			field, form_path);
		for (int i = 0; i < f->n_questions; i++)
			fprintf(stderr, " %s", f->questions[i].name);
		fprintf(stderr, ")\n");
		goto out;
	}
	if (o.history && !(hist = load_history(o.history)))
		goto out;
	const struct backend be = c->extract;
	struct extract_request req = {
		.form = f, .lex = lex, .asked = asked, .transcript = text, .history = hist,
		.today = today,
	};
	struct backend_usage u;
	bool net = false;
	/* the engine's per-turn deadline (sessions/calls/engine.c arm_deadline), for this one turn */
	long turn_ms, call_ms;
	char why[160];
	provider_config_deadlines(&turn_ms, &call_ms);
	if (co.turn_deadline_ms)
		turn_ms = co.turn_deadline_ms;
	snprintf(why, sizeof why, "the turn's deadline of %ld ms passed", turn_ms);
	if ((e = http_perform_deadline(turn_ms, why)) != ERR_OK) {
		fprintf(stderr, "formdesk extract: %s\n", err_str(e));
		goto out;
	}
	e = backend_extract_fields(&be, &req, &ex);
	net = backend_last_usage(&be, &u);
	if (e != ERR_OK) {
		if (net && u.error[0]) /* it names the provider already */
			fprintf(stderr, "formdesk extract: %s\n", u.error);
		else
			fprintf(stderr, "formdesk extract: %s: %s\n", be.name, err_str(e));
		rc = e == ERR_NOMEM ? 2 : 1;
		goto out;
	}
	if ((e = flow_check(f, lex, today, asked, ex, &res)) != ERR_OK) {
		fprintf(stderr, "formdesk extract: %s\n", err_str(e));
		goto out;
	}
	if (net) {
		cJSON *uj = cJSON_AddObjectToObject(res, "usage");
		if (!uj || !cJSON_AddStringToObject(uj, "provider", u.provider) ||
		    !cJSON_AddStringToObject(uj, "model", u.model) ||
		    !cJSON_AddNumberToObject(uj, "ttfb_ms", u.ttfb_ms) ||
		    !cJSON_AddNumberToObject(uj, "total_ms", u.total_ms) ||
		    !cJSON_AddNumberToObject(uj, "attempts", u.attempts) ||
		    !cJSON_AddNumberToObject(uj, "tokens_in", (double)u.tokens_in) ||
		    !cJSON_AddNumberToObject(uj, "tokens_out", (double)u.tokens_out) ||
		    !cJSON_AddNumberToObject(uj, "cost_usd", u.cost_usd)) {
			fprintf(stderr, "formdesk extract: %s\n", err_str(ERR_NOMEM));
			goto out;
		}
		if (ex && ex->fault && ex->fault[0])
			fprintf(stderr, "formdesk extract: %s: fault: %s\n", be.name, ex->fault);
	}
	char *js = cJSON_PrintUnformatted(res);
	if (!js) {
		fprintf(stderr, "formdesk extract: %s\n", err_str(ERR_NOMEM));
		goto out;
	}
	printf("%s\n", js);
	free(js);
	rc = 0;
out:
	cJSON_Delete(res);
	cJSON_Delete(hist);
	extraction_free(ex);
	compose_free(c);
	return rc;
}
