/* term: the one owner of the terminal, for every screen (the simulator's tui/screen.c, the
 * labelling screen tui/annotate.c): the UTF-8 locale, taking the terminal with ncursesw
 * (newterm, colours, cbreak without echo, keypad, no delay, the cursor hidden), keeping
 * the libraries' stderr chatter (ALSA, JACK, PortAudio) off it while the screen is up,
 * the signals that reach the screen's loop through a pipe (quit, resize, a child's end),
 * giving the terminal back on close, exit or crash, and applying a resize. The model is
 * htop's CRT_init/CRT_done. One terminal is open at a time. */
#ifndef FORMDESK_TERM_H
#define FORMDESK_TERM_H

#include <stdbool.h>

#include "base/err.h"

/* term_locale: the locale from the environment, with a UTF-8 character type (C.UTF-8 when
 * the environment's is not UTF-8): Devanagari needs it. Safe to call more than once. */
void term_locale(void);

/* What term_open watches besides quit signals and resizes. */
enum term_flags {
	TERM_CHILD = 1 << 0, /* SIGCHLD wakes the loop (TERM_CHILD_EXITED) */
};

/* term_open: take the terminal (stdin and stdout must be terminals whose TERM can move the
 * cursor), after term_locale. While it is up stderr goes to log_path (appended; NULL for
 * /dev/null); SIGINT, SIGTERM and SIGHUP become TERM_QUIT wake-ups, SIGWINCH TERM_RESIZE;
 * a crash (SIGSEGV, SIGABRT) gives the terminal back before the process dies; an exit()
 * without term_close gives it back too. Colours are started when the terminal has them
 * (term_colours). Output: on failure *errmsg (static string). Errors: ERR_IO (no usable
 * terminal), ERR_INVALID (already open), ERR_NOMEM. */
enum err term_open(const char *log_path, unsigned flags, const char **errmsg);

/* term_close: give the terminal back as it was (endwin), restore stderr and the signal
 * handlers. Does nothing when it is not open. */
void term_close(void);

/* term_colours: the terminal has colours (start_color was called by term_open). */
bool term_colours(void);

/* term_wake_fd: a descriptor to poll for POLLIN beside stdin: it is readable when a
 * signal came (then call term_pending); -1 when the terminal is not open. */
int term_wake_fd(void);

enum term_event {
	TERM_QUIT = 1 << 0,         /* SIGINT, SIGTERM or SIGHUP came (term_signal says which) */
	TERM_RESIZE = 1 << 1,       /* the terminal changed size: already applied (resizeterm) */
	TERM_CHILD_EXITED = 1 << 2, /* SIGCHLD came (with TERM_CHILD) */
};

/* term_pending: empty the wake pipe and report what came since the last call (enum
 * term_event bits), applying a resize. */
unsigned term_pending(void);

/* term_quit_on: a quit as if by signal sig (the terminal went away: SIGHUP). */
void term_quit_on(int sig);

/* term_signal: the signal that asked to quit, 0 if none. */
int term_signal(void);

#endif
