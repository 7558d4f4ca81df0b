/* latency: where the time of one caller turn goes, from the end of the caller's speech to
 * the agent's first sound, in parts that add up to the whole exactly. Each part is named
 * by what governs it: the endpointing wait (its setting), STT, EXTRACT up to its
 * acknowledgement, the rule layer, REPLY up to its first sentence, TTS up to its first
 * audio, the start of playback (each part's backend or device), and formdesk's own time,
 * which is the remainder: everything on the way that no backend or setting accounts for
 * (decoding, endpointing work, the store, events, the loop's wake-ups).
 *
 * When the acknowledgement is the first sound (EXTRACT's ack, said at once: the FormBharo
 * paper), the rules and REPLY are not on the way to it and count 0.
 *
 * Figures are kept to the microsecond (0.001 ms), formdesk's share computed in whole
 * microseconds, so the parts read back from JSON add up to total_ms within 1e-6 ms. */
#ifndef FORMDESK_LATENCY_H
#define FORMDESK_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>
#include "base/err.h"

enum latency_part {
	LATENCY_ENDPOINT, /* end of speech to the end of the turn: the endpointer's wait */
	LATENCY_STT,      /* the transcript */
	LATENCY_EXTRACT,  /* EXTRACT to its acknowledgement (to its answer when it has none) */
	LATENCY_RULES,    /* the rule layer's decision */
	LATENCY_REPLY,    /* REPLY to its first sentence */
	LATENCY_TTS,      /* synthesis to the first audio */
	LATENCY_PLAYBACK, /* the audio handed to the output until playback has started */
	LATENCY_FORMDESK, /* the remainder */
	LATENCY_PARTS,
};

struct latency {
	bool known;                    /* a first sound was reached */
	bool played;                   /* TTS and playback were measured (not stored) */
	int turn;                      /* the caller turn (1 for the first) */
	double total_ms;               /* end of speech to the first sound, ms */
	double ms[LATENCY_PARTS];      /* each part, ms */
	char by[LATENCY_PARTS][72];    /* what governs it ("elevenlabs:scribe_v1", ...) */
	double origin;                 /* monotonic ms of the end of the caller's speech (not
	                                  stored: for the one who completes the figure) */
};

/* latency_part_name: "endpointing", "stt", "extract_ack", "rules", "reply_first_sentence",
 * "tts_first_audio", "playback_start", "formdesk" (static). */
const char *latency_part_name(enum latency_part p);

/* latency_part_label: the short label of the status bar ("wait", "STT", "EXTRACT", ...). */
const char *latency_part_label(enum latency_part p);

/* latency_set: part p is ms (negative taken as 0), governed by by (copied, cut to fit;
 * NULL ""). */
void latency_set(struct latency *l, enum latency_part p, double ms, const char *by);

/* latency_close: the whole is total_ms: every part is rounded to the microsecond and
 * formdesk's share becomes the remainder (negative only when the parts were measured on
 * different clocks and overlap); known becomes true. */
void latency_close(struct latency *l, double total_ms);

/* latency_to_json: {"total_ms":T,"parts":[{"name","ms","governed_by"}, ...]} in part
 * order. Output: new object (caller frees), NULL when out of memory. */
cJSON *latency_to_json(const struct latency *l);

/* latency_from_json: read back what latency_to_json wrote (parts by name; unknown names
 * ignored). Output: *l (zeroed first; known when total_ms was read). Errors: ERR_PARSE
 * (not an object with a numeric total_ms). */
enum err latency_from_json(const cJSON *o, struct latency *l);

/* latency_from_text: as latency_from_json, from JSON text (NULL or "" is ERR_PARSE). */
enum err latency_from_text(const char *text, struct latency *l);

/* latency_line: one line for a status bar: "speech end to sound 943 ms: wait 600 · STT 210
 * · EXTRACT 95 · TTS 30 · play 5 · formdesk 3" (parts under 0.5 ms left out but
 * formdesk's). Output:
 * buf (size n, always NUL-terminated); "" when l is not known. */
void latency_line(const struct latency *l, char *buf, size_t n);

#endif
