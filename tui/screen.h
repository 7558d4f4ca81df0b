/* screen: the simulator's terminal (ncursesw): takes the terminal and gives it back on
 * exit, error or signal; lays the panes out for the terminal's size; draws a callview's
 * dirty panes with one doupdate() per call; the help and summary overlays; the one place
 * the simulator's loop waits (poll() on the keyboard and on signals).
 *
 * Layout: a title line, then side by side Conversation | Form | Verdicts over Decision
 * (below 120 columns two columns: Conversation over Verdicts | Form over Decision), then,
 * during a typed live call, the line the caller's words are typed into, then a status bar
 * with the last turn's stage timings (or the live call's state) and the key hints. A terminal smaller
 * than SCREEN_MIN_COLS x SCREEN_MIN_ROWS shows a short message instead. */
#ifndef FORMDESK_SCREEN_H
#define FORMDESK_SCREEN_H

#include <poll.h>
#include <stdbool.h>
#include "base/err.h"

struct callview;
struct screen;

#define SCREEN_MIN_COLS 72
#define SCREEN_MIN_ROWS 16

/* screen_open: take the terminal (stdin and stdout must be terminals; the locale must be
 * set first). While the screen is up stderr goes to log_path (appended; NULL for
 * /dev/null), so libraries that print cannot spoil it. SIGINT, SIGTERM and SIGHUP become
 * SCREEN_QUIT wake-ups; SIGWINCH a SCREEN_RESIZE; a crash restores the terminal before
 * the process dies. Output: *out (caller frees with screen_close); on failure *errmsg
 * (static string). Errors: ERR_IO (no usable terminal), ERR_NOMEM. */
enum err screen_open(const char *log_path, struct screen **out, const char **errmsg);

/* screen_close: give the terminal back as it was (endwin), restore stderr and the signal
 * handlers. NULL does nothing. Also done at exit() if forgotten. */
void screen_close(struct screen *s);

enum screen_wake {
	SCREEN_TIMEOUT = 0,
	SCREEN_INPUT = 1 << 0,  /* keys to read with screen_key */
	SCREEN_RESIZE = 1 << 1, /* the terminal changed size (already applied) */
	SCREEN_QUIT = 1 << 2,   /* SIGINT, SIGTERM or SIGHUP */
};

/* screen_wait: wait up to timeout_ms (-1 for ever) for a key, a resize or a quit signal.
 * A resize is applied here (the layout is rebuilt, everything marked for redraw).
 * Output: SCREEN_* bits, 0 on timeout. */
unsigned screen_wait(struct screen *s, int timeout_ms);

/* A way of waiting: like poll(2) on fds (n of them, revents to be set), at most
 * timeout_ms (-1 for ever); returns how many have events, or -1. */
typedef int (*screen_waiter)(void *ud, struct pollfd *fds, int n, int timeout_ms);

/* screen_wait_in: screen_wait, waiting in wait(ud, ...) instead of poll(): so the loop's
 * one place of waiting can also serve other descriptors (curl's, through
 * curl_multi_poll with the screen's as extra ones). */
unsigned screen_wait_in(struct screen *s, int timeout_ms, screen_waiter wait, void *ud);

/* screen_signal: the signal that asked to quit (SIGINT, SIGTERM, SIGHUP), 0 if none. */
int screen_signal(const struct screen *s);

/* screen_key: the next key typed: a character (a Unicode code point) as wget_wch gives
 * it, with Enter as '\r' (also KEY_ENTER and '\n') and Backspace as 127 (also
 * KEY_BACKSPACE and Ctrl-H); any other function key is SCREEN_FKEY, so it is never taken
 * for the character with its number. -1 when none is waiting. Never blocks. */
#define SCREEN_FKEY (-2)
int screen_key(struct screen *s);

/* screen_help: show or hide the help overlay (the keys of tui/keys.h). */
void screen_help(struct screen *s, bool on);
bool screen_help_shown(const struct screen *s);

/* screen_live: the screen serves a live call (true: the key hints and the help show
 * LIVE_KEYS of tui/keys.h) or a corpus playback (false); editing shows the line editor's
 * row (screen_input) above the status bar, with the terminal's cursor in it. */
void screen_live(struct screen *s, bool live, bool editing);

/* screen_input: what the line editor's row shows: prompt, then text (UTF-8; both copied,
 * control characters shown as spaces); the end of a long line is shown, never half a
 * letter. */
void screen_input(struct screen *s, const char *prompt, const char *text);

/* screen_redraw: lay out and draw everything again at the next screen_draw (after
 * another screen, the review browser, used the terminal). */
void screen_redraw(struct screen *s);

/* screen_draw: draw what changed in v (its dirty panes, the overlays) and update the
 * terminal once. */
void screen_draw(struct screen *s, struct callview *v);

#endif
