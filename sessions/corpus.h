/* corpus: a folder of recorded calls (format in corpus/README.md): a manifest naming each
 * call's caller turns in order, each with an audio file, its reference transcript and its
 * acoustic condition, and the expected final form when known. Built on the Calibrate
 * layout (transcripts.csv with id,text plus audios/<id>.wav). */
#ifndef FORMDESK_CORPUS_H
#define FORMDESK_CORPUS_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "agent/err.h"

struct corpus_turn {
	char *utterance_id;
	char *audio;        /* absolute path of the audio file, NULL if the turn has none */
	char *transcript;   /* reference transcript, NULL if none */
	char *condition;    /* acoustic condition: "ideal", "noise", "distance", "pace", ... */
	bool synthetic;     /* audio made by TTS, not a human */
};

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
	struct corpus_call *calls;
	int n_calls;
};

/* corpus_resolve: the folder for a corpus argument: "demo" and "respin" name the bundled
 * corpora (corpus/demo, corpus/respin beside the binary or in the source tree); anything
 * else is taken as a folder. Output: new string (caller frees), NULL on ERR_NOMEM. */
char *corpus_resolve(const char *arg);

/* corpus_load: read the corpus in dir. Output: *out (caller frees with corpus_free); on
 * failure *errmsg (caller frees; may be NULL) names the file, line and field at fault, or
 * for a missing bundled corpus says how to make it. Errors: ERR_IO, ERR_PARSE,
 * ERR_INVALID, ERR_NOMEM. */
enum err corpus_load(const char *dir, struct corpus **out, char **errmsg);
void corpus_free(struct corpus *c);

#endif
