/* width: how many terminal columns UTF-8 text takes, and where to cut or wrap it, one
 * grapheme cluster at a time so that a letter never loses its combining marks
 * (Devanagari vowel signs, virama, nukta, anusvara, chandrabindu, ZWJ/ZWNJ). The one
 * place the screens measure text.
 *
 * Width rule: a cluster (utf8proc's grapheme breaking) takes the sum of its code points'
 * columns; a code point takes utf8proc_charwidth() columns (0 for non-spacing marks and
 * format characters, 2 for East Asian wide), except spacing combining marks (Unicode
 * category Mc, such as the Devanagari vowel signs ा ि ी ो and visarga), which take 1:
 * the C library's wcwidth(), and so ncurses and terminals such as tmux, advance the
 * cursor for them, and the layout must agree with the cursor. Control characters count 0;
 * callers replace them before drawing. Bytes that are not UTF-8 count as U+FFFD, 1 column. */
#ifndef FORMDESK_WIDTH_H
#define FORMDESK_WIDTH_H

#include <stddef.h>

/* width_cols: columns taken by the NUL-terminated utf8 text. NULL gives 0. */
int width_cols(const char *utf8);

/* width_ncols: columns taken by the first len bytes of s. */
int width_ncols(const char *s, size_t len);

/* width_cut: the longest prefix of utf8 that fits in cols columns without splitting a
 * grapheme cluster. Output: its length in bytes (0 when cols <= 0 or utf8 is NULL);
 * *used (may be NULL) its width in columns. */
size_t width_cut(const char *utf8, int cols, int *used);

/* width_wrap: the first line of utf8 when wrapped at cols columns: breaks after the last
 * space that fits, cuts a word longer than a line at a cluster boundary, and ends a line
 * at '\n'. Always takes at least one cluster, so a caller looping on it makes progress.
 * Output: the line's length in bytes, trailing spaces excluded; *next (may be NULL) the
 * offset where the following line starts (spaces after the break skipped), equal to
 * strlen(utf8) at the end. */
size_t width_wrap(const char *utf8, int cols, size_t *next);

/* width_last_cluster: where the last grapheme cluster of the first len bytes of s begins
 * (a byte offset; 0 for empty text), so an editor erases a letter with its signs. */
size_t width_last_cluster(const char *s, size_t len);

#endif
