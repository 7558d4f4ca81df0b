/* Speed of the offline extractor plus the rule layer's check, in process, per caller
 * utterance: every row of $FORMDESK_CASES/extract.tsv (default ../shared/cases) on its
 * case_form.json, today 2025-03-15, each timed alone many times over. Prints the median
 * and the 99th percentile in microseconds (target: median under 20). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/stages/extract_rules.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "tests/support/benchrun.h"

#define ROUNDS 200

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(void)
{
	const char *dir = getenv("FORMDESK_CASES");
	char path[1024];
	if (!dir || !*dir)
		dir = "../shared/cases";
	struct form *f = NULL;
	struct form_issues is = {0};
	struct lexicon *lex = NULL;
	struct extract_rules *rules = NULL; /* the backend's ctx: keeps the form's analysis */
	char *msg = NULL;
	if (extract_rules_new(&rules) != ERR_OK)
		return 1;
	snprintf(path, sizeof(path), "%s/case_form.json", dir);
	if (form_load(path, &f, &is) != ERR_OK) {
		fprintf(stderr, "bench_extract: cannot load %s\n", path);
		return 1;
	}
	if (lexicon_load(lexicon_default_dir(), &lex, &msg) != ERR_OK) {
		fprintf(stderr, "bench_extract: word lists: %s\n", msg ? msg : "error");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/extract.tsv", dir);
	FILE *in = fopen(path, "r");
	if (!in) {
		fprintf(stderr, "bench_extract: cannot read %s\n", path);
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	char *fields[1024], *utts[1024];
	while (getline(&line, &cap, in) > 0 && n < 1024) {
		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		char *save = NULL;
		strtok_r(line, "\t", &save);
		char *fl = strtok_r(NULL, "\t", &save), *u = strtok_r(NULL, "\t", &save);
		if (!fl || !u)
			continue;
		fields[n] = strdup(fl);
		utts[n] = strdup(u);
		n++;
	}
	free(line);
	fclose(in);
	struct ymd today = {2025, 3, 15};
	double *t = malloc(sizeof(double) * (size_t)n * ROUNDS);
	int k = 0;
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < n; i++) {
			struct extract_request req = {.form = f, .lex = lex, .asked = form_find(f, fields[i]),
						      .transcript = utts[i], .today = today};
			struct extraction *ex = NULL;
			cJSON *res = NULL;
			double t0 = now_us();
			if (extract_rules_extract(rules, &req, &ex) != ERR_OK ||
			    flow_check(f, lex, today, req.asked, ex, &res) != ERR_OK) {
				fprintf(stderr, "bench_extract: failed on '%s'\n", utts[i]);
				return 1;
			}
			t[k++] = now_us() - t0;
			cJSON_Delete(res);
			extraction_free(ex);
		}
	benchrun_sort(t, (size_t)k);
	printf("extract+rules: %d utterances x %d rounds: median %.2f us, p99 %.2f us, max %.2f us "
	       "(target: median < 20 us)\n",
	       n, ROUNDS, t[k / 2], t[(size_t)(k * 0.99)], t[k - 1]);
	free(t);
	for (int i = 0; i < n; i++) {
		free(fields[i]);
		free(utts[i]);
	}
	lexicon_free(lex);
	form_free(f);
	extract_rules_free(rules);
	return 0;
}
