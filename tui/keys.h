/* keys: the simulator's user actions, listed once. Each entry:
 * X(action, key code as wget_wch returns it, key as shown, what it does, 1 when the
 * status bar hints at it (the others are in the help overlay and --help only: the bar
 * keeps its room for the turn's timings)).
 * The key map and dispatch (tui/simulate.c), the help overlay and the key hints
 * (tui/screen.c) and the usage text are all generated from these lists.
 *
 * KEYS: while a corpus plays. LIVE_KEYS: during a live call (typed or from the
 * microphone), where every printable key is the caller's words being typed, so the
 * actions sit on Enter, Backspace, Ctrl-U and Esc. */
#ifndef FORMDESK_KEYS_H
#define FORMDESK_KEYS_H

#define KEYS(X) \
	X(pause, ' ', "space", "pause or resume the call", 1) \
	X(next, 'n', "n", "next call: finish this one at once (recorded as it stands)", 1) \
	X(prev, 'p', "p", "previous call: finish this one at once, then play the one before again", 0) \
	X(jump, 'g', "g", "jump to call N: type its number, then Enter (Esc: stay)", 0) \
	X(back, ',', ",", "pause and step back a turn: its verdicts, decision and form shown again", 0) \
	X(fwd, '.', ".", "pause and step forward a turn; past the newest, play the next turn", 0) \
	X(older, '[', "[", "scroll the conversation back", 0) \
	X(newer, ']', "]", "scroll the conversation forward", 0) \
	X(typed, 't', "t", "typed live call: you type what the caller says (Esc comes back)", 0) \
	X(mic, 'm', "m", "live call from the microphone (Esc comes back)", 0) \
	X(review, 'r', "r", "review the recorded calls of this database (the call waits; q comes back)", 0) \
	X(help, '?', "?", "show this help", 1) \
	X(quit, 'q', "q", "quit", 1)

/* Enter is '\r' (the screen runs in nonl mode; '\n' and KEY_ENTER are taken as it too),
 * Backspace 127 (KEY_BACKSPACE and Ctrl-H as well), Ctrl-U 21, Esc 27. */
#define LIVE_KEYS(X) \
	X(send, '\r', "Enter", "send the line as the caller's words (empty: silence); after a call, the next", 1) \
	X(erase, 127, "Bksp", "erase the last letter with its signs", 1) \
	X(clear, 21, "C-u", "clear the line", 1) \
	X(hangup, 27, "Esc", "hang up; with no call open, leave the live desk", 1)

#endif
