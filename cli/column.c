/* column: see column.h. */
#include "column.h"

#include "tui/width.h"

void column_pad(FILE *f, const char *utf8, int cols)
{
	int w = width_cols(utf8);
	fputs(utf8, f);
	for (; w < cols; w++)
		fputc(' ', f);
}
