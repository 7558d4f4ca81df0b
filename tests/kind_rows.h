/* kind_rows: the rows of tests/data/kinds_extract.tsv (id, kind, field, utterance, expected,
 * [other fields]) and tests/data/kinds_names.tsv (id, kind, a, b, expected), each checked
 * one way for the test (tests/test_kinds.c) and the per-kind counts of `make bench`
 * (tests/bench_kinds.c). Extraction rows run on tests/data/parse_form.json, today
 * 2025-03-15, through tests/case_rows.h; name rows through namematch_judge in both orders. */
#ifndef FORMDESK_TESTS_KIND_ROWS_H
#define FORMDESK_TESTS_KIND_ROWS_H

#include "case_rows.h"
#include "agent/hindi/namematch.h"

#define KIND_FORM "tests/data/parse_form.json"
#define KIND_EXTRACT "tests/data/kinds_extract.tsv"
#define KIND_NAMES "tests/data/kinds_names.tsv"

static const struct ymd kind_today = {2025, 3, 15};

/* kind_extract_ok: extraction row r (columns as above) on form f with word lists lex.
 * Returns whether it passes; why (wn bytes) says what came out when not. */
static inline bool kind_extract_ok(const struct form *f, const struct lexicon *lex,
				   const struct table_row *r, char *why, size_t wn)
{
	return row_check(f, lex, kind_today, r->col[2], r->col[3], r->col[4],
			 r->ncol > 5 ? r->col[5] : NULL, why, wn);
}

/* kind_names_ok: name row r: the verdict for a / b and for b / a must both be expected.
 * Returns whether it passes; why (wn bytes) gives the verdicts when not. */
static inline bool kind_names_ok(const struct table_row *r, char *why, size_t wn)
{
	const char *ab = namematch_verdict_name(namematch_judge(r->col[2], r->col[3]));
	const char *ba = namematch_verdict_name(namematch_judge(r->col[3], r->col[2]));
	if (strcmp(ab, r->col[4]) == 0 && strcmp(ba, r->col[4]) == 0)
		return true;
	snprintf(why, wn, "want %s, got %s (and %s the other way)", r->col[4], ab, ba);
	return false;
}

/* The rows and what they run on. */
struct kind_rows {
	struct form *form;
	struct lexicon *lex;
	struct table_row *ext, *names;
	int ne, nn;
};

/* kind_rows_load: the form, the word lists (lexicon_default_dir) and both tables, each row
 * named "ID KIND FIELD: UTTERANCE" or "ID KIND A / B". Returns false (after a message
 * naming prog) when the form or the word lists cannot be read; a bad table exits. */
static inline bool kind_rows_load(struct kind_rows *k, const char *prog)
{
	struct form_issues is = {0};
	char *msg = NULL;
	memset(k, 0, sizeof(*k));
	if (form_load(KIND_FORM, &k->form, &is) != ERR_OK) {
		fprintf(stderr, "%s: cannot load %s\n", prog, KIND_FORM);
		form_issues_free(&is);
		return false;
	}
	form_issues_free(&is);
	if (lexicon_load(lexicon_default_dir(), &k->lex, &msg) != ERR_OK) {
		fprintf(stderr, "%s: word lists: %s\n", prog, msg ? msg : "error");
		free(msg);
		form_free(k->form);
		return false;
	}
	table_load(KIND_EXTRACT, 5, 6, 0, &k->ext, &k->ne);
	table_load(KIND_NAMES, 5, 5, 0, &k->names, &k->nn);
	for (int i = 0; i < k->ne; i++)
		snprintf(k->ext[i].name, sizeof(k->ext[i].name), "%s %s %s: %.120s", k->ext[i].col[0],
			 k->ext[i].col[1], k->ext[i].col[2], k->ext[i].col[3]);
	for (int i = 0; i < k->nn; i++)
		snprintf(k->names[i].name, sizeof(k->names[i].name), "%s %s %s / %s",
			 k->names[i].col[0], k->names[i].col[1], k->names[i].col[2], k->names[i].col[3]);
	return true;
}

/* kind_rows_free: everything kind_rows_load made. */
static inline void kind_rows_free(struct kind_rows *k)
{
	table_free(k->ext, k->ne);
	table_free(k->names, k->nn);
	lexicon_free(k->lex);
	form_free(k->form);
}

#endif
