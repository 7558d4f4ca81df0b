#include "reqcheck.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/stages/provider.h"
#include "envclear.h"

char *reqcheck_file_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	size_t got = fread(s, 1, (size_t)n, f);
	s[got] = '\0';
	fclose(f);
	return s;
}

const cJSON *reqcheck_jpath(const cJSON *o, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", path);
	char *p = buf;
	while (o && *p) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			int i = atoi(p + 1);
			if (i < 0)
				i += cJSON_GetArraySize(o);
			o = cJSON_GetArrayItem(o, i);
			char *close = strchr(p, ']');
			p = close ? close + 1 : p + strlen(p);
			continue;
		}
		size_t n = strcspn(p, ".[");
		char save = p[n];
		p[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, p);
		p[n] = save;
		p += n;
	}
	return o;
}

bool reqcheck_value_is(const cJSON *v, const char *want)
{
	if (!v)
		return false;
	if (cJSON_IsString(v))
		return strcmp(v->valuestring, want) == 0;
	char *s = cJSON_PrintUnformatted(v);
	bool ok = s && strcmp(s, want) == 0;
	cJSON_free(s);
	return ok;
}

/* Set the variable of an env line ("NAME VALUE", modified), {url} replaced by ms's URL. */
static void set_env(char *arg, struct mockserver *ms)
{
	char *val = strchr(arg, ' ');
	assert_non_null(val);
	*val++ = '\0';
	char buf[512];
	const char *u = strstr(val, "{url}");
	if (u)
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(u - val), val, mockserver_url(ms), u + 5);
	else
		snprintf(buf, sizeof(buf), "%s", val);
	setenv(arg, buf, 1);
}

/* One check of the common verbs: 1 holds, 0 does not, -1 not a common verb. */
static int common_verb(const char *verb, const char *arg, const char *rest,
		       const struct mock_request *q, const cJSON *body)
{
	if (strcmp(verb, "method") == 0)
		return strcmp(q->method, arg) == 0;
	if (strcmp(verb, "path") == 0)
		return strcmp(q->path, arg) == 0;
	if (strcmp(verb, "header") == 0)
		return mock_header(q, arg) && rest && strcmp(mock_header(q, arg), rest) == 0;
	if (strcmp(verb, "noheader") == 0)
		return mock_header(q, arg) == NULL;
	if (strcmp(verb, "arg") == 0)
		return mock_arg(q, arg) && rest && strcmp(mock_arg(q, arg), rest) == 0;
	if (strcmp(verb, "part") == 0) {
		const struct mock_part *pt = mock_part_named(q, arg);
		return pt && rest && strcmp(pt->data, rest) == 0;
	}
	if (strcmp(verb, "json") == 0)
		return reqcheck_value_is(reqcheck_jpath(body, arg), rest ? rest : "");
	if (strcmp(verb, "absent") == 0)
		return reqcheck_jpath(body, arg) == NULL;
	if (strcmp(verb, "contains") == 0) {
		const cJSON *v = reqcheck_jpath(body, arg);
		return cJSON_IsString(v) && rest && strstr(v->valuestring, rest);
	}
	return -1;
}

const char *reqcheck_run(const char *file, struct mockserver *ms, const struct mock_request *q,
			 bool env_only, reqcheck_verb extra)
{
	static char spec[128];
	char *text = reqcheck_file_text(file);
	assert_non_null(text);
	cJSON *body = q ? cJSON_ParseWithLength(q->body, q->body_len) : NULL;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !line[0])
			continue;
		char *arg = strchr(line, ' ');
		if (!arg)
			continue;
		*arg++ = '\0';
		if (strcmp(line, "spec") == 0) {
			snprintf(spec, sizeof(spec), "%s", arg);
			continue;
		}
		if (strcmp(line, "env") == 0) {
			if (env_only)
				set_env(arg, ms);
			continue;
		}
		if (env_only)
			continue;
		char *rest = strchr(arg, ' ');
		if (rest)
			*rest++ = '\0';
		int ok = common_verb(line, arg, rest, q, body);
		if (ok < 0 && extra)
			ok = extra(line, arg, rest, q, body);
		if (ok != 1)
			fail_msg("%s: check failed: %s %s%s%s", file, line, arg, rest ? " " : "", rest ? rest : "");
	}
	cJSON_Delete(body);
	free(text);
	return spec;
}

const char *reqcheck_case(const char *name, const char *const *env, struct mockserver *ms,
			  reqcheck_verb extra, char **answer)
{
	char path[256];
	envclear(env);
	provider_config_free();
	snprintf(path, sizeof path, "tests/data/%s/expect", name);
	const char *spec = reqcheck_run(path, ms, NULL, true, extra);
	if (answer) {
		snprintf(path, sizeof path, "tests/data/%s/response.json", name);
		if (!(*answer = reqcheck_file_text(path)))
			fail_msg("cannot read %s", path);
	}
	return spec;
}

void reqcheck_case_request(const char *name, struct mockserver *ms, const struct mock_request *q,
			   reqcheck_verb extra)
{
	char path[256];
	snprintf(path, sizeof path, "tests/data/%s/expect", name);
	reqcheck_run(path, ms, q, false, extra);
}
