/* lineedit: the typed caller's line (see lineedit.h). */
#include "lineedit.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "width.h"

struct lineedit {
	char text[LINEEDIT_MAX + 1];
	size_t len;
};

struct lineedit *lineedit_new(void)
{
	return calloc(1, sizeof(struct lineedit));
}

void lineedit_free(struct lineedit *ed)
{
	free(ed);
}

enum err lineedit_insert(struct lineedit *ed, long cp)
{
	utf8proc_uint8_t buf[4];
	utf8proc_ssize_t n;

	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || !utf8proc_codepoint_valid((utf8proc_int32_t)cp))
		return ERR_INVALID;
	n = utf8proc_encode_char((utf8proc_int32_t)cp, buf);
	if (n <= 0)
		return ERR_INVALID;
	if (ed->len + (size_t)n > LINEEDIT_MAX)
		return ERR_NOMEM;
	memcpy(ed->text + ed->len, buf, (size_t)n);
	ed->len += (size_t)n;
	ed->text[ed->len] = '\0';
	return ERR_OK;
}

void lineedit_erase(struct lineedit *ed)
{
	ed->len = width_last_cluster(ed->text, ed->len);
	ed->text[ed->len] = '\0';
}

void lineedit_clear(struct lineedit *ed)
{
	ed->len = 0;
	ed->text[0] = '\0';
}

const char *lineedit_text(const struct lineedit *ed)
{
	return ed->text;
}
