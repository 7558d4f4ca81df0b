/* turncol: the registry of derived turn columns (see turncol.h). */
#include "turncol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "latency.h"
#include "store.h"

/* latency: the end of the caller's speech to the agent's first sound in parts (latency.h),
 * as latency_to_json's text (schema 6): printed from the engine's figure when it hands one
 * over, else the text the writer gives; NULL when the turn reached no first sound. Review
 * shows it part by part, so it has no generic label. */
static enum err latency_col(const struct store_turn *t, struct turncol_value *v)
{
	if (t->latency_parts && t->latency_parts->known) {
		cJSON *j = latency_to_json(t->latency_parts);
		v->s = j ? cJSON_PrintUnformatted(j) : NULL;
		cJSON_Delete(j);
		if (!v->s)
			return ERR_NOMEM;
	} else if (t->latency && !(v->s = strdup(t->latency))) {
		return ERR_NOMEM;
	}
	v->set = v->s != NULL;
	return ERR_OK;
}

/* The built-in columns, in the order they were added (a file created now and one migrated
 * from an older version then have their columns in the same order). A new column whose
 * value follows from the turn the engine hands over is a row here and its function. */
static const struct turncol builtin[] = {
	{"latency", TURNCOL_TEXT, NULL, latency_col},
};
#define N_BUILTIN ((int)(sizeof builtin / sizeof builtin[0]))
_Static_assert(sizeof builtin / sizeof builtin[0] <= TURNCOL_MAX, "TURNCOL_MAX fits the table");

static struct turncol added[TURNCOL_MAX];
static int n_added;

int turncol_count(void)
{
	return N_BUILTIN + n_added;
}

const struct turncol *turncol_at(int i)
{
	return i < N_BUILTIN ? &builtin[i] : &added[i - N_BUILTIN];
}

int turncol_find(const char *name)
{
	for (int i = 0; i < turncol_count(); i++)
		if (strcmp(turncol_at(i)->name, name) == 0)
			return i;
	return -1;
}

/* identifier: whether s is [a-z_][a-z0-9_]* (it goes into SQL unquoted). */
static bool identifier(const char *s)
{
	if (!s || !((*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

enum err turncol_register(const struct turncol *c)
{
	if (!c || !c->value || !identifier(c->name) || turncol_find(c->name) >= 0)
		return ERR_INVALID;
	if (turncol_count() >= TURNCOL_MAX)
		return ERR_UNSUPPORTED;
	added[n_added++] = *c;
	return ERR_OK;
}

const char *turncol_sql_type(enum turncol_type type)
{
	switch (type) {
	case TURNCOL_INTEGER:
		return "INTEGER";
	case TURNCOL_REAL:
		return "REAL";
	case TURNCOL_TEXT:
		break;
	}
	return "TEXT";
}

enum err turncol_compute(const struct turncol *c, const struct store_turn *t,
			 struct turncol_value *v)
{
	enum err e;

	memset(v, 0, sizeof *v);
	if ((e = c->value(t, v)) != ERR_OK)
		turncol_value_clear(v);
	return e;
}

void turncol_value_clear(struct turncol_value *v)
{
	if (!v)
		return;
	free(v->s);
	memset(v, 0, sizeof *v);
}

void turncol_shown(const struct store_turn *t, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < turncol_count() && len < n; i++) {
		const struct turncol *c = turncol_at(i);
		struct turncol_value v;
		char text[128];
		int k;
		if (!c->label || turncol_compute(c, t, &v) != ERR_OK)
			continue;
		k = snprintf(buf + len, n - len, "%s%s %s", len ? "  " : "", c->label,
			     turncol_format(c, &v, text, sizeof text));
		turncol_value_clear(&v);
		if (k < 0)
			break;
		len += (size_t)k;
	}
}

const char *turncol_format(const struct turncol *c, const struct turncol_value *v, char *buf,
			   size_t n)
{
	if (!v->set)
		buf[0] = '\0';
	else if (c->type == TURNCOL_INTEGER)
		snprintf(buf, n, "%lld", v->i);
	else if (c->type == TURNCOL_REAL)
		snprintf(buf, n, "%g", v->r);
	else
		snprintf(buf, n, "%s", v->s ? v->s : "");
	return buf;
}
