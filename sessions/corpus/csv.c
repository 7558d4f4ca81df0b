/* csv: RFC 4180 reader and writer (see csv.h). */
#include "csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/utf8.h"
#include "base/str.h"

struct csv {
	char *path;
	char *text;
	size_t len;
	size_t pos;
	int line; /* line of text[pos] */
};

enum err csv_read_file(const char *path, char **text, size_t *len, char **errmsg)
{
	struct stat sb;
	enum err e;

	/* looked at before it is opened: a FIFO would wait for a writer, a folder's size is
	 * no size */
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		str_setf(errmsg, "%s: cannot read: %s", path,
			S_ISDIR(sb.st_mode) ? "it is a folder, not a file"
					    : "not a regular file (a pipe, a device or a socket)");
		return ERR_IO;
	}
	if ((e = file_read(path, text, len)) == ERR_IO)
		str_setf(errmsg, "%s: cannot read: %s", path, strerror(errno));
	return e;
}

enum err csv_open(const char *path, struct csv **out, char **errmsg)
{
	struct csv *c = calloc(1, sizeof *c);
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	if (!c || !(c->path = strdup(path)))
		goto out;
	if ((e = csv_read_file(path, &c->text, &c->len, errmsg)) != ERR_OK)
		goto out;
	c->line = 1;
	if (c->len >= 3 && memcmp(c->text, "\xEF\xBB\xBF", 3) == 0)
		c->pos = 3;
	e = ERR_PARSE;
	const char *bad = utf8_bad(c->text, c->len, false);
	if (bad) {
		int line = 1;
		for (const char *p = c->text; p < bad; p++)
			line += *p == '\n';
		if (*bad)
			str_setf(errmsg, "%s:%d: not UTF-8 text (byte 0x%02X)", path, line,
				(unsigned)(unsigned char)*bad);
		else
			str_setf(errmsg, "%s:%d: the file holds a NUL byte; not CSV text", path, line);
		goto out;
	}
	e = ERR_OK;
out:
	if (e == ERR_OK) {
		*out = c;
		return ERR_OK;
	}
	csv_free(c);
	return e;
}

void csv_free(struct csv *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->text);
	free(c);
}

void csv_fields_free(char **fields, int n)
{
	if (!fields)
		return;
	for (int i = 0; i < n; i++)
		free(fields[i]);
	free(fields);
}

/* Growable byte buffer for one field. */
struct buf {
	char *s;
	size_t n, cap;
};

static bool buf_put(struct buf *b, char ch)
{
	if (b->n + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char *s = realloc(b->s, cap);
		if (!s)
			return false;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->n++] = ch;
	b->s[b->n] = '\0';
	return true;
}

static bool push_field(char ***fields, int *n, struct buf *b)
{
	char **v = realloc(*fields, (size_t)(*n + 1) * sizeof **fields);
	if (!v)
		return false;
	*fields = v;
	if (!b->s && !(b->s = strdup("")))
		return false;
	v[(*n)++] = b->s;
	b->s = NULL;
	b->n = b->cap = 0;
	return true;
}

static bool at_line_end(const struct csv *c)
{
	return c->pos >= c->len || c->text[c->pos] == '\n' ||
	       (c->text[c->pos] == '\r' && (c->pos + 1 >= c->len || c->text[c->pos + 1] == '\n'));
}

static void skip_line_end(struct csv *c)
{
	if (c->pos < c->len && c->text[c->pos] == '\r')
		c->pos++;
	if (c->pos < c->len && c->text[c->pos] == '\n') {
		c->pos++;
		c->line++;
	}
}

enum err csv_next(struct csv *c, char ***fields_out, int *n_out, int *line, char **errmsg)
{
	char **fields = NULL;
	int n = 0;
	struct buf b = {0};
	enum err e = ERR_NOMEM;

	if (errmsg)
		*errmsg = NULL;
	while (c->pos < c->len && at_line_end(c))
		skip_line_end(c); /* blank lines */
	*line = c->line;
	if (c->pos >= c->len) {
		*fields_out = NULL;
		*n_out = 0;
		return ERR_OK;
	}
	for (;;) {
		if (c->pos < c->len && c->text[c->pos] == '"') {
			int open_line = c->line;
			c->pos++;
			for (;;) {
				if (c->pos >= c->len) {
					str_setf(errmsg, "%s:%d: a quoted field is never closed", c->path,
						open_line);
					e = ERR_PARSE;
					goto out;
				}
				char ch = c->text[c->pos++];
				if (ch == '"') {
					if (c->pos < c->len && c->text[c->pos] == '"')
						c->pos++;
					else
						break;
				} else if (ch == '\n') {
					c->line++;
				}
				if (!buf_put(&b, ch))
					goto out;
			}
			if (c->pos < c->len && c->text[c->pos] != ',' && !at_line_end(c)) {
				str_setf(errmsg, "%s:%d: text after the closing quote of field %d", c->path,
					open_line, n + 1);
				e = ERR_PARSE;
				goto out;
			}
		} else {
			while (c->pos < c->len && c->text[c->pos] != ',' && !at_line_end(c)) {
				if (c->text[c->pos] == '"') {
					str_setf(errmsg,
						"%s:%d: a quote inside unquoted field %d (quote the whole "
						"field and double the quote)",
						c->path, c->line, n + 1);
					e = ERR_PARSE;
					goto out;
				}
				if (!buf_put(&b, c->text[c->pos++]))
					goto out;
			}
		}
		if (!push_field(&fields, &n, &b))
			goto out;
		if (c->pos < c->len && c->text[c->pos] == ',') {
			c->pos++;
			continue;
		}
		skip_line_end(c);
		break;
	}
	e = ERR_OK;
out:
	free(b.s);
	if (e == ERR_OK) {
		*fields_out = fields;
		*n_out = n;
		return ERR_OK;
	}
	csv_fields_free(fields, n);
	return e;
}

void csv_write_field(FILE *f, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
