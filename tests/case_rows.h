/* case_rows: checking one extraction row of a case file (the rows read with
 * tests/support/table.h): the utterance through the offline extractor and flow_check, as
 * `formdesk extract` does, against the expected column. Included by the case tests.
 *
 * Expected column (the conventions of the shared extract.tsv):
 *   =V       answered and stored as V (number fields as numbers, dates DD-MM-YYYY,
 *            booleans true/false, option text), compared with the stored value's text
 *   ~A|B     answered with a value equal to one of the spellings (case and spacing ignored)
 *   skipped  the skip flag; skipped:REASON also checks the reason
 *   invalid  a value was given but fails validation
 *   empty    nothing usable for this field
 * An optional fifth column checks other fields of the same utterance:
 * "district=Gaya;pregnant=true;name~Rekha" (field, then = or ~ as above, or
 * "field:empty" for a field that must not appear). */
#ifndef FORMDESK_TESTS_CASE_ROWS_H
#define FORMDESK_TESTS_CASE_ROWS_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/stages/extract_rules.h"
#include "agent/rules/flow.h"
#include "agent/rules/form.h"
#include "agent/hindi/lexicon.h"
#include "tests/support/table.h"

/* text of a stored value: strings as they are, numbers as %.15g, booleans true/false */
static inline void value_text(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsString(v))
		snprintf(buf, n, "%s", v->valuestring);
	else if (cJSON_IsNumber(v))
		snprintf(buf, n, "%.15g", v->valuedouble);
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else
		snprintf(buf, n, "?");
}

/* lowercase ASCII, no spaces */
static inline void squash(const char *s, char *out, size_t n)
{
	size_t o = 0;
	for (; *s && o + 1 < n; s++)
		if (*s != ' ')
			out[o++] = (char)tolower((unsigned char)*s);
	out[o] = 0;
}

/* Does the result entry e (NULL when the field is absent) satisfy want? why explains. */
static inline bool entry_ok(const cJSON *e, const char *want, char *why, size_t wn)
{
	const cJSON *st = e ? cJSON_GetObjectItemCaseSensitive(e, "status") : NULL;
	const char *status = cJSON_IsString(st) ? st->valuestring : "empty";
	char got[512] = "";
	const cJSON *val = e ? cJSON_GetObjectItemCaseSensitive(e, "value") : NULL;
	if (val)
		value_text(val, got, sizeof(got));
	if (want[0] == '=' || want[0] == '~') {
		if (strcmp(status, "answered") != 0) {
			snprintf(why, wn, "want %s, got status %s", want, status);
			return false;
		}
		if (want[0] == '=') {
			if (strcmp(got, want + 1) == 0)
				return true;
		} else {
			char g[512], alt[512];
			squash(got, g, sizeof(g));
			char *copy = strdup(want + 1), *save = NULL;
			for (char *a = strtok_r(copy, "|", &save); a; a = strtok_r(NULL, "|", &save)) {
				squash(a, alt, sizeof(alt));
				if (strcmp(alt, g) == 0) {
					free(copy);
					return true;
				}
			}
			free(copy);
		}
		snprintf(why, wn, "want %s, got value '%s'", want, got);
		return false;
	}
	const char *colon = strchr(want, ':');
	size_t sl = colon ? (size_t)(colon - want) : strlen(want);
	if (strlen(status) != sl || strncmp(status, want, sl) != 0) {
		snprintf(why, wn, "want %s, got status %s%s%s", want, status, val ? " value " : "",
			 got);
		return false;
	}
	if (colon) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "reason");
		if (!cJSON_IsString(r) || strcmp(r->valuestring, colon + 1) != 0) {
			snprintf(why, wn, "want reason %s, got %s", colon + 1,
				 cJSON_IsString(r) ? r->valuestring : "none");
			return false;
		}
	}
	return true;
}

/* Run one row: asked field, utterance, expected, optional others. */
static inline bool row_check(const struct form *f, const struct lexicon *lex, struct ymd today,
		      const char *field, const char *utt, const char *want, const char *also,
		      char *why, size_t wn)
{
	int asked = form_find(f, field);
	if (asked < 0) {
		snprintf(why, wn, "no question '%s' in the form", field);
		return false;
	}
	struct extract_request req = {.form = f, .lex = lex, .asked = asked, .transcript = utt,
				      .today = today};
	struct extraction *ex = NULL;
	cJSON *res = NULL;
	bool ok = false;
	if (extract_rules_extract(NULL, &req, &ex) != ERR_OK ||
	    flow_check(f, lex, today, asked, ex, &res) != ERR_OK) {
		snprintf(why, wn, "extract or flow_check failed");
		goto out;
	}
	ok = entry_ok(cJSON_GetObjectItemCaseSensitive(res, field), want, why, wn);
	if (ok && also && *also) {
		char *copy = strdup(also), *save = NULL;
		for (char *c = strtok_r(copy, ";", &save); c && ok; c = strtok_r(NULL, ";", &save)) {
			size_t k = strcspn(c, "=~:");
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)k, c);
			const char *w = c[k] == ':' ? c + k + 1 : c + k;
			char sub[400];
			ok = entry_ok(cJSON_GetObjectItemCaseSensitive(res, name), w, sub, sizeof(sub));
			if (!ok)
				snprintf(why, wn, "other field %s: %s", name, sub);
		}
		free(copy);
	}
	if (!ok) {
		char *js = cJSON_PrintUnformatted(res);
		size_t l = strlen(why);
		snprintf(why + l, wn - l, " (result %s)", js ? js : "?");
		free(js);
	}
out:
	cJSON_Delete(res);
	extraction_free(ex);
	return ok;
}

#endif
