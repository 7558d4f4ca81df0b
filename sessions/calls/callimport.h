/* callimport: calls made outside formdesk, read as a corpus of typed caller turns, so
 * they can be played through the agent into a run (formdesk import) and then replayed and
 * diffed like any other. Two formats:
 *
 * FormBharo (CALLIMPORT_FORMBHARO): what its API returns (ARTPARK-SAHAI-ORG/formbharo-docs,
 * api-reference/openapi.json): the list of conversations (GET .../conversations: a plain
 * array, or the paged envelope {"data":[...],"next_cursor":N}), one conversation object,
 * or one transcript (GET .../transcript: an array of {"speaker","text","timestamp"}, the
 * call named by the file's name). A conversation is {"conversation_id", "transcript":
 * [{"speaker":"agent"|"user","text","timestamp"}], ...}; other members are ignored. A
 * transcript entry may name its recording, a local file, as "audio".
 *
 * Plain JSONL (CALLIMPORT_JSONL): one utterance a line, a call's lines together, in order:
 *   {"call":"c1","speaker":"agent","text":"नमस्ते! कृपया अपना नाम बताइए।"}
 *   {"call":"c1","speaker":"user","text":"mera naam Sunita hai","audio":"clips/c1-1.wav"}
 * "audio" (optional) is a local file, relative to the JSONL file's folder or absolute.
 *
 * The caller's ("user") utterances become the call's turns, in order (condition
 * "imported"); the agent's are left out: formdesk's agent speaks for itself. */
#ifndef FORMDESK_CALLIMPORT_H
#define FORMDESK_CALLIMPORT_H

#include "base/err.h"

struct corpus;

enum callimport_format {
	CALLIMPORT_JSONL,
	CALLIMPORT_FORMBHARO,
};

/* callimport_load: the calls in the file at path, of format fmt, as a corpus named name
 * (borrowed; its folder is the file's). Output: *out (caller frees with corpus_free); on
 * failure *errmsg (caller frees) reads "FILE[:LINE]: what is wrong". Errors: ERR_IO (the
 * file cannot be read, or is a folder, a pipe or a device), ERR_PARSE (not JSON; not
 * UTF-8 text, a NUL byte or a \u0000 escape in it, at the line named), ERR_INVALID (a
 * member missing or of the wrong type, a list item that is not a conversation, an unknown
 * speaker, a call's lines apart, a recording that is not there, no calls), ERR_NOMEM. */
enum err callimport_load(const char *path, enum callimport_format fmt, const char *name,
			 struct corpus **out, char **errmsg);

#endif
