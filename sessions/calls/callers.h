/* callers: simulated callers that pilot a form before anyone records a call. A caller is a
 * profile (the caller profiles `corpus build` reads, sessions/corpus/corpusgen.h: each field's
 * value and spoken words) plus behaviours; on each turn she answers the question the
 * agent actually asked (the decision record's ask_question, agent/rules/decision.h), not a
 * fixed script. Each simulated call carries the final form it should end with, worked
 * out from what she means (declined -> skipped, a branch not opened -> empty, a screening
 * answer -> screened out), so completion and per-field accuracy need no judge.
 *
 * The behaviours (docs/callers.md has the words each says, with examples). "First time
 * asked" is the field's first ask_question; from the second on she answers plainly, but
 * for the three language styles, which she keeps on every ask:
 *   plain            her profile's words ("say", "yes", "no")
 *   hinglish         the value in romanized Hindi (profile "variants": {"hinglish"} first)
 *   english          the value in English words (or "variants": {"english"})
 *   devanagari       the value in Devanagari (or "variants": {"devanagari"})
 *   self-correct     a near value, "nahi nahi", then the right one, in one turn
 *   volunteer        first time asked: the next field's answer instead (she gets ahead)
 *   two-answers      first time asked: her answer and the next field's, in one turn
 *   dont-know        her "dont_know" words (or "pata nahi"); an optional field ends
 *                    skipped; a required one is answered when asked again
 *   decline          "yeh nahi batana chahti"; as dont-know
 *   repeat           first time asked: "kya? phir se boliye"
 *   silence          first time asked: she says nothing (a silent turn)
 *   off-topic        first time asked: a sentence about something else, then the answer
 *   hesitate         "umm..." and a pause of CALLERS_HESITATE_MS before the answer
 *   wrong-then-right first time asked: an answer the form's validation refuses (a digit
 *                    short, out of range, not an option, a date after today); fields
 *                    with no such answer are answered plainly
 *   digit-groups     a digit field's digits as numerals in groups (5+5, 2+2, ...), a
 *                    pause of CALLERS_GROUP_GAP_MS between groups; other fields plainly
 *   backchannel      first time asked: "hmm" while the agent speaks (CALLERS_BACKCHANNEL_MS
 *                    into its words), then the answer when asked again
 *   barge-in         the answer begun while the agent speaks (CALLERS_BARGE_IN_MS in)
 *
 * Which behaviour a field gets: a list of NAME (each call takes the next, in turn),
 * NAME:WEIGHT (each call draws one, with those weights, from the seed) and FIELD=NAME
 * (that field always), or "all". A call's behaviour applies to every field it can apply
 * to; FIELD=NAME entries override it for their field. Boolean answers are the profile's
 * "value" when given, else drawn from the seed per call, so calls take the form's
 * branches. Same profiles, list, seed and call number: the same call. */
#ifndef FORMDESK_CALLERS_H
#define FORMDESK_CALLERS_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "agent/rules/form.h"
#include "base/ymd.h"

struct decision;
struct corpus_call;

/* X(enum suffix, name on the command line, what she does). */
#define CALLERS_BEHAVIOURS(X) \
	X(PLAIN, "plain", "her profile's words") \
	X(HINGLISH, "hinglish", "the value in romanized Hindi") \
	X(ENGLISH, "english", "the value in English") \
	X(DEVANAGARI, "devanagari", "the value in Devanagari") \
	X(CORRECT, "self-correct", "a near value, then 'nahi nahi' and the right one") \
	X(VOLUNTEER, "volunteer", "the next field's answer before this one") \
	X(TWO, "two-answers", "this answer and the next field's in one turn") \
	X(DONT_KNOW, "dont-know", "does not know (an optional field ends skipped)") \
	X(DECLINE, "decline", "will not say (an optional field ends skipped)") \
	X(REPEAT, "repeat", "asks the agent to repeat, then answers") \
	X(SILENCE, "silence", "says nothing, then answers") \
	X(OFF_TOPIC, "off-topic", "something else first, then the answer") \
	X(HESITATE, "hesitate", "umm... and a pause before the answer") \
	X(WRONG_RIGHT, "wrong-then-right", "an answer the form refuses, then the right one") \
	X(DIGIT_GROUPS, "digit-groups", "a number's digits in groups with pauses") \
	X(BACKCHANNEL, "backchannel", "hmm while the agent speaks, then the answer") \
	X(BARGE_IN, "barge-in", "the answer begun while the agent speaks")

enum callers_behaviour {
#define X(id, name, about) CALLERS_##id,
	CALLERS_BEHAVIOURS(X)
#undef X
	CALLERS_N
};

/* The timing the behaviours name, in milliseconds. */
#define CALLERS_HESITATE_MS 1200   /* the pause after "umm..." */
#define CALLERS_GROUP_GAP_MS 700   /* between digit groups */
#define CALLERS_BACKCHANNEL_MS 800 /* into the agent's words when she says "hmm" */
#define CALLERS_BARGE_IN_MS 1500   /* into the agent's words when she starts her answer */

/* callers_behaviour_name, callers_behaviour_about: the name and description of b (static
 * strings; "?" out of range). callers_behaviour_find: the behaviour named name, -1 none. */
const char *callers_behaviour_name(enum callers_behaviour b);
const char *callers_behaviour_about(enum callers_behaviour b);
int callers_behaviour_find(const char *name);

struct callers_profiles;

/* callers_profiles_load: read the caller profiles at path (the `corpus build` format,
 * sessions/corpus/corpusgen.h, with optional "variants" per answer) and check them against form
 * f (borrowed; kept by the profiles, must outlive them): every field the form asks needs,
 * for every caller, a "value" FormBharo can store (a boolean may go without one: drawn per
 * call). Output: *out (caller frees with callers_profiles_free); on failure *errmsg (caller
 * frees; may be NULL) reads "PATH:LINE: callers[i] ('id'): field 'x': what is wrong",
 * LINE the line where that caller's entry names the field (else her "id"). Errors: ERR_IO, ERR_PARSE (not JSON: its line),
 * ERR_INVALID, ERR_NOMEM. */
enum err callers_profiles_load(const char *path, const struct form *f,
			       struct callers_profiles **out, char **errmsg);
void callers_profiles_free(struct callers_profiles *p);
int callers_profiles_count(const struct callers_profiles *p);
/* callers_profiles_name: the file's "name" ("" when none); static to p. */
const char *callers_profiles_name(const struct callers_profiles *p);
/* callers_profiles_today: the file's "today", when it gives one (the date its dates were
 * written for). Returns false when it gives none. */
bool callers_profiles_today(const struct callers_profiles *p, struct ymd *today);
/* callers_profiles_answers: caller i's "answers" object (borrowed from p), NULL out of
 * range. callers_profiles_id: her "id". */
const cJSON *callers_profiles_answers(const struct callers_profiles *p, int i);
const char *callers_profiles_id(const struct callers_profiles *p, int i);

struct callers_mix;

/* callers_mix_parse: a behaviour list (above: "all", or NAME, NAME:WEIGHT and FIELD=NAME
 * items, comma separated) for form f (borrowed). Output: *out (caller frees with
 * callers_mix_free); on failure *errmsg (caller frees; may be NULL) names the item:
 * "'shout': no such behaviour (plain, hinglish, ...)", "'x=plain': no field 'x' in the
 * form", "'plain:0': the weight must be a number above 0". Errors: ERR_INVALID, ERR_NOMEM. */
enum err callers_mix_parse(const char *list, const struct form *f, struct callers_mix **out,
			   char **errmsg);
void callers_mix_free(struct callers_mix *m);

/* callers_mix_count: the call-wide behaviours in m (NAME and NAME:WEIGHT items; 17 for
 * "all"), 0 when it has only FIELD=NAME items. */
int callers_mix_count(const struct callers_mix *m);

struct callers_call;

/* callers_plan: simulated call number index (from 0) of a run: caller index % callers,
 * her behaviours from m, her boolean answers from seed, and the form she should end with
 * on form f (the profiles' form, or the intended form when piloting a changed one);
 * today is the date for wrong-then-right's date after today. Inputs borrowed; p and m
 * must outlive the call. Output: *out (caller frees with callers_call_free). Errors:
 * ERR_NOMEM, ERR_INVALID (a profile value f cannot store: the message in
 * callers_call_error is NULL then, as callers_profiles_load checked the values). */
enum err callers_plan(const struct callers_profiles *p, const struct callers_mix *m,
		      const struct form *f, int index, unsigned long long seed,
		      struct ymd today, struct callers_call **out);
void callers_call_free(struct callers_call *c);

/* callers_call_corpus: the call as a corpus call (sessions/corpus/corpus.h) for the engine: its id
 * CALLER-NNNN-BEHAVIOURS, caller, "path" (the behaviours per field and the boolean
 * answers, readable), expected form_data, form_status and call status; no recorded turns
 * (each turn comes from callers_answer). Borrowed from c. */
const struct corpus_call *callers_call_corpus(const struct callers_call *c);

/* callers_call_behaviour: the behaviour of field index q (f->questions) in this call. */
enum callers_behaviour callers_call_behaviour(const struct callers_call *c, int q);

/* callers_call_uses: whether some field of the call has behaviour b (the call counts for
 * b in the report). */
bool callers_call_uses(const struct callers_call *c, enum callers_behaviour b);

/* callers_call_label: the call's behaviours, comma separated ("hesitate",
 * "plain,district=decline"); borrowed from c. */
const char *callers_call_label(const struct callers_call *c);

/* The most pieces of speech in one turn, and the longest turn's words in bytes. */
#define CALLERS_PIECES 4
#define CALLERS_TEXT_MAX 1024

/* One caller turn: what she says and when. */
struct callers_turn {
	char text[CALLERS_TEXT_MAX]; /* her words, pieces joined by a space; "" for silence */
	bool silence;                /* she says nothing (the engine's silent turn) */
	int n_pieces;                /* stretches of speech, CALLERS_PIECES at most */
	int piece_off[CALLERS_PIECES], piece_len[CALLERS_PIECES]; /* each in text, bytes */
	long gap_ms[CALLERS_PIECES]; /* silence before each piece, ms (the first: 0) */
	bool barge_in;               /* she starts while the agent speaks */
	long barge_in_ms;            /* ms into the agent's words when she starts */
	bool backchannel;            /* her words are a backchannel, not an answer */
	const char *field;           /* the field asked (borrowed from the form) */
	enum callers_behaviour behaviour; /* the behaviour that made the turn */
};

/* callers_answer: her next turn, answering the question in d (the decision the agent
 * made last: the opening or the last turn's; borrowed). Output: *t. Returns false when
 * there is nothing to answer (d ends the call, or asks a field the form does not have). */
bool callers_answer(struct callers_call *c, const struct decision *d, struct callers_turn *t);

/* callers_words: the words of field q's answer in behaviour style b (plain, hinglish,
 * english or devanagari; others are plain), for a boolean answer yes, into buf (size n).
 * The one place an answer's words are made. Returns false when they do not fit. */
bool callers_words(const struct callers_profiles *p, int caller, const struct form *f, int q,
		   enum callers_behaviour b, bool yes, char *buf, size_t n);

#endif
