/* Volunteered answers, typed calls: each row of tests/data/volunteer_calls.tsv is a call on
 * the enrollment form, its caller turns typed, read by the offline extractor and decided
 * by the rule layer (agent/rules/flow.h says the rules: held values, free re-asks, a field listed
 * twice). The expectations are checked on each turn's decision as JSON (what the store
 * keeps and REPLY receives) and on the flow's views. Today is 29-11-2026.
 *
 * Row: id, turns separated by " | ", then one expectation per turn, also " | "-separated,
 * each a space-separated list of checks:
 *   ask=F          the decision asks F          end=S   it ends the call with status S
 *   retry=N        ask_question's retry is N    free=N  retries.free_reasks.used (0: absent)
 *   error / noerror  ask_question has / has no "error"
 *   F:S            a capture of F with status S (answered, held, dropped, invalid, ...)
 *   F=V            a capture of F answered with value V (JSON, e.g. 6 or "Gaya")
 *   F@N            a capture of F carries "turn": N (the turn the value was said in)
 *   F~B            a capture of F carries "branch": B
 *   fault / nofault  the decision's faults are / are not empty
 *   held=F         F is in flow_held_view after the turn    form:F=S  flow_form_status
 *   pane:F=S       the Form pane's status of F (tui/callview.h), "held" with the branch
 *   -              nothing to check
 * Every decision is also recorded in a session store: its captures rows must carry each
 * capture's status and reason (held and dropped ones included).
 * Turns may also be given as EXTRACT output instead of words: "{json}" is an extraction
 * object ({"items":[{"field","value"}...]}) used as is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/stages/extract_rules.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "sessions/store/store.h"
#include "tests/support/table.h"
#include "tests/support/tmpdir.h"
#include "tui/callview.h"

static const struct ymd today = {2026, 11, 29};
static struct form *form;
static struct lexicon *lex;

/* split: s cut in place at each " | "; up to max parts into v. Returns the count. */
static int split(char *s, char **v, int max)
{
	int n = 0;
	while (s && n < max) {
		v[n++] = s;
		char *bar = strstr(s, " | ");
		if (bar) {
			*bar = '\0';
			s = bar + 3;
		} else {
			s = NULL;
		}
	}
	return n;
}

/* The capture of field in d's "captured" whose key k holds, or NULL. */
static const cJSON *capture(const cJSON *d, const char *field, const char *k, const char *want,
			    int turn)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(d, "captured")) {
		const cJSON *f = cJSON_GetObjectItem(c, "field");
		if (!cJSON_IsString(f) || strcmp(f->valuestring, field) != 0)
			continue;
		const cJSON *v = cJSON_GetObjectItem(c, k);
		if (turn > 0 ? cJSON_IsNumber(v) && v->valueint == turn
			     : cJSON_IsString(v) && strcmp(v->valuestring, want) == 0)
			return c;
		if (!want && turn == 0)
			return c;
	}
	return NULL;
}

static void check(const struct table_row *r, int t, const cJSON *d, const struct flow *fl,
		  char *spec)
{
	char *text = cJSON_PrintUnformatted(d);
	const cJSON *tc = cJSON_GetObjectItem(d, "tool_call");
	const cJSON *args = cJSON_GetObjectItem(tc, "arguments");
	const char *tool = cJSON_GetObjectItem(tc, "name")->valuestring;
	char *save = NULL;
	for (char *c = strtok_r(spec, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
		bool ok = true;
		char *eq = strchr(c, '='), *co = strchr(c, ':'), *at = strchr(c, '@'),
		     *ti = strchr(c, '~');
		if (strcmp(c, "-") == 0) {
		} else if (strncmp(c, "ask=", 4) == 0) {
			ok = strcmp(tool, "ask_question") == 0 &&
			     strcmp(cJSON_GetObjectItem(args, "field")->valuestring, c + 4) == 0;
		} else if (strncmp(c, "end=", 4) == 0) {
			ok = strcmp(tool, "end_call") == 0 &&
			     strcmp(cJSON_GetObjectItem(args, "status")->valuestring, c + 4) == 0;
		} else if (strncmp(c, "retry=", 6) == 0) {
			const cJSON *v = cJSON_GetObjectItem(args, "retry");
			ok = cJSON_IsNumber(v) && v->valueint == atoi(c + 6);
		} else if (strncmp(c, "free=", 5) == 0) {
			const cJSON *fr = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "retries"), "free_reasks");
			int want = atoi(c + 5);
			ok = want == 0 ? fr == NULL : cJSON_GetObjectItem(fr, "used")->valueint == want;
		} else if (strcmp(c, "error") == 0 || strcmp(c, "noerror") == 0) {
			ok = (cJSON_GetObjectItem(args, "error") != NULL) == (c[0] == 'e');
		} else if (strcmp(c, "fault") == 0 || strcmp(c, "nofault") == 0) {
			ok = (cJSON_GetArraySize(cJSON_GetObjectItem(d, "faults")) > 0) == (c[0] == 'f');
		} else if (strncmp(c, "held=", 5) == 0) {
			ok = cJSON_GetObjectItem(flow_held_view(fl), c + 5) != NULL;
		} else if (strncmp(c, "pane:", 5) == 0 && eq) {
			*eq = '\0';
			struct callview_snap *s = callview_snap_new(form, fl);
			int q = form_find(form, c + 5);
			assert_non_null(s);
			ok = q >= 0 && strcmp(s->f[q].status, eq + 1) == 0 &&
			     (strcmp(eq + 1, "held") != 0 || strstr(s->f[q].value, "waits for"));
			callview_snap_free(s);
			*eq = '=';
		} else if (strncmp(c, "form:", 5) == 0 && eq) {
			*eq = '\0';
			const cJSON *s = cJSON_GetObjectItem(flow_form_status(fl), c + 5);
			ok = cJSON_IsString(s) && strcmp(s->valuestring, eq + 1) == 0;
			*eq = '=';
		} else if (eq) {
			*eq = '\0';
			const cJSON *k = capture(d, c, "status", "answered", 0);
			cJSON *want = cJSON_Parse(eq + 1);
			ok = k && want && cJSON_Compare(cJSON_GetObjectItem(k, "value"), want, true);
			cJSON_Delete(want);
			*eq = '=';
		} else if (co) {
			*co = '\0';
			ok = capture(d, c, "status", co + 1, 0) != NULL;
			*co = ':';
		} else if (at) {
			*at = '\0';
			ok = capture(d, c, "turn", NULL, atoi(at + 1)) != NULL;
			*at = '@';
		} else if (ti) {
			*ti = '\0';
			ok = capture(d, c, "branch", ti + 1, 0) != NULL;
			*ti = '~';
		} else {
			fail_msg("%s: unknown check '%s'", r->name, c);
		}
		if (!ok)
			fail_msg("%s turn %d: '%s' does not hold in\n%s", r->name, t, c, text);
	}
	free(text);
}

/* extraction_of: a turn's EXTRACT output: the offline extractor on the words, or the
 * JSON given. */
static struct extraction *extraction_of(const struct flow *fl, const char *turn)
{
	struct extraction *ex = NULL;
	if (turn[0] == '{') {
		cJSON *j = cJSON_Parse(turn);
		assert_non_null(j);
		ex = extraction_new();
		assert_non_null(ex);
		const cJSON *it;
		cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "items"))
			assert_int_equal(extraction_add(ex, cJSON_GetObjectItem(it, "field")->valuestring,
							cJSON_Duplicate(cJSON_GetObjectItem(it, "value"), true),
							false, NULL, NULL), ERR_OK);
		cJSON_Delete(j);
		return ex;
	}
	struct extract_request req = {.form = form, .lex = lex, .asked = flow_current(fl),
				      .transcript = turn, .today = today};
	assert_int_equal(extract_rules_extract(NULL, &req, &ex), ERR_OK);
	return ex;
}

/* The store's captures rows of turn index t of call id: one per capture of d, with its
 * status and reason. */
static void check_store(struct store *st, long long call, int t, const cJSON *d)
{
	struct store_turn_row *turns = NULL;
	struct store_capture *caps = NULL;
	int nt = 0, nc = 0;
	assert_int_equal(store_turns(st, call, &turns, &nt), ERR_OK);
	assert_true(nt >= t);
	assert_int_equal(store_captures(st, 0, turns[t - 1].id, &caps, &nc), ERR_OK);
	assert_int_equal(nc, cJSON_GetArraySize(cJSON_GetObjectItem(d, "captured")));
	int i = 0;
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(d, "captured")) {
		const cJSON *r = cJSON_GetObjectItem(c, "reason");
		assert_string_equal(caps[i].status, cJSON_GetObjectItem(c, "status")->valuestring);
		if (cJSON_IsString(r))
			assert_string_equal(caps[i].reason, r->valuestring);
		i++;
	}
	store_captures_free(caps, nc);
	store_turns_free(turns, nt);
}

static void call_row(void **state)
{
	const struct table_row *r = *state;
	char *turns_s = strdup(r->col[1]), *exp_s = strdup(r->col[2]);
	char *turns[32], *exps[32];
	int nt = split(turns_s, turns, 32), ne = split(exp_s, exps, 32);
	if (nt != ne)
		fail_msg("%s: %d turns but %d expectations", r->name, nt, ne);
	struct flow *fl = NULL;
	struct decision *dd = NULL;
	char dir[128], path[200];
	struct store *st = NULL;
	long long call = 0;
	assert_int_equal(tmpdir_make(dir, sizeof dir, "volunteer"), 0);
	snprintf(path, sizeof path, "%s/calls.db", dir);
	assert_int_equal(store_open(path, &st, NULL), ERR_OK);
	assert_int_equal(store_call_begin(st, &(struct store_call_info){.caller = r->col[0]}, &call),
			 ERR_OK);
	assert_int_equal(flow_new(form, lex, today, &fl), ERR_OK);
	assert_int_equal(flow_start(fl, &dd), ERR_OK);
	decision_free(dd);
	for (int t = 0; t < nt; t++) {
		struct extraction *ex = extraction_of(fl, turns[t]);
		assert_int_equal(flow_turn(fl, ex, &dd), ERR_OK);
		cJSON *d = decision_to_json(dd);
		assert_non_null(d);
		/* the record reads back as it was written, held and free re-asks included */
		struct decision *back = NULL;
		assert_int_equal(decision_from_json(d, &back), ERR_OK);
		cJSON *d2 = decision_to_json(back);
		assert_true(cJSON_Compare(d, d2, true));
		check(r, t + 1, d, fl, exps[t]);
		assert_int_equal(store_turn_add(st, call, &(struct store_turn){
			.index = t + 1, .transcript = turns[t], .decision_json = d,
			.seg_start_ms = -1, .seg_end_ms = -1}), ERR_OK);
		check_store(st, call, t + 1, d);
		cJSON_Delete(d2);
		decision_free(back);
		cJSON_Delete(d);
		decision_free(dd);
		extraction_free(ex);
	}
	flow_free(fl);
	store_close(st);
	tmpdir_remove(dir);
	free(turns_s);
	free(exp_s);
}

int main(void)
{
	struct form_issues is = {0};
	char *msg = NULL;
	if (form_load("forms/armman_enrollment.json", &form, &is) != ERR_OK ||
	    lexicon_load(lexicon_default_dir(), &lex, &msg) != ERR_OK) {
		fprintf(stderr, "test_volunteer: cannot load the form or the word lists: %s\n",
			msg ? msg : is.n ? is.v[0].message : "error");
		return 1;
	}
	form_issues_free(&is);
	struct table_row *rows;
	int n;
	table_load("tests/data/volunteer_calls.tsv", 3, 3, 0, &rows, &n);
	struct CMUnitTest *tests = NULL;
	size_t k = 0;
	for (int i = 0; i < n; i++)
		snprintf(rows[i].name, sizeof(rows[i].name), "%s: %.150s", rows[i].col[0], rows[i].col[1]);
	table_tests(&tests, &k, rows, n, call_row);
	int rc = _cmocka_run_group_tests("volunteer", tests, k, NULL, NULL);
	free(tests);
	table_free(rows, n);
	lexicon_free(lex);
	form_free(form);
	return rc;
}
