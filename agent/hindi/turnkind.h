/* turnkind: what kind of caller turn a transcript is, before anything is extracted from
 * it, and which of the agent's words a caller heard before she cut them off. Rules of
 * turn-taking that no language model makes (docs/turn-taking.md):
 * - a backchannel ("haan", "hmm", "achha", "ok": agent/words/turntaking.tsv) said while
 *   the agent speaks is a listener's acknowledgement, not an answer: the agent goes on and
 *   no retry is used;
 * - a turn made only of fillers ("umm", "वो..."), or ending on a phrase that asks for more
 *   ("mera naam", "aur"), or on "...", is not over: it is not judged, it joins what the
 *   caller says next;
 * - what a caller heard of the agent's words is found by playback time: the words are
 *   taken as spoken at an even pace over their length.
 * Pure: no I/O, no clock. */
#ifndef FORMDESK_TURNKIND_H
#define FORMDESK_TURNKIND_H

#include <stdbool.h>
#include <stddef.h>

struct lexicon;

/* A backchannel is short: a turn with more speech than this (ms, the endpointer's
 * segments) is an answer or an interruption whatever its words. Two or three short words
 * ("haan haan", "achha ji") take 400-700 ms. */
#define TURNKIND_BACKCHANNEL_MS 900

/* The pace at which the agent's words are taken to play when their audio length is not
 * known (a corpus run has no TTS): ms per character (Unicode code point, vowel signs
 * included). espeak-ng's Hindi voice and the hosted Hindi voices speak 12-16 code points
 * a second. */
#define TURNKIND_MS_PER_CHAR 70

/* turnkind_backchannel: whether said (UTF-8, may be NULL) is only backchannel words (tag
 * backchannel of the word lists, lex borrowed). Empty text is not. */
bool turnkind_backchannel(const struct lexicon *lex, const char *said);

/* turnkind_unfinished: whether said is not a whole turn yet: only fillers (tag filler),
 * or it ends on a phrase tagged unfinished or name_before ("mera naam"), or on an
 * ellipsis ("..." or U+2026). Empty text is not. */
bool turnkind_unfinished(const struct lexicon *lex, const char *said);

/* turnkind_heard: of the agent's words text (UTF-8), what played in played_ms of total_ms
 * (total_ms <= 0: unknown, taken at TURNKIND_MS_PER_CHAR). Output: the byte length of
 * the words heard whole (cut back to a word's edge; 0 when none; strlen(text) when all
 * played); *resume (may be NULL) the byte offset where the sentence the cut fell in
 * begins (0 for the first; strlen(text) when all played): where the agent goes on. */
size_t turnkind_heard(const char *text, long played_ms, long total_ms, size_t *resume);

#endif
