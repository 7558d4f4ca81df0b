/* persona: a persona caller on a language model (`formdesk callers --caller-model P[:M]
 * --persona FILE`). The model plays her: who she is, how she speaks, her patience and her
 * language mix (the persona file), and what she would answer (her caller profile, the
 * same one the behaviour callers use, so the expected form is the profile's and scoring
 * needs no judge). It sees only what the agent said, as the other side of a phone call,
 * and answers one turn at a time, at the persona's temperature, until the call ends or
 * her turn limit is reached. Its cost and latency are counted here, apart from the
 * agent's (which the call engine records per stage).
 *
 * The persona file (JSON; docs/callers.md):
 * {"name": "Sunita", "who": "a 24-year-old ... in Gaya district",      required
 *  "speaks": "Hinglish, short answers, ...",                              required
 *  "patience": "low" | "medium" | "high",                                 required
 *  "language_mix": "mostly Hindi in Latin letters, English numbers",      required
 *  "temperature": 0.7 (0 to 2), "turn_limit": 40 (1 to 1000)}             optional */
#ifndef FORMDESK_PERSONA_H
#define FORMDESK_PERSONA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "base/err.h"

struct decision;
struct callers_turn;
struct callers_profiles;
struct callers_call;
struct persona;

/* persona_load: read and check the persona file at path. Output: *out (caller frees with
 * persona_free); on failure *errmsg (caller frees; may be NULL) reads "PATH:LINE: field
 * 'x': what is wrong" (LINE where the field is written, or where the JSON breaks).
 * Errors: ERR_IO, ERR_PARSE, ERR_INVALID, ERR_NOMEM. */
enum err persona_load(const char *path, struct persona **out, char **errmsg);
void persona_free(struct persona *p);

/* persona_connect: the caller model spec ("PROVIDER[:MODEL]", agent/stages/provider.h) and the
 * temperature (0: the persona's, else 0.7). On failure *errmsg (caller frees) says why.
 * Errors: ERR_NOTFOUND (unknown provider), ERR_INVALID (no key), ERR_NOMEM. */
enum err persona_connect(struct persona *p, const char *spec, double temperature,
			 char **errmsg);

/* persona_turn_limit: the persona's turn limit, or dflt when it gives none. */
int persona_turn_limit(const struct persona *p, int dflt);

/* persona_begin: a new call as the caller of call (borrowed until the next begin): her
 * profile's answers from prof; the history is emptied. */
void persona_begin(struct persona *p, const struct callers_profiles *prof,
		   const struct callers_call *call);

/* persona_next: her next turn after the agent said said (the shape of struct
 * callersrun_source's next; ud is the persona). The model's words become t->text (one
 * piece; an empty answer or "[silence]" is a silent turn). Returns false with why when
 * the model fails (the call is then hung up as failed, the failure counted). */
bool persona_next(void *ud, const struct decision *d, const char *said,
		  struct callers_turn *t, char *why, size_t n);

/* persona_add_usage: add {"caller_model":{"model","requests","failed","cost_usd",
 * "latency_ms_mean","latency_ms_total","tokens_in","tokens_out"}} to o. Returns false
 * when out of memory. */
bool persona_add_usage(const struct persona *p, cJSON *o);

/* persona_print_usage: the same as one line of the report on f. */
void persona_print_usage(const struct persona *p, FILE *f);

#endif
