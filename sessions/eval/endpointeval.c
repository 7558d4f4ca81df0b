/* endpointeval: answers with pauses, the endpointer at each setting (see endpointeval.h). */
#include "endpointeval.h"

#include <stdlib.h>
#include <string.h>

#include "audio/audiofile.h"
#include "audio/channel.h"
#include "audio/endpoint.h"
#include "chart.h"
#include "stats.h"

#define RATE 16000
#define LEAD_MS 500
#define TAIL_MS 3000

/* One utterance, trimmed to its speech. */
struct utt {
	enum endpointeval_kind kind;
	float *s;
	size_t n;
};

static const char *const kind_names[ENDPOINTEVAL_KINDS] = {
	[ENDPOINTEVAL_DIGITS] = "digits", [ENDPOINTEVAL_DATE] = "date", [ENDPOINTEVAL_NAME] = "name",
	[ENDPOINTEVAL_YESNO] = "yes/no", [ENDPOINTEVAL_OPTION] = "option", [ENDPOINTEVAL_OTHER] = "other",
};

const char *endpointeval_kind_name(enum endpointeval_kind k)
{
	return (unsigned)k < ENDPOINTEVAL_KINDS ? kind_names[k] : "?";
}

enum endpointeval_kind endpointeval_kind_of(const struct form_question *q)
{
	if (!q)
		return ENDPOINTEVAL_OTHER;
	if (q->type == FORM_NUMBER || q->validation == VALID_PHONE_NUMBER ||
	    q->validation == VALID_EXACT_NUM_DIGITS)
		return ENDPOINTEVAL_DIGITS;
	switch (q->type) {
	case FORM_DATE:
		return ENDPOINTEVAL_DATE;
	case FORM_BOOLEAN:
		return ENDPOINTEVAL_YESNO;
	case FORM_SINGLE_SELECT:
	case FORM_MULTI_SELECT:
		return ENDPOINTEVAL_OPTION;
	default:
		return ENDPOINTEVAL_NAME;
	}
}

/* The question whose name the utterance id holds after a '_' (the longest such name). */
static const struct form_question *question_of(const struct form *f, const char *id)
{
	const struct form_question *best = NULL;

	for (int i = 0; f && i < f->n_questions; i++) {
		const char *name = f->questions[i].name, *p = id;
		size_t len = strlen(name);
		while ((p = strstr(p, name)) != NULL) {
			bool edge = p > id && p[-1] == '_' && (p[len] == '\0' || p[len] == '_');
			if (edge && (!best || len > strlen(best->name)))
				best = &f->questions[i];
			p++;
		}
	}
	return best;
}

static bool condition_kept(const char *list, const char *cond)
{
	size_t len = cond ? strlen(cond) : 0;

	if (!list)
		return true;
	for (const char *p = list; cond && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == len && strncmp(p, cond, n) == 0)
			return true;
		p += n + (comma != NULL);
	}
	return false;
}

static void free_utts(struct utt *u, int n)
{
	for (int i = 0; i < n; i++)
		free(u[i].s);
	free(u);
}

/* The corpus's distinct utterances that have audio, trimmed, with their kinds. */
static enum err load_utts(const struct corpus *c, const struct form *f, const char *conditions,
			  struct utt **out, int *n_out, char **errmsg)
{
	struct utt *u = NULL;
	const char **seen = NULL;
	int n = 0, cap = 0;
	enum err rc = ERR_OK;

	for (int i = 0; i < c->n_calls && rc == ERR_OK; i++)
		for (int t = 0; t < c->calls[i].n_turns && rc == ERR_OK; t++) {
			const struct corpus_turn *ct = &c->calls[i].turns[t];
			float *s = NULL;
			size_t len = 0, a, z;
			bool dup = false;
			if (!ct->audio || !condition_kept(conditions, ct->condition))
				continue;
			for (int k = 0; k < n && !dup; k++)
				dup = strcmp(seen[k], ct->utterance_id) == 0;
			if (dup)
				continue;
			if (n == cap) {
				int ncap = cap ? cap * 2 : 64;
				struct utt *nu = realloc(u, (size_t)ncap * sizeof(*nu));
				const char **ns = nu ? realloc(seen, (size_t)ncap * sizeof(*ns)) : NULL;
				if (nu)
					u = nu;
				if (!ns) {
					rc = ERR_NOMEM;
					break;
				}
				seen = ns;
				cap = ncap;
			}
			rc = audiofile_read(ct->audio, RATE, &s, &len, errmsg);
			if (rc != ERR_OK)
				break;
			seen[n] = ct->utterance_id;
			if (!endpoint_extent(s, len, RATE, &a, &z)) {
				free(s); /* no speech: not an answer */
				continue;
			}
			memmove(s, s + a, (z - a) * sizeof(float));
			u[n] = (struct utt){endpointeval_kind_of(question_of(f, ct->utterance_id)), s, z - a};
			n++;
		}
	free(seen);
	if (rc == ERR_OK && n == 0)
		rc = ERR_INVALID;
	if (rc != ERR_OK) {
		free_utts(u, n);
		return rc;
	}
	*out = u;
	*n_out = n;
	return ERR_OK;
}

/* One joined answer: A, gap, B between silences. Output: *out (free()), *n, *b_end_ms. */
static enum err join(const struct utt *a, const struct utt *b, int gap_ms, bool telephone, float **out,
		     size_t *n, long *b_end_ms, char **errmsg)
{
	size_t lead = (size_t)RATE * LEAD_MS / 1000, gap = (size_t)RATE * (size_t)gap_ms / 1000;
	size_t tail = (size_t)RATE * TAIL_MS / 1000, len = lead + a->n + gap + b->n + tail;
	float *s = calloc(len, sizeof(float)), *t = NULL;
	size_t m = 0;
	enum err rc;

	if (!s)
		return ERR_NOMEM;
	memcpy(s + lead, a->s, a->n * sizeof(float));
	memcpy(s + lead + a->n + gap, b->s, b->n * sizeof(float));
	*b_end_ms = (long)((lead + a->n + gap + b->n) * 1000 / RATE);
	if (!telephone) {
		*out = s;
		*n = len;
		return ERR_OK;
	}
	rc = channel_telephone(s, len, RATE, &t, &m, errmsg);
	free(s);
	if (rc != ERR_OK)
		return rc;
	*out = t;
	*n = m;
	return ERR_OK;
}

/* The first turn's end event on s, or kind != TURN_END when none. */
static enum err first_turn(const float *s, size_t n, const struct endpoint_options *o, struct endpoint_event *first)
{
	struct endpoint *ep = NULL;
	struct endpoint_event ev;
	bool found = false;
	enum err rc = endpoint_new(RATE, o, &ep);

	first->kind = ENDPOINT_SPEECH_START;
	for (size_t i = 0; rc == ERR_OK && i < n && !found; i += RATE / 10) {
		rc = endpoint_feed(ep, s + i, n - i < RATE / 10 ? n - i : RATE / 10);
		while (rc == ERR_OK && !found && endpoint_next(ep, &ev))
			if (ev.kind == ENDPOINT_TURN_END) {
				*first = ev;
				found = true;
			}
	}
	if (rc == ERR_OK && !found)
		rc = endpoint_finish(ep);
	while (rc == ERR_OK && !found && endpoint_next(ep, &ev))
		if (ev.kind == ENDPOINT_TURN_END) {
			*first = ev;
			found = true;
		}
	endpoint_free(ep);
	return rc;
}

/* The answers of one kind at every setting: appends rows[row0 + k * ...]. */
static enum err run_kind(const struct utt *u, int n_u, enum endpointeval_kind kind,
			 const struct endpointeval_setting *s, int n_s, const struct endpointeval_options *o,
			 struct endpointeval_row *rows, char **errmsg)
{
	int idx[4096], m = 0;
	double *lat = NULL;
	enum err rc = ERR_OK;

	for (int i = 0; i < n_u && m < (int)(sizeof(idx) / sizeof(idx[0])); i++)
		if (u[i].kind == kind)
			idx[m++] = i;
	size_t per = (size_t)(m ? m : 1) * (size_t)o->n_gaps; /* answers of the kind */

	lat = malloc(sizeof(double) * per * (size_t)n_s);
	if (!lat)
		return ERR_NOMEM;
	for (int k = 0; k < n_s; k++)
		rows[k] = (struct endpointeval_row){.kind = kind, .setting = s[k]};
	/* answer (i, g): utterance i, gap g, then the (g + 1)-th next utterance of the kind */
	for (int a = 0; a < m * o->n_gaps && rc == ERR_OK; a++) {
		int i = a / o->n_gaps, g = a % o->n_gaps;
		float *audio = NULL;
		size_t n = 0;
		long b_end = 0;
		rc = join(&u[idx[i]], &u[idx[(i + 1 + g) % m]], o->gaps_ms[g], o->telephone, &audio, &n, &b_end,
			  errmsg);
		for (int k = 0; k < n_s && rc == ERR_OK; k++) {
			struct endpoint_options eo = endpoint_defaults();
			struct endpoint_event ev;
			eo.stop_ms = s[k].stop_ms;
			eo.turn_wait_ms = s[k].wait_ms;
			rc = first_turn(audio, n, &eo, &ev);
			rows[k].items++;
			if (ev.kind != ENDPOINT_TURN_END || ev.end_ms < b_end - ENDPOINTEVAL_CUTOFF_TOL_MS)
				rows[k].cutoffs++;
			else
				lat[(size_t)k * per + (size_t)(rows[k].items - rows[k].cutoffs - 1)] =
					(double)(ev.decided_ms - b_end);
		}
		free(audio);
	}
	for (int k = 0; k < n_s && rc == ERR_OK; k++) {
		size_t kept = (size_t)(rows[k].items - rows[k].cutoffs);
		const double *x = lat + (size_t)k * per;
		if (kept > 0 && (stats_percentile(x, kept, 50, STATS_LINEAR, &rows[k].p50_ms) != ERR_OK ||
				 stats_percentile(x, kept, 95, STATS_LINEAR, &rows[k].p95_ms) != ERR_OK))
			rc = ERR_NOMEM;
	}
	free(lat);
	return rc;
}

enum err endpointeval_run(const struct corpus *c, const struct form *f, const struct endpointeval_setting *s,
			  int n_s, const struct endpointeval_options *o, struct endpointeval_row **rows,
			  int *n_rows, char **errmsg)
{
	struct utt *u = NULL;
	struct endpointeval_row *r = NULL;
	int n_u = 0, n = 0, count[ENDPOINTEVAL_KINDS] = {0};
	enum err rc;

	if (n_s < 1 || !o || o->n_gaps < 1)
		return ERR_INVALID;
	for (int k = 0; k < n_s; k++)
		if (s[k].stop_ms < 0 || s[k].wait_ms < 0)
			return ERR_INVALID;
	for (int k = 0; k < o->n_gaps; k++)
		if (o->gaps_ms[k] < 0)
			return ERR_INVALID;
	rc = load_utts(c, f, o->conditions, &u, &n_u, errmsg);
	if (rc != ERR_OK)
		return rc;
	for (int i = 0; i < n_u; i++)
		count[u[i].kind]++;
	r = calloc((size_t)ENDPOINTEVAL_KINDS * (size_t)n_s, sizeof(*r));
	if (!r) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (int k = 0; k < ENDPOINTEVAL_KINDS && rc == ERR_OK; k++) {
		if (count[k] == 0)
			continue;
		rc = run_kind(u, n_u, (enum endpointeval_kind)k, s, n_s, o, r + n, errmsg);
		n += n_s;
	}
	if (rc == ERR_OK) {
		*rows = r;
		*n_rows = n;
		r = NULL;
	}
out:
	free(r);
	free_utts(u, n_u);
	return rc;
}

void endpointeval_print(FILE *out, const struct endpointeval_row *rows, int n)
{
	fprintf(out, "%-7s %5s %5s %6s %16s %12s %12s\n", "kind", "stop", "wait", "items", "false cut-offs",
		"latency p50", "latency p95");
	for (int i = 0; i < n; i++) {
		const struct endpointeval_row *r = &rows[i];
		fprintf(out, "%-7s %5d %5d %6d %8d (%5.1f%%) %9.0f ms %9.0f ms\n", endpointeval_kind_name(r->kind),
			r->setting.stop_ms, r->setting.wait_ms, r->items, r->cutoffs,
			r->items ? 100.0 * r->cutoffs / r->items : 0, r->p50_ms, r->p95_ms);
	}
}

enum err endpointeval_chart(const char *path, const char *title, const struct endpointeval_row *rows, int n)
{
	struct chart_point *p = calloc((size_t)(n > 0 ? n : 1), sizeof(*p));
	char (*labels)[48] = calloc((size_t)(n > 0 ? n : 1), sizeof(*labels));
	enum err rc;

	if (!p || !labels) {
		free(p);
		free(labels);
		return ERR_NOMEM;
	}
	for (int i = 0; i < n; i++) {
		snprintf(labels[i], sizeof(labels[i]), "%s %d/%d", endpointeval_kind_name(rows[i].kind),
			 rows[i].setting.stop_ms, rows[i].setting.wait_ms);
		p[i].label = labels[i];
		p[i].accuracy = rows[i].items ? 1.0 - (double)rows[i].cutoffs / rows[i].items : 0;
		p[i].p95_ms = rows[i].p95_ms;
	}
	rc = chart_tradeoff(path, title, p, n, 0, 0);
	free(p);
	free(labels);
	return rc;
}
