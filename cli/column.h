/* column: the commands' plain-text tables on stdout (calibrate, select), whose cells may
 * hold Devanagari: a cell is padded by the columns its text takes on a terminal, measured
 * with the screens' one width function (tui/width.h), not by its bytes as printf's %-*s
 * would. */
#ifndef FORMDESK_COLUMN_H
#define FORMDESK_COLUMN_H

#include <stdio.h>

/* column_pad: write utf8 (NUL-terminated, not NULL) to f, then spaces up to cols terminal
 * columns; nothing more when it already takes cols or more. */
void column_pad(FILE *f, const char *utf8, int cols);

#endif
