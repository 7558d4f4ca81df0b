/* The benchmark (sessions/eval/bench.c, benchdb.c, benchreport.c, replycheck.c) on a small
 * fixture: tests/data/bench_form.json and tests/data/bench_corpus, with fake STT and
 * EXTRACT backends from tests/data/bench_fake.tsv (one deliberately wrong extraction),
 * the script replier, and the figures worked by hand in tests/data/bench_expected.tsv;
 * a second run on the same database does no new work. The five reply checks, one case per
 * row of tests/data/replycheck.tsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_backend.h"
#include "agent/hindi/lexicon.h"
#include "agent/stages/reply_script.h"
#include "sessions/eval/bench.h"
#include "sessions/store/benchdb.h"
#include "sessions/eval/benchreport.h"
#include "sessions/corpus/corpus.h"
#include "sessions/eval/replycheck.h"
#include "sessions/corpus/score.h"
#include "tests/support/benchfix.h"
#include "tests/support/table.h"
#include "tests/support/testmain.h"

#define MAX_ROWS 64

struct pair {
	char *a, *field, *value;
};

static struct pair stt_rows[MAX_ROWS], ex_rows[MAX_ROWS];
static int n_stt, n_ex, extract_calls, reply_calls;

/* split: the tab-separated fields of line (changed in place) into f; their count. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line; n < max;) {
		f[n++] = p;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

static void load_fakes(void)
{
	FILE *f = fopen("tests/data/bench_fake.tsv", "r");
	char line[1024];
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char *c[4];
		if (line[0] == '#' || line[0] == '\n')
			continue;
		int n = split(line, c, 4);
		if (n == 3 && !strcmp(c[0], "stt"))
			stt_rows[n_stt++] = (struct pair){strdup(c[1]), NULL, strdup(c[2])};
		else if (n == 4 && !strcmp(c[0], "extract"))
			ex_rows[n_ex++] = (struct pair){strdup(c[1]), strdup(c[2]), strdup(c[3])};
		else
			fail_msg("bench_fake.tsv: bad row starting '%s'", c[0]);
	}
	fclose(f);
}

static enum err fake_stt(void *ctx, const struct stt_request *req, char **text)
{
	for (int i = 0; i < n_stt; i++)
		if (req->reference && !strcmp(stt_rows[i].a, req->reference))
			return (*text = strdup(stt_rows[i].value)) ? ERR_OK : ERR_NOMEM;
	return ERR_BACKEND;
}

static enum err fake_extract(void *ctx, const struct extract_request *req, struct extraction **out)
{
	struct extraction *ex = extraction_new();
	extract_calls++;
	for (int i = 0; i < n_ex; i++)
		if (!strcmp(ex_rows[i].a, req->transcript))
			extraction_add(ex, ex_rows[i].field, cJSON_Parse(ex_rows[i].value), false, NULL,
				       req->transcript);
	*out = ex;
	return ERR_OK;
}

static enum err counting_reply(void *ctx, const struct reply_request *req, char **text)
{
	reply_calls++;
	return reply_script_reply(ctx, req, text);
}

/* slow_opening_reply: the script's words, 80 ms late for the opening (no caller words
 * in the history yet), at once otherwise. */
static enum err slow_opening_reply(void *ctx, const struct reply_request *req, char **text)
{
	const cJSON *m;
	bool caller = false;
	cJSON_ArrayForEach(m, req->history) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
		caller |= cJSON_IsString(role) && !strcmp(role->valuestring, "user");
	}
	if (!caller)
		usleep(80000);
	return reply_script_reply(ctx, req, text);
}

FAKE_OPS(fake_stt_ops, BACKEND_STT, fake_stt);
FAKE_OPS(slow_opening_ops, BACKEND_REPLY, slow_opening_reply);
FAKE_OPS(fake_extract_ops, BACKEND_EXTRACT, fake_extract);
FAKE_OPS(counting_reply_ops, BACKEND_REPLY, counting_reply);

/* expected: the hand-computed figure called name. */
static long expected(const char *name)
{
	FILE *f = fopen("tests/data/bench_expected.tsv", "r");
	char line[512];
	long v = -1;
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char *c[2];
		if (line[0] != '#' && split(line, c, 2) == 2 && !strcmp(c[0], name))
			v = atol(c[1]);
	}
	fclose(f);
	if (v < 0)
		fail_msg("bench_expected.tsv: no figure '%s'", name);
	return v;
}

/* Sums over the stored rows. */
struct sums {
	long rows, pass, words, word_errors, word_genuine, chars, char_errors, fields, correct,
		status_ok;
	bool name_failed_on_value;
};

static int sum_row(void *ud, const char *spec, const char *key, const char *data)
{
	struct sums *s = ud;
	cJSON *o = cJSON_Parse(data);
	assert_non_null(o);
	s->rows++;
	s->pass += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "pass"));
	s->words += benchfix_num(o, "words");
	s->word_errors += benchfix_num(o, "word_errors");
	s->word_genuine += benchfix_num(o, "word_genuine");
	s->chars += benchfix_num(o, "chars");
	s->char_errors += benchfix_num(o, "char_errors");
	s->fields += benchfix_num(o, "fields");
	s->correct += benchfix_num(o, "correct");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "status_want");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "status_got");
	s->status_ok += cJSON_IsString(w) && cJSON_IsString(g) && !strcmp(w->valuestring, g->valuestring);
	const cJSON *field = cJSON_GetObjectItemCaseSensitive(o, "field"), *c;
	if (cJSON_IsString(field) && !strcmp(field->valuestring, "name")) {
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(o, "checks")) {
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "check");
			if (!strcmp(n->valuestring, "value") &&
			    cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c, "ok")))
				s->name_failed_on_value = true;
		}
	}
	cJSON_Delete(o);
	return 0;
}

static struct sums sums(struct benchdb *db, const char *scope, const char *stage, const char *spec)
{
	struct sums s = {0};
	assert_int_equal(benchdb_each(db, stage, scope, spec, sum_row, &s), ERR_OK);
	return s;
}

struct fixture {
	struct benchfix b; /* the bench form and corpus, the words, the configuration */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof *fx);
	assert_non_null(fx);
	if (!n_stt)
		load_fakes();
	struct bench_config opts = {
		.stt_spec = "fake", .extract_spec = "fake", .reply_spec = "script",
		.stt = {"fake", &fake_stt_ops, NULL}, .extract = {"fake", &fake_extract_ops, NULL},
		.reply = {"script", &counting_reply_ops, NULL}, .concurrency = 4};
	benchfix_open(&fx->b, "bench", opts);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	if (benchfix_close(&fx->b) != 0)
		return 1;
	free(fx);
	return 0;
}

static void counts_scores_and_resume(void **state)
{
	struct fixture *fx = *state;
	struct benchdb *db = NULL;
	struct bench_counts c = {0};
	char *msg = NULL, *scope;

	assert_int_equal(benchdb_open(fx->b.db, &db, &msg), ERR_OK);
	extract_calls = reply_calls = 0;
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	assert_int_equal(c.plan_mismatches, 0);
	assert_int_equal(c.new_extract, c.extract);

	scope = bench_scope(&fx->b.cfg);
	struct sums x = sums(db, scope, "extract", "fake");
	assert_true(x.name_failed_on_value); /* the deliberately wrong extraction */
	struct sums r = sums(db, scope, "reply", "script");
	struct sums s = sums(db, scope, "stt", "fake");
	struct sums k = sums(db, scope, "call", "fake+fake+script");
	/* the run's counts and the stored rows' sums, each against its hand count by name */
	const struct {
		const char *what, *name;
		long got;
	} figures[] = {
		{"counted utterances", "utterances", c.utterances},
		{"counted EXTRACT tests", "extract", c.extract},
		{"counted REPLY asks", "reply_ask", c.reply_ask},
		{"counted REPLY ends", "reply_end", c.reply_end},
		{"counted calls", "calls", c.calls},
		{"EXTRACT rows", "extract", x.rows},
		{"EXTRACT passes", "extract_pass", x.pass},
		{"REPLY passes", "reply_pass", r.pass},
		{"STT words", "words", s.words},
		{"STT word errors", "word_errors", s.word_errors},
		{"STT genuine word errors", "word_genuine", s.word_genuine},
		{"STT characters", "chars", s.chars},
		{"STT character errors", "char_errors", s.char_errors},
		{"call rows", "calls", k.rows},
		{"call fields", "fields", k.fields},
		{"call fields right", "correct", k.correct},
		{"calls ending as expected", "status_ok", k.status_ok},
	};
	for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
		if (figures[i].got != expected(figures[i].name))
			fail_msg("%s: %ld, want %ld (%s)", figures[i].what, figures[i].got,
				 expected(figures[i].name), figures[i].name);

	/* The report: results.csv has the EXTRACT pass rate 3/4. */
	assert_int_equal(benchreport_write(db, scope, &fx->b.cfg, &c, fx->b.out, &msg), ERR_OK);
	char path[128], line[512];
	bool found = false;
	snprintf(path, sizeof path, "%s/results.csv", fx->b.out);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f))
		found |= strncmp(line, "extract,extract:fake,0.750000,", 30) == 0;
	fclose(f);
	assert_true(found);
	snprintf(path, sizeof path, "%s/report.md", fx->b.out);
	assert_int_equal(access(path, R_OK), 0);

	/* Resume: a second run does no new work. */
	int before = extract_calls, replies = reply_calls;
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	assert_int_equal(c.new_stt + c.new_extract + c.new_reply + c.new_calls, 0);
	assert_int_equal(extract_calls, before);
	assert_int_equal(reply_calls, replies);
	free(scope);
	benchdb_close(db);
}

/* A different EXTRACT on the same database runs its own tests and leaves the others'. */
static void second_model_side_by_side(void **state)
{
	struct fixture *fx = *state;
	struct benchdb *db = NULL;
	struct bench_counts c = {0};
	char *msg = NULL;
	assert_int_equal(benchdb_open(fx->b.db, &db, &msg), ERR_OK);
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	fx->b.cfg.extract_spec = "fake2";
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	assert_int_equal(c.new_stt, 0);
	assert_int_equal(c.new_reply, 0);
	assert_int_equal(c.new_extract, expected("extract"));
	assert_int_equal(c.new_calls, expected("calls"));
	char *scope = bench_scope(&fx->b.cfg);
	assert_int_equal(benchreport_write(db, scope, &fx->b.cfg, &c, fx->b.out, &msg), ERR_OK);
	char path[128];
	snprintf(path, sizeof path, "%s/stt-x-extract.svg", fx->b.out);
	assert_int_equal(access(path, R_OK), 0);
	free(scope);
	benchdb_close(db);
}

/* Counts and latencies that mean what they say: each call's replies by kind (one
 * opening, then per caller turn a question or the closing words), and
 * each caller turn's latency without the opening's REPLY, which is measured apart. */
static int latency_row(void *ud, const char *spec, const char *key, const char *data)
{
	int *calls = ud;
	cJSON *o = cJSON_Parse(data);
	long turns = benchfix_num(o, "turns");
	const cJSON *t;
	assert_true(turns >= 2);
	assert_int_equal(benchfix_num(o, "replies_opening"), 1);
	/* each caller turn gets a question or the closing words, never both */
	assert_int_equal(benchfix_num(o, "replies_turn") + benchfix_num(o, "replies_end"), turns);
	assert_true(benchfix_num(o, "replies_end") <= 1);
	assert_int_equal(benchfix_num(o, "replies_end_ok"), benchfix_num(o, "replies_end"));
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "opening_ms")) >= 80);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "turn_ms")), turns);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(o, "turn_ms"))
		assert_true(t->valuedouble < 40); /* the opening's 80 ms are not in the first */
	cJSON_Delete(o);
	(*calls)++;
	return 0;
}

static void replies_by_kind_and_turn_latency(void **state)
{
	struct fixture *fx = *state;
	struct benchdb *db = NULL;
	struct bench_counts c = {0};
	char *msg = NULL;
	int calls = 0;
	fx->b.cfg.reply = (struct backend){"slow", &slow_opening_ops, NULL};
	fx->b.cfg.reply_spec = "slow";
	fx->b.cfg.stages = BENCH_STT | BENCH_CALLS;
	assert_int_equal(benchdb_open(fx->b.db, &db, &msg), ERR_OK);
	assert_int_equal(bench_run(&fx->b.cfg, db, &c, &msg), ERR_OK);
	char *scope = bench_scope(&fx->b.cfg);
	assert_int_equal(benchdb_each(db, "call", scope, "fake+fake+slow", latency_row, &calls), ERR_OK);
	assert_int_equal(calls, expected("calls"));
	free(scope);
	benchdb_close(db);
}

/* planted row (tests/data/fieldacc/planted.tsv): the final form a call ends with, scored
 * field by field (asked, right, right over all fields) against the corpus's expected form
 * ud, and by the path's denominator (score_call's). */
struct planted_on {
	const struct form *form;
	const struct corpus_call *call;
};

static void planted_row(struct table_row *r, const void *ud)
{
	const struct planted_on *on = ud;
	const struct form *form = on->form;
	const struct corpus_call *call = on->call;
	cJSON *data = cJSON_Parse(r->col[1]), *st = cJSON_Parse(r->col[2]);
	struct bench_field_score fs[5];
	struct score sc = {0};
	int correct_all = 0;
	const char *want = r->col[3]; /* three digits a field, separated by spaces */
	assert_int_equal(form->n_questions, 5);
	assert_int_equal(strlen(want), 5 * 4 - 1);
	bench_score_fields(form, call->expected_data, call->expected_status, data, st, fs);
	for (int i = 0; i < 5; i++) {
		const char *w = want + 4 * i;
		if (fs[i].asked != w[0] - '0' || fs[i].ok != w[1] - '0' || fs[i].ok_all != w[2] - '0')
			fail_msg("%s: %s: field %s is [%d,%d,%d], want [%c,%c,%c]", r->name, r->col[0],
				 form->questions[i].name, fs[i].asked, fs[i].ok, fs[i].ok_all, w[0], w[1],
				 w[2]);
		correct_all += fs[i].ok_all;
	}
	/* the path denominator is score_call's */
	assert_int_equal(score_call(form, call->expected_data, call->expected_status, data, st, &sc, NULL),
			 ERR_OK);
	assert_int_equal(sc.fields, atoi(r->col[4]));
	assert_int_equal(sc.correct, atoi(r->col[5]));
	assert_int_equal(correct_all, atoi(r->col[7]));
	cJSON_Delete(data);
	cJSON_Delete(st);
}

static void field_scores_planted(void **state)
{
	struct form *form = NULL;
	struct corpus *corpus = NULL;
	char *msg = NULL;
	(void)state;
	assert_int_equal(form_load("tests/data/fieldacc/form.json", &form, NULL), ERR_OK);
	assert_int_equal(corpus_load("tests/data/fieldacc", &corpus, &msg), ERR_OK);
	const struct planted_on on = {form, &corpus->calls[0]};
	assert_int_equal(table_each("tests/data/fieldacc/planted.tsv", 8, 8, 0, planted_row, &on), 6);
	form_free(form);
	corpus_free(corpus);
}

/* Stage attribution and the report's field-level figures on the same corpus run with
 * the fake STT and EXTRACT (tests/data/bench_fake.tsv): c_ok, c_string (the rules repair
 * "24") and c_closed (the rules ignore months) end right; c_digit goes wrong at turn 2 by
 * EXTRACT (age 25), c_index at turn 3 by EXTRACT (index 7 refused, no retry left), c_stt
 * at turn 3 by STT ("zila kuch bhi"); the district allows no retry and is required, so
 * those two calls fail there, pregnant never asked. Hand count over the fields the path
 * asks: 6 calls x 4 = 24 fields, 5 wrong (c_digit's age; c_index's and c_stt's district
 * and pregnant) = 19; over all fields 6 x 5 = 30, 25 (months is never captured, right
 * left empty). */
struct fault_sum {
	int calls, turn[8];
	char stage[8][16], id[8][16];
};

static int fault_row(void *ud, const char *spec, const char *key, const char *data)
{
	struct fault_sum *s = ud;
	cJSON *o = cJSON_Parse(data);
	const cJSON *fault = cJSON_GetObjectItemCaseSensitive(o, "fault");
	if (fault && s->calls < 8) {
		snprintf(s->id[s->calls], sizeof s->id[0], "%s", key);
		snprintf(s->stage[s->calls], sizeof s->stage[0], "%s",
			 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fault, "stage")));
		s->turn[s->calls++] = (int)benchfix_num(fault, "turn");
	}
	cJSON_Delete(o);
	return 0;
}

/* file_has: the file dir/name, read whole, holds each of the n texts of want; the failure
 * names the file and the text missing. */
static void file_has(const char *dir, const char *name, const char *const *want, size_t n)
{
	char path[256], *text = NULL;
	size_t cap = 0;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &cap, '\0', f) > 0);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!strstr(text, want[i]))
			fail_msg("%s has no \"%s\"", name, want[i]);
	free(text);
}

static void stage_attribution_planted(void **state)
{
	struct form *form = NULL;
	struct corpus *corpus = NULL;
	struct benchdb *db = NULL;
	struct bench_counts c = {0};
	char *msg = NULL, dbp[64], out[64], cmd[320];
	struct fault_sum fs = {0};
	(void)state;
	if (!n_stt)
		load_fakes();
	assert_int_equal(form_load("tests/data/fieldacc/form.json", &form, NULL), ERR_OK);
	assert_int_equal(corpus_load("tests/data/fieldacc", &corpus, &msg), ERR_OK);
	struct lexicon *lex = NULL;
	assert_int_equal(lexicon_load(lexicon_default_dir(), &lex, NULL), ERR_OK);
	struct bench_config cfg = {
		.form = form, .form_path = "tests/data/fieldacc/form.json", .lex = lex,
		.corpus = corpus, .today = corpus->today, .stt_spec = "fake", .extract_spec = "fake",
		.reply_spec = "script", .stt = {"fake", &fake_stt_ops, NULL},
		.extract = {"fake", &fake_extract_ops, NULL},
		.reply = {"script", &counting_reply_ops, NULL}, .concurrency = 2};
	snprintf(dbp, sizeof dbp, "/tmp/test_bench_fa_%d.db", (int)getpid());
	snprintf(out, sizeof out, "/tmp/test_bench_fa_%d", (int)getpid());
	unlink(dbp);
	assert_int_equal(benchdb_open(dbp, &db, &msg), ERR_OK);
	assert_int_equal(bench_run(&cfg, db, &c, &msg), ERR_OK);
	char *scope = bench_scope(&cfg);
	assert_int_equal(benchdb_each(db, "call", scope, "fake+fake+script", fault_row, &fs), ERR_OK);
	static const struct {
		const char *call, *stage;
		int turn;
	} want[] = {{"c_digit", "EXTRACT", 2}, {"c_index", "EXTRACT", 3}, {"c_stt", "STT", 3}};
	assert_int_equal(fs.calls, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(fs.id[i], want[i].call);
		assert_string_equal(fs.stage[i], want[i].stage);
		assert_int_equal(fs.turn[i], want[i].turn);
	}
	/* the report: both denominators, per stage, and results-field.csv */
	assert_int_equal(benchreport_write(db, scope, &cfg, &c, out, &msg), ERR_OK);
	static const char *const md_has[] = {
		"answered or skipped): 19 of 24 fields",
		"counts as wrong): 25 of 30",
		"| STT | 1 |",
		"| EXTRACT | 2 |",
		"| rules | 0 |",
		"| `c_index` | 3 | `district` | answered `\"Gaya\"` | skipped `null` | EXTRACT |",
		"| `c_digit` | 2 | `age` | answered `24` | answered `25` | EXTRACT |",
	};
	static const char *const csv_has[] = {
		"call:fake+fake+script,age,*,*,6,5,0.833333,",
		"call:fake+fake+script,district,noise,*,3,1,0.333333,",
		"call:fake+fake+script,months,*,*,0,0,",
	};
	file_has(out, "report.md", md_has, sizeof md_has / sizeof md_has[0]);
	file_has(out, "results-field.csv", csv_has, sizeof csv_has / sizeof csv_has[0]);
	char path[128];
	snprintf(path, sizeof path, "%s/field-accuracy.svg", out);
	assert_int_equal(access(path, R_OK), 0);
	free(scope);
	benchdb_close(db);
	snprintf(cmd, sizeof cmd, "rm -rf %s %s %s-wal %s-shm", out, dbp, dbp, dbp);
	assert_int_equal(system(cmd), 0);
	lexicon_free(lex);
	form_free(form);
	corpus_free(corpus);
}

static void reply_checks(void **state)
{
	FILE *f = fopen("tests/data/replycheck.tsv", "r");
	char line[2048];
	int rows = 0;
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		char *c[7], text[1024];
		int want[5];
		struct replycheck rc;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		assert_int_equal(split(line, c, 7), 7);
		for (int i = 1; i < 6; i++)
			if (!strcmp(c[i], "-"))
				c[i] = NULL;
		/* "\n" written as two characters stands for a line break. */
		size_t n = 0;
		for (const char *p = c[1]; *p && n + 1 < sizeof text; p++)
			if (p[0] == '\\' && p[1] == 'n') {
				text[n++] = '\n';
				p++;
			} else {
				text[n++] = *p;
			}
		text[n] = '\0';
		assert_int_equal(sscanf(c[6], "%d %d %d %d %d", &want[0], &want[1], &want[2], &want[3],
					&want[4]),
				 5);
		struct replycheck_input in = {text, c[2], c[3], c[4], c[5]};
		assert_int_equal(replycheck_grade(&in, &rc), ERR_OK);
		bool got[5] = {rc.asks, rc.hindi, rc.single_line, rc.no_ack, rc.no_echo};
		for (int d = 0; d < 5; d++)
			if (got[d] != (want[d] == 1))
				fail_msg("replycheck.tsv %s: dimension %d is %d, want %d (%s)", c[0], d,
					 got[d], want[d], rc.why);
		assert_int_equal(rc.pass, want[0] && want[1] && want[2] && want[3] && want[4]);
		rows++;
	}
	fclose(f);
	assert_true(rows >= 10);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(counts_scores_and_resume, setup, teardown),
	  cmocka_unit_test_setup_teardown(second_model_side_by_side, setup, teardown),
	  cmocka_unit_test_setup_teardown(replies_by_kind_and_turn_latency, setup, teardown),
	  cmocka_unit_test(field_scores_planted),
	  cmocka_unit_test(stage_attribution_planted),
	  cmocka_unit_test(reply_checks))
