#!/bin/bash
# annotate_tui: the labelling screens, driven in tmux at 140x40. The database is built
# from tests/data/annotate_calls.sql (recorded calls in the session store's schema) with
# the corpus tests/data/corpus_good. Runs the real binary ("$FORMDESK_BIN", the sanitizer
# build) in a private tmux server, types keys with send-keys and reads the screen with
# capture-pane, polling with a deadline (never a fixed sleep for what it checks); the
# labels are read back with the sqlite3 shell. TAP-style output.
set -u
cd "$(dirname "$0")/.."
CORPUS=tests/data/corpus_good

. tests/lib/tmux.sh
tmux_start ann sqlite3
db=$tmp/ann.db
sqlite3 "$db" <tests/data/annotate_calls.sql >/dev/null

# A player that notes what it was asked to play, so `p` can be checked without a sound card.
cat >"$tmp/player" <<SH
#!/bin/sh
echo "\$1" >>"$tmp/played"
SH
chmod +x "$tmp/player"

q() { sqlite3 -cmd ".timeout 5000" "$db" "$1"; } # busy timeout: the screen may be writing
# wait_for SESSION PATTERN [SECONDS]: this test's name for see (tests/lib/tmux.sh).
wait_for() { see "$1" "$2" "${3:-20}"; }
# start SESSION ANNOTATOR TASK [OPTIONS]: the screen in its own tmux session; its exit
# status lands in $tmp/SESSION.rc when it ends. The sessions below that check the order
# and count of the six fixture items ask for every item (one is an exact match) in the
# order they were drawn (--include-exact --order stored).
start() {
	"${T[@]}" new-session -d -s "$1" -x 140 -y 40 \
		"cd '$PWD' && FORMDESK_PLAYER='$tmp/player' '$BIN' annotate --db '$db' --task $3 \
		--annotator $2 --corpus $CORPUS ${4---include-exact --order stored} 2>'$tmp/$1.err'; echo \$? >'$tmp/$1.rc'; sleep 600"
}
keys() { "${T[@]}" send-keys -t "$@"; }

# ---- before the screen: bad input ----------------------------------------------------
"$BIN" annotate --db "$db" --task names --annotator asha </dev/null >/dev/null 2>"$tmp/err"
check "an unknown task exits 2 and is named" test $? = 2 -a -n "$(grep -F "'names'" "$tmp/err")"
"$BIN" annotate --db "$db" --task name-match </dev/null >/dev/null 2>"$tmp/err"
check "a missing --annotator exits 2 and says so" test $? = 2 -a -n "$(grep -F -- '--annotator' "$tmp/err")"
"$BIN" annotate --db "$tmp/none.db" --task stt --annotator asha </dev/null >/dev/null 2>"$tmp/err"
check "a missing database is named" test $? = 2 -a -n "$(grep -F "$tmp/none.db: no such database" "$tmp/err")"
"$BIN" annotate --db "$db" --task name-match --annotator asha --corpus $CORPUS </dev/null \
	>/dev/null 2>"$tmp/err"
check "without a terminal it exits 2 and says a terminal is needed" \
	test $? = 2 -a -n "$(grep -F 'needs a terminal' "$tmp/err")"

# ---- name-match: label, play, skip, undo, help, quit ---------------------------------
start a1 asha name-match
wait_for a1 '0/6 done'
check "the queue shows progress 0/6" test $? = 0
check "expected beside captured, Devanagari intact" \
	bash -c "$(declare -f capture); T=(${T[*]}); capture a1 | grep -q 'captured      सुनीता देवी'"
check "the caller's transcript is shown" bash -c "$(declare -f capture); T=(${T[*]}); capture a1 | grep -q 'caller said   मेरा नाम सुनीता देवी है'"
check "the corpus nobody can find was reported" grep -q "corpus 'nowhere'" "$tmp/a1.err"
press a1 '1/6 done' "a: same, progress 1/6" a
check "the label is in the database under the annotator's name at once" \
	test "$(q "SELECT annotator||':'||label FROM ann_labels l JOIN ann_items i ON i.id=l.item_id WHERE i.key='call 1 field name'")" = "asha:same"
keys a1 p
wait_for a1 'played .*u_name.wav'
check "p plays the turn's audio through the player" test $? = 0 -a -n "$(grep u_name.wav "$tmp/played" 2>/dev/null)"
press a1 '2/6 done' "x: different, progress 2/6" x
press a1 'item 4 of 6' "space skips to the next item" Space
press a1 'no audio recorded for this turn' "p on a turn without audio says so" p
press a1 '3/6 done' "u: unsure, progress 3/6" u
keys a1 BSpace
wait_for a1 'undone: .*call 4 field name'
check "backspace undoes the last label" test $? = 0 -a "$(q "SELECT count(*) FROM ann_labels WHERE annotator='asha'")" = 2
check "undo goes back to that item" bash -c "$(declare -f capture); T=(${T[*]}); capture a1 | grep -q 'item 4 of 6'"
press a1 'show or hide this help' "? shows the keys" '?'
keys a1 '?'
wait_for a1 '3/6 done|2/6 done'
check "? again closes the help" bash -c "$(declare -f capture); T=(${T[*]}); capture a1 | head -1 | grep -q '2/6 done$'"
# width of the title line, in characters (progress sits at the right edge)
title_width() { local l; l=$(capture a1 | head -1); LC_ALL=C.UTF-8 bash -c 'echo ${#1}' _ "$l"; }
"${T[@]}" resize-window -t a1 -x 100 -y 30
end=$((SECONDS + 20))
while [ $SECONDS -lt $end ] && [ "$(title_width)" != 100 ]; do sleep 0.1; done
check "a resize lays the screen out again at 100 columns" test "$(title_width)" = 100
keys a1 q
wait_file "$tmp/a1.rc"
check "q quits with status 0" test "$(cat "$tmp/a1.rc" 2>/dev/null)" = 0
check "two labels kept: same and different" \
	test "$(q "SELECT group_concat(label, ',') FROM (SELECT label FROM ann_labels WHERE annotator='asha' ORDER BY item_id)")" = "same,different"

# ---- p without a player command: the project's audio sink, or a clear reason ----------
# (leak checks off for this run only: ALSA's plugins, loaded and unloaded while PortAudio
# looks for a device, keep allocations the sanitizer cannot name)
"${T[@]}" new-session -d -s p1 -x 140 -y 40 \
	"cd '$PWD' && ASAN_OPTIONS='${ASAN_OPTIONS:-}:detect_leaks=0' env -u FORMDESK_PLAYER '$BIN' annotate --db '$db' --task name-match \
	--annotator pia --corpus $CORPUS --include-exact --order stored 2>/dev/null; echo \$? >'$tmp/p1.rc'; sleep 600"
wait_for p1 '0/6 done'
keys p1 p
wait_for p1 'cannot play: (no sound device|.*u_name.wav)|playing .*u_name.wav on|played .*u_name.wav' 30
check "p on the sound device plays, or says why it cannot" test $? = 0
keys p1 q
wait_file "$tmp/p1.rc"

# ---- resume; nobody sees another's labels -------------------------------------------
start a2 asha name-match
wait_for a2 'resuming: 2 of 6'
check "asha resumes with 2 of 6 done" test $? = 0
check "at the first item she has not labelled" bash -c "$(declare -f capture); T=(${T[*]}); capture a2 | grep -q 'item 3 of 6'"
keys a2 q
wait_file "$tmp/a2.rc"

# Two annotators at once, in two processes, labelling every item as fast as keys go.
start r1 ravi name-match
start m1 meena name-match
wait_for r1 '0/6 done' && wait_for m1 '0/6 done'
check "ravi and meena start at 0/6: asha's labels are not shown" test $? = 0
check "ravi's first item shows no label" bash -c "$(declare -f capture); T=(${T[*]}); capture r1 | grep -q 'your label: -'"
for i in 1 2 3 4 5 6; do
	keys r1 a
	keys m1 x
done
wait_for r1 '6/6 done' && wait_for m1 '6/6 done'
check "both reach 6/6" test $? = 0
keys r1 q
keys m1 q
wait_file "$tmp/r1.rc" && wait_file "$tmp/m1.rc"
check "two processes at once lost nothing: 6 labels each" \
	test "$(q "SELECT count(*) FROM ann_labels WHERE annotator='ravi' AND label='same'")/$(q "SELECT count(*) FROM ann_labels WHERE annotator='meena' AND label='different'")" = "6/6"

# ---- turn-errors: stage records, taxonomy, note ------------------------------------
start t1 asha turn-errors
wait_for t1 '0/8 done'
check "turn-errors queue: 8 turns of wrong or failed calls" test $? = 0
check "the taxonomy is listed with its keys" bash -c "$(declare -f capture); T=(${T[*]}); capture t1 | grep -q '\[b\] barge-in mishandled'"
for i in 1 2 3 4 5 6 7; do keys t1 Space; done
wait_for t1 'item 8 of 8'
check "space walks to the failed call's last turn" test $? = 0
check "its stage records: the failed verdict" bash -c "$(declare -f capture); T=(${T[*]}); capture t1 | grep -q 'district option FAILED: not one of the options'"
check "its stage records: what the agent said" bash -c "$(declare -f capture); T=(${T[*]}); capture t1 | grep -q 'agent said    धन्यवाद।'"
keys t1 v
wait_for t1 'played .*formdesk-voice-[0-9]*\.wav'
check "v says what the agent said in the chosen voice (espeak), through the player" \
	test $? = 0 -a -n "$(grep 'formdesk-voice-[0-9]*\.wav' "$tmp/played" 2>/dev/null)"
keys t1 e
keys t1 -l 'cut off early'
press t1 'note kept' "e writes a note" Enter
press t1 '1/8 done' "2 tags endpointing cut-off" 2
check "the tag and the note are stored together" \
	test "$(q "SELECT label||'|'||note FROM ann_labels l JOIN ann_items i ON i.id=l.item_id WHERE i.key='turn 8' AND i.task='turn-errors'")" = "endpointing_cutoff|cut off early"
keys t1 q
wait_file "$tmp/t1.rc"

# ---- stt -----------------------------------------------------------------------------
start s1 asha stt
wait_for s1 'STT heard'
check "stt shows the reference beside what STT heard" test $? = 0
press s1 '1/7 done' "stt: a marks the transcript right" a
keys s1 q
wait_file "$tmp/s1.rc"
check "every screen quit cleanly" test "$(cat "$tmp"/*.rc | sort -u)" = 0
