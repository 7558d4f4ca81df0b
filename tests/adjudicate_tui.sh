#!/bin/bash
# adjudicate_tui: the reviewer's screen, driven in tmux at 160x45 on the recorded calls of
# tests/data/annotate_calls.sql with three annotators' labels written by the sqlite3
# shell: the items in disagreement with each annotator's label and note side by side, a
# decision by key stored with the reviewer's name, a decision on the reviewer's own lone
# label refused on the status line with nothing written, the next/previous keys, quit.
# TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/tmux.sh
tmux_start adj sqlite3
PANE=adj
db=$tmp/adj.db
q() { sqlite3 -cmd ".timeout 5000" "$db" "$1"; } # busy timeout: the screen may be writing
sqlite3 "$db" <tests/data/annotate_calls.sql >/dev/null
"$BIN" calibrate --db "$db" --corpus tests/data/corpus_good >/dev/null 2>&1
put() { q "INSERT INTO ann_labels (item_id, annotator, label, note) SELECT id, '$1', '$3', ${4:-NULL} FROM ann_items WHERE task='name-match' AND key='call $2 field name'"; }
label_all() { local who=$1 i=1; shift; for x in "$@"; do put "$who" $i "$x"; i=$((i + 1)); done; }
label_all asha same same different different same different
label_all meena same same different different unsure same
put ravi 1 same; put ravi 2 same; put ravi 3 same "'Sumita is how she spells it'"
put ravi 4 different; put ravi 5 same; put ravi 6 different

open_shell
keys() { "${T[@]}" send-keys -t "$PANE" "$@"; }
start() { # start REVIEWER: the screen in the shell; its exit status lands in $tmp/rc
	rm -f "$tmp/rc"
	keys "'$BIN' adjudicate --db '$db' --task name-match --reviewer $1 2>'$tmp/err'; echo \$? >'$tmp/rc'" Enter
}
quit_ok() { # q, then the screen's exit status (at most 20 s)
	keys q
	local end=$((SECONDS + 20))
	while [ ! -s "$tmp/rc" ] && [ $SECONDS -lt $end ]; do sleep 0.1; done
	check "q quits with status 0" test "$(cat "$tmp/rc" 2>/dev/null)" = 0
}
start ravi
screen_up 'item 1 of 3 in disagreement' "the screen opens on the first of three items in disagreement"
check "what the annotators saw" grep -q 'captured      Sumita Devi' "$tmp/screen"
check "each annotator's label side by side" \
	grep -Eq '^  asha +different' "$tmp/screen"
check "and a note beside its label" grep -Eq '^  ravi +same +Sumita is how she spells it' "$tmp/screen"
check "no final label yet" grep -q 'final: not decided yet' "$tmp/screen"
check "the task's keys and the actions on the key lines" \
	grep -q 'a same  x different  u unsure' "$tmp/screen"
keys a
wait_for 'not decided: ravi is the only one who said same'
check "ravi deciding his own lone label is refused on the status line" test $? = 0
check "the refusal wrote nothing" test "$(q "SELECT count(*) FROM ann_adjudications")" = 0
keys Right
wait_for 'item 2 of 3'
check "→ goes to the next item" test $? = 0
keys Left
wait_for 'item 1 of 3'
check "← goes back" test $? = 0
quit_ok

start lead
wait_for 'item 1 of 3 in disagreement'
keys x
wait_for 'decided: item #[0-9]+ is different'
check "x: the lead decides different, and the screen moves on" test $? = 0
check "stored under the reviewer's name" \
	test "$(q "SELECT a.reviewer||':'||a.label FROM ann_adjudications a JOIN ann_items i ON i.id = a.item_id WHERE i.key = 'call 3 field name'")" = "lead:different"
check "the count of decided items" grep -q '1/3 decided' "$tmp/screen"
keys Left
wait_for 'final: different \(lead'
check "back on the decided item its final label shows" test $? = 0
quit_ok
# turn-errors: two tags on a failed call's turn, with its stage records in brief
"$BIN" calibrate --db "$db" --task turn-errors --corpus tests/data/corpus_good >/dev/null 2>&1
tag() { q "INSERT INTO ann_labels (item_id, annotator, label) SELECT id, '$1', '$3' FROM ann_items WHERE task='turn-errors' AND key='turn $2'"; }
turn=$(q "SELECT substr(key, 6) FROM ann_items WHERE task='turn-errors' AND context LIKE '%\"error\"%' ORDER BY id LIMIT 1")
[ -n "$turn" ] || turn=$(q "SELECT substr(key, 6) FROM ann_items WHERE task='turn-errors' ORDER BY id DESC LIMIT 1")
tag asha "$turn" stt_error
tag ravi "$turn" extraction_missed
rm -f "$tmp/rc"
keys "'$BIN' adjudicate --db '$db' --task turn-errors --reviewer lead 2>'$tmp/err'; echo \$? >'$tmp/rc'" Enter
wait_for 'item 1 of 1 in disagreement'
check "turn-errors: the turn's item opens" test $? = 0
check "turn-errors: both tags side by side" \
	bash -c "grep -Eq '^  asha +STT error' '$tmp/screen' && grep -Eq '^  ravi +extraction missed' '$tmp/screen'"
check "turn-errors: the stage records in brief" grep -Eq '^  (agent said|error|call ended) ' "$tmp/screen"
check "turn-errors: the keys for several tags are shown" grep -q '+ several tags' "$tmp/screen"
keys +
wait_for 'final being made: \(no tag yet\)'
check "turn-errors: + starts a final label of several tags" test $? = 0
keys 1 3
wait_for 'final being made: stt_error,extraction_missed'
check "turn-errors: the tags' keys toggle them, in the taxonomy's order" test $? = 0
keys 3
wait_for 'final being made: stt_error \('
check "turn-errors: a tag's key again takes it off" test $? = 0
check "turn-errors: nothing is decided while the tags are being made" \
	test "$(q "SELECT count(*) FROM ann_adjudications a JOIN ann_items i ON i.id = a.item_id WHERE i.task = 'turn-errors'")" = 0
keys 3 Enter
wait_for 'decided: item #[0-9]+ is stt_error,extraction_missed'
check "turn-errors: Enter decides the final label of two tags" test $? = 0
check "turn-errors: the two-tag final label is stored" \
	test "$(q "SELECT a.reviewer||':'||a.label FROM ann_adjudications a JOIN ann_items i ON i.id = a.item_id WHERE i.task = 'turn-errors'")" = "lead:stt_error,extraction_missed"
keys 1
wait_for 'decided: item #[0-9]+ is STT error'
check "turn-errors: key 1 decides STT error" test $? = 0
quit_ok
"$BIN" adjudicate --db "$db" --task name-match --reviewer lead </dev/null >/dev/null 2>"$tmp/err2"
check "without a terminal it exits 2 and names --list" \
	test $? = 2 -a -n "$(grep -F -- '--list' "$tmp/err2")"
[ "$failed" = 0 ]
