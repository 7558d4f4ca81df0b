/* lineedit: the line the operator types a caller's words into during a typed live call:
 * characters are added at the end and erased a grapheme cluster at a time (a Devanagari
 * letter goes with its vowel signs, virama and nukta: tui/width.h), so what is sent is
 * always whole text. No terminal here: the screen draws lineedit_text(). */
#ifndef FORMDESK_LINEEDIT_H
#define FORMDESK_LINEEDIT_H

#include <stddef.h>
#include "base/err.h"

/* The longest line, in bytes of UTF-8: a caller's answer, not a document. */
#define LINEEDIT_MAX 2048

struct lineedit;

/* lineedit_new: an empty line. Output: new editor (caller frees with lineedit_free), NULL
 * when out of memory. */
struct lineedit *lineedit_new(void);
void lineedit_free(struct lineedit *ed);

/* lineedit_insert: add the character cp (a Unicode code point as wget_wch gives it) at the
 * end. Control characters, surrogates and code points beyond U+10FFFF are refused.
 * Errors: ERR_INVALID (refused), ERR_NOMEM (the line is full: LINEEDIT_MAX). */
enum err lineedit_insert(struct lineedit *ed, long cp);

/* lineedit_erase: remove the last grapheme cluster; an empty line stays empty. */
void lineedit_erase(struct lineedit *ed);

/* lineedit_clear: empty the line. */
void lineedit_clear(struct lineedit *ed);

/* lineedit_text: the line as UTF-8, NUL-terminated; static to ed until the next change. */
const char *lineedit_text(const struct lineedit *ed);

#endif
