/* svg: a small writer of well-formed SVG 1.1 documents (W3C SVG 1.1; XML 1.0) for report
 * charts that open in any browser. Text and attribute values are escaped (& < > " ' as
 * entities); bytes that are not valid UTF-8 and control characters XML 1.0 forbids become
 * U+FFFD, so any label (Devanagari, model names with markup characters) yields a document
 * an XML parser accepts.
 *
 * Drawing calls never fail on their own: the first allocation failure is remembered and
 * reported by svg_save / svg_string, so callers check once at the end. Coordinates are SVG
 * user units (pixels at 100% zoom), origin top left, y down. */
#ifndef FORMDESK_SVG_H
#define FORMDESK_SVG_H

#include <stddef.h>
#include "base/err.h"

struct svg;

enum svg_anchor {
	SVG_START,
	SVG_MIDDLE,
	SVG_END,
};

/* svg_new: an empty width x height document with a white background. Output: *out (caller
 * frees with svg_free), written only on success. Errors: ERR_INVALID (a size not above 0),
 * ERR_NOMEM. */
enum err svg_new(double width, double height, struct svg **out);

/* svg_free: free s. svg_free(NULL) does nothing. */
void svg_free(struct svg *s);

/* Shapes. Colours are CSS colour strings ("#1f77b4", "none"); all strings are borrowed.
 * title (may be NULL) becomes a <title> child, shown by browsers on hover. */
void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
	      const char *stroke, const char *title);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke,
	      double stroke_width, const char *dash);
void svg_circle(struct svg *s, double cx, double cy, double r, const char *fill,
		const char *stroke, double opacity, const char *title);
/* svg_polyline: n points, xy[2i] and xy[2i+1]. */
void svg_polyline(struct svg *s, const double *xy, int n, const char *stroke,
		  double stroke_width);

/* svg_text: text (UTF-8) at (x, y), its baseline; size in user units; rotate in degrees
 * about (x, y), clockwise; weight "normal" or "bold". */
void svg_text(struct svg *s, double x, double y, double size, enum svg_anchor anchor,
	      const char *fill, const char *weight, double rotate, const char *text);

/* svg_string: the document so far, closed. Output: new NUL-terminated string (caller
 * frees with free()). Errors: ERR_NOMEM (now or in an earlier drawing call). */
enum err svg_string(const struct svg *s, char **out);

/* svg_save: write the document to path. Errors: ERR_NOMEM (as svg_string), ERR_IO. */
enum err svg_save(const struct svg *s, const char *path);

/* svg_escape: text with & < > " ' as entities and invalid UTF-8 or forbidden control
 * characters as U+FFFD. Output: new string (caller frees), NULL on allocation failure. */
char *svg_escape(const char *text);

#endif
