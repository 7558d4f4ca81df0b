/* keys: the simulator's user actions, listed once. Each entry:
 * X(action, key code as wget_wch returns it, key as shown, what it does).
 * The key map and dispatch (tui/simulate.c), the help overlay and the key hints
 * (tui/screen.c) are all generated from this list. */
#ifndef FORMDESK_KEYS_H
#define FORMDESK_KEYS_H

#define KEYS(X) \
	X(pause, ' ', "space", "pause or resume the call") \
	X(next, 'n', "n", "next call: finish this one at once (recorded as it stands)") \
	X(help, '?', "?", "show this help") \
	X(quit, 'q', "q", "quit")

#endif
