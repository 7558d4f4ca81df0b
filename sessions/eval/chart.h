/* chart: the evaluation report's three charts as SVG files (written with sessions/eval/svg.h):
 * the accuracy / latency / cost trade-off of a stage's candidates, accuracy by STT x
 * EXTRACT, and the weight sweep of model selection (the FormBharo paper's figures of the
 * same kind). Axes carry ticks at 1, 2 or 5 times a power of ten and a label each. */
#ifndef FORMDESK_CHART_H
#define FORMDESK_CHART_H

#include <stdbool.h>
#include "base/err.h"

/* One candidate on the trade-off chart. */
struct chart_point {
	const char *label;   /* model name, any UTF-8 (escaped on output) */
	double accuracy;     /* fraction, 0..1, drawn as percent on the y axis */
	double p95_ms;       /* x axis */
	double cost_usd;     /* marker area proportional to it */
	bool chosen;         /* on the frontier and within the limits: filled marker */
};

/* chart_tradeoff: accuracy (%) against p95 latency (ms), one marker per point, marker area
 * proportional to cost (the largest cost gets radius 20; all zero: radius 6), each labelled
 * where the label covers no marker, no other label, no axis and not the legend (right,
 * left, above or below its marker, then further out; the least covered place when none
 * is free);
 * dashed lines at the limits when max_p95_ms / min_accuracy are above 0 (min_accuracy a
 * fraction). Inputs borrowed. Output: the file at path. Errors: ERR_INVALID (n < 1 or a
 * value not finite), ERR_IO, ERR_NOMEM. */
enum err chart_tradeoff(const char *path, const char *title, const struct chart_point *p,
			int n, double max_p95_ms, double min_accuracy);

/* A label's box on a chart (SVG user units, y down) and where its text is drawn. */
struct chart_box {
	double x0, y0, x1, y1;
	double text_x, text_y; /* the text's anchor point and baseline */
	int anchor;            /* enum svg_anchor */
};

/* chart_plot_area: the box inside the axes of every chart (the legend is right of it). */
struct chart_box chart_plot_area(void);

/* chart_text_width: the width (SVG user units) a line of text takes at font size size:
 * columns (code points, Devanagari joining signs counted as none) times 0.62 of the size,
 * a sans-serif's average advance. An estimate: the charts leave room around it. */
double chart_text_width(const char *text, double size);

/* chart_label_box: the box a marker's label (font size 12) takes when drawn at (tx, ty),
 * baseline ty, with anchor (enum svg_anchor). */
struct chart_box chart_label_box(const char *text, double tx, double ty, int anchor);

/* chart_box_hits_circle / chart_boxes_overlap: whether a label box covers part of the
 * circle at (x, y) of radius r / of another box. */
bool chart_box_hits_circle(const struct chart_box *b, double x, double y, double r);
bool chart_boxes_overlap(const struct chart_box *a, const struct chart_box *b);

/* chart_grouped: accuracy (%, 0..100 on the y axis) by group (e.g. STT model, on the x
 * axis) and series (e.g. EXTRACT model, one coloured bar each, with a legend). x_label
 * names the groups ("STT"; NULL for none); y_label NULL gives "accuracy (%)".
 * values[g * n_series + s] is a fraction 0..1, NaN when not measured (no bar, "n/a").
 * Inputs borrowed. Errors: ERR_INVALID (no groups or series), ERR_IO, ERR_NOMEM. */
enum err chart_grouped(const char *path, const char *title, const char *x_label,
		       const char *y_label,
		       const char *const *groups, int n_groups, const char *const *series,
		       int n_series, const double *values);

/* chart_sweep: the weighted sum U (0..1) of each candidate against the accuracy weight
 * w_a, one line per candidate (NaN where it is excluded), the leader at each step marked
 * and named where it changes. w_a[k] for k < n_steps, increasing; u[k * n_names + i];
 * leader[k] a name index or -1. Inputs borrowed. Errors: ERR_INVALID (n_steps < 1 or
 * n_names < 1), ERR_IO, ERR_NOMEM. */
enum err chart_sweep(const char *path, const char *title, const double *w_a, int n_steps,
		     const char *const *names, int n_names, const double *u, const int *leader);

#endif
