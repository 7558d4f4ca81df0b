/* runs: recording and listing runs (see runs.h). */
#include "runs.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "base/file.h"
#include "agent/rules/decision.h"
#include "agent/stages/extract_llm.h"
#include "agent/rules/form.h"
#include "agent/stages/provider.h"
#include "agent/stages/reply_llm.h"
#include "audio/vad.h"
#include "sessions/corpus/corpus.h"
#include "engine.h"
#include "sessions/corpus/score.h"
#include "sessions/store/store.h"
#include "build/version.h" /* FORMDESK_VERSION, made by the Makefile from git describe */

bool runs_sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (!EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) || len != 32)
		return false;
	for (unsigned i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return true;
}

char *runs_read_file(const char *path)
{
	char *buf = NULL;
	return file_read(path, &buf, NULL) == ERR_OK ? buf : NULL;
}

struct decision *runs_decision(const char *text)
{
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	struct decision *d = NULL;

	if (j && decision_from_json(j, &d) != ERR_OK)
		d = NULL;
	cJSON_Delete(j);
	return d;
}

/* add_backend: {"spec","provider","model","prompt"} of one stage to o. spec is what was
 * given (may be NULL: name); offline backends have no model or prompt. */
static bool add_backend(cJSON *o, const char *stage, const char *spec, const char *name,
			enum provider_kind kind, const char *prompt)
{
	cJSON *b = cJSON_AddObjectToObject(o, stage);
	const struct provider_info *info = name ? provider_find(name, kind) : NULL;
	const char *colon = spec ? strchr(spec, ':') : NULL;
	char model[160] = "", base[256];

	if (!b || !cJSON_AddStringToObject(b, "spec", spec ? spec : name ? name : "") ||
	    !cJSON_AddStringToObject(b, "provider", name ? name : ""))
		return false;
	if (!info) /* offline: reference, rules, script */
		return cJSON_AddNullToObject(b, "model") && cJSON_AddNullToObject(b, "prompt");
	if (colon)
		snprintf(model, sizeof model, "%s", colon + 1);
	else
		provider_settings(info, model, sizeof model, base, sizeof base);
	return cJSON_AddStringToObject(b, "model", model) &&
	       (prompt ? cJSON_AddStringToObject(b, "prompt", prompt) != NULL
		       : cJSON_AddNullToObject(b, "prompt") != NULL);
}

/* options_json: the options that change how the calls go. */
static cJSON *options_json(const struct engine_config *cfg)
{
	cJSON *o = cJSON_CreateObject(), *ep;
	char today[16];

	snprintf(today, sizeof today, "%04d-%02d-%02d", cfg->today.y, cfg->today.m, cfg->today.d);
	if (!o || !cJSON_AddStringToObject(o, "today", today) ||
	    !(ep = cJSON_AddObjectToObject(o, "endpointing")) ||
	    !cJSON_AddNumberToObject(ep, "start_ms", cfg->endpoint.start_ms) ||
	    !cJSON_AddNumberToObject(ep, "stop_ms", cfg->endpoint.stop_ms) ||
	    !cJSON_AddNumberToObject(ep, "turn_wait_ms", cfg->endpoint.turn_wait_ms) ||
	    !cJSON_AddNumberToObject(ep, "min_loudness_db", cfg->endpoint.min_loudness_db) ||
	    !cJSON_AddStringToObject(ep, "vad", vad_kind_name(cfg->endpoint.vad)) ||
	    !cJSON_AddBoolToObject(o, "telephone", cfg->telephone)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

enum err runs_begin(struct store *st, const struct runs_spec *spec, long long *id,
		    char **errmsg)
{
	const struct engine_config *cfg = spec->cfg;
	char *form_text = NULL, *backends = NULL, *options = NULL, sha[65];
	cJSON *b = cJSON_CreateObject(), *o = options_json(cfg);
	const char *form_json = spec->form_json;
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	if (!form_json && cfg->form_path) {
		if (!(form_json = form_text = runs_read_file(cfg->form_path))) {
			e = ERR_IO;
			if (errmsg && asprintf(errmsg, "%s: cannot read the form to keep it with the run",
					       cfg->form_path) < 0)
				*errmsg = NULL;
			goto out;
		}
	}
	if (!b || !o ||
	    !add_backend(b, "stt", spec->stt, cfg->stt.name, PROVIDER_STT, NULL) ||
	    !add_backend(b, "extract", spec->extract, cfg->extract.name, PROVIDER_LLM,
			 EXTRACT_LLM_PROMPT_VERSION) ||
	    !add_backend(b, "reply", spec->reply, cfg->reply.name, PROVIDER_LLM,
			 REPLY_LLM_PROMPT_VERSION) ||
	    !(backends = cJSON_PrintUnformatted(b)) || !(options = cJSON_PrintUnformatted(o)))
		goto out;
	if (form_json && !runs_sha256_hex(form_json, strlen(form_json), sha)) {
		e = ERR_BACKEND;
		if (errmsg)
			*errmsg = strdup("libcrypto could not hash the form");
		goto out;
	}
	struct store_run_info info = {
		.source = spec->source,
		.form_path = cfg->form_path,
		.form_title = cfg->form ? cfg->form->title : NULL,
		.form_json = form_json,
		.form_sha256 = form_json ? sha : NULL,
		.stt = spec->stt ? spec->stt : cfg->stt.name,
		.extract = spec->extract ? spec->extract : cfg->extract.name,
		.reply = spec->reply ? spec->reply : cfg->reply.name,
		.backends = backends,
		.options = options,
		.corpus = cfg->corpus_name,
		.corpus_dir = spec->corpus_dir,
		.version = FORMDESK_VERSION,
		.replay_of = spec->replay_of,
	};
	if ((e = store_run_begin(st, &info, id)) != ERR_OK && errmsg)
		*errmsg = strdup(store_error(st));
out:
	if (e == ERR_NOMEM && errmsg && !*errmsg)
		*errmsg = strdup(err_str(e));
	free(form_text);
	free(backends);
	free(options);
	cJSON_Delete(b);
	cJSON_Delete(o);
	return e;
}

enum err runs_end(struct store *st, long long id)
{
	if (!st || id <= 0)
		return ERR_OK;
	return store_run_end(st, id);
}

/* run_accuracy: form-completion accuracy of run r's calls against the expected forms of
 * its corpus (sessions/corpus/score.h); *has false when no call has one. */
static enum err run_accuracy(struct store *st, const struct store_run_row *r, double *acc,
			     bool *has)
{
	struct store_call_filter f = {.run = r->id, .finished = true};
	struct store_call_row *calls = NULL;
	struct corpus *c = NULL;
	struct form *form = NULL;
	struct score sc = {0};
	char *msg = NULL;
	int n = 0;
	enum err e;

	*has = false;
	if (!r->info.corpus_dir || corpus_load(r->info.corpus_dir, &c, &msg) != ERR_OK) {
		free(msg);
		return ERR_OK;
	}
	if (r->info.form_json)
		form_parse(r->info.form_json, &form, NULL);
	if ((e = store_calls(st, &f, &calls, &n)) != ERR_OK)
		goto out;
	for (int i = 0; i < n; i++) {
		const struct corpus_call *cc = NULL;
		cJSON *data, *status;
		for (int k = 0; k < c->n_calls && !cc; k++)
			if (calls[i].info.corpus_call_id &&
			    strcmp(c->calls[k].id, calls[i].info.corpus_call_id) == 0)
				cc = &c->calls[k];
		if (!cc || !cc->expected_status)
			continue;
		data = cJSON_Parse(calls[i].form_data ? calls[i].form_data : "{}");
		status = cJSON_Parse(calls[i].form_status ? calls[i].form_status : "{}");
		e = score_call(form, cc->expected_data, cc->expected_status, data, status, &sc, NULL);
		cJSON_Delete(data);
		cJSON_Delete(status);
		if (e != ERR_OK)
			goto out;
		*has = true;
	}
	*acc = score_accuracy(&sc);
out:
	store_calls_free(calls, n);
	corpus_free(c);
	form_free(form);
	return e;
}

enum err runs_list(struct store *st, bool json, FILE *f)
{
	struct store_run_row *v = NULL;
	int n = 0;
	enum err e;

	if ((e = store_runs(st, 0, &v, &n)) != ERR_OK)
		return e;
	if (!json)
		fprintf(f, "%-4s %-19s %-8s %-28s %-30s %5s %10s %8s\n", "run", "started", "source",
			"form", "backends (stt/extract/reply)", "calls", "completion", "accuracy");
	for (int i = 0; i < n && e == ERR_OK; i++) {
		const struct store_run_info *r = &v[i].info;
		double acc = 0, completion = v[i].calls ? (double)v[i].complete / v[i].calls : 0;
		bool has = false;
		char form[64], backends[96], sha[9] = "";

		if ((e = run_accuracy(st, &v[i], &acc, &has)) != ERR_OK)
			break;
		if (r->form_sha256)
			snprintf(sha, sizeof sha, "%.8s", r->form_sha256);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			char *s = NULL;
			e = ERR_NOMEM;
			if (o && cJSON_AddNumberToObject(o, "run", (double)v[i].id) &&
			    cJSON_AddStringToObject(o, "started_at", v[i].started_at ? v[i].started_at : "") &&
			    (v[i].ended_at ? cJSON_AddStringToObject(o, "ended_at", v[i].ended_at)
					   : cJSON_AddNullToObject(o, "ended_at")) &&
			    cJSON_AddStringToObject(o, "source", r->source ? r->source : "") &&
			    cJSON_AddStringToObject(o, "form", r->form_path ? r->form_path : "") &&
			    (r->form_sha256 ? cJSON_AddStringToObject(o, "form_sha256", r->form_sha256)
					    : cJSON_AddNullToObject(o, "form_sha256")) &&
			    cJSON_AddStringToObject(o, "stt", r->stt ? r->stt : "") &&
			    cJSON_AddStringToObject(o, "extract", r->extract ? r->extract : "") &&
			    cJSON_AddStringToObject(o, "reply", r->reply ? r->reply : "") &&
			    (r->corpus ? cJSON_AddStringToObject(o, "corpus", r->corpus)
				       : cJSON_AddNullToObject(o, "corpus")) &&
			    cJSON_AddNumberToObject(o, "calls", v[i].calls) &&
			    cJSON_AddNumberToObject(o, "complete", v[i].complete) &&
			    cJSON_AddNumberToObject(o, "completion", completion) &&
			    (has ? cJSON_AddNumberToObject(o, "accuracy", acc)
				 : cJSON_AddNullToObject(o, "accuracy")) &&
			    (r->replay_of ? cJSON_AddNumberToObject(o, "replay_of", (double)r->replay_of)
					  : cJSON_AddNullToObject(o, "replay_of")) &&
			    cJSON_AddBoolToObject(o, "migrated", v[i].migrated) &&
			    (s = cJSON_PrintUnformatted(o))) {
				fprintf(f, "%s\n", s);
				e = ERR_OK;
			}
			free(s);
			cJSON_Delete(o);
			continue;
		}
		{
			/* the file's name and the hash's start: the hash tells two contents apart */
			const char *base = r->form_path ? strrchr(r->form_path, '/') : NULL;
			snprintf(form, sizeof form, "%.19s%s%s",
				 base ? base + 1 : r->form_path ? r->form_path : "?", sha[0] ? " " : "",
				 sha);
		}
		snprintf(backends, sizeof backends, "%s/%s/%s", r->stt ? r->stt : "?",
			 r->extract ? r->extract : "?", r->reply ? r->reply : "?");
		fprintf(f, "%-4lld %-19.19s %-8s %-28s %-30s %5d %9.1f%% ", v[i].id,
			v[i].started_at ? v[i].started_at : "", r->source ? r->source : "?", form,
			backends, v[i].calls, 100 * completion);
		if (has)
			fprintf(f, "%7.1f%%\n", 100 * acc);
		else
			fprintf(f, "%8s\n", "-");
	}
	store_runs_free(v, n);
	return e;
}
