/* corpus: a folder of recorded calls (format in corpus/README.md): a manifest naming each
 * call's caller turns in order, each with an audio file, its reference transcript and its
 * acoustic condition, and the expected final form when known. Built on the Calibrate
 * layout (transcripts.csv with id,text plus audios/<id>.wav). */
#ifndef FORMDESK_CORPUS_H
#define FORMDESK_CORPUS_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "base/err.h"
#include "base/ymd.h"

struct corpus_turn {
	char *utterance_id;
	char *audio;        /* absolute path of the audio file, NULL if the turn has none */
	char *transcript;   /* reference transcript, NULL if none */
	char *condition;    /* acoustic condition: "ideal", "noise", "distance", "pace", ... */
	bool synthetic;     /* audio made by TTS, not a human */
	long barge_in_ms;   /* the turn starts while the agent is still speaking, this many ms
	                       after the agent began (calls.csv barge_in_ms); -1 when not */
};

/* The longest barge_in_ms calls.csv may give: 10 minutes of the agent's speech. */
#define CORPUS_MAX_BARGE_IN_MS 600000

struct corpus_call {
	char *id;
	char *caller;       /* simulated caller / speaker id, may be NULL */
	char *path;         /* the branch path it follows, human readable, may be NULL */
	struct corpus_turn *turns;
	int n_turns;
	cJSON *expected_data;   /* expected form_data, NULL if unknown */
	cJSON *expected_status; /* expected form_status, NULL if unknown */
	char *expected_call_status; /* NULL if unknown */
};

struct corpus {
	char *dir;          /* absolute */
	char *name;
	char *form;         /* form config path the corpus was made for, may be NULL */
	char *attribution;  /* licence / source text to show, may be NULL */
	char *licence;      /* licence name ("CC-BY-4.0"), may be NULL */
	bool synthetic;     /* the audio was made by TTS */
	bool has_today;     /* the corpus names the "today" its dates were made for */
	struct ymd today;
	struct corpus_call *calls;
	int n_calls;
};

/* corpus_resolve: the folder for a corpus argument: "demo" and "respin" name the bundled
 * corpora, corpus/demo and corpus/respin beside the running binary (the directory of
 * /proc/self/exe) or else in the current directory; anything else is taken as a folder.
 * Output: new string (caller frees), NULL on ERR_NOMEM. */
char *corpus_resolve(const char *arg);

/* corpus_load: read and check the corpus in dir (format: corpus/README.md): corpus.json,
 * transcripts.csv (RFC 4180), calls.csv, expected.jsonl (optional); every audio file must
 * exist. Output: *out (caller frees with corpus_free); on failure *errmsg (caller frees;
 * may be NULL) reads "FILE:LINE: field 'x': what is wrong", or for a bundled corpus that
 * was never made says how to make it. Errors: ERR_IO (a file cannot be read), ERR_PARSE
 * (bad CSV or JSON), ERR_INVALID (a value breaks a rule: unknown utterance, missing
 * audio, ...), ERR_NOMEM. */
enum err corpus_load(const char *dir, struct corpus **out, char **errmsg);
/* corpus_free: free c and all it owns; NULL does nothing. */
void corpus_free(struct corpus *c);

#endif
