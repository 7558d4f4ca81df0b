/* Speed of the benchmark, printed (never asserted):
 * 1. the CPU time of the offline run of the whole enrollment benchmark: five callers
 *    (tests/data/bench_profiles.json) along the 48 paths of forms/armman_enrollment.json
 *    in 4 conditions = 960 calls; reference transcripts, rule-based EXTRACT, template
 *    REPLY; 1,880 EXTRACT + 1,880 REPLY unit tests, the integration calls and the report
 *    (target: under 2 s of CPU);
 * 2. the wall time of the EXTRACT unit tests of the ideal condition (470 tests) against a
 *    local server that answers after 500 ms, 32 requests in flight, against the ideal
 *    (tests x 0.5 s / 32; target within 10%).
 * The corpus's audio files are empty placeholders (every condition "recorded"): the
 * reference STT reads none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "agent/stages/backend.h"
#include "agent/hindi/lexicon.h"
#include "sessions/eval/bench.h"
#include "sessions/store/benchdb.h"
#include "sessions/eval/benchreport.h"
#include "sessions/corpus/corpus.h"
#include "sessions/corpus/corpusgen.h"
#include "tests/support/benchrun.h"
#include "tests/support/mockserver.h"

#define FORM "forms/armman_enrollment.json"
#define PROFILES "tests/data/bench_profiles.json"
#define DELAY_MS 500
#define CONCURRENCY 32

static const char RESPONSE[] =
	"{\"id\":\"chatcmpl-b\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
	"{\"role\":\"assistant\",\"content\":\"{\\\"ack\\\":\\\"ठीक है\\\",\\\"fields\\\":[]}\","
	"\"refusal\":null},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":812,"
	"\"completion_tokens\":12}}";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (s = calloc(1, (size_t)n + 1)) && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (f)
		fclose(f);
	return s;
}

/* with_recordings: every answer of every caller "recorded" as placeholder in all four
 * conditions. */
static void with_recordings(cJSON *profiles, const char *placeholder)
{
	static const char *const conds[] = {"ideal", "noise", "distance", "pace"};
	static const char *const keys[] = {"say", "yes", "no", "dont_know"};
	cJSON *c, *a;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(profiles, "callers"))
		cJSON_ArrayForEach(a, cJSON_GetObjectItem(c, "answers")) {
			cJSON *recs = cJSON_AddObjectToObject(a, "recordings");
			for (int k = 0; k < 4; k++) {
				if (!cJSON_GetObjectItem(a, keys[k]))
					continue;
				cJSON *per = cJSON_AddObjectToObject(recs, keys[k]);
				for (int i = 0; i < 4; i++)
					cJSON_AddStringToObject(per, conds[i], placeholder);
			}
		}
}

struct stage_clock {
	double extract_start, extract_end;
	long extract_total;
};

static void on_progress(void *ud, const char *stage, long done, long total)
{
	struct stage_clock *sc = ud;
	if (!strcmp(stage, "extract") && done == 0)
		sc->extract_start = benchrun_wall_s();
	if (!strcmp(stage, "extract") && done == total) {
		sc->extract_end = benchrun_wall_s();
		sc->extract_total = total;
	}
}

int main(void)
{
	char dir[] = "/tmp/bench_bench_XXXXXX", path[256], placeholder[300], *text, *msg = NULL;
	struct form *form = NULL;
	struct lexicon *lex = NULL;
	struct corpus *corpus = NULL;
	struct benchdb *db = NULL;
	struct bench_counts counts = {0};
	struct corpusgen_result res;
	int rc = 1;

	if (!mkdtemp(dir) || form_load(FORM, &form, NULL) != ERR_OK ||
	    lexicon_load(lexicon_default_dir(), &lex, NULL) != ERR_OK || !(text = slurp(PROFILES))) {
		fprintf(stderr, "bench_bench: cannot set up (form, word lists, profiles)\n");
		return 1;
	}
	cJSON *profiles = cJSON_Parse(text);
	free(text);
	snprintf(placeholder, sizeof placeholder, "%s/placeholder.wav", dir);
	FILE *f = fopen(placeholder, "w");
	if (f)
		fclose(f);
	with_recordings(profiles, placeholder);
	snprintf(path, sizeof path, "%s/corpus", dir);
	struct corpusgen_options o = {.profiles_path = PROFILES, .form_path = FORM, .out_dir = path,
				      .conditions = "ideal,noise,distance,pace"};
	if (corpusgen_build(form, profiles, &o, &res, &msg) != ERR_OK ||
	    corpus_load(path, &corpus, &msg) != ERR_OK) {
		fprintf(stderr, "bench_bench: corpus: %s\n", msg ? msg : "?");
		goto out;
	}

	/* 1. the offline run. */
	struct bench_config cfg = {.form = form, .form_path = FORM, .lex = lex, .corpus = corpus,
				   .today = corpus->today, .stt_spec = "reference",
				   .extract_spec = "rules", .reply_spec = "script", .concurrency = 1};
	const char *why = NULL;
	if (backend_stt("reference", &cfg.stt, &why) != ERR_OK ||
	    backend_extract("rules", &cfg.extract, &why) != ERR_OK ||
	    backend_reply("script", &cfg.reply, &why) != ERR_OK)
		goto out;
	snprintf(path, sizeof path, "%s/bench.db", dir);
	if (benchdb_open(path, &db, &msg) != ERR_OK)
		goto out;
	double c0 = benchrun_cpu_s(), w0 = benchrun_wall_s();
	char *scope = NULL;
	if (bench_run(&cfg, db, &counts, &msg) != ERR_OK || !(scope = bench_scope(&cfg))) {
		fprintf(stderr, "bench_bench: %s\n", msg ? msg : "bench failed");
		goto out;
	}
	snprintf(path, sizeof path, "%s/report", dir);
	if (benchreport_write(db, scope, &cfg, &counts, path, &msg) != ERR_OK) {
		fprintf(stderr, "bench_bench: %s\n", msg ? msg : "report failed");
		free(scope);
		goto out;
	}
	free(scope);
	double cpu = benchrun_cpu_s() - c0, wall = benchrun_wall_s() - w0;
	printf("offline enrollment benchmark: %ld calls, %ld EXTRACT + %ld REPLY unit tests "
	       "(%ld end-call), %ld utterances: CPU %.3f s (target under 2 s), wall %.3f s\n",
	       counts.calls, counts.extract, counts.reply_ask + counts.reply_end, counts.reply_end,
	       counts.utterances, cpu, wall);
	benchdb_close(db);
	db = NULL;

	/* 2. EXTRACT unit tests of the ideal condition against a slow local server. */
	corpus_free(corpus);
	corpus = NULL;
	snprintf(path, sizeof path, "%s/ideal", dir);
	o.out_dir = path;
	o.conditions = "ideal";
	if (corpusgen_build(form, profiles, &o, &res, &msg) != ERR_OK ||
	    corpus_load(path, &corpus, &msg) != ERR_OK) {
		fprintf(stderr, "bench_bench: corpus: %s\n", msg ? msg : "?");
		goto out;
	}
	struct mockserver *ms = mockserver_start();
	if (!ms)
		goto out;
	mockserver_record(ms, false);
	mockserver_set_default(ms, (struct mock_reply){200, NULL, RESPONSE, NULL, DELAY_MS});
	char base[128];
	snprintf(base, sizeof base, "%s/v1", mockserver_url(ms));
	unsetenv("FORMDESK_CONFIG");
	setenv("OPENAI_BASE_URL", base, 1);
	setenv("OPENAI_API_KEY", "sk-bench", 1);
	struct stage_clock sc = {0};
	cfg.corpus = corpus;
	cfg.extract_spec = "openai";
	cfg.concurrency = CONCURRENCY;
	cfg.stages = BENCH_EXTRACT;
	cfg.progress = on_progress;
	cfg.ud = &sc;
	snprintf(path, sizeof path, "%s/http.db", dir);
	if (backend_extract("openai", &cfg.extract, &why) != ERR_OK ||
	    benchdb_open(path, &db, &msg) != ERR_OK || bench_run(&cfg, db, &counts, &msg) != ERR_OK) {
		fprintf(stderr, "bench_bench: %s\n", msg ? msg : why ? why : "network run failed");
		mockserver_stop(ms);
		goto out;
	}
	double took = sc.extract_end - sc.extract_start,
	       ideal = (double)sc.extract_total * DELAY_MS / 1000.0 / CONCURRENCY;
	printf("EXTRACT unit tests against a server answering after %d ms, %d in flight: %ld tests, "
	       "wall %.2f s, ideal %.2f s (%+.1f%%; target within 10%%)\n",
	       DELAY_MS, CONCURRENCY, sc.extract_total, took, ideal, 100.0 * (took - ideal) / ideal);
	mockserver_stop(ms);
	rc = 0;
out:
	benchdb_close(db);
	backend_cleanup();
	corpus_free(corpus);
	lexicon_free(lex);
	form_free(form);
	cJSON_Delete(profiles);
	free(msg);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	if (system(path) != 0)
		rc = 1;
	return rc;
}
