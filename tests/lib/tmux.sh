# tests/lib/tmux.sh: what the tmux screen tests share. Sourced (after `set -u`, from the top
# of the tree) by a test that then calls tmux_start, which sets tmp (its private folder) and
# T (the tmux command on its private server, an array), and sets PANE (the session whose
# screen it reads); the helpers read them when called. POLL, the seconds between two looks
# at the screen, defaults to 0.2.

# BIN: the binary under test ($FORMDESK_BIN, default the sanitizer build), made absolute
# because the tests run it from shells in other folders; FORM: the enrollment form.
BIN=${FORMDESK_BIN:-./build/san/formdesk}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
FORM=forms/armman_enrollment.json
. tests/lib/serve.sh

# TAP output: n counts the tests, failed the failures.
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # check "what" command...: ok when the command succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

# need_tools TOOL...: stop (a failed test, exit 1) unless every TOOL is installed.
need_tools() {
	local tool
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null; then
			echo "not ok 1 - $tool is not installed (scripts/deps.sh installs it)"
			exit 1
		fi
	done
}
# need_bin: stop (a failed test, exit 1) unless $BIN is an executable.
need_bin() {
	if [ ! -x "$BIN" ]; then
		echo "not ok 1 - no binary at $BIN"
		exit 1
	fi
}

# capture [SESSION]: the screen of SESSION (default $PANE) as text.
capture() { "${T[@]}" capture-pane -p -t "${1:-$PANE}"; }
# wait_for PATTERN [SECONDS]: poll the screen until grep -E finds PATTERN (deadline 60 s
# unless given); every capture is kept in $tmp/seen so later checks can look at what went
# by, the last one in $tmp/screen.
wait_for() {
	local deadline=$((SECONDS + ${2:-60}))
	while [ $SECONDS -lt $deadline ]; do
		capture >"$tmp/screen" 2>/dev/null
		cat "$tmp/screen" >>"$tmp/seen"
		grep -qE -- "$1" "$tmp/screen" && return 0
		sleep "${POLL:-0.2}"
	done
	return 1
}
# wait_gone PATTERN [SECONDS]: poll the screen until grep -E no longer finds PATTERN.
wait_gone() {
	local deadline=$((SECONDS + ${2:-60}))
	while [ $SECONDS -lt $deadline ]; do
		capture >"$tmp/screen" 2>/dev/null
		grep -qE -- "$1" "$tmp/screen" || return 0
		sleep "${POLL:-0.2}"
	done
	return 1
}

# demo_corpus: corpus, the corpus the simulator plays: the bundled demo corpus when it has
# been built (make corpora), else the test fixture tests/data/corpus_good.
demo_corpus() {
	if [ -f corpus/demo/corpus.json ]; then corpus=demo; else corpus=tests/data/corpus_good; fi
}

# open_shell: a bash with the prompt "fdtest$ " in a new 160x45 session $PANE, tmux's own
# status line off; waits (at most 30 s) for the prompt.
open_shell() {
	"${T[@]}" new-session -d -s "$PANE" -x 160 -y 45 \
		"LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='fdtest\$ ' bash --norc --noprofile"
	"${T[@]}" set-option -t "$PANE" status off >/dev/null
	wait_for 'fdtest\$' 30 || true
}
# screen_up PATTERN WHAT: the first check of a screen: ok WHAT when PATTERN shows within
# 60 s; else a failure, the last screen as comments, and the test stops (exit 1).
screen_up() {
	if wait_for "$1" 60; then
		ok "$2"
	else
		not_ok "$2 (the screen never came up; the rest is skipped)"
		sed 's/^/# /' "$tmp/screen"
		exit 1
	fi
}

# see SESSION PATTERN [SECONDS]: poll SESSION's screen until grep -E finds PATTERN
# (deadline 30 s unless given); on a time-out the screen is shown as comments.
see() {
	local s=$1 pat=$2 end=$((SECONDS + ${3:-30}))
	while [ $SECONDS -lt $end ]; do
		capture "$s" 2>/dev/null | grep -Eq -- "$pat" && return 0
		sleep 0.1
	done
	echo "# timed out waiting for /$pat/ on $s; the screen was:"
	capture "$s" 2>/dev/null | sed 's/^/#   /'
	return 1
}
# press SESSION PATTERN WHAT KEY...: type the KEYs (tmux send-keys names) into SESSION, then
# check WHAT: PATTERN shows on SESSION's screen (see, its deadline).
press() {
	local s=$1 pat=$2 what=$3
	shift 3
	"${T[@]}" send-keys -t "$s" "$@"
	see "$s" "$pat"
	check "$what" test $? = 0
}
# wait_file FILE [SECONDS]: poll until FILE exists and is not empty (deadline 30 s).
wait_file() {
	local end=$((SECONDS + ${2:-30}))
	while [ $SECONDS -lt $end ]; do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# waiting_shell ENV EXPORTS: the session sim (160x40; PANE, polled every 0.1 s) with a shell
# that has ENV (NAME=VALUE) in its environment, never typed (a capture taken before `clear`
# has run would see a typed line), and exports the prompt, EXPORTS and the word lists.
waiting_shell() {
	"${T[@]}" new-session -d -s sim -x 160 -y 40 -e "$1" "bash --norc --noprofile"
	"${T[@]}" send-keys -t sim \
		"export PS1='fdtest\$ ' $2 FORMDESK_WORDS=$PWD/agent/words; clear" Enter
	PANE=sim
	POLL=0.1
}
# timer: the waiting time the status bar shows now ("" when none), as the test's pattern
# WAITING finds it.
timer() { capture | grep -oE -- "$WAITING" | tail -1; }
# timer_moves [TRIES]: whether what timer reads off the screen (the status bar's waiting
# time) changes within TRIES tenths of a second (default 50); sets first and now to what it
# read.
timer_moves() {
	first=$(timer)
	now=
	for _ in $(seq "${1:-50}"); do
		sleep 0.1
		now=$(timer)
		if [ -n "$now" ] && [ "$now" != "$first" ]; then return 0; fi
	done
	return 1
}
# cleanup_server: for `trap cleanup_server EXIT`: the test's tmux server, its local server
# (server_pid, when set) and $tmp, gone; with KEEP_TMP set, $tmp is kept and named instead.
cleanup_server() {
	"${T[@]}" kill-server 2>/dev/null
	[ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null
	if [ -n "${KEEP_TMP:-}" ]; then echo "# kept $tmp"; else rm -rf "$tmp"; fi
}
# tmux_start NAME [TOOL...]: stop (need_tools, need_bin) unless tmux, every TOOL and $BIN
# are there; then tmp, a new private folder; T, tmux on its own server formdesk-NAME-PID
# (no user configuration), so tests running at once never share one; server_pid empty; and
# cleanup_server on exit.
tmux_start() {
	need_tools tmux "${@:2}"
	need_bin
	tmp=$(mktemp -d)
	T=(tmux -L "formdesk-$1-$$" -f /dev/null)
	server_pid=
	trap cleanup_server EXIT
}
