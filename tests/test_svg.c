/* SVG writing (sessions/eval/svg.c) and the report charts (sessions/eval/chart.c): escaping cases
 * from tests/data/svg_escape.tsv, and the three charts written with hostile labels and
 * parsed back by a real XML parser (Python's xml.etree.ElementTree). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sessions/eval/chart.h"
#include "sessions/eval/svg.h"
#include "tests/support/table.h"

#define DATA "tests/data/svg_escape.tsv"

/* Labels that must survive escaping and parsing unchanged. */
static const char *const nasty[] = {
	"Gemini & <Flash> \"3.5\"",
	"लक्ष्मी's model",
	"सुनीता <देवी> & \"x\"",
};

static void escape_row(void **state)
{
	const struct table_row *r = *state;
	char *got = svg_escape(r->col[0]);
	assert_non_null(got);
	if (strcmp(got, r->col[1]))
		fail_msg("%s: got \"%s\", want \"%s\"", r->name, got, r->col[1]);
	free(got);
}

/* Run the XML parser over files; its output (every <text> and <title>, one a line, then
 * "PARSED N") into a new string. NULL when the parser fails. */
static char *parse_xml(const char *const *files, int n, bool quiet)
{
	char cmd[4096] = "python3 -c '"
		"import sys, xml.etree.ElementTree as ET\n"
		"ns = \"{http://www.w3.org/2000/svg}\"\n"
		"for f in sys.argv[1:]:\n"
		"    root = ET.parse(f).getroot()\n"
		"    assert root.tag == ns + \"svg\", root.tag\n"
		"    for t in list(root.iter(ns + \"text\")) + list(root.iter(ns + \"title\")):\n"
		"        print(t.text or \"\")\n"
		"print(\"PARSED\", len(sys.argv) - 1)\n'";
	for (int i = 0; i < n; i++) {
		strcat(cmd, " ");
		strcat(cmd, files[i]);
	}
	strcat(cmd, " 2>&1");
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	size_t k;
	while ((k = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += k;
		if (len + 1 == cap)
			out = realloc(out, cap *= 2);
	}
	out[len] = '\0';
	if (pclose(p) != 0) {
		if (!quiet)
			fprintf(stderr, "XML parser said:\n%s\n", out);
		free(out);
		return NULL;
	}
	return out;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

static void charts_parse(void **state)
{
	(void)state;
	char dir[] = "/tmp/svg_testXXXXXX";
	assert_non_null(mkdtemp(dir));
	char f1[64], f2[64], f3[64];
	snprintf(f1, sizeof f1, "%s/tradeoff.svg", dir);
	snprintf(f2, sizeof f2, "%s/grouped.svg", dir);
	snprintf(f3, sizeof f3, "%s/sweep.svg", dir);

	struct chart_point pts[] = {
		{nasty[0], 0.96, 3000, 0.002, true},
		{nasty[1], 0.92, 1000, 0.001, true},
		{nasty[2], 0.99, 6000, 0.010, false},
		{"bad\xff", 0.90, 500, 0, false},
	};
	assert_int_equal(chart_tradeoff(f1, "EXTRACT <candidates> & limits", pts, 4, 5000, 0.9),
			 ERR_OK);

	const char *groups[] = {"Scribe v2", "Nova-3 & co", "सारस"};
	const char *series[] = {nasty[0], "GPT <mini>"};
	double vals[] = {0.9184, 0.90, 0.85, NAN, 0.88, 0.7};
	assert_int_equal(chart_grouped(f2, "Form completion by STT x EXTRACT", "STT", NULL, groups, 3,
				       series, 2, vals), ERR_OK);

	double wa[] = {0.5, 0.6, 0.7, 0.8, 0.9};
	const char *names[] = {nasty[0], nasty[1], nasty[2]};
	double u[] = {
		0.70, 0.50, NAN,
		0.67, 0.40, NAN,
		0.64, 0.30, 0.70,
		0.61, 0.20, 0.80,
		0.58, 0.10, 0.90,
	};
	int leader[] = {0, 0, 2, 2, 2};
	assert_int_equal(chart_sweep(f3, "Weight sweep, w_l = 0.1", wa, 5, names, 3, u, leader),
			 ERR_OK);

	const char *files[] = {f1, f2, f3};
	char *out = parse_xml(files, 3, false);
	if (!out)
		fail_msg("a chart is not well-formed SVG (see the parser's message above)");
	assert_true(has_line(out, "PARSED 3"));
	/* Labels come back exactly as given, whatever their characters; the invalid byte as
	 * U+FFFD; titles, axes, the missing bar's "n/a" and a bar's value. */
	static const char *const shown[] = {
		"bad\xEF\xBF\xBD", "EXTRACT <candidates> & limits", "GPT <mini>", "सारस",
		"p95 latency (ms)", "accuracy (%)", "n/a", "91.8",
	};
	for (size_t i = 0; i < sizeof nasty / sizeof nasty[0]; i++)
		if (!has_line(out, nasty[i]))
			fail_msg("label \"%s\" not found in the parsed charts:\n%s", nasty[i], out);
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		if (!has_line(out, shown[i]))
			fail_msg("\"%s\" not found in the parsed charts:\n%s", shown[i], out);
	free(out);
	remove(f1);
	remove(f2);
	remove(f3);
	rmdir(dir);
}

/* The parser really checks: an unescaped & is refused, so the test above can fail. */
static void parser_rejects(void **state)
{
	(void)state;
	char path[] = "/tmp/svg_badXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char bad[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>A & B</text></svg>";
	assert_int_equal(write(fd, bad, sizeof bad - 1), (ssize_t)(sizeof bad - 1));
	close(fd);
	const char *files[] = {path};
	char *out = parse_xml(files, 1, true);
	assert_null(out);
	remove(path);
}

/* The document is closed, sized and starts with the XML declaration. */
static void document(void **state)
{
	(void)state;
	struct svg *s = NULL;
	assert_int_equal(svg_new(0, 10, &s), ERR_INVALID);
	assert_null(s);
	assert_int_equal(svg_new(200, 100, &s), ERR_OK);
	svg_text(s, 10, 20, 12, SVG_START, "black", "bold", 0, "<hi>");
	double xy[] = {0, 0, 10, 10};
	svg_polyline(s, xy, 2, "red", 1);
	char *text = NULL;
	assert_int_equal(svg_string(s, &text), ERR_OK);
	assert_true(!strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44));
	assert_non_null(strstr(text, "width=\"200\" height=\"100\""));
	assert_non_null(strstr(text, ">&lt;hi&gt;</text>"));
	assert_non_null(strstr(text, "points=\"0.00,0.00 10.00,10.00\""));
	assert_true(strlen(text) > 7 && !strcmp(text + strlen(text) - 7, "</svg>\n"));
	free(text);
	svg_free(s);
	svg_free(NULL);
	assert_int_equal(chart_grouped("/tmp/x.svg", "t", NULL, NULL, NULL, 0, NULL, 0, NULL),
			 ERR_INVALID);
	struct chart_point p = {"m", 0.5, 100, 0, true};
	assert_int_equal(chart_tradeoff("/nonexistent-dir/x.svg", "t", &p, 1, 0, 0), ERR_IO);
}

/* label row: NAME POINTS (tests/data/chart_labels.tsv). Reads the written chart back: every
 * marker label's box covers no marker and no other label and lies inside the plot area. */
static void label_row(void **state)
{
	const struct table_row *r = *state;
	struct chart_point p[16];
	char *spec = strdup(r->col[1]), *save = NULL;
	int n = 0;
	for (char *it = strtok_r(spec, ";", &save); it && n < 16; it = strtok_r(NULL, ";", &save)) {
		char *f[4], *s2 = NULL;
		f[0] = strtok_r(it, ",", &s2);
		for (int k = 1; k < 4; k++)
			f[k] = strtok_r(NULL, ",", &s2);
		assert_non_null(f[3]);
		p[n++] = (struct chart_point){f[0], atof(f[1]), atof(f[2]), atof(f[3]), true};
	}
	char path[] = "/tmp/formdesk-labels-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chart_tradeoff(path, "t", p, n, 0, 0), ERR_OK);
	FILE *f = fopen(path, "rb");
	static char svg[1 << 17];
	size_t len = fread(svg, 1, sizeof svg - 1, f);
	svg[len] = 0;
	fclose(f);
	remove(path);
	struct chart_box area = chart_plot_area(), boxes[16];
	double circ[16][3];
	int nc = 0;
	for (const char *c = svg; (c = strstr(c, "<circle ")); c++) {
		double x, y, rr;
		assert_int_equal(sscanf(c, "<circle cx=\"%lf\" cy=\"%lf\" r=\"%lf\"", &x, &y, &rr), 3);
		if (x < area.x1 && nc < 16) /* the legend's markers are right of the plot */
			circ[nc][0] = x, circ[nc][1] = y, circ[nc][2] = rr, nc++;
	}
	assert_int_equal(nc, n);
	for (int i = 0; i < n; i++) {
		char want[200];
		snprintf(want, sizeof want, ">%s</text>", p[i].label);
		const char *end = strstr(svg, want), *t = end;
		assert_non_null(end);
		while (t > svg && strncmp(t, "<text ", 6) != 0)
			t--;
		double x, y, size;
		char anchor[16];
		assert_int_equal(sscanf(t, "<text x=\"%lf\" y=\"%lf\" font-size=\"%lf\" text-anchor=\"%15[a-z]\"",
					&x, &y, &size, anchor), 4);
		int an = !strcmp(anchor, "start") ? SVG_START : !strcmp(anchor, "end") ? SVG_END : SVG_MIDDLE;
		boxes[i] = chart_label_box(p[i].label, x, y, an);
		const struct chart_box *b = &boxes[i];
		if (b->x0 < area.x0 || b->x1 > area.x1 || b->y0 < area.y0 || b->y1 > area.y1)
			fail_msg("%s: label '%s' leaves the plot area", r->name, p[i].label);
		for (int j = 0; j < nc; j++)
			if (chart_box_hits_circle(b, circ[j][0], circ[j][1], circ[j][2]))
				fail_msg("%s: label '%s' covers marker %d", r->name, p[i].label, j);
		for (int j = 0; j < i; j++)
			if (chart_boxes_overlap(b, &boxes[j]))
				fail_msg("%s: label '%s' overlaps '%s'", r->name, p[i].label, p[j].label);
	}
	free(spec);
}

int main(void)
{
	struct table_row *rows;
	int n_rows;
	struct CMUnitTest *tests = NULL;
	size_t n = 0;
	table_load(DATA, 2, 2, TABLE_UNESCAPE, &rows, &n_rows);
	table_tests(&tests, &n, rows, n_rows, escape_row);
	struct table_row *lrows;
	int n_lrows;
	table_load("tests/data/chart_labels.tsv", 2, 2, 0, &lrows, &n_lrows);
	table_tests(&tests, &n, lrows, n_lrows, label_row);
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(document));
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(charts_parse));
	table_add(&tests, &n, (struct CMUnitTest)cmocka_unit_test(parser_rejects));
	int rc = _cmocka_run_group_tests("svg", tests, n, NULL, NULL);
	free(tests);
	table_free(rows, n_rows);
	table_free(lrows, n_lrows);
	return rc;
}
