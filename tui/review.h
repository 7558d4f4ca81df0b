/* review: the browser of recorded calls (formdesk review). A list of calls (id, run,
 * corpus call id, status, turns, the fields not answered, the reason), filtered by run,
 * status, a field left unanswered and text the caller said; Enter opens a call, which is
 * stepped turn by turn, each turn showing every stage's input and output: how the words
 * came in (input, condition, audio, speech segments), the transcript, EXTRACT's answer
 * with its time, what the rule layer captured, each validator's verdict, the decision
 * (question asked, retries, branches, what comes next and why), the REPLY words and the
 * stage timings; turn 0 is the opening, with the call's final form.
 *
 * The list is never read whole: its counts come from SQL and its rows a page at a time
 * (store_calls_page), read again around the rows shown when the cursor leaves them, so a
 * database of 100,000 calls shows its first screen as fast as one of ten.
 *
 * Keys, in the list: j / k move, space / b a page down and up, g / G the first and the
 * last call, Enter opens, s cycles the status filter (all, complete,
 * failed, screened_out, in_progress), / types a text to search the transcripts for (Enter
 * ends it, an empty one clears it), q quits. In a call: n / p the next and previous turn,
 * j / k scroll, a plays the turn's audio where it was recorded (the caller's words, from
 * the call's caller.wav or else the turn's corpus clip, then the agent's reply from
 * agent.wav; a recording that is gone is named), l then a tag's key labels the turn for
 * the turn-errors task (annotations/: the item the task's queue draws for the turn, and
 * the annotator's label on it, each committed at once; Esc labels nothing), q goes back
 * to the list.
 *
 * Two runs side by side (--against B, or c and a run's number in the list): a call opens
 * on the left, the call of run B that `formdesk diff` pairs with it (rundiff_match) on
 * the right, both at the same turn as n and p step, under a line naming the turn and
 * stage at which the two first differ. */
#ifndef FORMDESK_REVIEW_H
#define FORMDESK_REVIEW_H

struct screen;
struct store;

/* What the list starts with. Strings are borrowed. */
struct review_filter {
	long long run;      /* only this run's calls; 0 all */
	const char *status; /* only calls with this status; NULL all */
	const char *field;  /* only calls that left this field unanswered; NULL any */
	const char *text;   /* only calls whose transcripts hold this text; NULL any */
	const char *corpus; /* only calls of this corpus; NULL any */
	const char *fault;  /* only calls where this stage failed (store_call_query.fault:
	                       stt, extract, reply, validation, any); NULL any */
	/* and how a call's turns are played and labelled */
	const char *output_device; /* where a turn's audio plays (padev_find: NULL default) */
	const char *annotator;     /* whose labels l makes; NULL or "" "review" */
	long long against;         /* a call opens beside the call of this run the diff pairs
	                              with it (sessions/eval/rundiff.h); 0 alone */
};

/* review_run: the browser on st until the user quits (the terminal is taken and given
 * back; stdin and stdout must be terminals, the locale set). Returns the exit status: 0,
 * 2 when the terminal cannot be had or the calls cannot be read (a message on stderr),
 * 128 + the signal that ended it. */
int review_run(struct store *st, const struct review_filter *f);

/* review_screen: the browser on st in scr, a screen another part of the program holds
 * (the simulator's r key), until q; the caller redraws its own panes afterwards
 * (screen_redraw). A failure to read the calls is shown in the browser's status bar.
 * Returns 0 on q, or 128 + the signal that asked to quit. */
int review_screen(struct screen *scr, struct store *st, const struct review_filter *f);

#endif
