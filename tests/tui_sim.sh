#!/bin/bash
# tui_sim: the simulator's screen, driven in tmux at a fixed size. Runs the real binary
# ("$FORMDESK_BIN", the sanitizer build) in a shell inside a private tmux server, reads
# the screen with capture-pane (polling with generous deadlines, never fixed sleeps for
# what it checks) and types keys with send-keys. TAP-style output.
set -u
cd "$(dirname "$0")/.."

. tests/lib/tmux.sh
tmux_start tui
db=$tmp/sim.db

demo_corpus
echo "# corpus $corpus, binary $BIN"

# ---- before the screen: errors and a missing terminal -------------------------------
"$BIN" --form "$FORM" --corpus "$corpus" --db "$tmp/notty.db" </dev/null >"$tmp/out" 2>"$tmp/err"
rc=$?
check "without a terminal it exits 2 and suggests the headless run" \
	test "$rc" = 2 -a -n "$(grep -F 'run --headless' "$tmp/err")"
"$BIN" --form "$tmp/no-such-form.json" --corpus "$corpus" </dev/null >/dev/null 2>"$tmp/err"
rc=$?
check "a missing form is named before the screen starts" \
	test "$rc" = 2 -a -n "$(grep -F "$tmp/no-such-form.json" "$tmp/err")"
"$BIN" --form "$FORM" --corpus "$tmp/no-such-corpus" </dev/null >/dev/null 2>"$tmp/err"
rc=$?
check "a missing corpus is named before the screen starts" \
	test "$rc" = 2 -a -n "$(grep -F "$tmp/no-such-corpus" "$tmp/err")"

# ---- the screen ---------------------------------------------------------------------
PANE=sim
# Every row of a box-drawn pane must end with its border: no stray text past it.
rows_clean() {
	capture >"$tmp/screen"
	! grep -E '^[│┌└]' "$tmp/screen" | grep -vqE '[│┐┘]$'
}
# The number of characters in row $1 (0-based) of the screen.
row_chars() { capture | sed -n "$(($1 + 1))p" | LC_ALL=C.UTF-8 wc -m | awk '{print $1 - 1}'; }

open_shell
# --tts none: the typed live call below shows the agent's words only (no audio device here;
# the ALSA modules PortAudio would load leave memory the leak checker cannot name).
"${T[@]}" send-keys -t sim "'$BIN' --form '$FORM' --corpus '$corpus' --db '$db' --speed 1 --tts none; echo \"exit=\$?\"" Enter

screen_up 'Conversation.*Form.*Verdicts' "the four panes' titles appear"
check "the Decision pane's title appears" wait_for 'Decision' 10
check "the title names the corpus and the call" wait_for "formdesk simulator · corpus .* · call .* 1/[0-9]+" 10
check "the form pane lists the fields with statuses and retries" \
	wait_for 'aadhaar_last4 +(empty|answered|skipped) +[0-9]+/[0-9]+' 30
# Attributes, read with capture-pane -e: the asked field in reverse colours, the fields of
# branches that are not open dimmed.
wait_attr() {
	local deadline=$((SECONDS + ${2:-30}))
	while [ $SECONDS -lt $deadline ]; do
		"${T[@]}" capture-pane -e -p -t sim >"$tmp/attrs" 2>/dev/null
		grep -qE -- "$1" "$tmp/attrs" && return 0
		sleep 0.2
	done
	return 1
}
esc=$'\e'
check "the field being asked is highlighted" wait_attr "${esc}\\[43m▶ [a-z_]+ " 30
check "the fields of inactive branches are dimmed" \
	wait_attr "${esc}\\[2m *(gestational_age|child_name|child_dob|linked_number|whatsapp_number)($esc| )" 30
check "a caller turn appears in the conversation" wait_for 'caller 1: ' 60
check "a decision appears" wait_for 'next question|end of call' 60
check "the verdicts pane shows what was captured" wait_for 'turn [0-9]+ · asked ' 30
check "the status bar shows the stage timings and the keys" \
	wait_for 'audio [0-9.]+ +VAD [0-9.]+ +STT [0-9.]+ +EXTRACT [0-9.]+ +rules [0-9.]+ +REPLY [0-9.]+ +total [0-9.]+.*q quit' 60
check "... and the end of the caller's speech to the agent's words, with formdesk's share" \
	wait_for 'total [0-9.]+ +to words [0-9.]+ \(formdesk [0-9.-]+\)' 30

# A Devanagari question of the form, shown intact (every vowel sign, virama, nukta and
# chandrabindu in place) on one row of some screen that went by.
scripts=$(grep -o '"script": *"[^"]*"' "$FORM" | sed 's/^"script": *"//; s/"$//')
intact=1
wait_for 'script: ' 60 >/dev/null || true
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ]; do
	capture >>"$tmp/seen"
	while IFS= read -r s; do
		[ -n "$s" ] && grep -qF -- "$s" "$tmp/seen" && intact=0 && break
	done <<<"$scripts"
	[ $intact = 0 ] && break
	sleep 0.3
done
check "a Devanagari question from the form appears intact" test $intact = 0

"${T[@]}" send-keys -t sim '?'
check "? shows the help" wait_for 'any key closes this help' 20
# The call waits behind the help: the title line (call and turn) stays the same.
capture | head -1 >"$tmp/help1"
sleep 4 # more than two caller turns at --speed 1
capture | head -1 >"$tmp/help2"
check "the call does not go on behind the help" cmp -s "$tmp/help1" "$tmp/help2"
"${T[@]}" send-keys -t sim 'x'
check "a key closes the help" wait_gone 'any key closes this help' 20

# Pause: the screen stays still for longer than a turn takes, then moves on again.
"${T[@]}" send-keys -t sim ' '
if wait_for '\[PAUSED\]' 20; then
	ok "space pauses"
	capture >"$tmp/paused1"
	sleep 4 # more than two caller turns at --speed 1: a playing screen would change
	capture >"$tmp/paused2"
	check "the screen does not change while paused" cmp -s "$tmp/paused1" "$tmp/paused2"
	"${T[@]}" send-keys -t sim ' '
	check "space resumes" wait_gone '\[PAUSED\]' 20
else
	not_ok "space pauses"
	not_ok "the screen does not change while paused"
	not_ok "space resumes"
fi

# r: the recorded calls of this database, on the simulator's screen; q comes back to the
# panes, the call going on.
"${T[@]}" send-keys -t sim 'r'
if wait_for 'formdesk review · [0-9]+ of [0-9]+ calls · status any' 20; then
	ok "r opens review on the simulator's database"
	check "... its list holds the calls of this session" wait_for '^> 1 +1 ' 10
	"${T[@]}" send-keys -t sim 'q'
	check "q in review comes back to the panes" wait_for '^┌─ Conversation' 20
	check "... and the simulator goes on (the status bar is back)" wait_for 'q quit$' 20
else
	not_ok "r opens review on the simulator's database"
	not_ok "... its list holds the calls of this session"
	not_ok "q in review comes back to the panes"
	not_ok "... and the simulator goes on (the status bar is back)"
fi

# History: paused, g 2 Enter begins call 2 again; . steps it turn by turn; , steps back,
# each older turn's verdicts, decision and form shown again with the conversation up to
# it; [ and ] scroll the conversation; p plays the previous call.
"${T[@]}" send-keys -t sim ' '
wait_for '\[PAUSED\]' 20 >/dev/null
"${T[@]}" send-keys -t sim g
check "g asks for the call's number" wait_for 'jump to call \(1-[0-9]+\): _' 20
"${T[@]}" send-keys -t sim 2 Enter
check "... 2 Enter: call 2 from its opening, paused" wait_for '^ *\[PAUSED\] formdesk simulator .* call [^ ]+ 2/[0-9]+ · turn 0/' 20
"${T[@]}" send-keys -t sim .
check ". plays turn 1 at once" wait_for 'call [^ ]+ 2/[0-9]+ · turn 1/' 20
check "... its verdicts" grep -q 'turn 1 · asked ' "$tmp/screen"
"${T[@]}" send-keys -t sim .
check ". again: turn 2" wait_for 'call [^ ]+ 2/[0-9]+ · turn 2/' 20
check "... its verdicts" grep -q 'turn 2 · asked ' "$tmp/screen"
"${T[@]}" send-keys -t sim ,
check ", steps back: turn 1 shown again" wait_for 'showing turn 1 \(, \. step\)' 20
check "... its verdicts" grep -q 'turn 1 · asked ' "$tmp/screen"
check "... the conversation up to turn 1 (no caller 2)" bash -c "grep -q 'caller 1: ' '$tmp/screen' && ! grep -q 'caller 2: ' '$tmp/screen'"
check "... scrolled back, the pane says so" grep -q 'Conversation (scrolled back: \] forward)' "$tmp/screen"
"${T[@]}" send-keys -t sim ,
check ", again: the opening" wait_for 'showing turn 0 ' 20
check "... before any answer" grep -q "waiting for the caller's first answer" "$tmp/screen"
"${T[@]}" send-keys -t sim ,
check ", at the opening stays there" wait_for 'showing turn 0 ' 5
"${T[@]}" send-keys -t sim . .
check ". . back to the newest turn" wait_gone 'showing turn' 20
check "... the conversation whole again" bash -c "! grep -q 'showing turn' '$tmp/screen' && grep -q 'caller 2: ' '$tmp/screen'"
"${T[@]}" send-keys -t sim '['
check "[ scrolls the conversation back" wait_for 'Conversation \(scrolled back: \] forward\)' 20
"${T[@]}" send-keys -t sim ']' ']' ']' ']'
check "] scrolls it forward to the newest again" wait_gone 'scrolled back' 20
"${T[@]}" send-keys -t sim p
check "p: the previous call, 1, played again" wait_for 'call [^ ]+ 1/[0-9]+ · turn 0/' 20
"${T[@]}" send-keys -t sim ' '
check "space plays on" wait_gone '\[PAUSED\]' 20

# t: a typed live call from the simulator, then back to the corpus call as it was.
before=$(capture | head -1 | sed 's/ · turn .*//')
"${T[@]}" send-keys -t sim 't'
if wait_for 'live call \(typed\)' 20; then
	ok "t opens a typed live call"
	"${T[@]}" send-keys -t sim 'mera naam Rekha hai' Enter
	wait_for 'caller 1: mera naam Rekha hai' 20 >/dev/null
	"${T[@]}" send-keys -t sim Escape
	sleep 0.5
	"${T[@]}" send-keys -t sim Escape
	check "leaving it puts the corpus call back on screen" wait_for "$(printf '%s' "$before" | sed 's/[][\.*^$]/\\&/g')" 20
	check "the corpus call's conversation is back" wait_gone 'caller 1: mera naam Rekha hai' 20
else
	not_ok "t opens a typed live call"
	not_ok "leaving it puts the corpus call back on screen"
	not_ok "the corpus call's conversation is back"
fi

# n: the next call.
capture >"$tmp/screen"
cur=$(sed -n '1s/.* call [^ ]* \([0-9]*\)\/\([0-9]*\).*/\1/p' "$tmp/screen")
total=$(sed -n '1s/.* call [^ ]* \([0-9]*\)\/\([0-9]*\).*/\2/p' "$tmp/screen")
if [ -n "$cur" ] && [ -n "$total" ] && [ "$cur" -lt "$total" ]; then
	"${T[@]}" send-keys -t sim 'n'
	check "n moves to the next call ($((cur + 1))/$total)" wait_for " $((cur + 1))/$total · turn" 60
else
	"${T[@]}" send-keys -t sim 'n'
	check "n on the last call shows the summary" wait_for 'Summary' 60
fi

# Resizing: the layout is redrawn for the new size, without debris.
"${T[@]}" resize-window -t sim -x 120 -y 40
check "after resizing to 120x40 the top border spans 120 columns" \
	wait_for '^┌─ Conversation.*┐$' 20
check "  ... exactly" test "$(row_chars 1)" = 120
check "  ... and every pane row ends at its border" rows_clean
check "  ... and the status bar is redrawn" wait_for 'q quit$' 10
"${T[@]}" resize-window -t sim -x 90 -y 30
check "at 90x30 the panes are laid out in two columns" wait_for '^┌─ Verdicts.*┐┌─ Decision.*┐$' 20
check "  ... the top border spans 90 columns" test "$(row_chars 1)" = 90
check "  ... and every pane row ends at its border" rows_clean
"${T[@]}" resize-window -t sim -x 50 -y 10
check "a terminal too small gets a short message" wait_for 'needs a terminal of at least' 20
"${T[@]}" resize-window -t sim -x 160 -y 45
check "growing back redraws the panes" wait_for 'Conversation.*Form.*Verdicts' 20
check "  ... at 160 columns" test "$(row_chars 1)" = 160

# q: the program ends and the shell gets the terminal back.
"${T[@]}" send-keys -t sim 'q'
check "q exits with status 0" wait_for '^exit=0' 60
check "the terminal is restored: the shell prompt is back" wait_for '^fdtest\$ ?$' 30
check "  ... and the panes are gone" bash -c "! grep -q 'Conversation' '$tmp/screen'"
if grep -qE 'Sanitizer|runtime error' "$tmp/screen" "$db.log" 2>/dev/null; then
	not_ok "no sanitizer report"
	grep -E 'Sanitizer|runtime error' "$tmp/screen" "$db.log" | head -5 | sed 's/^/# /'
else
	ok "no sanitizer report"
fi

# The database has the calls and their turns.
if command -v sqlite3 >/dev/null; then
	calls=$(sqlite3 "$db" 'SELECT count(*) FROM calls' 2>/dev/null)
	turns=$(sqlite3 "$db" 'SELECT count(*) FROM turns' 2>/dev/null)
	check "the database has calls ($calls) and turns ($turns)" \
		test "${calls:-0}" -gt 0 -a "${turns:-0}" -gt 0
else
	not_ok "sqlite3 is not installed: cannot read the database"
fi

# Ctrl-C (SIGINT) also gives the terminal back, with the shell's status for a signal.
"${T[@]}" send-keys -t sim "clear; '$BIN' --form '$FORM' --corpus '$corpus' --db '$db'; echo \"exit=\$?\"" Enter
if wait_for 'Conversation.*Form.*Verdicts' 60; then
	"${T[@]}" send-keys -t sim C-c
	check "Ctrl-C ends the simulator with status 130" wait_for '^exit=130' 30
	check "  ... and the shell prompt is back" wait_for '^fdtest\$ ?$' 30
else
	not_ok "the simulator starts a second time on the same database"
fi

echo "1..$n"
[ $failed = 0 ]
