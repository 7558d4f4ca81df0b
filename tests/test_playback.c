/* test_playback: the simulator's pacing, pause and next call (tui/playback.c feeding
 * tui/callview.c), with the real call engine on a fixture corpus and a simulated clock.
 * The timeline is the table in tests/data/playback.tsv; the history (step back and
 * forth, scroll, previous call, jump) the table in tests/data/playback_history.tsv. Then the verdicts and decision
 * panes drawn from a decision given as a struct alone (no JSON with the event). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/stages/backend.h"
#include "agent/rules/decision.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "audio/endpoint.h"
#include "sessions/corpus/corpus.h"
#include "tui/callview.h"
#include "tui/playback.h"
#include "tests/support/testmain.h"

#define DATA "tests/data/playback.tsv"
#define DATA_HISTORY "tests/data/playback_history.tsv"
#define FORM "forms/armman_enrollment.json"
#define CORPUS "tests/data/corpus_good"

/* The text of one pane, lines joined by newlines. Output: new string (caller frees). */
static char *pane_text(const struct callview *v, const char *pane)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	const struct callview_lines *l = NULL;
	if (strcmp(pane, "title") == 0)
		fputs(callview_title(v), f);
	else if (strcmp(pane, "status") == 0)
		fputs(callview_timings(v), f);
	else if (strcmp(pane, "form") == 0) {
		const struct callview_snap *s = callview_form(v);
		fprintf(f, "call status: %s\n", s->call_status);
		for (int i = 0; i < s->n; i++)
			fprintf(f, "%s=%s %s %d/%d\n", s->f[i].name, s->f[i].value, s->f[i].status,
				s->f[i].used, s->f[i].limit);
	} else if (strcmp(pane, "conv") == 0) {
		l = callview_conv(v);
	} else if (strcmp(pane, "shown") == 0) { /* the conversation's lines the pane shows */
		const struct callview_lines *c = callview_conv(v);
		for (int i = 0; i < callview_conv_shown(v) && i < c->n; i++)
			fprintf(f, "%s%s\n", c->v[i].prefix, c->v[i].text);
	} else if (strcmp(pane, "verdicts") == 0)
		l = callview_verdicts(v);
	else if (strcmp(pane, "decision") == 0)
		l = callview_decision(v);
	else if (strcmp(pane, "summary") == 0)
		l = callview_summary(v);
	else
		fail_msg("unknown pane '%s'", pane);
	for (int i = 0; l && i < l->n; i++)
		fprintf(f, "%s%s\n", l->v[i].prefix, l->v[i].text);
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

struct fixture {
	struct form *form;
	struct lexicon *lex;
	struct corpus *corpus;
	struct callview *view;
	struct playback *pb;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char *msg = NULL;
	const char *why = NULL;
	assert_int_equal(form_load(FORM, &fx->form, NULL), ERR_OK);
	if (lexicon_load(lexicon_default_dir(), &fx->lex, &msg) != ERR_OK)
		fail_msg("word lists: %s", msg ? msg : "?");
	if (corpus_load(CORPUS, &fx->corpus, &msg) != ERR_OK)
		fail_msg("corpus: %s", msg ? msg : "?");
	struct engine_config cfg = {.form = fx->form, .form_path = FORM, .lex = fx->lex,
				    .today = {2025, 3, 15}, .endpoint = endpoint_defaults()};
	assert_int_equal(backend_stt("reference", &cfg.stt, &why), ERR_OK);
	assert_int_equal(backend_extract("rules", &cfg.extract, &why), ERR_OK);
	assert_int_equal(backend_reply("script", &cfg.reply, &why), ERR_OK);
	fx->view = callview_new(fx->form, fx->corpus->name, fx->corpus->n_calls);
	assert_non_null(fx->view);
	assert_int_equal(playback_new(&cfg, fx->corpus, fx->view, 1.0, &fx->pb), ERR_OK);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	playback_free(fx->pb);
	callview_free(fx->view);
	corpus_free(fx->corpus);
	lexicon_free(fx->lex);
	form_free(fx->form);
	free(fx);
	return 0;
}

/* Run the playback as a perfect event loop would, waking when it asks, up to time t. */
static void advance(struct playback *pb, double *now, double t)
{
	for (int guard = 0; guard < 100000; guard++) {
		int w = playback_tick(pb, *now);
		if (w < 0 || *now + w > t)
			break;
		assert_true(w > 0); /* a zero wait would spin the loop */
		*now += w;
	}
	*now = t;
	playback_tick(pb, *now);
}

/* run_table: the rows of the table at path, against fx: times, actions, what the panes
 * show. Returns the number of rows. */
static int run_table(struct fixture *fx, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the source tree)", path);
	char line[1024];
	int lineno = 0, rows = 0;
	double now = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		char *fld[5] = {0};
		int n = 0;
		for (char *p = line; p && n < 5; n++) {
			fld[n] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		double at = atof(fld[0]);
		if (at < now)
			fail_msg("line %d: times must not go back", lineno);
		advance(fx->pb, &now, at);
		const char *act = fld[1] ? fld[1] : "";
		if (strcmp(act, "pause") == 0) {
			playback_pause(fx->pb, true, now);
		} else if (strcmp(act, "resume") == 0) {
			playback_pause(fx->pb, false, now);
		} else if (strcmp(act, "next") == 0) {
			playback_next(fx->pb, now);
		} else if (strcmp(act, "goto") == 0 && n >= 3) { /* fld[2]: the call, from 1 */
			bool want = n < 4 || strcmp(fld[3], "false") != 0;
			if (playback_goto(fx->pb, atoi(fld[2]) - 1, now) != want)
				fail_msg("line %d: goto %s should return %s", lineno, fld[2],
					 want ? "true" : "false");
		} else if (strcmp(act, "step") == 0) {
			if (!playback_step(fx->pb))
				fail_msg("line %d: nothing to step", lineno);
		} else if (strcmp(act, "back") == 0 || strcmp(act, "fwd") == 0) {
			bool want = n < 3 || strcmp(fld[2], "false") != 0;
			if (callview_step(fx->view, act[0] == 'b' ? -1 : 1) != want)
				fail_msg("line %d: %s should return %s", lineno, act, want ? "true" : "false");
		} else if (strcmp(act, "scroll") == 0 && n >= 3) {
			callview_scroll(fx->view, atoi(fld[2]));
		} else if (strcmp(act, "finished") == 0) {
			if (!playback_finished(fx->pb))
				fail_msg("line %d: at %.0f ms the playback should be finished", lineno, at);
		} else if (n >= 4 && (strcmp(act, "expect") == 0 || strcmp(act, "absent") == 0 ||
				      strcmp(act, "count") == 0)) {
			char *text = pane_text(fx->view, fld[2]);
			int c = count(text, fld[3]);
			bool good = strcmp(act, "expect") == 0   ? c > 0
				    : strcmp(act, "absent") == 0 ? c == 0
				    : n >= 5 && c == atoi(fld[4]);
			if (!good) {
				print_error("---- %s pane at %.0f ms:\n%s\n----\n", fld[2], at, text);
				free(text);
				fail_msg("line %d: %s %s \"%s\"%s%s: found %d", lineno, act, fld[2], fld[3],
					 n >= 5 ? " " : "", n >= 5 ? fld[4] : "", c);
			}
			free(text);
		} else {
			fail_msg("line %d: malformed row", lineno);
		}
		rows++;
	}
	fclose(f);
	return rows;
}

static void test_timeline(void **state)
{
	assert_true(run_table(*state, DATA) >= 20);
}

/* The history: a paused call stepped turn by turn, back and forth, each older turn's
 * panes as they were; the conversation scrolled; another call begun by number. */
static void test_history(void **state)
{
	assert_true(run_table(*state, DATA_HISTORY) >= 20);
}

/* show: the panes after an ENGINE_DECISION carrying only the struct read from text. */
static void show(struct callview *v, const char *text)
{
	cJSON *j = cJSON_Parse(text);
	struct decision *d = NULL;
	assert_non_null(j);
	assert_int_equal(decision_from_json(j, &d), ERR_OK);
	cJSON_Delete(j);
	struct engine_event ev = {.kind = ENGINE_DECISION, .turn = d->turn, .decision = d};
	assert_int_equal(callview_event(v, &ev), ERR_OK);
	decision_free(d);
}

/* expect: each {pane, text} of want[0..n) is on screen. */
static void expect(const struct callview *v, const char *const want[][2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *text = pane_text(v, want[i][0]);
		if (!strstr(text, want[i][1])) {
			print_error("---- %s pane:\n%s\n----\n", want[i][0], text);
			free(text);
			fail_msg("the %s pane lacks \"%s\"", want[i][0], want[i][1]);
		}
		free(text);
	}
}
#define EXPECT(v, ...) expect(v, (const char *const[][2]){__VA_ARGS__}, \
	sizeof((const char *const[][2]){__VA_ARGS__}) / sizeof(const char *const[2]))

static void test_decision_panes(void **state)
{
	(void)state;
	struct callview *v = callview_new(NULL, "demo", 1);
	assert_non_null(v);
	assert_int_equal(callview_call(v, 0, &(struct corpus_call){.id = "c1", .n_turns = 3}), ERR_OK);
	show(v, "{\"turn\":2,\"asked\":\"district\",\"captured\":[{\"field\":\"district\","
		"\"raw\":\"Patna\",\"value\":null,\"status\":\"invalid\",\"reason\":\"not an option\"}],"
		"\"verdicts\":[{\"field\":\"district\",\"rule\":\"type\",\"ok\":false,"
		"\"message\":\"not an option\"}],\"faults\":[\"unknown field 'x'\"],"
		"\"retries\":{\"field\":\"district\",\"used\":1,\"max\":2,\"left\":1,"
		"\"until_answered\":false},\"branches\":[{\"id\":\"is_pregnant\",\"field\":\"pregnant\","
		"\"condition\":\"equals true\",\"active\":true}],\"skipped\":[\"clinic_name\"],"
		"\"tool_call\":{\"name\":\"ask_question\",\"arguments\":{\"field\":\"district\","
		"\"label\":\"District\",\"script\":\"Which district?\",\"retry\":1,"
		"\"error\":\"not an option\"}},\"call_status\":\"in_progress\",\"reason\":\"Re-ask.\"}");
	EXPECT(v,
	       {"verdicts", "turn 2 · asked district"},
	       {"verdicts", "  district: \"Patna\" → -  invalid, not an option"},
	       {"verdicts", "  FAIL district type: not an option"},
	       {"verdicts", "  skipped: clinic_name"},
	       {"verdicts", "fault: unknown field 'x'"},
	       {"decision", "  active   is_pregnant: equals true"},
	       {"decision", "retries district: used 1 of 2, 1 left"},
	       {"decision", "  ask district (District)"},
	       {"decision", "  retry 1"},
	       {"decision", "  error: not an option"},
	       {"decision", "  script: Which district?"},
	       {"decision", "why: Re-ask."});
	show(v, "{\"turn\":3,\"asked\":\"pregnant\",\"retries\":{\"field\":\"pregnant\",\"used\":0,"
		"\"max\":null,\"left\":null,\"until_answered\":true},\"tool_call\":{\"name\":\"end_call\","
		"\"arguments\":{\"status\":\"screened_out\",\"reason\":\"end_call_value\",\"script\":null}},"
		"\"call_status\":\"screened_out\",\"reason\":\"Screened out.\"}");
	EXPECT(v,
	       {"verdicts", "nothing captured"},
	       {"verdicts", "none ran"},
	       {"decision", "retries pregnant: used 0, until answered"},
	       {"decision", "  END screened_out"},
	       {"decision", "  reason: end_call_value"});
	callview_free(v);
}

TESTMAIN(NULL, NULL,
	  cmocka_unit_test_setup_teardown(test_timeline, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_history, setup, teardown),
	  cmocka_unit_test(test_decision_panes))
