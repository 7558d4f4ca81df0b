/* lexicon: the word lists the rule layer and the offline extractor read at load
 * (numbers, months, yes/no, don't-know phrases, carrier phrases, fillers, ...). They are
 * data files in agent/words/ (documented in agent/words/README.md) so a programme team can
 * extend them without touching C. */
#ifndef FORMDESK_LEXICON_H
#define FORMDESK_LEXICON_H

#include <stdbool.h>
#include "base/err.h"

struct lexicon;

/* lexicon_load: read every word list in dir. Output: *out on ERR_OK (caller frees with
 * lexicon_free); on failure *errmsg (caller frees, may be NULL to ignore) names the file,
 * line and what is wrong. Errors: ERR_IO, ERR_PARSE, ERR_NOMEM. */
enum err lexicon_load(const char *dir, struct lexicon **out, char **errmsg);
void lexicon_free(struct lexicon *lex);

/* lexicon_default_dir: where the word lists are: $FORMDESK_WORDS if set, else
 * agent/words beside the running binary, else the source tree's agent/words. Static
 * string. */
const char *lexicon_default_dir(void);

/* What a word-list entry says about its phrase. The tag is the second column of a word
 * list line (its name in lexicon_tag_name); see agent/words/README.md. */
enum lexicon_tag {
	LEX_NUM,         /* a number word; value */
	LEX_TENS,        /* an English tens word a following 1-9 adds to ("ninety eight"); value */
	LEX_MULT,        /* multiplier: sau 100, hazaar 1000, lakh, crore; value */
	LEX_PLUS,        /* saadhe +0.5, sava +0.25, paune -0.25 on the number after it; value */
	LEX_POINT,       /* decimal point word */
	LEX_REPEAT,      /* double 2, triple 3: the next digit said value times */
	LEX_COUNTNOUN,   /* digit, ank: a number before it counts digits, it is not one */
	LEX_MONTH,       /* month name; value 1-12 */
	LEX_ORDINAL,     /* pehli 1, doosri 2, ...; value */
	LEX_TODAY,       /* aaj */
	LEX_DAYREL,      /* kal 1, parso 2: days back, or ahead in the future tense; value */
	LEX_DAYOFF,      /* yesterday -1, tomorrow 1: signed days; value */
	LEX_DAYMARK,     /* tarikh: the number beside it is a day of the month */
	LEX_UNIT,        /* duration unit in days: din 1, hafta 7, mahina 30, saal 365; value */
	LEX_PREV,        /* pichle: the previous month or year */
	LEX_NEXT,        /* agle: the next month or year */
	LEX_THIS,        /* is: this month or year */
	LEX_AGO,         /* pehle: a duration before today */
	LEX_LATER,       /* baad: a duration after today */
	LEX_FUTURE,      /* hoga, hone wala hai: future tense */
	LEX_YES,         /* haan, bilkul */
	LEX_NO,          /* nahi, ji nahi */
	LEX_WEAKYES,     /* ji: yes only when it is the whole answer */
	LEX_NOANSWER,    /* boliye, hello: the caller is not answering */
	LEX_NEUTRAL,     /* "hai na", "koi baat nahi": no yes/no in it */
	LEX_NEG,         /* nahi, galat, sorry: a correction of what was just said */
	LEX_DONT_KNOW,   /* pata nahi; arg: field hint words or empty for any field */
	LEX_DECLINED,    /* nahi batana; arg as LEX_DONT_KNOW */
	LEX_NONE,        /* "phone nahi hai"; arg as LEX_DONT_KNOW */
	LEX_NAME_BEFORE, /* "mera naam": a name follows; arg "self", "child" or "" */
	LEX_NAME_AFTER,  /* "bol rahi hoon", "hai": the name ended before it */
	LEX_HONORIFIC,   /* Shrimati, ji */
	LEX_FILLER,      /* umm, ek minute: said while thinking, means nothing */
	LEX_STOP,        /* function words that are never part of a name */
	LEX_PLACE_AFTER, /* "se", "zila" after a place name */
	LEX_PLACE_BEFORE,/* "zila", "district" before a place name */
	LEX_COPULA,      /* hoon, hai: a statement (yes when nothing negates it) */
	LEX_HINT,        /* a word that says what a question is about; arg: the kind */
	LEX_AND,         /* and, aur: joins a multiplier to the rest ("two thousand and twenty two") */
	LEX_DIGITWORD,   /* oh, o: a digit only right after another digit ("nine eight oh oh"); value */
	LEX_YESTAG,      /* na after a yes: asks for agreement ("haan na"), not a no */
	LEX_ANCHOR,      /* ke, se before a duration, before / after after it: counted from a named
			    event ("holi ke do din baad"), not from today; value -1 or +1 (the side
			    the event is named on) */
	LEX_COUNTLEAD,   /* last, aakhri: a small number word right after it and before the
			    digits counts them ("last four 4567"), it is not one */
	LEX_BACKCHANNEL, /* haan, hmm, achha, ok: a listener's acknowledgement while the other
			    speaks, no answer (agent/hindi/turnkind.h) */
	LEX_UNFINISHED,  /* "mera naam", "aur": a phrase that needs more words after it; a turn
			    ending on it has not ended (agent/hindi/turnkind.h) */
	LEX_NTAGS
};

/* One entry of a word list. */
struct lexicon_phrase {
	enum lexicon_tag tag;
	double value;    /* the third column when the tag takes a number, else 0 */
	const char *arg; /* the third column when the tag takes words, else "" */
	int n;           /* words in the phrase ("*" counts as one) */
};

struct text;

/* lexicon_tag_text: look every token of t up (fills t->tok[i].id). */
void lexicon_tag_text(const struct lexicon *lex, struct text *t);

/* lexicon_match: the longest entry with tag that starts at token i of t and ends before
 * token end ("*" in an entry stands for up to two words of any kind). Output: the number
 * of tokens it covers (0 when none); *ph (may be NULL) the entry (owned by lex). */
int lexicon_match(const struct lexicon *lex, const struct text *t, int i, int end,
		  enum lexicon_tag tag, const struct lexicon_phrase **ph);

/* lexicon_has: whether some entry with tag starts at token i (fast test, no matching). */
bool lexicon_has(const struct lexicon *lex, const struct text *t, int i, enum lexicon_tag tag);

#endif
