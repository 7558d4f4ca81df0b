/* replycheck: the deterministic grading of one REPLY line against the rule layer's
 * decision, on the FormBharo paper's five dimensions (FormVoiceAgentBench REPLY unit
 * tests): asks the decided question, Hindi, a single line, no acknowledgement, no echo of
 * the caller's answer. docs/evaluation.md ("REPLY checks") says the same. Texts are
 * compared after wer_normalize (sessions/eval/wer.h): NFC, case folded, nukta and punctuation
 * folded.
 *
 * - asks: at least half of the words of the decided question (the reference wording: the
 *   form's own line for the decision, as the script replier says it) appear in the reply,
 *   or at least half of the words of the question's label do. A reworded question that
 *   shares fewer words fails here; when it still shares some of them, or is a question
 *   (ends with "?"), the words cannot settle it: asks_unsure is set, and the benchmark's
 *   language-model judge decides that dimension when one is configured
 *   (sessions/eval/benchjudge.h).
 * - hindi: at least 75% of the reply's words that have letters (Unicode categories L*)
 *   are written mostly in Devanagari (U+0900..U+097F), so one English word such as
 *   "WhatsApp" in a Hindi question is fine; a reply without letters fails.
 * - single_line: no line break (CR, LF, U+2028, U+2029) inside the trimmed reply.
 * - no_ack: the reply does not open with an acknowledgement phrase (REPLYCHECK_ACKS:
 *   "ठीक है", "धन्यवाद", "शुक्रिया", "अच्छा", "बहुत बढ़िया", "समझ गई", "जी हाँ", "okay",
 *   "thank you", "got it", ...), unless the reference wording opens with it too (the form's
 *   own words are never faulted). The acknowledgement is spoken by EXTRACT's ack, so REPLY
 *   must not repeat one (the paper).
 * - no_echo: the caller's answer (the value just captured, as text, at least 2
 *   characters; digits for numbers) and, when it has two words or more, the caller's
 *   transcript do not appear in the reply as whole words, unless they appear in the
 *   reference wording too (a question that lists the options names them). */
#ifndef FORMDESK_REPLYCHECK_H
#define FORMDESK_REPLYCHECK_H

#include <stdbool.h>
#include "base/err.h"

struct replycheck_input {
	const char *text;       /* the reply to grade (UTF-8) */
	const char *reference;  /* the decided wording (the script replier's line), may be NULL */
	const char *label;      /* the decided question's label, may be NULL */
	const char *answer;     /* the value captured in the turn as text, may be NULL */
	const char *transcript; /* the caller's words in the turn, may be NULL */
};

struct replycheck {
	bool asks, hindi, single_line, no_ack, no_echo;
	bool pass;         /* all five */
	bool asks_unsure;  /* asks is false on words alone, which cannot decide it (above) */
	char why[160];     /* the first failed dimension and why, "" when pass */
};

/* replycheck_grade: grade in->text. Inputs borrowed. Output: *out. Errors: ERR_PARSE
 * (a text is not valid UTF-8), ERR_NOMEM. */
enum err replycheck_grade(const struct replycheck_input *in, struct replycheck *out);

#endif
