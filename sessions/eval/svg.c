/* svg: well-formed SVG documents with escaped text (rules in svg.h). */
#include "svg.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "base/sbuf.h"

struct svg {
	struct sbuf out;
	double width, height;
	bool failed;
};

static bool put(struct svg *s, const char *text, size_t n)
{
	if (s->failed)
		return false;
	if (!sbuf_add(&s->out, text, n))
		s->failed = true;
	return !s->failed;
}

static void put_str(struct svg *s, const char *text)
{
	put(s, text, strlen(text));
}

static void putf(struct svg *s, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s->failed = true;
		return;
	}
	if ((size_t)n < sizeof small) {
		put(s, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		s->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	put(s, big, (size_t)n);
	free(big);
}

/* Whether XML 1.0 allows code point cp in a document (its Char production). */
static bool xml_char(utf8proc_int32_t cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
	       (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

char *svg_escape(const char *text)
{
	size_t n = strlen(text);
	/* Worst case: every byte becomes "&quot;" (6) or U+FFFD (3). */
	char *out = malloc(n * 6 + 1), *o = out;
	if (!out)
		return NULL;
	size_t i = 0;
	while (i < n) {
		utf8proc_int32_t cp;
		utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)text + i,
						      (utf8proc_ssize_t)(n - i), &cp);
		if (k <= 0 || !xml_char(cp)) {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			i += k > 0 ? (size_t)k : 1;
			continue;
		}
		const char *ent = cp == '&' ? "&amp;" : cp == '<' ? "&lt;" : cp == '>' ? "&gt;"
				  : cp == '"' ? "&quot;" : cp == '\'' ? "&#39;" : NULL;
		if (ent) {
			size_t el = strlen(ent);
			memcpy(o, ent, el);
			o += el;
		} else {
			memcpy(o, text + i, (size_t)k);
			o += k;
		}
		i += (size_t)k;
	}
	*o = '\0';
	return out;
}

/* Append text escaped. */
static void put_esc(struct svg *s, const char *text)
{
	char *e = svg_escape(text ? text : "");
	if (!e) {
		s->failed = true;
		return;
	}
	put(s, e, strlen(e));
	free(e);
}

enum err svg_new(double width, double height, struct svg **out)
{
	if (!(width > 0 && height > 0))
		return ERR_INVALID;
	struct svg *s = calloc(1, sizeof *s);
	if (!s)
		return ERR_NOMEM;
	s->width = width;
	s->height = height;
	putf(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
	     width, height, width, height);
	putf(s, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
	     width, height);
	if (s->failed) {
		svg_free(s);
		return ERR_NOMEM;
	}
	*out = s;
	return ERR_OK;
}

void svg_free(struct svg *s)
{
	if (!s)
		return;
	free(s->out.p);
	free(s);
}

/* Close an element that may carry a <title>. */
static void end_shape(struct svg *s, const char *name, const char *title)
{
	if (!title) {
		put_str(s, "/>\n");
		return;
	}
	put_str(s, "><title>");
	put_esc(s, title);
	putf(s, "</title></%s>\n", name);
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
	      const char *stroke, const char *title)
{
	putf(s, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"", x, y,
	     w > 0 ? w : 0, h > 0 ? h : 0);
	put_esc(s, fill ? fill : "none");
	put_str(s, "\" stroke=\"");
	put_esc(s, stroke ? stroke : "none");
	put_str(s, "\"");
	end_shape(s, "rect", title);
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke,
	      double stroke_width, const char *dash)
{
	putf(s, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke-width=\"%.2f\" "
		"stroke=\"", x1, y1, x2, y2, stroke_width);
	put_esc(s, stroke ? stroke : "black");
	if (dash) {
		put_str(s, "\" stroke-dasharray=\"");
		put_esc(s, dash);
	}
	put_str(s, "\"/>\n");
}

void svg_circle(struct svg *s, double cx, double cy, double r, const char *fill,
		const char *stroke, double opacity, const char *title)
{
	putf(s, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill-opacity=\"%.2f\" fill=\"", cx,
	     cy, r > 0 ? r : 0, opacity);
	put_esc(s, fill ? fill : "none");
	put_str(s, "\" stroke=\"");
	put_esc(s, stroke ? stroke : "none");
	put_str(s, "\"");
	end_shape(s, "circle", title);
}

void svg_polyline(struct svg *s, const double *xy, int n, const char *stroke,
		  double stroke_width)
{
	if (n < 1)
		return;
	put_str(s, "<polyline fill=\"none\" points=\"");
	for (int i = 0; i < n; i++)
		putf(s, "%s%.2f,%.2f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
	putf(s, "\" stroke-width=\"%.2f\" stroke=\"", stroke_width);
	put_esc(s, stroke ? stroke : "black");
	put_str(s, "\"/>\n");
}

void svg_text(struct svg *s, double x, double y, double size, enum svg_anchor anchor,
	      const char *fill, const char *weight, double rotate, const char *text)
{
	static const char *const anchors[] = {"start", "middle", "end"};
	putf(s, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"%s\"", x, y, size,
	     anchors[anchor <= SVG_END ? anchor : SVG_START]);
	if (rotate != 0)
		putf(s, " transform=\"rotate(%.1f %.2f %.2f)\"", rotate, x, y);
	put_str(s, " font-weight=\"");
	put_esc(s, weight ? weight : "normal");
	put_str(s, "\" fill=\"");
	put_esc(s, fill ? fill : "black");
	put_str(s, "\">");
	put_esc(s, text);
	put_str(s, "</text>\n");
}

enum err svg_string(const struct svg *s, char **out)
{
	if (s->failed)
		return ERR_NOMEM;
	static const char end[] = "</svg>\n";
	char *r = malloc(s->out.n + sizeof end);
	if (!r)
		return ERR_NOMEM;
	memcpy(r, s->out.p, s->out.n);
	memcpy(r + s->out.n, end, sizeof end);
	*out = r;
	return ERR_OK;
}

enum err svg_save(const struct svg *s, const char *path)
{
	char *text = NULL;
	enum err e = svg_string(s, &text);
	if (e != ERR_OK)
		return e;
	FILE *f = fopen(path, "w");
	if (!f) {
		free(text);
		return ERR_IO;
	}
	size_t n = strlen(text);
	bool ok = fwrite(text, 1, n, f) == n;
	ok = fclose(f) == 0 && ok;
	free(text);
	return ok ? ERR_OK : ERR_IO;
}
