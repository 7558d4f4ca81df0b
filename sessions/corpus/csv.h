/* csv: reading and writing CSV as RFC 4180 defines it (comma separated, fields with
 * commas, quotes or line breaks in double quotes, a quote inside doubled; CRLF or LF line
 * ends). A UTF-8 byte order mark at the start is skipped. Used for the corpus files. */
#ifndef FORMDESK_CSV_H
#define FORMDESK_CSV_H

#include <stdio.h>
#include "base/err.h"

struct csv;

/* csv_open: read the whole file at path. Output: *out (caller frees with csv_free); on
 * failure *errmsg (caller frees; may be NULL) names the file and the system error, or the
 * line of a NUL byte or of bytes that are not UTF-8. Errors: ERR_IO, ERR_PARSE,
 * ERR_NOMEM. */
enum err csv_open(const char *path, struct csv **out, char **errmsg);

/* csv_read_file: the whole of the regular file at path. Outputs: *text (NUL-terminated,
 * caller frees), *len its bytes. A folder, a pipe or a device is refused before it is
 * opened. On failure *errmsg (caller frees; may be NULL) reads "PATH: cannot read: WHY".
 * Errors: ERR_IO, ERR_NOMEM. */
enum err csv_read_file(const char *path, char **text, size_t *len, char **errmsg);
void csv_free(struct csv *c);

/* csv_next: the next record. Blank lines are passed over. Output: *fields (caller frees
 * with csv_fields_free) and *n, n = 0 at the end of the file; *line the line the record
 * starts on (1-based). On ERR_PARSE *errmsg (caller frees; may be NULL) reads
 * "FILE:LINE: what is wrong" (a quote left open, text after a closing quote).
 * Errors: ERR_PARSE, ERR_NOMEM. */
enum err csv_next(struct csv *c, char ***fields, int *n, int *line, char **errmsg);
void csv_fields_free(char **fields, int n);

/* csv_write_field: write s as one field to f, quoted only when it must be. */
void csv_write_field(FILE *f, const char *s);

#endif
