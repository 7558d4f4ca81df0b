/* chart: trade-off, grouped-bar and weight-sweep charts as SVG (see chart.h). */
#include "chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "svg.h"

#define W 820.0
#define H 520.0
#define LEFT 80.0
#define RIGHT 190.0 /* room for the legend */
#define TOP 56.0
#define BOTTOM 70.0

/* Colour-blind-safe palette (Okabe and Ito 2008). */
static const char *const palette[] = {
	"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
};
#define N_PALETTE (int)(sizeof palette / sizeof palette[0])

struct axis {
	double lo, hi, step;
};

/* Ticks at 1, 2 or 5 times a power of ten, about five over [lo, hi], widened to whole
 * steps. */
static struct axis nice_axis(double lo, double hi)
{
	if (!(hi > lo)) {
		double pad = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;
		lo -= pad;
		hi += pad;
	}
	double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	struct axis a = {floor(lo / step + 1e-9) * step, ceil(hi / step - 1e-9) * step, step};
	if (a.hi <= a.lo)
		a.hi = a.lo + step;
	return a;
}

static double px(const struct axis *a, double v)
{
	return LEFT + (v - a->lo) / (a->hi - a->lo) * (W - LEFT - RIGHT);
}

static double py(const struct axis *a, double v)
{
	return H - BOTTOM - (v - a->lo) / (a->hi - a->lo) * (H - TOP - BOTTOM);
}

/* Frame, title, grid, ticks and axis labels; xa NULL for a categorical x axis. */
static void frame(struct svg *s, const char *title, const struct axis *xa, const char *xlabel,
		  const struct axis *ya, const char *ylabel)
{
	char buf[64];
	svg_text(s, W / 2, 28, 17, SVG_MIDDLE, "black", "bold", 0, title ? title : "");
	for (double v = ya->lo; v <= ya->hi + ya->step * 1e-6; v += ya->step) {
		double y = py(ya, v);
		svg_line(s, LEFT, y, W - RIGHT, y, "#dddddd", 1, NULL);
		snprintf(buf, sizeof buf, "%g", fabs(v) < ya->step * 1e-9 ? 0 : v);
		svg_text(s, LEFT - 8, y + 4, 12, SVG_END, "#333333", "normal", 0, buf);
	}
	if (xa)
		for (double v = xa->lo; v <= xa->hi + xa->step * 1e-6; v += xa->step) {
			double x = px(xa, v);
			svg_line(s, x, TOP, x, H - BOTTOM, "#eeeeee", 1, NULL);
			snprintf(buf, sizeof buf, "%g", fabs(v) < xa->step * 1e-9 ? 0 : v);
			svg_text(s, x, H - BOTTOM + 18, 12, SVG_MIDDLE, "#333333", "normal", 0, buf);
		}
	svg_line(s, LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, "black", 1.5, NULL);
	svg_line(s, LEFT, TOP, LEFT, H - BOTTOM, "black", 1.5, NULL);
	svg_text(s, (LEFT + W - RIGHT) / 2, H - 22, 14, SVG_MIDDLE, "black", "normal", 0, xlabel);
	svg_text(s, 22, (TOP + H - BOTTOM) / 2, 14, SVG_MIDDLE, "black", "normal", -90, ylabel);
}

static enum err finish(struct svg *s, const char *path)
{
	enum err e = svg_save(s, path);
	svg_free(s);
	return e;
}

#define LABEL_SIZE 12.0

struct chart_box chart_plot_area(void)
{
	return (struct chart_box){LEFT, TOP, W - RIGHT, H - BOTTOM, 0, 0, 0};
}

double chart_text_width(const char *text, double size)
{
	/* Code points, not bytes; a Devanagari sign that joins the letter before it (U+0900-
	 * U+0903, U+093A-U+094F, U+0951-U+0957, U+0962-U+0963) takes no column of its own. */
	double cols = 0;
	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p;) {
		unsigned cp = *p;
		int k = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
		if (k == 3 && p[1] && p[2])
			cp = ((cp & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
		bool joins = (cp >= 0x900 && cp <= 0x903) || (cp >= 0x93A && cp <= 0x94F) ||
			     (cp >= 0x951 && cp <= 0x957) || cp == 0x962 || cp == 0x963;
		if (!joins)
			cols++;
		for (int j = 0; j < k && *p; j++)
			p++;
	}
	return cols * size * 0.62; /* a sans-serif's average advance, as a fraction of its size */
}

bool chart_box_hits_circle(const struct chart_box *b, double x, double y, double r)
{
	double nx = fmax(b->x0, fmin(x, b->x1)), ny = fmax(b->y0, fmin(y, b->y1));
	return (nx - x) * (nx - x) + (ny - y) * (ny - y) < r * r;
}

bool chart_boxes_overlap(const struct chart_box *a, const struct chart_box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* The box of a label of width w for text placed at (tx, ty) with anchor an. */
static struct chart_box label_box(double tx, double ty, double w, enum svg_anchor an)
{
	double x0 = an == SVG_START ? tx : an == SVG_END ? tx - w : tx - w / 2;
	return (struct chart_box){x0, ty - LABEL_SIZE * 0.8, x0 + w, ty + LABEL_SIZE * 0.25, tx, ty,
				  an};
}

struct chart_box chart_label_box(const char *text, double tx, double ty, int anchor)
{
	return label_box(tx, ty, chart_text_width(text, LABEL_SIZE), (enum svg_anchor)anchor);
}

/* place_label: where point i's label goes: right, left, above or below its marker, then
 * twice as far; the first that covers no marker (xyr: x, y, r of each of n), no label
 * placed before it (placed, n_placed) and stays inside the plot area; when none does, the
 * one with the fewest collisions. */
static struct chart_box place_label(const char *label, const double *xyr, int n, int i,
				    const struct chart_box *placed, int n_placed)
{
	double w = chart_text_width(label, LABEL_SIZE);
	double x = xyr[3 * i], y = xyr[3 * i + 1], r = xyr[3 * i + 2];
	struct chart_box best = {0};
	int best_hits = -1;
	for (int far = 1; far <= 3; far++) {
		double d = 4 * far + (far - 1) * 10;
		struct chart_box c[4] = {
			label_box(x + r + d, y + 4, w, SVG_START),
			label_box(x - r - d, y + 4, w, SVG_END),
			label_box(x, y - r - d, w, SVG_MIDDLE),
			label_box(x, y + r + d + LABEL_SIZE * 0.8, w, SVG_MIDDLE),
		};
		for (int k = 0; k < 4; k++) {
			int hits = 0;
			if (c[k].x0 < LEFT + 2 || c[k].x1 > W - RIGHT - 2 || c[k].y0 < TOP ||
			    c[k].y1 > H - BOTTOM - 2)
				hits += 10; /* over an axis, the title or the legend */
			for (int j = 0; j < n; j++)
				hits += chart_box_hits_circle(&c[k], xyr[3 * j], xyr[3 * j + 1],
							      xyr[3 * j + 2]);
			for (int j = 0; j < n_placed; j++)
				hits += chart_boxes_overlap(&c[k], &placed[j]);
			if (hits == 0)
				return c[k];
			if (best_hits < 0 || hits < best_hits) {
				best = c[k];
				best_hits = hits;
			}
		}
	}
	return best;
}

enum err chart_tradeoff(const char *path, const char *title, const struct chart_point *p,
			int n, double max_p95_ms, double min_accuracy)
{
	if (n < 1)
		return ERR_INVALID;
	double xmax = max_p95_ms > 0 ? max_p95_ms : 0, ymin = 100, ymax = 0, cmax = 0;
	if (min_accuracy > 0)
		ymin = ymax = min_accuracy * 100;
	for (int i = 0; i < n; i++) {
		if (!isfinite(p[i].accuracy) || !isfinite(p[i].p95_ms) || !isfinite(p[i].cost_usd))
			return ERR_INVALID;
		xmax = fmax(xmax, p[i].p95_ms);
		ymin = fmin(ymin, p[i].accuracy * 100);
		ymax = fmax(ymax, p[i].accuracy * 100);
		cmax = fmax(cmax, p[i].cost_usd);
	}
	struct axis xa = nice_axis(0, xmax > 0 ? xmax * 1.08 : 1);
	struct axis ya = nice_axis(fmax(0, ymin - 1), fmin(100, ymax + 1));
	struct svg *s = NULL;
	enum err e = svg_new(W, H, &s);
	if (e != ERR_OK)
		return e;
	frame(s, title, &xa, "p95 latency (ms)", &ya, "accuracy (%)");
	if (max_p95_ms > 0) {
		double x = px(&xa, max_p95_ms);
		svg_line(s, x, TOP, x, H - BOTTOM, "#D55E00", 1.5, "6,4");
		svg_text(s, x - 4, TOP + 14, 11, SVG_END, "#D55E00", "normal", 0, "p95 limit");
	}
	if (min_accuracy > 0) {
		double y = py(&ya, min_accuracy * 100);
		svg_line(s, LEFT, y, W - RIGHT, y, "#D55E00", 1.5, "6,4");
		svg_text(s, W - RIGHT - 4, y - 5, 11, SVG_END, "#D55E00", "normal", 0,
			 "accuracy limit");
	}
	/* Markers first, then each label where it covers no marker, no other label and stays
	 * inside the plot area (clear of the axes and the legend). */
	struct chart_box *placed = calloc((size_t)n, sizeof *placed);
	double *cx = calloc((size_t)n * 3, sizeof *cx);
	if (!placed || !cx) {
		free(placed);
		free(cx);
		svg_free(s);
		return ERR_NOMEM;
	}
	for (int i = 0; i < n; i++) {
		double r = cmax > 0 ? fmax(2, 20 * sqrt(p[i].cost_usd / cmax)) : 6;
		double x = px(&xa, p[i].p95_ms), y = py(&ya, p[i].accuracy * 100);
		cx[3 * i] = x, cx[3 * i + 1] = y, cx[3 * i + 2] = r;
		char tip[128];
		snprintf(tip, sizeof tip, "%.2f%%, p95 %.0f ms, $%.4g", p[i].accuracy * 100,
			 p[i].p95_ms, p[i].cost_usd);
		svg_circle(s, x, y, r, p[i].chosen ? palette[0] : "#bbbbbb",
			   p[i].chosen ? "#003f66" : "#777777", p[i].chosen ? 0.75 : 0.4, tip);
	}
	for (int i = 0; i < n; i++) {
		struct chart_box b = place_label(p[i].label, cx, n, i, placed, i);
		placed[i] = b;
		svg_text(s, b.text_x, b.text_y, LABEL_SIZE, b.anchor,
			 p[i].chosen ? "black" : "#777777", "normal", 0, p[i].label);
	}
	free(placed);
	free(cx);
	char legend[96];
	double lx = W - RIGHT + 16;
	svg_circle(s, lx + 6, TOP + 10, 6, palette[0], "#003f66", 0.75, NULL);
	svg_text(s, lx + 18, TOP + 14, 12, SVG_START, "black", "normal", 0, "frontier");
	svg_circle(s, lx + 6, TOP + 32, 6, "#bbbbbb", "#777777", 0.4, NULL);
	svg_text(s, lx + 18, TOP + 36, 12, SVG_START, "black", "normal", 0, "excluded");
	svg_text(s, lx, TOP + 62, 12, SVG_START, "black", "normal", 0, "marker area ∝ cost");
	snprintf(legend, sizeof legend, "largest: $%.4g", cmax);
	svg_text(s, lx, TOP + 78, 12, SVG_START, "black", "normal", 0, legend);
	return finish(s, path);
}

enum err chart_grouped(const char *path, const char *title, const char *x_label,
		       const char *y_label,
		       const char *const *groups, int n_groups, const char *const *series,
		       int n_series, const double *values)
{
	if (n_groups < 1 || n_series < 1)
		return ERR_INVALID;
	struct axis ya = {0, 100, 10};
	struct svg *s = NULL;
	enum err e = svg_new(W, H, &s);
	if (e != ERR_OK)
		return e;
	frame(s, title, NULL, x_label ? x_label : "", &ya, y_label ? y_label : "accuracy (%)");
	double band = (W - LEFT - RIGHT) / n_groups, bar = band * 0.8 / n_series;
	char buf[64];
	for (int g = 0; g < n_groups; g++) {
		double x0 = LEFT + g * band + band * 0.1;
		svg_text(s, LEFT + g * band + band / 2, H - BOTTOM + 20, 12, SVG_MIDDLE, "black",
			 "normal", 0, groups[g]);
		for (int k = 0; k < n_series; k++) {
			double v = values[g * n_series + k], x = x0 + k * bar;
			if (!isfinite(v)) {
				svg_text(s, x + bar / 2, H - BOTTOM - 4, 10, SVG_MIDDLE, "#777777",
					 "normal", 0, "n/a");
				continue;
			}
			double y = py(&ya, fmin(100, fmax(0, v * 100)));
			snprintf(buf, sizeof buf, "%s x %s: %.2f%%", groups[g], series[k], v * 100);
			svg_rect(s, x + 1, y, bar - 2, H - BOTTOM - y, palette[k % N_PALETTE],
				 "none", buf);
			snprintf(buf, sizeof buf, "%.1f", v * 100);
			svg_text(s, x + bar / 2, y - 4, 10, SVG_MIDDLE, "#333333", "normal", 0, buf);
		}
	}
	double lx = W - RIGHT + 16;
	for (int k = 0; k < n_series; k++) {
		svg_rect(s, lx, TOP + k * 20, 12, 12, palette[k % N_PALETTE], "none", NULL);
		svg_text(s, lx + 18, TOP + k * 20 + 11, 12, SVG_START, "black", "normal", 0,
			 series[k]);
	}
	return finish(s, path);
}

enum err chart_sweep(const char *path, const char *title, const double *w_a, int n_steps,
		     const char *const *names, int n_names, const double *u, const int *leader)
{
	if (n_steps < 1 || n_names < 1)
		return ERR_INVALID;
	struct axis xa = nice_axis(w_a[0], w_a[n_steps - 1]);
	struct axis ya = {0, 1, 0.1};
	struct svg *s = NULL;
	double *xy = malloc((size_t)n_steps * 2 * sizeof *xy);
	enum err e = xy ? svg_new(W, H, &s) : ERR_NOMEM;
	if (e != ERR_OK) {
		free(xy);
		return e;
	}
	frame(s, title, &xa, "accuracy weight w_a", &ya, "weighted sum U");
	for (int i = 0; i < n_names; i++) {
		const char *colour = palette[i % N_PALETTE];
		int m = 0;
		for (int k = 0; k <= n_steps; k++) {
			double v = k < n_steps ? u[k * n_names + i] : NAN;
			if (isfinite(v)) {
				xy[2 * m] = px(&xa, w_a[k]);
				xy[2 * m + 1] = py(&ya, v);
				m++;
				continue;
			}
			if (m == 1)
				svg_circle(s, xy[0], xy[1], 2.5, colour, "none", 1, NULL);
			else if (m > 1)
				svg_polyline(s, xy, m, colour, 2);
			m = 0;
		}
	}
	for (int k = 0; k < n_steps; k++) {
		int l = leader[k];
		if (l < 0 || l >= n_names)
			continue;
		double x = px(&xa, w_a[k]), y = py(&ya, u[k * n_names + l]);
		char tip[160];
		snprintf(tip, sizeof tip, "w_a %g: leader %s", w_a[k], names[l]);
		svg_circle(s, x, y, 5, palette[l % N_PALETTE], "black", 1, tip);
		if (k == 0 || leader[k - 1] != l)
			svg_text(s, k == 0 ? x + 4 : x, y - 10, 12, k == 0 ? SVG_START : SVG_MIDDLE,
				 "black", "bold", 0, names[l]);
	}
	double lx = W - RIGHT + 16;
	for (int i = 0; i < n_names; i++) {
		bool shown = false;
		for (int k = 0; k < n_steps; k++)
			shown = shown || isfinite(u[k * n_names + i]);
		svg_line(s, lx, TOP + i * 20 + 6, lx + 14, TOP + i * 20 + 6,
			 shown ? palette[i % N_PALETTE] : "#cccccc", 3, shown ? NULL : "3,3");
		svg_text(s, lx + 20, TOP + i * 20 + 10, 12, SVG_START, shown ? "black" : "#777777",
			 "normal", 0, names[i]);
	}
	svg_text(s, lx, TOP + n_names * 20 + 16, 11, SVG_START, "#333333", "normal", 0,
		 "dots: leader");
	free(xy);
	return finish(s, path);
}
