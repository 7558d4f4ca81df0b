/* corpusgen: lays out a benchmark corpus (format: corpus/README.md) from caller profiles
 * and the branch paths of any FormBharo form, the way the FormBharo paper's
 * FormVoiceAgentBench builds its calls: every simulated caller follows every path
 * (sessions/corpus/paths.h), once per acoustic condition (ideal, noise, distance, pace: 4 x),
 * one caller turn per question asked, with the form FormBharo would store at the end.
 *
 * The profile file (docs/evaluation.md, "Caller profiles", says the same):
 * {
 *   "name": "bench", "today": "YYYY-MM-DD", "form": "forms/x.json" (optional),
 *   "unknown": ["field", ...]          optional fields a caller may not know,
 *   "conditions": ["ideal", ...]       optional, default ["ideal"],
 *   "callers": [{"id": "sunita", "answers": {
 *       "FIELD": {"say": "words", "value": V,          an open or closed answer
 *                 "yes": "words", "no": "words",      a boolean
 *                 "dont_know": "words",               when FIELD is in "unknown"
 *                 "recordings": {"say": "a.wav" | {"ideal": "a.wav", "noise": "b.wav"},
 *                                "yes": ..., "no": ..., "dont_know": ...}}}}]
 * }
 * Recording paths are relative to the profile file. Utterance ids are
 * CALLER_FIELD[_KEY] (KEY yes, no or dont_know) in the ideal condition and
 * CALLER_FIELD[_KEY]__CONDITION in the others; call ids CALLER-pNN-CONDITION.
 *
 * Audio of an utterance in a condition, in this order: its recording for that condition;
 * for the ideal condition, espeak-ng's Hindi voice (`espeak-ng -v hi -w`) when synthesis is
 * on (marked synthetic in transcripts.csv); for another condition, the acoustic variant of
 * the ideal audio (audio/channel.h's channel_condition: noise at 10 dB SNR, far microphone,
 * pace faster or slower by turns). A condition whose audio cannot be had (no ideal audio to
 * start from) is left out with a notice (its calls are not written). */
#ifndef FORMDESK_CORPUSGEN_H
#define FORMDESK_CORPUSGEN_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "agent/rules/form.h"

struct corpusgen_options {
	const char *profiles_path; /* the profile file: messages and relative recordings */
	const char *form_path;     /* recorded in corpus.json */
	const char *out_dir;       /* made if missing */
	const char *unknown;       /* comma list overriding the profile's "unknown"; NULL keeps it */
	const char *conditions;    /* comma list overriding the profile's "conditions"; NULL keeps */
	bool synthesize;           /* speak missing ideal recordings with espeak-ng */
};

struct corpusgen_result {
	int calls;          /* calls written */
	int utterances;     /* rows of transcripts.csv */
	int synthesized;    /* utterances whose audio is synthetic (made now or before) */
	int recorded;       /* utterances with a given recording */
	int variants;       /* utterances made by the acoustic-variant tool */
	char dropped[256];  /* conditions left out, comma separated, "" when none */
};

/* corpusgen_build: write corpus.json, transcripts.csv, calls.csv, expected.jsonl and the
 * synthesized audio under o->out_dir. Inputs: form and profiles (borrowed). Files are
 * replaced only when their content changes; a synthesized file is made again only when
 * its words change. Output: *res (may be NULL); on failure *errmsg (caller frees; may be
 * NULL) reads "PROFILES: callers[i] ('id'): field 'x': what is wrong" or names the file
 * that could not be written. Errors: ERR_PARSE / ERR_INVALID (bad profile), ERR_NOTFOUND
 * (a recording that does not exist, an unknown field), ERR_IO, ERR_AUDIO (espeak-ng
 * failed or is missing), ERR_NOMEM. */
enum err corpusgen_build(const struct form *form, const cJSON *profiles,
			 const struct corpusgen_options *o, struct corpusgen_result *res,
			 char **errmsg);

/* corpusgen_stored: the value FormBharo stores for question q answered v (a profile's
 * "value"; for a boolean true or false): a number, a DD-MM-YYYY date, the boolean or its
 * boolean_labels word, one of the options, a non-empty string. Output: new cJSON (caller
 * frees), or NULL with why (size n) saying "field 'x': 'value' must be ..." (also when
 * memory is short). The one place a profile's value becomes a stored answer. */
cJSON *corpusgen_stored(const struct form_question *q, const cJSON *v, char *why, size_t n);

/* corpusgen_ends_call: whether answering boolean question q with b is in its
 * end_call_values (the call ends screened out; agent-config-schema.mdx). Pure. */
bool corpusgen_ends_call(const struct form_question *q, bool b);

#endif
