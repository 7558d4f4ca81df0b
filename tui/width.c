/* width: text width in terminal columns, by grapheme cluster (rules in width.h). */
#include "width.h"

#include <string.h>
#include <utf8proc.h>

/* One code point at s (len > 0 bytes left); a bad sequence is U+FFFD over one byte. */
static size_t next_cp(const char *s, size_t len, utf8proc_int32_t *cp)
{
	utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)s,
					      (utf8proc_ssize_t)len, cp);
	if (n <= 0 || *cp < 0) {
		*cp = 0xFFFD;
		return 1;
	}
	return (size_t)n;
}

static int cp_cols(utf8proc_int32_t cp)
{
	/* Spacing marks advance the terminal's cursor (see width.h); a control character is
	 * drawn as U+FFFD, one column (screen.c never sends one to the terminal). */
	if (utf8proc_category(cp) == UTF8PROC_CATEGORY_MC || utf8proc_category(cp) == UTF8PROC_CATEGORY_CC)
		return 1;
	return utf8proc_charwidth(cp);
}

/* The grapheme cluster at s (len > 0): its byte length; *cols its width. */
static size_t next_cluster(const char *s, size_t len, int *cols)
{
	utf8proc_int32_t prev, cp, state = 0;
	size_t i = next_cp(s, len, &prev);
	int w = cp_cols(prev);
	while (i < len) {
		size_t n = next_cp(s + i, len - i, &cp);
		if (utf8proc_grapheme_break_stateful(prev, cp, &state))
			break;
		w += cp_cols(cp);
		i += n;
		prev = cp;
	}
	*cols = w;
	return i;
}

int width_ncols(const char *s, size_t len)
{
	int total = 0;
	size_t i = 0;
	while (s && i < len) {
		int w;
		i += next_cluster(s + i, len - i, &w);
		total += w;
	}
	return total;
}

int width_cols(const char *utf8)
{
	return utf8 ? width_ncols(utf8, strlen(utf8)) : 0;
}

size_t width_cut(const char *utf8, int cols, int *used)
{
	size_t i = 0, len = utf8 ? strlen(utf8) : 0;
	int total = 0;
	while (i < len && cols > 0) {
		int w;
		size_t n = next_cluster(utf8 + i, len - i, &w);
		if (total + w > cols)
			break;
		total += w;
		i += n;
	}
	if (used)
		*used = total;
	return i;
}

size_t width_wrap(const char *utf8, int cols, size_t *next)
{
	size_t len = utf8 ? strlen(utf8) : 0;
	size_t i = 0, end = len, resume = len;
	size_t brk = 0, brk_next = 0; /* the last space seen: where it starts and ends */
	int have_brk = 0, total = 0;

	while (i < len) {
		if (utf8[i] == '\n') {
			end = i;
			resume = i + 1;
			break;
		}
		int w;
		size_t n = next_cluster(utf8 + i, len - i, &w);
		if (total + w > cols && i > 0) {
			if (utf8[i] == ' ') {
				end = resume = i;
			} else if (have_brk) {
				end = brk;
				resume = brk_next;
			} else {
				end = resume = i;
			}
			while (resume < len && utf8[resume] == ' ')
				resume++;
			break;
		}
		if (utf8[i] == ' ') {
			have_brk = 1;
			brk = i;
			brk_next = i + n;
		}
		total += w;
		i += n;
	}
	while (end > 0 && utf8[end - 1] == ' ')
		end--;
	if (next)
		*next = resume;
	return end;
}

size_t width_last_cluster(const char *s, size_t len)
{
	size_t i = 0, last = 0;
	while (s && i < len) {
		int w;
		last = i;
		i += next_cluster(s + i, len - i, &w);
	}
	return last;
}
