/* fuzz_form: a form config from any bytes (fuzz.h). */
#include "fuzz.h"

#include <stdlib.h>

#include "agent/rules/form.h"

int fuzz_form(const uint8_t *data, size_t len)
{
	char *text = fuzz_text(data, len);
	if (!text)
		return 0;
	struct form *f = NULL;
	struct form_issues is = {0};
	if (form_parse(text, &f, &is) == ERR_OK)
		form_free(f);
	free(form_issues_json(&is));
	form_issues_free(&is);
	free(text);
	return 0;
}
