/* term: the one owner of the terminal (see term.h). */
#include "term.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

/* Process-wide state the signal handlers need: one terminal is open at a time. */
static SCREEN *g_term;
static bool g_colours;
static int g_pipe[2] = {-1, -1};
static volatile sig_atomic_t g_quit, g_winch, g_child;
static int g_saved_stderr = -1;
static struct termios g_tio;
static bool g_have_tio;
static char g_reset[256]; /* terminfo strings that give the terminal back, for a crash */
enum { N_SIGS = 7 };
static const int g_sigs[N_SIGS] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGSEGV, SIGABRT, SIGCHLD};
static struct sigaction g_old[N_SIGS];
static bool g_caught[N_SIGS];
static bool g_atexit;

void term_locale(void)
{
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	if (!cs || strcmp(cs, "UTF-8") != 0)
		setlocale(LC_CTYPE, "C.UTF-8");
}

static void wake(void)
{
	int saved = errno;
	if (g_pipe[1] >= 0) {
		ssize_t r = write(g_pipe[1], "x", 1); /* a full pipe wakes the loop anyway */
		(void)r;
	}
	errno = saved;
}

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		g_winch = 1;
	else if (sig == SIGCHLD)
		g_child = 1;
	else
		g_quit = sig;
	wake();
}

/* A crash: give the terminal back with async-signal-safe calls only, then let the
 * previous handler (the sanitizers' report, or the default) run. */
static void on_crash(int sig)
{
	if (g_have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &g_tio);
	ssize_t r = write(STDOUT_FILENO, g_reset, strlen(g_reset));
	(void)r;
	if (g_saved_stderr >= 0)
		dup2(g_saved_stderr, STDERR_FILENO);
	for (int i = 0; i < N_SIGS; i++)
		if (g_sigs[i] == sig)
			sigaction(sig, &g_old[i], NULL);
	raise(sig);
}

static void at_exit(void)
{
	term_close();
}

static void close_pipe(void)
{
	if (g_pipe[0] >= 0)
		close(g_pipe[0]);
	if (g_pipe[1] >= 0)
		close(g_pipe[1]);
	g_pipe[0] = g_pipe[1] = -1;
}

/* usable: TERM names a terminal terminfo knows that can move the cursor. */
static bool usable(void)
{
	const char *term = getenv("TERM");
	int terr = 0;
	bool ok = term && *term && strcmp(term, "dumb") != 0 &&
		  setupterm(NULL, STDOUT_FILENO, &terr) == OK;
	if (ok) {
		char *cup = tigetstr("cup");
		ok = cup && cup != (char *)-1;
	}
	if (cur_term)
		del_curterm(cur_term);
	return ok;
}

enum err term_open(const char *log_path, unsigned flags, const char **errmsg)
{
	if (g_term) {
		*errmsg = "the terminal is already taken";
		return ERR_INVALID;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*errmsg = "standard input and output must be a terminal";
		return ERR_IO;
	}
	if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		*errmsg = "cannot make a pipe for signals";
		return ERR_IO;
	}
	if (!usable()) {
		close_pipe();
		*errmsg = "this terminal cannot show the screen: TERM is unset, unknown or cannot move the cursor";
		return ERR_IO;
	}
	term_locale();
	g_have_tio = tcgetattr(STDIN_FILENO, &g_tio) == 0;
	if (!(g_term = newterm(NULL, stdout, stdin))) {
		close_pipe();
		*errmsg = "cannot use this terminal (check TERM)";
		return ERR_IO;
	}
	g_reset[0] = '\0';
	const char *caps[] = {"sgr0", "cnorm", "rmcup"};
	for (int i = 0; i < 3; i++) {
		char *c = tigetstr(caps[i]);
		if (c && c != (char *)-1 && strlen(g_reset) + strlen(c) < sizeof(g_reset))
			strcat(g_reset, c);
	}
	if (!g_atexit)
		g_atexit = atexit(at_exit) == 0;

	/* Signals after newterm, so ours win over the library's. */
	g_quit = g_winch = g_child = 0;
	for (int i = 0; i < N_SIGS; i++) {
		struct sigaction sa;
		g_caught[i] = g_sigs[i] != SIGCHLD || (flags & TERM_CHILD);
		if (!g_caught[i])
			continue;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = g_sigs[i] == SIGSEGV || g_sigs[i] == SIGABRT ? on_crash : on_signal;
		sigaction(g_sigs[i], &sa, &g_old[i]);
	}

	/* The libraries that print (ALSA, JACK, PortAudio) must not spoil the screen. */
	fflush(stderr);
	g_saved_stderr = dup(STDERR_FILENO);
	int fd = open(log_path ? log_path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	g_colours = has_colors();
	if (g_colours) {
		start_color();
		use_default_colors();
	}
	return ERR_OK;
}

void term_close(void)
{
	if (!g_term)
		return;
	endwin();
	delscreen(g_term);
	g_term = NULL;
	for (int i = 0; i < N_SIGS; i++)
		if (g_caught[i])
			sigaction(g_sigs[i], &g_old[i], NULL);
	if (g_saved_stderr >= 0) {
		fflush(stderr);
		dup2(g_saved_stderr, STDERR_FILENO);
		close(g_saved_stderr);
		g_saved_stderr = -1;
	}
	close_pipe();
}

bool term_colours(void)
{
	return g_term && g_colours;
}

int term_wake_fd(void)
{
	return g_pipe[0];
}

unsigned term_pending(void)
{
	unsigned r = 0;
	char buf[64];

	while (g_pipe[0] >= 0 && read(g_pipe[0], buf, sizeof(buf)) > 0)
		;
	if (g_winch) {
		struct winsize ws;
		g_winch = 0;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
			resizeterm(ws.ws_row, ws.ws_col);
		r |= TERM_RESIZE;
	}
	if (g_child) {
		g_child = 0;
		r |= TERM_CHILD_EXITED;
	}
	if (g_quit)
		r |= TERM_QUIT;
	return r;
}

void term_quit_on(int sig)
{
	g_quit = sig;
}

int term_signal(void)
{
	return g_quit;
}
