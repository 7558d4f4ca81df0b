/* endpoint_eval: `formdesk endpoint-eval`: false cut-offs against latency per kind of
 * answer and endpointer setting (sessions/eval/endpointeval.h).
 *
 * formdesk endpoint-eval --corpus DIR|demo|respin [--form FILE] [--telephone]
 *     [--conditions C,...] [--gaps MS,...] [--sweep stop=MS,...,wait=MS,...] [--svg FILE]
 *
 * stdout: the table. --form defaults to the corpus's own form. The sweep is every stop
 * with every wait (default stop=200, wait=200,400,600,800,1200,1600); the gaps put inside
 * answers default to 300,500,700,900 ms. Exit status: 0 done; 2 bad usage or a corpus,
 * form or file that cannot be read or written. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "opts.h"
#include "sessions/corpus/corpus.h"
#include "sessions/eval/endpointeval.h"

#define MAX_LIST 32

/* Reads "N,N,..." (whole ms, 0..60000) into v; returns the count, or -1 (message printed). */
static int parse_list(const char *opt, const char *s, int *v, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		long x;
		errno = 0;
		x = strtol(s, &end, 10);
		if (errno || end == s || x < 0 || x > 60000 || (*end && *end != ',') || n == max) {
			fprintf(stderr, "formdesk endpoint-eval: %s: '%s' is not a list of up to %d whole "
					"numbers of ms from 0 to 60000\n", opt, s, max);
			return -1;
		}
		v[n++] = (int)x;
		s = *end ? end + 1 : end;
	}
	return n;
}

/* Reads --sweep "stop=A,B,wait=C,D" into the stop and wait lists. Returns 0 or -1. */
static int parse_sweep(const char *s, int *stop, int *n_stop, int *wait, int *n_wait)
{
	char buf[1024], *p;
	int *list = NULL, *count = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	p = strtok(buf, ",");
	for (; p; p = strtok(NULL, ",")) {
		if (strncmp(p, "stop=", 5) == 0 || strncmp(p, "wait=", 5) == 0) {
			bool is_stop = p[0] == 's';
			list = is_stop ? stop : wait;
			count = is_stop ? n_stop : n_wait;
			*count = 0;
			p += 5;
		}
		if (!list || parse_list("--sweep", p, list + *count, MAX_LIST - *count) != 1) {
			fprintf(stderr, "formdesk endpoint-eval: --sweep '%s': give stop=MS,... and/or "
					"wait=MS,...\n", s);
			return -1;
		}
		(*count)++;
	}
	return 0;
}

int cmd_endpoint_eval(int argc, char **argv)
{
	struct endpoint_eval_opts eo = {0};
	int gaps[MAX_LIST] = {300, 500, 700, 900}, n_gaps = 4;
	int stop[MAX_LIST] = {200}, n_stop = 1, wait[MAX_LIST] = {200, 400, 600, 800, 1200, 1600}, n_wait = 6;
	struct endpointeval_setting settings[MAX_LIST * MAX_LIST];
	struct endpointeval_row *rows = NULL;
	struct corpus *c = NULL;
	struct form *f = NULL;
	char *dir = NULL, *msg = NULL;
	int n_rows = 0, rc = 2, n_s = 0;
	enum err e;

	enum opts_result parsed = opts_parse(&cmd_endpoint_eval_opts, argc, argv, &eo, NULL, NULL, NULL);
	if (parsed != OPTS_OK)
		return parsed == OPTS_HELP ? 0 : 2;
	const char *corpus_arg = eo.corpus, *form_path = eo.form, *conditions = eo.conditions,
		   *gaps_s = eo.gaps, *sweep = eo.sweep, *svg = eo.svg;
	bool telephone = eo.telephone;
	if ((gaps_s && (n_gaps = parse_list("--gaps", gaps_s, gaps, MAX_LIST)) < 1) ||
	    (sweep && parse_sweep(sweep, stop, &n_stop, wait, &n_wait) != 0))
		return 2;
	for (int i = 0; i < n_stop; i++)
		for (int k = 0; k < n_wait; k++)
			settings[n_s++] = (struct endpointeval_setting){stop[i], wait[k]};
	dir = corpus_resolve(corpus_arg);
	if (!dir || (e = corpus_load(dir, &c, &msg)) != ERR_OK) {
		fprintf(stderr, "formdesk endpoint-eval: %s\n", msg ? msg : err_str(dir ? e : ERR_NOMEM));
		goto out;
	}
	if (!form_path)
		form_path = c->form;
	if (form_path && (e = form_load(form_path, &f, NULL)) != ERR_OK) {
		fprintf(stderr, "formdesk endpoint-eval: %s: %s\n", form_path, err_str(e));
		goto out;
	}
	{
		struct endpointeval_options o = {gaps, n_gaps, telephone, conditions};
		e = endpointeval_run(c, f, settings, n_s, &o, &rows, &n_rows, &msg);
	}
	if (e != ERR_OK) {
		fprintf(stderr, "formdesk endpoint-eval: %s: %s\n", dir,
			msg ? msg : e == ERR_INVALID ? "no utterance with speech in the conditions asked" : err_str(e));
		goto out;
	}
	printf("endpoint-eval: corpus %s (%s), %s; answers are two utterances of a kind joined by "
	       "gaps of", c->name ? c->name : dir, c->synthetic ? "synthetic speech" : "real speech",
	       telephone ? "through the telephone channel" : "16 kHz");
	for (int i = 0; i < n_gaps; i++)
		printf("%s%d", i ? "," : " ", gaps[i]);
	printf(" ms; a cut-off ends the turn over %d ms before the answer ends\n", ENDPOINTEVAL_CUTOFF_TOL_MS);
	endpointeval_print(stdout, rows, n_rows);
	if (svg && (e = endpointeval_chart(svg, "answers kept whole against p95 latency", rows, n_rows)) != ERR_OK) {
		fprintf(stderr, "formdesk endpoint-eval: %s: %s\n", svg, err_str(e));
		goto out;
	}
	rc = 0;
out:
	free(rows);
	free(msg);
	free(dir);
	form_free(f);
	corpus_free(c);
	return rc;
}
