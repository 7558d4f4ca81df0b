#include "textcheck.h"

#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

size_t textcheck_json_nul(const char *json, size_t len)
{
	bool in_string = false;
	for (size_t i = 0; i < len; i++) {
		if (!in_string) {
			in_string = json[i] == '"';
			continue;
		}
		if (json[i] == '"') {
			in_string = false;
		} else if (json[i] == '\\' && i + 1 < len) {
			if (json[i + 1] == 'u' && i + 6 <= len && memcmp(json + i + 2, "0000", 4) == 0)
				return i;
			i++; /* the escaped character, whatever it is, is not a quote */
		}
	}
	return len;
}

size_t textcheck_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	size_t n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) /* s[n] continues a character */
		n--;
	return n;
}

bool textcheck_answer(const char *body, size_t len, char *why, size_t n)
{
	const char *bad = utf8_bad(body, len, false);
	if (bad) {
		snprintf(why, n, *bad ? "the answer is not valid UTF-8 (byte %zu)"
				      : "the answer holds a NUL byte (byte %zu)", (size_t)(bad - body));
		return false;
	}
	size_t at = textcheck_json_nul(body, len);
	if (at < len) {
		snprintf(why, n, "the answer holds a NUL character (\\u0000 at byte %zu)", at);
		return false;
	}
	return true;
}
