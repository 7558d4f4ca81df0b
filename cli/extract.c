/* extract: run an EXTRACT backend (the offline "rules" by default, or a language model
 * named by --extract PROVIDER[:MODEL]) and the rule layer's check on one caller
 * utterance, as if question NAME had just been asked, and print flow_check's JSON object.
 * For a network backend the object gains "usage": the request's provider, model, time to
 * first byte and total time (ms), attempts, tokens in and out, and cost in USD (-1 when no
 * price is configured); never a key.
 * Exit status: 0 printed, 1 the backend failed (the reason on stderr), 2 bad usage,
 * unreadable form, history, config or word lists, unknown field or provider, missing key
 * (the reason on stderr, naming the environment variable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "agent/backend.h"
#include "agent/extract_rules.h"
#include "agent/flow.h"
#include "agent/form.h"
#include "agent/lexicon.h"
#include "agent/provider.h"

static void usage_to(FILE *f)
{
	fprintf(f, "usage: formdesk extract --form FILE --field NAME [--today YYYY-MM-DD] "
		   "[--history FILE] [--extract P[:M]] [--config FILE] TEXT\n"
		   "  --extract defaults to rules (offline); a model provider needs its key in "
		   "the environment\n"
		   "  --history: the conversation so far, a JSON array of "
		   "{\"role\":\"agent\"|\"user\",\"content\":\"...\"}\n");
}

static void usage(void)
{
	usage_to(stderr);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0, cap = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			char *v = realloc(s, cap);
			if (!v) {
				free(s);
				s = NULL;
				break;
			}
			s = v;
		}
		size_t r = fread(s + n, 1, 4096, f);
		n += r;
		if (r < 4096)
			break;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

/* The history file: a JSON array of {"role","content"} strings. NULL with a message on
 * stderr when it is not. */
static cJSON *load_history(const char *path)
{
	char *s = read_all(path);
	if (!s) {
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
	const char *form_path = NULL, *field = NULL, *today_s = NULL, *hist_path = NULL, *text = NULL;
	const char *spec = "rules", *config = NULL;
	for (int i = 1; i < argc; i++) {
		const char **slot = NULL;
		if (strcmp(argv[i], "--form") == 0)
			slot = &form_path;
		else if (strcmp(argv[i], "--field") == 0)
			slot = &field;
		else if (strcmp(argv[i], "--today") == 0)
			slot = &today_s;
		else if (strcmp(argv[i], "--history") == 0)
			slot = &hist_path;
		else if (strcmp(argv[i], "--extract") == 0)
			slot = &spec;
		else if (strcmp(argv[i], "--config") == 0)
			slot = &config;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage_to(stdout);
			return 0;
		}
		if (slot) {
			if (i + 1 >= argc) {
				fprintf(stderr, "formdesk extract: %s needs a value\n", argv[i]);
				usage();
				return 2;
			}
			*slot = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]) {
			fprintf(stderr, "formdesk extract: unknown option '%s'\n", argv[i]);
			usage();
			return 2;
		} else if (text) {
			fprintf(stderr, "formdesk extract: one TEXT only (quote the utterance); "
					"extra argument '%s'\n", argv[i]);
			usage();
			return 2;
		} else {
			text = argv[i];
		}
	}
	if (!form_path || !field || !text) {
		fprintf(stderr, "formdesk extract: %s is required\n",
			!form_path ? "--form" : !field ? "--field" : "TEXT");
		usage();
		return 2;
	}
	struct ymd today = ymd_today();
	if (today_s && !ymd_parse_iso(today_s, &today)) {
		fprintf(stderr, "formdesk extract: --today '%s': expected a real date as YYYY-MM-DD\n",
			today_s);
		return 2;
	}

	int rc = 2;
	struct form *f = NULL;
	struct form_issues is = {0};
	struct lexicon *lex = NULL;
	struct extraction *ex = NULL;
	cJSON *hist = NULL, *res = NULL;
	char *msg = NULL;
	enum err e = form_load(form_path, &f, &is);
	if (e != ERR_OK) {
		const char *m = is.n ? is.v[0].message : err_str(e);
		/* the loader's I/O message already names the file */
		if (strncmp(m, form_path, strlen(form_path)) == 0)
			fprintf(stderr, "formdesk extract: --form: %s\n", m);
		else
			fprintf(stderr, "formdesk extract: --form %s: %s\n", form_path, m);
		for (int i = 1; i < is.n; i++)
			fprintf(stderr, "  %s: %s\n", is.v[i].field, is.v[i].message);
		goto out;
	}
	int asked = form_find(f, field);
	if (asked < 0) {
		fprintf(stderr, "formdesk extract: --field '%s': no such question in %s (questions:",
			field, form_path);
		for (int i = 0; i < f->n_questions; i++)
			fprintf(stderr, " %s", f->questions[i].name);
		fprintf(stderr, ")\n");
		goto out;
	}
	if (hist_path && !(hist = load_history(hist_path)))
		goto out;
	if ((e = lexicon_load(lexicon_default_dir(), &lex, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk extract: word lists: %s\n", msg ? msg : err_str(e));
		goto out;
	}
	if (config) {
		char why[300];
		if (provider_config_load(config, why, sizeof(why)) != ERR_OK) {
			fprintf(stderr, "formdesk extract: --config %s\n", why);
			goto out;
		}
	}
	struct backend be;
	const char *why = NULL;
	if ((e = backend_extract(spec, &be, &why)) != ERR_OK) {
		fprintf(stderr, "formdesk extract: --extract %s: %s\n", spec, why ? why : err_str(e));
		goto out;
	}
	struct extract_request req = {
		.form = f, .lex = lex, .asked = asked, .transcript = text, .history = hist,
		.today = today,
	};
	struct backend_usage u;
	bool net = false;
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
	free(msg);
	cJSON_Delete(res);
	cJSON_Delete(hist);
	extraction_free(ex);
	lexicon_free(lex);
	form_free(f);
	form_issues_free(&is);
	backend_cleanup();
	return rc;
}
