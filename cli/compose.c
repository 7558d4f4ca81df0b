/* compose: the composition root of the commands that run the agent (see compose.h). */
#include "compose.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/rules/form.h"
#include "agent/rules/formlint.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/provider.h"
#include "audio/endpoint.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/corpusfit.h"
#include "sessions/calls/engine.h"
#include "sessions/calls/runs.h"
#include "sessions/store/store.h"

/* say: one message by the convention: "formdesk COMMAND: " then the text. */
static void say(const struct compose *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", c->who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool readable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* default_form: COMPOSE_DEFAULT_FORM beside the program (or two folders up, for the build
 * trees), else in the current directory. Output: new string (caller frees), NULL when out
 * of memory. */
static char *default_form(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		const char *rel[] = {"", "/../.."};
		for (int i = 0; i < 2; i++) {
			char *p = NULL;
			if (asprintf(&p, "%s%s/%s", exe, rel[i], COMPOSE_DEFAULT_FORM) < 0)
				return NULL;
			if (readable(p)) {
				char *real = realpath(p, NULL);
				if (real) {
					free(p);
					return real;
				}
				return p;
			}
			free(p);
		}
	}
	return strdup(COMPOSE_DEFAULT_FORM);
}

/* What loads but would misbehave (agent/rules/formlint.h), said before anything runs: in a typed
 * call a question without a script is otherwise only heard, in English. */
static void warn_form(struct compose *c)
{
	struct form_issues w = {0};
	formlint_check(c->form, &w);
	for (int i = 0; i < w.n; i++)
		say(c, "%s: warning: %s: %s", c->form_path, w.v[i].field, w.v[i].message);
	form_issues_free(&w);
}

/* A corpus made for another form, or whose callers never answer some of its fields
 * (sessions/corpus/corpusfit.h): said, not refused, since trying a changed form on an old corpus
 * is what a developer does. */
static void warn_corpus(struct compose *c)
{
	struct form_issues w = {0};
	corpusfit_check(c->corpus, c->form, c->form_path, &w);
	for (int i = 0; i < w.n; i++)
		say(c, "%s%s%s: warning: %s", c->corpus_dir, *w.v[i].field ? "/" : "",
		    *w.v[i].field ? w.v[i].field : "", w.v[i].message);
	form_issues_free(&w);
}

static enum err build_form(struct compose *c, const char *path)
{
	struct form_issues is = {0};
	enum err e;

	if (!(c->form_path = path ? strdup(path) : default_form()))
		return ERR_NOMEM;
	if ((e = form_load(c->form_path, &c->form, &is)) == ERR_OK) {
		warn_form(c);
		return ERR_OK;
	}
	if (is.n == 0)
		say(c, "%s: %s", c->form_path, err_str(e));
	for (int i = 0; i < is.n; i++) {
		const struct form_issue *x = &is.v[i];
		if (strstr(x->message, c->form_path)) /* the loader named the file already */
			say(c, "%s", x->message);
		else
			say(c, "%s: %s%s%s", c->form_path, x->field, *x->field ? ": " : "", x->message);
	}
	form_issues_free(&is);
	return e;
}

static enum err build_corpus(struct compose *c, const char *arg)
{
	char *msg = NULL;
	enum err e;

	if (!(c->corpus_dir = corpus_resolve(arg)))
		return ERR_NOMEM;
	if ((e = corpus_load(c->corpus_dir, &c->corpus, &msg)) != ERR_OK) {
		/* the loader's message names the file and line */
		say(c, "%s", msg ? msg : err_str(e));
		if ((strcmp(arg, "demo") == 0 || strcmp(arg, "respin") == 0) &&
		    !(msg && strstr(msg, "make")))
			say(c, "the bundled corpora are built with `make corpora`");
		free(msg);
		return e;
	}
	return ERR_OK;
}

/* One stage's backend from its spec; NULL builds none. */
#define BUILD_STAGE(c, stage, spec)                                                        \
	do {                                                                                \
		const char *why_ = NULL;                                                    \
		enum err e_;                                                                \
		if ((spec) && (e_ = backend_##stage((spec), &(c)->stage, &why_)) != ERR_OK) { \
			say((c), "--" #stage " %s: %s", (spec), why_ ? why_ : err_str(e_));   \
			return e_;                                                          \
		}                                                                           \
	} while (0)

static enum err build_backends(struct compose *c, const struct compose_opts *o)
{
	BUILD_STAGE(c, stt, o->stt);
	BUILD_STAGE(c, extract, o->extract);
	BUILD_STAGE(c, reply, o->reply);
	return ERR_OK;
}

static enum err build(struct compose *c, const struct compose_opts *o, unsigned parts)
{
	enum err e;
	char *msg = NULL;

	if ((parts & COMPOSE_FORM) && (e = build_form(c, o->form)) != ERR_OK)
		return e;
	if ((parts & COMPOSE_CONFIG) && o->config) {
		char why[300];
		if ((e = provider_config_load(o->config, why, sizeof(why))) != ERR_OK) {
			say(c, "--config %s", why);
			return e;
		}
	}
	if ((parts & COMPOSE_CORPUS) && (e = build_corpus(c, o->corpus)) != ERR_OK)
		return e;
	if (c->form && c->corpus)
		warn_corpus(c);
	if (parts & COMPOSE_TODAY) {
		if (o->today && !ymd_parse_iso(o->today, &c->today)) {
			say(c, "--today '%s': expected a real date as YYYY-MM-DD", o->today);
			return ERR_INVALID;
		}
		if (!o->today)
			c->today = c->corpus && c->corpus->has_today && !(parts & COMPOSE_CLOCK_TODAY)
					   ? c->corpus->today : ymd_today();
	}
	if ((parts & COMPOSE_BACKENDS) && (e = build_backends(c, o)) != ERR_OK)
		return e;
	if (parts & COMPOSE_LEXICON) {
		const char *dir = lexicon_default_dir();
		if ((e = lexicon_load(dir, &c->lex, &msg)) != ERR_OK) {
			/* the loader's message names the file and line */
			if (msg)
				say(c, "word lists: %s", msg);
			else
				say(c, "word lists %s: %s", dir, err_str(e));
			free(msg);
			return e;
		}
	}
	if ((parts & COMPOSE_STORE) && (e = compose_store(c, o->db)) != ERR_OK)
		return e;
	return ERR_OK;
}

enum err compose_new(const char *cmd, const struct compose_opts *o, unsigned parts,
		     struct compose **out)
{
	struct compose *c = calloc(1, sizeof(*c));
	enum err e;

	if (!c || asprintf(&c->who, "formdesk%s%s", *cmd ? " " : "", cmd) < 0) {
		free(c);
		fprintf(stderr, "formdesk: %s\n", err_str(ERR_NOMEM));
		return ERR_NOMEM;
	}
	c->turn_deadline_ms = o->turn_deadline_ms;
	c->call_deadline_ms = o->call_deadline_ms;
	if ((e = build(c, o, parts)) != ERR_OK) {
		if (e == ERR_NOMEM)
			say(c, "%s", err_str(e));
		compose_free(c);
		return e;
	}
	*out = c;
	return ERR_OK;
}

enum err compose_store(struct compose *c, const char *db)
{
	char *msg = NULL;
	enum err e = store_open(db, &c->store, &msg);
	if (e != ERR_OK)
		say(c, "%s", msg ? msg : err_str(e)); /* the store's message names the file */
	free(msg);
	return e;
}

enum err compose_open_db(const char *cmd, const char *db, enum store_mode mode,
			 struct store **out)
{
	char *msg = NULL;
	enum err e = store_open_with(db, mode, NULL, out, &msg);
	if (e != ERR_OK)
		fprintf(stderr, "formdesk %s: %s\n", cmd, msg ? msg : err_str(e));
	free(msg);
	return e;
}

void compose_engine(const struct compose *c, struct engine_config *cfg)
{
	*cfg = (struct engine_config){
		.form = c->form, .form_path = c->form_path,
		.corpus_name = c->corpus ? c->corpus->name : NULL, .lex = c->lex,
		.stt = c->stt, .extract = c->extract, .reply = c->reply, .store = c->store,
		.today = c->today, .endpoint = endpoint_defaults(),
		.turn_deadline_ms = c->turn_deadline_ms, .call_deadline_ms = c->call_deadline_ms,
	};
}

void compose_backends(const struct compose *c, struct engine_config *cfg)
{
	cfg->stt = c->stt;
	cfg->extract = c->extract;
	cfg->reply = c->reply;
	cfg->lex = c->lex;
	cfg->turn_deadline_ms = c->turn_deadline_ms;
	cfg->call_deadline_ms = c->call_deadline_ms;
}

enum err compose_run(const struct compose *c, const struct compose_opts *o, const char *source,
		     struct engine_config *cfg)
{
	char *msg = NULL;
	enum err e = runs_begin(c->store, &(struct runs_spec){.source = source, .cfg = cfg,
				.stt = o->stt, .extract = o->extract, .reply = o->reply,
				.corpus_dir = c->corpus_dir}, &cfg->run_id, &msg);
	if (e != ERR_OK)
		fprintf(stderr, "%s: %s\n", c->who, msg ? msg : err_str(e));
	free(msg);
	return e;
}

enum err compose_run_end(const struct compose *c, long long run_id)
{
	enum err e = c ? runs_end(c->store, run_id) : ERR_OK;
	if (e != ERR_OK)
		fprintf(stderr, "%s: %s\n", c->who, store_error(c->store));
	return e;
}

enum err compose_task(const char *cmd, const char *name, enum labels_task *t)
{
	if (labels_task_parse(name, t) == ERR_OK)
		return ERR_OK;
	fprintf(stderr, "formdesk %s: --task '%s': not a task (", cmd, name);
	for (int i = 0; i < LABELS_NTASKS; i++)
		fprintf(stderr, "%s%s", i == 0 ? "" : i == LABELS_NTASKS - 1 ? " or " : ", ",
			labels_task_name((enum labels_task)i));
	fprintf(stderr, ")\n");
	return ERR_NOTFOUND;
}

enum err compose_labels(const char *cmd, const char *db, struct labels **out)
{
	char *msg = NULL;
	enum err e = labels_open(db, out, &msg);
	if (e != ERR_OK)
		fprintf(stderr, "formdesk %s: %s\n", cmd, msg ? msg : err_str(e));
	free(msg);
	return e;
}

void compose_free(struct compose *c)
{
	if (!c)
		return;
	store_close(c->store);
	lexicon_free(c->lex);
	corpus_free(c->corpus);
	form_free(c->form);
	free(c->corpus_dir);
	free(c->form_path);
	free(c->who);
	free(c);
	backend_cleanup();
}

void compose_say_issues(const struct form_issues *is)
{
	for (int i = 0; is && i < is->n; i++)
		fprintf(stderr, "  %s%s%s\n", is->v[i].field, is->v[i].field[0] ? ": " : "",
			is->v[i].message);
}
