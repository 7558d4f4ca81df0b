/* The call flow (rule layer) and the script replier: the enrollment form's 48 branch
 * paths (FormBharo paper: 2 pregnancy x 3 linked number x 4 WhatsApp x 2 Aadhaar) driven
 * with extraction items built directly, then retries, end_call_values, branches,
 * several fields in one turn, corrections and faults. Today is 29-11-2026 throughout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/stages/reply_script.h"
#include "tests/support/testmain.h"

static const struct ymd today = {2026, 11, 29};

/* The decisions the rule layer made on the 48 paths when it still built them as JSON
 * itself, each printed once (unformatted, sorted, without repeats): every decision of the
 * walk must print as one of them, byte for byte, and every one must be met. When the
 * form or the rules change on purpose, FORMDESK_WRITE_GOLDEN=1 rewrites the file. */
#define GOLDEN "tests/data/flow_48_decisions.jsonl"
static struct {
	bool on;
	char **line;
	bool *seen;
	int n;
	FILE *out;          /* FORMDESK_WRITE_GOLDEN: every decision, for sort -u */
} golden;

static void golden_open(void)
{
	const char *w = getenv("FORMDESK_WRITE_GOLDEN");
	memset(&golden, 0, sizeof golden);
	golden.on = true;
	if (w && *w && strcmp(w, "0") != 0) {
		golden.out = fopen(GOLDEN ".all", "w");
		assert_non_null(golden.out);
		return;
	}
	FILE *f = fopen(GOLDEN, "r");
	assert_non_null(f);
	char *l = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&l, &cap, f)) > 0) {
		if (l[len - 1] == '\n')
			l[len - 1] = '\0';
		golden.line = realloc(golden.line, (size_t)(golden.n + 1) * sizeof(char *));
		assert_non_null(golden.line);
		golden.line[golden.n] = strdup(l);
		assert_non_null(golden.line[golden.n++]);
	}
	free(l);
	fclose(f);
	golden.seen = calloc((size_t)golden.n + 1, sizeof(bool));
	assert_non_null(golden.seen);
	assert_true(golden.n > 0);
}

static void golden_check(const char *text)
{
	if (!golden.on)
		return;
	if (golden.out) {
		fprintf(golden.out, "%s\n", text);
		return;
	}
	for (int i = 0; i < golden.n; i++)
		if (strcmp(golden.line[i], text) == 0) {
			golden.seen[i] = true;
			return;
		}
	fail_msg("a decision unlike any the rules made before:\n%s", text);
}

static void golden_close(void)
{
	if (golden.out) {
		fclose(golden.out);
		print_message("wrote " GOLDEN ".all: sort -u it into " GOLDEN "\n");
	}
	for (int i = 0; i < golden.n; i++) {
		if (!golden.seen[i])
			fail_msg("a decision the rules made before was not made:\n%s", golden.line[i]);
		free(golden.line[i]);
	}
	free(golden.line);
	free(golden.seen);
	memset(&golden, 0, sizeof golden);
}

/* json_of: the decision as JSON (dd freed), checked on the way: decision_from_json reads
 * back exactly what decision_to_json wrote, and decision_dup copies all of it. */
static cJSON *json_of(struct decision *dd)
{
	cJSON *j = decision_to_json(dd);
	assert_non_null(j);
	struct decision *back = NULL, *copy = decision_dup(dd);
	assert_non_null(copy);
	assert_int_equal(decision_from_json(j, &back), ERR_OK);
	cJSON *j2 = decision_to_json(back), *j3 = decision_to_json(copy);
	char *a = cJSON_PrintUnformatted(j), *b = cJSON_PrintUnformatted(j2),
	     *c = cJSON_PrintUnformatted(j3);
	assert_non_null(a);
	assert_string_equal(a, b);
	assert_string_equal(a, c);
	golden_check(a);
	free(a);
	free(b);
	free(c);
	cJSON_Delete(j2);
	cJSON_Delete(j3);
	decision_free(back);
	decision_free(copy);
	decision_free(dd);
	return j;
}

/* One extraction item: field, raw value as JSON text (NULL for none), skip flag. */
struct it {
	const char *field;
	const char *json;
	bool skip;
};

static struct form *load(const char *path)
{
	struct form *f = NULL;
	assert_int_equal(form_load(path, &f, NULL), ERR_OK);
	return f;
}

static struct form *parse(const char *text)
{
	struct form *f = NULL;
	struct form_issues is;
	enum err e = form_parse(text, &f, &is);
	if (e != ERR_OK) {
		char *js = form_issues_json(&is);
		print_error("bad test form: %s\n", js);
		free(js);
	}
	form_issues_free(&is);
	assert_int_equal(e, ERR_OK);
	return f;
}

static struct flow *start(const struct form *f, cJSON **d)
{
	struct flow *fl = NULL;
	struct decision *dd = NULL;
	assert_int_equal(flow_new(f, NULL, today, &fl), ERR_OK);
	assert_int_equal(flow_start(fl, &dd), ERR_OK);
	*d = json_of(dd);
	return fl;
}

/* started: a flow on f begun, its opening decision (checked by json_of) dropped. Output:
 * the flow (caller frees). */
static struct flow *started(const struct form *f)
{
	cJSON *d;
	struct flow *fl = start(f, &d);
	cJSON_Delete(d);
	return fl;
}

/* Apply one caller turn of n items; returns the decision (caller frees). */
static cJSON *turn(struct flow *fl, const struct it *items, int n)
{
	struct extraction *ex = extraction_new();
	assert_non_null(ex);
	for (int i = 0; i < n; i++) {
		cJSON *v = items[i].json ? cJSON_Parse(items[i].json) : NULL;
		if (items[i].json)
			assert_non_null(v);
		assert_int_equal(extraction_add(ex, items[i].field, v, items[i].skip,
						items[i].skip ? "dont_know" : NULL, NULL), ERR_OK);
	}
	struct decision *d = NULL;
	assert_int_equal(flow_turn(fl, ex, &d), ERR_OK);
	extraction_free(ex);
	return json_of(d);
}

#define TURN(fl, ...) turn(fl, (struct it[]){__VA_ARGS__}, \
	(int)(sizeof((struct it[]){__VA_ARGS__}) / sizeof(struct it)))

static const char *tool(const cJSON *d)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(d, "tool_call"), "name")->valuestring;
}

static const cJSON *arg(const cJSON *d, const char *k)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "tool_call"), "arguments"), k);
}

static const char *asking(const cJSON *d)
{
	return strcmp(tool(d), "ask_question") == 0 ? arg(d, "field")->valuestring : NULL;
}

static char *reply(const struct form *f, const cJSON *d)
{
	struct reply_request rq = {f, d, NULL, NULL};
	char *text = NULL;
	assert_int_equal(reply_script_reply(NULL, &rq, &text), ERR_OK);
	return text;
}

static void assert_json(const cJSON *got, const char *want)
{
	cJSON *w = cJSON_Parse(want);
	assert_non_null(w);
	if (!cJSON_Compare(got, w, true)) {
		char *g = cJSON_PrintUnformatted(got);
		print_error("expected %s\n     got %s\n", want, g);
		free(g);
		cJSON_Delete(w);
		fail();
	}
	cJSON_Delete(w);
}

/* want's form_data less the fields st marks empty: FormBharo's form_data holds only the
 * questions that were put (answered values, null for skipped). Returns a static buffer. */
static const char *without_empty(const char *want, const char *st)
{
	static char buf[2048];
	cJSON *w = cJSON_Parse(want), *s = cJSON_Parse(st), *it;
	assert_non_null(w);
	assert_non_null(s);
	cJSON_ArrayForEach(it, s)
		if (strcmp(it->valuestring, "empty") == 0)
			cJSON_DeleteItemFromObjectCaseSensitive(w, it->string);
	char *p = cJSON_PrintUnformatted(w);
	snprintf(buf, sizeof(buf), "%s", p);
	free(p);
	cJSON_Delete(w);
	cJSON_Delete(s);
	return buf;
}

/* ---- the 48 branch paths ---- */

enum linked { L_SAME, L_GIVEN, L_FORGOT };
enum wa { W_SAME, W_GIVEN, W_FORGOT, W_CANNOT_SAY };

/* The simulated caller's answer to the question asked, along the path. */
static struct it answer(const char *asked, bool pregnant, enum linked l, enum wa w, bool aadhaar)
{
	static const struct {
		const char *field, *json;
	} fixed[] = {
		{"name", "\"Sunita Devi\""},       {"district", "1"},
		{"clinic_name", "\"PHC Gaya\""},   {"gestational_age", "\"5\""},
		{"child_name", "\"Aarav\""},       {"child_dob", "\"12-03-2025\""},
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (strcmp(asked, fixed[i].field) == 0)
			return (struct it){asked, fixed[i].json, false};
	if (strcmp(asked, "pregnant") == 0)
		return (struct it){asked, pregnant ? "\"haan\"" : "false", false};
	if (strcmp(asked, "phone_linked") == 0)
		return (struct it){asked, l == L_SAME ? "true" : "\"no\"", false};
	if (strcmp(asked, "linked_number") == 0)
		return l == L_GIVEN ? (struct it){asked, "\"+91 98765 43210\"", false}
				    : (struct it){asked, NULL, true};
	if (strcmp(asked, "whatsapp_same") == 0)
		return w == W_CANNOT_SAY ? (struct it){asked, NULL, true}
					 : (struct it){asked, w == W_SAME ? "true" : "false", false};
	if (strcmp(asked, "whatsapp_number") == 0)
		return w == W_GIVEN ? (struct it){asked, "9123456780", false} : (struct it){asked, NULL, true};
	if (strcmp(asked, "aadhaar_last4") == 0)
		return aadhaar ? (struct it){asked, "\"4821\"", false} : (struct it){asked, NULL, true};
	fail_msg("unexpected question %s", asked);
	return (struct it){0};
}

static void test_48_paths(void **state)
{
	(void)state;
	struct form *f = load("forms/armman_enrollment.json");
	int paths = 0;
	golden_open();
	for (int p = 0; p < 2; p++)
	for (int l = 0; l < 3; l++)
	for (int w = 0; w < 4; w++)
	for (int a = 0; a < 2; a++) {
		bool preg = p == 0, aad = a == 0;
		cJSON *d;
		struct flow *fl = start(f, &d);
		char *text = reply(f, d);
		assert_non_null(strstr(text, f->intro));
		assert_non_null(strstr(text, f->questions[0].script));
		free(text);
		int turns = 0;
		char order[512] = "";
		while (strcmp(tool(d), "ask_question") == 0) {
			const char *q = f->questions[form_find(f, asking(d))].name;
			assert_int_equal(arg(d, "retry")->valueint, 0);
			strcat(order, q);
			strcat(order, " ");
			struct it ans = answer(q, preg, (enum linked)l, (enum wa)w, aad);
			cJSON_Delete(d);
			d = turn(fl, &ans, 1);
			turns++;
			assert_true(turns <= 12);
			text = reply(f, d);
			assert_true(strlen(text) > 0);
			free(text);
		}
		/* Path expectations. */
		char want[2048], st[1024];
		snprintf(want, sizeof(want),
			 "{\"name\":\"Sunita Devi\",\"district\":\"Gaya\",\"clinic_name\":\"PHC Gaya\","
			 "\"pregnant\":%s,\"gestational_age\":%s,\"child_name\":%s,\"child_dob\":%s,"
			 "\"phone_linked\":%s,\"linked_number\":%s,\"whatsapp_same\":%s,"
			 "\"whatsapp_number\":%s,\"aadhaar_last4\":%s}",
			 preg ? "true" : "false", preg ? "5" : "null", preg ? "null" : "\"Aarav\"",
			 preg ? "null" : "\"12-03-2025\"", l == L_SAME ? "true" : "false",
			 l == L_GIVEN ? "9876543210" : "null",
			 w == W_SAME ? "true" : w == W_CANNOT_SAY ? "null" : "false",
			 w == W_GIVEN ? "9123456780" : "null", aad ? "\"4821\"" : "null");
		snprintf(st, sizeof(st),
			 "{\"name\":\"answered\",\"district\":\"answered\",\"clinic_name\":\"answered\","
			 "\"pregnant\":\"answered\",\"gestational_age\":\"%s\",\"child_name\":\"%s\","
			 "\"child_dob\":\"%s\",\"phone_linked\":\"answered\",\"linked_number\":\"%s\","
			 "\"whatsapp_same\":\"%s\",\"whatsapp_number\":\"%s\",\"aadhaar_last4\":\"%s\"}",
			 preg ? "answered" : "empty", preg ? "empty" : "answered", preg ? "empty" : "answered",
			 l == L_SAME ? "empty" : l == L_GIVEN ? "answered" : "skipped",
			 w == W_CANNOT_SAY ? "skipped" : "answered",
			 w == W_SAME || w == W_CANNOT_SAY ? "empty" : w == W_GIVEN ? "answered" : "skipped",
			 aad ? "answered" : "skipped");
		int want_turns = 4 + (preg ? 1 : 2) + 1 + (l != L_SAME) + 1 +
				 (w == W_GIVEN || w == W_FORGOT) + 1;
		if (turns != want_turns)
			print_error("path p%d l%d w%d a%d: %d turns, expected %d (%s)\n", p, l, w, a,
				    turns, want_turns, order);
		assert_int_equal(turns, want_turns);
		assert_string_equal(tool(d), "end_call");
		assert_string_equal(arg(d, "status")->valuestring, "complete");
		assert_string_equal(arg(d, "script")->valuestring, f->outro);
		assert_int_equal(flow_status(fl), CALL_COMPLETE);
		assert_int_equal(flow_current(fl), -1);
		assert_json(flow_form_data(fl), without_empty(want, st));
		assert_json(flow_form_status(fl), st);
		text = reply(f, d);
		assert_non_null(strstr(text, f->outro));
		free(text);
		/* The call has ended: no more turns. */
		struct decision *d2 = NULL;
		assert_int_equal(flow_turn(fl, NULL, &d2), ERR_INVALID);
		cJSON_Delete(d);
		flow_free(fl);
		paths++;
	}
	golden_close();
	assert_int_equal(paths, 48);
	form_free(f);
}

/* ---- retries ---- */

static void test_required_exhausted_fails(void **state)
{
	(void)state;
	struct form *f = load("forms/armman_enrollment.json");
	struct flow *fl = started(f);
	cJSON *d = TURN(fl, {"name", "\"Sunita\"", false});
	assert_string_equal(asking(d), "district");
	/* district: max_retries 2 -> asked, re-asked twice, then the call ends. */
	for (int i = 1; i <= 3; i++) {
		cJSON_Delete(d);
		d = turn(fl, NULL, 0);
		if (i < 3) {
			assert_string_equal(asking(d), "district");
			assert_int_equal(arg(d, "retry")->valueint, i);
			char *text = reply(f, d);
			assert_string_equal(text, f->questions[1].retry_messages[i - 1]);
			free(text);
		}
	}
	assert_string_equal(tool(d), "end_call");
	assert_string_equal(arg(d, "status")->valuestring, "failed");
	assert_string_equal(arg(d, "reason")->valuestring, "retries_exhausted");
	assert_string_equal(arg(d, "script")->valuestring, f->outro_incomplete);
	assert_json(cJSON_GetObjectItem(d, "retries"),
		    "{\"field\":\"district\",\"used\":3,\"max\":2,\"left\":0,\"until_answered\":false}");
	assert_int_equal(flow_status(fl), CALL_FAILED);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(flow_form_data(fl), "district")));
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "district")->valuestring, "skipped");
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "clinic_name")->valuestring, "empty");
	char *text = reply(f, d);
	assert_string_equal(text, f->outro_incomplete);
	free(text);
	cJSON_Delete(d);
	flow_free(fl);
	form_free(f);
}

static void test_optional_exhausted_skips(void **state)
{
	(void)state;
	struct form *f = load("forms/armman_enrollment.json");
	struct flow *fl = started(f);
	cJSON *d = TURN(fl, {"name", "\"S\"", false}); /* too short: invalid, re-ask with the error */
	assert_string_equal(asking(d), "name");
	assert_int_equal(arg(d, "retry")->valueint, 1);
	assert_string_equal(arg(d, "error")->valuestring,
			    "Value must be at least 2 characters long (got 1).");
	cJSON_Delete(d);
	d = turn(fl, NULL, 0); /* max_retries 1: exhausted, optional -> skipped */
	assert_string_equal(asking(d), "district");
	assert_json(cJSON_GetObjectItem(d, "skipped"), "[\"name\"]");
	assert_string_equal(cJSON_GetObjectItem(d, "reason")->valuestring,
			    "name ran out of retries (2 answers failed; all 1 re-asks used); it is "
			    "optional, so it is skipped. Next question: district.");
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "name")->valuestring, "skipped");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(flow_form_data(fl), "name")));
	char *text = reply(f, d);
	char want[1024];
	snprintf(want, sizeof(want), "%s %s", f->questions[0].skip_message, f->questions[1].script);
	assert_string_equal(text, want);
	free(text);
	cJSON_Delete(d);
	flow_free(fl);
	form_free(f);
}

static const char *retry_form =
	"{\"title\":\"t\",\"scripts\":{\"outro\":\"Bye.\",\"outro_incomplete\":\"Sorry.\"},\"questions\":["
	"{\"name\":\"forever\",\"label\":\"Forever?\",\"type\":\"string\",\"required\":false,"
	" \"retry_config\":{\"until_answered\":true,\"max_retries\":1}},"
	"{\"name\":\"once_opt\",\"label\":\"Once optional\",\"type\":\"string\",\"required\":false,"
	" \"skip_message\":\"Skipping.\",\"retry_config\":{\"allow_retries\":false}},"
	"{\"name\":\"opt_end\",\"label\":\"Optional ends\",\"type\":\"string\",\"required\":false,"
	" \"retry_config\":{\"max_retries\":0,\"exhausted_action\":\"end_call\"}},"
	"{\"name\":\"once_req\",\"label\":\"Once required\",\"type\":\"string\","
	" \"retry_config\":{\"allow_retries\":false}}]}";

static void test_until_answered_and_allow_retries(void **state)
{
	(void)state;
	struct form *f = parse(retry_form);
	cJSON *d;
	struct flow *fl = started(f);
	for (int i = 1; i <= 10; i++) {
		d = turn(fl, NULL, 0);
		assert_string_equal(asking(d), "forever");
		assert_int_equal(arg(d, "retry")->valueint, i);
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "retries"), "until_answered")));
		cJSON_Delete(d);
	}
	assert_int_equal(flow_retry_limit(fl, 0), -1);
	assert_int_equal(flow_retries_used(fl, 0), 10);
	d = TURN(fl, {"forever", "\"done\"", false});
	assert_string_equal(asking(d), "once_opt");
	cJSON_Delete(d);
	/* allow_retries false, optional: the first failure skips it. */
	d = turn(fl, NULL, 0);
	assert_string_equal(asking(d), "opt_end");
	assert_json(cJSON_GetObjectItem(d, "skipped"), "[\"once_opt\"]");
	char *text = reply(f, d);
	assert_string_equal(text, "Skipping. Optional ends"); /* no script: the label */
	free(text);
	cJSON_Delete(d);
	/* exhausted_action end_call on an optional field: failed. */
	d = turn(fl, NULL, 0);
	assert_string_equal(tool(d), "end_call");
	assert_string_equal(arg(d, "status")->valuestring, "failed");
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "opt_end")->valuestring, "skipped");
	cJSON_Delete(d);
	flow_free(fl);

	/* allow_retries false, required: the first failure ends the call. */
	fl = started(f);
	d = TURN(fl, {"forever", "\"x\"", false}, {"once_opt", NULL, true}, {"opt_end", "\"y\"", false});
	assert_string_equal(asking(d), "once_req");
	cJSON_Delete(d);
	d = TURN(fl, {"once_req", NULL, true}); /* a skip flag never skips a required field */
	assert_string_equal(tool(d), "end_call");
	assert_string_equal(arg(d, "status")->valuestring, "failed");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "captured"), 0), "status")->valuestring, "ignored");
	cJSON_Delete(d);
	flow_free(fl);
	form_free(f);
}

/* ---- end_call_values, present branches ---- */

static void test_end_call_value_screens_out(void **state)
{
	(void)state;
	struct form *f = load("tests/data/forms/valid_stored.json");
	cJSON *d;
	struct flow *fl = start(f, &d);
	char *text = reply(f, d);
	assert_string_equal(text, "hi Do you have a fever?");
	free(text);
	cJSON_Delete(d);
	d = TURN(fl, {"has_fever", "\"no\"", false});
	assert_string_equal(tool(d), "end_call");
	assert_string_equal(arg(d, "status")->valuestring, "screened_out");
	assert_string_equal(arg(d, "reason")->valuestring, "end_call_value");
	assert_string_equal(cJSON_GetObjectItem(d, "call_status")->valuestring, "screened_out");
	assert_int_equal(flow_status(fl), CALL_SCREENED_OUT);
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(fl), "has_fever")->valuestring, "No");
	text = reply(f, d);
	assert_string_equal(text, "sorry");
	free(text);
	cJSON_Delete(d);
	flow_free(fl);

	/* "Yes" goes on; fever_days re-asks with its {error} retry message. */
	fl = started(f);
	d = TURN(fl, {"has_fever", "true", false});
	assert_string_equal(asking(d), "fever_days");
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(fl), "has_fever")->valuestring, "Yes");
	cJSON_Delete(d);
	d = TURN(fl, {"fever_days", "40", false});
	text = reply(f, d);
	assert_string_equal(text, "Again: Value must be between 1 and 30.");
	free(text);
	cJSON_Delete(d);
	flow_free(fl);
	form_free(f);
}

static const char *present_form =
	"{\"title\":\"t\",\"questions\":["
	"{\"name\":\"a\",\"label\":\"A\",\"type\":\"string\",\"required\":false},"
	"{\"name\":\"if_a\",\"label\":\"If A\",\"type\":\"string\",\"branch_id\":\"given\"},"
	"{\"name\":\"if_not_a\",\"label\":\"If not A\",\"type\":\"string\",\"branch_id\":\"missing\"},"
	"{\"name\":\"z\",\"label\":\"Z\",\"type\":\"string\"}],"
	"\"branches\":[{\"id\":\"given\",\"condition\":{\"field\":\"a\",\"present\":true}},"
	"{\"id\":\"missing\",\"condition\":{\"field\":\"a\",\"present\":false,\"equals\":true}}]}";

static void test_present_branches(void **state)
{
	(void)state;
	struct form *f = parse(present_form);
	struct flow *fl = started(f);
	cJSON *d = TURN(fl, {"a", "\"x\"", false});
	assert_string_equal(asking(d), "if_a");
	assert_true(flow_branch_active(fl, 0));
	assert_false(flow_branch_active(fl, 1));
	cJSON_Delete(d);
	d = TURN(fl, {"if_a", "\"y\"", false}, {"if_not_a", "\"w\"", false});
	assert_string_equal(asking(d), "z");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "faults")), 1);
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "if_not_a")->valuestring, "empty");
	cJSON_Delete(d);
	d = TURN(fl, {"z", "\"z\"", false});
	assert_string_equal(arg(d, "status")->valuestring, "complete");
	cJSON_Delete(d);
	flow_free(fl);

	fl = started(f);
	d = TURN(fl, {"a", NULL, true}); /* skipped -> present false branch (present wins) */
	assert_string_equal(asking(d), "if_not_a");
	assert_json(cJSON_GetObjectItem(d, "branches"),
		    "[{\"id\":\"given\",\"field\":\"a\",\"condition\":\"present true\",\"active\":false},"
		    "{\"id\":\"missing\",\"field\":\"a\",\"condition\":\"present false\",\"active\":true}]");
	cJSON_Delete(d);
	flow_free(fl);
	form_free(f);
}

/* ---- several fields, corrections, faults ---- */

static void test_multi_field_and_corrections(void **state)
{
	(void)state;
	struct form *f = load("forms/armman_enrollment.json");
	struct flow *fl = started(f);
	cJSON *d = TURN(fl, {"name", "\"Sunita Devi\"", false}, {"district", "\"gaya\"", false},
		 {"clinic_name", "\"PHC\"", false}, {"pregnant", "true", false});
	assert_string_equal(asking(d), "gestational_age");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "captured")), 4);
	cJSON_Delete(d);
	/* A number as a string, and a correction of the district in the same turn. */
	d = TURN(fl, {"gestational_age", "\"7\"", false}, {"district", "2", false});
	assert_string_equal(asking(d), "phone_linked");
	assert_json(cJSON_GetObjectItem(flow_form_data(fl), "gestational_age"), "7");
	assert_string_equal(cJSON_GetObjectItem(flow_form_data(fl), "district")->valuestring, "Leh");
	char *text = reply(f, d);
	assert_string_equal(text, f->questions[7].script);
	free(text);
	cJSON_Delete(d);
	/* Correcting pregnant to no closes gestational_age and opens the child questions;
	 * nothing answered is asked again. */
	d = TURN(fl, {"pregnant", "false", false});
	assert_string_equal(asking(d), "child_name");
	assert_int_equal(flow_retries_used(fl, 7), 0);
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "gestational_age")->valuestring, "empty");
	assert_null(cJSON_GetObjectItem(flow_form_data(fl), "gestational_age"));
	cJSON_Delete(d);
	d = TURN(fl, {"child_name", "\"Aarav\"", false}, {"child_dob", "\"30-11-2026\"", false});
	/* a future birth date is refused; child_dob is next, not yet a retry */
	assert_string_equal(asking(d), "child_dob");
	assert_int_equal(arg(d, "retry")->valueint, 0);
	cJSON_Delete(d);
	d = TURN(fl, {"child_dob", "\"30-11-2026\"", false});
	assert_int_equal(arg(d, "retry")->valueint, 1);
	assert_string_equal(arg(d, "error")->valuestring, "Date must be today or in the past.");
	cJSON_Delete(d);
	flow_free(fl);
	form_free(f);
}

static void test_faults(void **state)
{
	(void)state;
	struct form *f = load("forms/armman_enrollment.json");
	struct flow *fl = started(f);
	cJSON *d = TURN(fl, {"name", "{\"first\":\"S\"}", false}, {"favourite_colour", "\"blue\"", false});
	assert_string_equal(asking(d), "name");
	assert_int_equal(arg(d, "retry")->valueint, 1);
	assert_string_equal(arg(d, "error")->valuestring, "Value must be text.");
	assert_json(cJSON_GetObjectItem(d, "faults"), "[\"unknown field 'favourite_colour'\"]");
	assert_json(flow_form_data(fl), "{}"); /* nothing put to the caller has resolved yet */
	cJSON_Delete(d);
	d = TURN(fl, {"name", "\"Sunita\"", false});
	cJSON_Delete(d);
	d = TURN(fl, {"district", "9", false}); /* option index out of range */
	assert_string_equal(asking(d), "district");
	assert_string_equal(arg(d, "error")->valuestring,
			    "Value must be one of: Kamrup Metropolitan, Gaya, Leh, Mayurbhanj, Dakshina Kannada.");
	cJSON_Delete(d);
	d = TURN(fl, {"district", "\"Mayurbhanj\"", false}, {"district", NULL, true});
	/* a skip flag on a required field is ignored; the answer stands */
	assert_string_equal(asking(d), "clinic_name");
	cJSON_Delete(d);
	d = TURN(fl, {"clinic_name", NULL, true}, {"pregnant", "true", false},
		 {"child_name", "\"X\"", false});
	/* child_name's branch is closed by pregnant = true in the same turn: refused */
	assert_string_equal(asking(d), "gestational_age");
	assert_json(cJSON_GetObjectItem(d, "skipped"), "[\"clinic_name\"]");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "faults")), 1);
	assert_string_equal(cJSON_GetObjectItem(flow_form_status(fl), "child_name")->valuestring, "empty");
	char *text = reply(f, d);
	char want[1024];
	snprintf(want, sizeof(want), "%s %s", f->questions[2].skip_message, f->questions[4].script);
	assert_string_equal(text, want);
	free(text);
	cJSON_Delete(d);
	d = TURN(fl, {"gestational_age", "\"12\"", false});
	assert_string_equal(arg(d, "error")->valuestring, "Value must be between 1 and 10.");
	cJSON_Delete(d);
	d = TURN(fl, {"gestational_age", "true", false});
	assert_string_equal(arg(d, "error")->valuestring, "Value must be a number.");
	assert_int_equal(arg(d, "retry")->valueint, 2);
	cJSON_Delete(d);
	/* flow_start twice is refused */
	struct decision *again = NULL;
	assert_int_equal(flow_start(fl, &again), ERR_INVALID);
	flow_free(fl);
	flow_free(NULL);
	form_free(f);
}

/* The engine's barge-in mark and hand-written records: the decoder reads what the encoder
 * writes, a partial record reads as empty parts, and what is not an object is refused. */
static void test_decision_json(void **state)
{
	(void)state;
	struct decision *d = NULL, *back = NULL;
	const char *text =
		"{\"turn\":3,\"asked\":\"child_dob\",\"captured\":[{\"field\":null,\"raw\":[1,\"x\"],"
		"\"value\":null,\"status\":\"ignored\",\"reason\":\"unknown field\"}],\"verdicts\":[],"
		"\"faults\":[\"unknown field '(none)'\"],\"retries\":{\"field\":\"child_dob\",\"used\":4,"
		"\"max\":null,\"left\":null,\"until_answered\":true},\"branches\":[],\"skipped\":[],"
		"\"tool_call\":{\"name\":\"ask_question\",\"arguments\":{\"field\":\"child_dob\","
		"\"label\":\"Child's date of birth\",\"script\":null,\"retry\":4,\"error\":\"Date must be "
		"in the past.\",\"progress\":\"2 left\"}},\"call_status\":\"in_progress\",\"reason\":\"r\","
		"\"barge_in\":{\"at_ms\":1250,\"during\":\"speaking\"}}";
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	assert_int_equal(decision_from_json(j, &d), ERR_OK);
	assert_true(d->barge_in);
	assert_int_equal(d->barge_in_at_ms, 1250);
	assert_true(d->retries.until_answered);
	assert_int_equal(d->ask.retry, 4);
	assert_null(d->ask.script);
	assert_null(d->captured[0].field);
	assert_int_equal(d->captured[0].status, DECISION_IGNORED);
	cJSON *out = decision_to_json(d);
	char *printed = cJSON_PrintUnformatted(out);
	assert_string_equal(printed, text);
	free(printed);
	cJSON_Delete(out);
	cJSON_Delete(j);
	decision_free(d);

	j = cJSON_Parse("{\"turn\":2,\"tool_call\":{\"name\":\"end_call\",\"arguments\":"
			"{\"status\":\"screened_out\",\"reason\":\"end_call_value\"}},"
			"\"call_status\":\"screened_out\"}");
	assert_int_equal(decision_from_json(j, &back), ERR_OK);
	assert_int_equal(back->tool, DECISION_END_CALL);
	assert_int_equal(back->end.status, CALL_SCREENED_OUT);
	assert_int_equal(back->call_status, CALL_SCREENED_OUT);
	assert_int_equal(back->n_captured, 0);
	assert_false(back->has_retries);
	assert_null(back->reason);
	decision_free(back);
	cJSON_Delete(j);

	/* a tool call that is neither tool is not a decision; REPLY refuses both */
	j = cJSON_Parse("{\"turn\":1,\"tool_call\":{\"name\":\"hang_up\",\"arguments\":{}}}");
	back = NULL;
	assert_int_equal(decision_from_json(j, &back), ERR_PARSE);
	assert_null(back);
	struct form *f = load("forms/armman_enrollment.json");
	struct reply_request rq = {f, j, NULL, NULL};
	char *said = NULL;
	assert_int_equal(reply_script_reply(NULL, &rq, &said), ERR_INVALID);
	cJSON_Delete(j);
	rq.decision = j = cJSON_CreateObject();
	assert_int_equal(reply_script_reply(NULL, &rq, &said), ERR_INVALID);
	assert_null(said);
	cJSON_Delete(j);
	form_free(f);

	j = cJSON_CreateString("{not an object}");
	assert_int_equal(decision_from_json(j, &back), ERR_PARSE);
	assert_int_equal(decision_from_json(NULL, &back), ERR_PARSE);
	assert_null(back);
	cJSON_Delete(j);
	decision_free(NULL);
	assert_null(decision_dup(NULL));
}

static void test_flow_check(void **state)
{
	(void)state;
	struct form *f = load("forms/armman_enrollment.json");
	struct extraction *ex = extraction_new();
	assert_int_equal(extraction_add(ex, "district", cJSON_CreateNumber(0), false, NULL, NULL), ERR_OK);
	assert_int_equal(extraction_add(ex, "aadhaar_last4", NULL, true, "declined", NULL), ERR_OK);
	assert_int_equal(extraction_add(ex, "nope", cJSON_CreateString("x"), false, NULL, NULL), ERR_OK);
	assert_int_equal(extraction_add(ex, "linked_number", cJSON_CreateString("123"), false, NULL, NULL), ERR_OK);
	cJSON *o = NULL;
	assert_int_equal(flow_check(f, NULL, today, 0, ex, &o), ERR_OK);
	assert_json(o, "{\"district\":{\"status\":\"answered\",\"value\":\"Kamrup Metropolitan\"},"
		       "\"aadhaar_last4\":{\"status\":\"skipped\",\"reason\":\"declined\"},"
		       "\"nope\":{\"status\":\"invalid\",\"error\":\"No question named 'nope'.\"},"
		       "\"linked_number\":{\"status\":\"invalid\",\"error\":\"Phone number must be exactly 10 digits (got 3). Parsed digits: 123\"},"
		       "\"name\":{\"status\":\"empty\"}}");
	cJSON_Delete(o);
	extraction_free(ex);
	form_free(f);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test(test_48_paths),
	  cmocka_unit_test(test_required_exhausted_fails),
	  cmocka_unit_test(test_optional_exhausted_skips),
	  cmocka_unit_test(test_until_answered_and_allow_retries),
	  cmocka_unit_test(test_end_call_value_screens_out),
	  cmocka_unit_test(test_present_branches),
	  cmocka_unit_test(test_multi_field_and_corrections),
	  cmocka_unit_test(test_faults),
	  cmocka_unit_test(test_decision_json),
	  cmocka_unit_test(test_flow_check))
