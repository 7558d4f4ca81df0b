#!/bin/bash
# tui_typed: a typed live call on screen (`formdesk --typed`), driven in tmux at a fixed
# size on a private server. The operator types the caller's words into the line editor,
# in Devanagari and in Hinglish, with a Backspace that takes a whole letter; each Enter is
# a caller turn (an empty one is silence). The form pane fills, the decision pane shows
# the next question, the call ends complete, Esc leaves. There is no sound card, so the
# agent's words are shown, not spoken, and the status bar says so. The database has the
# turns with input kind "typed". Deadlines are generous and only bound waits.
# TAP-style output.
set -u
cd "$(dirname "$0")/.."
export LANG=C.UTF-8 LC_ALL=C.UTF-8

. tests/lib/tmux.sh
FORM=$PWD/$FORM
tmux_start typed sqlite3
db=$tmp/typed.db

PANE=typed
# say WORDS: type the caller's words (literally, UTF-8) and press Enter.
say() {
	[ -n "$1" ] && "${T[@]}" send-keys -t typed -l "$1"
	"${T[@]}" send-keys -t typed Enter
}
turns() { sqlite3 "$db" 'SELECT count(*) FROM turns' 2>/dev/null || echo 0; }
# wait_turns N: until the database has N turns.
wait_turns() {
	local deadline=$((SECONDS + 60))
	while [ $SECONDS -lt $deadline ]; do
		[ "$(turns)" -ge "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

open_shell
# Leak checking off: PortAudio probes ALSA for an output device (see e2e_devices.sh).
"${T[@]}" send-keys -t typed "ASAN_OPTIONS=detect_leaks=0 '$BIN' --typed --form '$FORM' --db '$db' --today 2025-03-15; echo \"exit=\$?\"" Enter

screen_up 'live call \(typed\)' "the title says a typed live call"
check "the agent's opening words are in the conversation" wait_for 'agent: नमस्ते' 30
check "the line editor's row is shown" wait_for '^caller says ›' 10
check "the status bar says there is no output device, words shown only" wait_for 'no audio output device' 10
check "the status bar shows the live keys" wait_for 'Enter send.*Esc hangup' 10

# the empty line must come once the opening is said: during it, it would be a barge-in
check "the opening said, the status bar says the agent is listening" wait_for 'typed +· +listening' 60
say ""
check "an empty line is a silence turn" wait_for 'caller 1: \(nothing heard\)' 30
check "  ... shown as silence" wait_for '\[silence\]' 10

"${T[@]}" send-keys -t typed -l "मेरा नाम सुनीता देवी है"
check "Devanagari typed is shown intact in the line editor" wait_for '^caller says › मेरा नाम सुनीता देवी है' 20
"${T[@]}" send-keys -t typed BSpace
check "Backspace takes the last letter with its vowel sign" wait_for '^caller says › मेरा नाम सुनीता देवी *$' 20
"${T[@]}" send-keys -t typed -l "है"
say ""
check "the caller's words go into the conversation" wait_for 'caller 2: मेरा नाम सुनीता देवी है' 30
check "  ... marked as typed" wait_for '\[typed\]' 10
check "the name fills in the form pane" wait_for 'name +सुनीता देवी +answered' 30
check "the decision asks the district next" wait_for 'ask district' 30
check "the status bar shows the turn's end of speech to the agent's first sound in parts" \
	wait_for 'speech end to sound [0-9]+ ms:.* formdesk [0-9-]+' 10
check "the line editor is empty again" wait_for '^caller says › *$' 10

say "Gaya"
check "a Hinglish answer fills a select field" wait_for 'district +Gaya +answered' 30
for a in "primary health centre Gaya" "haan ji" "पाँच महीने" "haan" "ji haan"; do
	before=$(turns)
	say "$a"
	wait_turns $((before + 1)) || break
done
check "a number said in Hindi words fills a number field" wait_for 'gestational_age +5 +answered' 30
say "ek do teen char"
check "the call ends complete" wait_for 'call ended: complete' 30
check "  ... the decision pane says end of call" wait_for 'END complete' 10
check "aadhaar digits said in Hinglish words" wait_for 'aadhaar_last4 +1234 +answered' 10

"${T[@]}" send-keys -t typed Escape
check "Esc with no call open leaves, exit status 0" wait_for '^exit=0' 30
check "the terminal is restored: the shell prompt is back" wait_for '^fdtest\$ ?$' 30
if grep -qE 'Sanitizer|runtime error' "$tmp/screen" "$db.log" 2>/dev/null; then
	not_ok "no sanitizer report"
else
	ok "no sanitizer report"
fi

rows=$(sqlite3 "$db" "SELECT group_concat(idx||':'||input||silence, ' ') FROM turns")
check "the database has the turns, input kind typed, the first one silence ($rows)" \
	test "$rows" = "1:typed1 2:typed0 3:typed0 4:typed0 5:typed0 6:typed0 7:typed0 8:typed0 9:typed0"
check "  ... the call complete, live, with the typed words" \
	test "$(sqlite3 "$db" "SELECT c.status||'|'||c.corpus_call_id||'|'||t.transcript FROM calls c JOIN turns t ON t.call_id = c.id WHERE t.idx = 2")" = "complete|live|मेरा नाम सुनीता देवी है"
check "  ... and no STT request was made for typed words" \
	test "$(sqlite3 "$db" "SELECT count(*) FROM stage_usage WHERE stage = 'stt'")" = 0

echo "1..$n"
[ $failed = 0 ]
