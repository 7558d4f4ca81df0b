#!/bin/bash
# annotate_queue_tui: the labelling queue as issue 14 asks for it, driven in tmux at
# 140x40: the demo's name-match queue (identical items one entry with their count, exact
# matches left out unless --include-exact), a typed live call and a simulator call
# labelled, the context of a turn, next / previous / go to / filter / search / flag,
# several tags on a turn, both scripts of a name; and bad input (a database without
# calls, an unknown task, annotator or option value: clear words, nothing written). Runs
# the real binary ("$FORMDESK_BIN", the sanitizer build) in a private tmux server, reads
# the screen with capture-pane, polling with a deadline, and the database with the
# sqlite3 shell. TAP-style output.
set -u
cd "$(dirname "$0")/.."
CORPUS=tests/data/corpus_good

. tests/lib/tmux.sh
tmux_start annq sqlite3

# a busy timeout: the screens under test may hold the write lock for a moment
q() { sqlite3 -cmd ".timeout 5000" "$1" "$2"; }
shot() { capture "$1"; }
# open SESSION DB ANNOTATOR TASK [OPTIONS...]: the screen in its own session; its exit
# status lands in $tmp/SESSION.rc.
open() {
	local s=$1 db=$2 who=$3 task=$4
	shift 4
	"${T[@]}" new-session -d -s "$s" -x 140 -y 40 \
		"cd '$PWD' && FORMDESK_PLAYER=true '$BIN' annotate --db '$db' --task $task \
		--annotator $who --corpus $CORPUS $* 2>'$tmp/$s.err'; echo \$? >'$tmp/$s.rc'; sleep 600"
}
keys() { "${T[@]}" send-keys -t "$@"; }
quit() { keys "$1" q; wait_file "$tmp/$1.rc"; }
ann_tables() { q "$1" "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ann_%'"; }

# ---- bad input: clear words, nothing written ------------------------------------------
fixture=$tmp/fixture.db
sqlite3 "$fixture" <tests/data/annotate_calls.sql >/dev/null
empty=$tmp/empty.db
sed '/^INSERT/,$d' tests/data/annotate_calls.sql | sqlite3 "$empty" >/dev/null
"$BIN" annotate --db "$empty" --task name-match --annotator asha </dev/null >/dev/null 2>"$tmp/err"
rc=$?
check "a database without calls: exit 1, says there is nothing recorded" \
	test $rc = 1 -a -n "$(grep -F "$empty: no recorded call has ended" "$tmp/err")"
check "a database without calls: no annotation table written" test "$(ann_tables "$empty")" = 0
"$BIN" annotate --db "$fixture" --task names --annotator asha </dev/null >/dev/null 2>"$tmp/err"
check "an unknown task: exit 2, named" test $? = 2 -a -n "$(grep -F "'names'" "$tmp/err")"
"$BIN" annotate --db "$fixture" --task name-match --annotator asha --order best </dev/null \
	>/dev/null 2>"$tmp/err"
check "an unknown order: exit 2, named" test $? = 2 -a -n "$(grep -F "'best'" "$tmp/err")"
check "bad input wrote no annotation table" test "$(ann_tables "$fixture")" = 0
"$BIN" annotate --db "$fixture" --task name-match --annotator asha --corpus $CORPUS \
	--field nosuch </dev/null >"$tmp/out" 2>"$tmp/err"
check "a filter that leaves nothing: exit 1, says which" \
	test $? = 1 -a -n "$(grep -F 'nothing to label for name-match under --field nosuch' "$tmp/out")"

# ---- the demo's name-match queue -----------------------------------------------------
demo=$tmp/demo.db
if [ -f corpus/demo/corpus.json ]; then
	"$BIN" run --headless --corpus demo --db "$demo" >/dev/null 2>"$tmp/demo.err"
	"$BIN" annotate --db "$demo" --task name-match --annotator asha </dev/null >"$tmp/out" 2>"$tmp/err"
	check "demo: every name-match item is an exact match, so none is shown unless asked" \
		test $? = 1 -a -n "$(grep -F '360 items, none shown (exact matches are left out: --include-exact)' "$tmp/out")"
	open d1 "$demo" asha name-match --include-exact
	see d1 '0/9 done'
	check "demo --include-exact: 360 items are 9 entries" test $? = 0
	: >"$tmp/pairs"
	for i in 1 2 3 4 5 6 7 8 9; do
		see d1 "item $i of 9" >/dev/null
		shot d1 | awk '/^item /{c=$0; sub(/.*×/, "", c); sub(/ .*/, "", c)} /^  expected/{e=$0} /^  captured/{k=$0} /field /{f=$0; sub(/.*field /, "", f); sub(/ .*/, "", f)} END{print f "|" e "|" k "|" c}' >>"$tmp/pairs"
		keys d1 Right
	done
	check "demo: no two entries show identical items" \
		test "$(sort -u "$tmp/pairs" | wc -l)" = 9 -a "$(cut -d'|' -f1-3 "$tmp/pairs" | sort -u | wc -l)" = 9
	check "demo: every entry shows its count, 24 or 48, 360 in all" \
		test "$(cut -d'|' -f4 "$tmp/pairs" | grep -cE '^(24|48)$')" = 9 -a \
		"$(cut -d'|' -f4 "$tmp/pairs" | paste -sd+ | bc)" = 360
	keys d1 g
	keys d1 -l 1
	keys d1 Enter
	see d1 'item 1 of 9'
	count=$(shot d1 | sed -n 's/.*×\([0-9]*\) identical.*/\1/p')
	keys d1 a
	see d1 '1/9 done'
	check "demo: a group's label is saved once per item ($count rows, one press)" \
		test "$(q "$demo" "SELECT count(*) FROM ann_labels WHERE annotator='asha' AND label='same'")" = "$count"
	quit d1
else
	echo "# the demo corpus is not built (make corpora): its checks are skipped"
fi

# ---- a typed live call and a simulator call are labellable ----------------------------
typed=$tmp/typed.db
printf 'mera naam Rekha Kumari hai\n' |
	"$BIN" --typed --headless --tts none --db "$typed" --form "$FORM" >/dev/null 2>&1
open y1 "$typed" asha name-match
see y1 'captured +Rekha Kumari'
check "a typed call's captured name is an item" test $? = 0
check "without a corpus the expected value is said to be unknown" \
	bash -c "$(declare -f shot capture); T=(${T[*]}); shot y1 | grep -q 'expected      (none: a live call, no corpus)'"
check "the name also in Devanagari" \
	bash -c "$(declare -f shot capture); T=(${T[*]}); shot y1 | grep -q '^ *रेखा '"
keys y1 x
see y1 '1/1 done'
check "the typed call's name is labelled" \
	test "$(q "$typed" "SELECT label FROM ann_labels l JOIN ann_items i ON i.id = l.item_id WHERE i.task = 'name-match'")" = different
quit y1

sim=$tmp/sim.db
"${T[@]}" new-session -d -s sim -x 160 -y 45 \
	"cd '$PWD' && '$BIN' --corpus $CORPUS --db '$sim' --speed 20 --tts none 2>/dev/null; sleep 600"
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ] &&
	[ "$(q "$sim" "SELECT count(*) FROM calls WHERE status != 'in_progress'" 2>/dev/null)" != 1 ]; do
	sleep 0.2
done
keys sim q
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ] &&
	[ "$(q "$sim" "SELECT count(*) FROM calls WHERE status = 'in_progress'" 2>/dev/null)" != 0 ]; do
	sleep 0.2
done
check "the simulator recorded a call of its own and one abandoned by quitting" \
	test "$(q "$sim" "SELECT count(*) FROM calls WHERE reason NOT LIKE 'abandoned%'")" -ge 1
open s1 "$sim" asha turn-errors
see s1 'field asked +name \(Full name\)'
check "a simulator call's turn: the field asked" test $? = 0
check "a simulator call's turn: the agent's words" \
	bash -c "$(declare -f shot capture); T=(${T[*]}); shot s1 | grep -q 'agent asked   नमस्ते!'"
keys s1 3
see s1 '1/[0-9]+ done'
check "a simulator call's turn is labelled" \
	test "$(q "$sim" "SELECT label FROM ann_labels")" = extraction_missed
check "no turn of the call abandoned by quitting is queued" \
	test "$(q "$sim" "SELECT count(*) FROM ann_items i JOIN calls c ON c.id = i.call_id WHERE c.reason LIKE 'abandoned%' AND i.task = 'turn-errors'")" = 0
quit s1

# ---- next, previous, go to, filter, search, flag; both scripts --------------------------
open n1 "$fixture" asha name-match --include-exact --order stored
see n1 '0/6 done'
check "both scripts: the Devanagari name read in Latin letters" \
	bash -c "$(declare -f shot capture); T=(${T[*]}); shot n1 | grep -q 'Suniitaa Devii'"
press n1 'item 2 of 6' "→ steps to the next item" Right
press n1 'item 1 of 6' "← steps back" Left
keys n1 g
keys n1 -l 5
press n1 'item 5 of 6' "g 5 goes to item 5" Enter
keys n1 '!'
see n1 'FLAGGED for review'
check "! flags the item for review, stored under the annotator" \
	test $? = 0 -a "$(q "$fixture" "SELECT annotator || ':' || i.key FROM ann_flags f JOIN ann_items i ON i.id = f.item_id")" = "asha:call 5 field name"
keys n1 a
see n1 '1/6 done'
keys n1 f
keys n1 -l flagged
press n1 'filter flagged: 1 items shown' "f flagged: only the flagged item" Enter
keys n1 f
keys n1 -l all
keys n1 Enter
see n1 'filter all: 6 items shown'
keys n1 f
keys n1 -l 'call 3'
press n1 'item 1 of 1 · call call1 \(#3\)' "f call 3: the items of that call" Enter
keys n1 f
keys n1 -l all
keys n1 Enter
see n1 'filter all: 6 items shown'
keys n1 /
keys n1 -l anita
keys n1 Enter
see n1 "search 'anita': 1 items hold it"
check "/ searches what the items show" \
	bash -c "$(declare -f shot capture); T=(${T[*]}); shot n1 | grep -q 'captured      Anita Devi'"
keys n1 /
keys n1 BSpace BSpace BSpace BSpace BSpace Enter
see n1 'search off'
keys n1 f
keys n1 -l mine
press n1 'filter mine: 1 items shown' "f mine: the annotator's own labels" Enter
keys n1 f
keys n1 -l unlabelled
press n1 'filter unlabelled: 5 items shown' "f unlabelled: the rest" Enter
keys n1 '!'
quit n1
check "every filter kept what was written: one label" \
	test "$(q "$fixture" "SELECT count(*) FROM ann_labels")" = 1
open n2 "$fixture" ahsa name-match
see n2 'done'
quit n2
check "an annotator nobody has labelled under is told so (a mistyped name?)" \
	grep -q "annotator 'ahsa': nobody of that name has labelled name-match items" "$tmp/n2.err"

# ---- several tags on a turn -----------------------------------------------------------
open m1 "$fixture" asha turn-errors
see m1 '0/8 done'
keys m1 1
see m1 '1/8 done'
keys m1 Left
see m1 'item 1 of 8'
keys m1 +
see m1 'add or take off a tag'
keys m1 3
see m1 'tags now: stt_error,extraction_missed'
check "+ then a tag's key adds a second tag" \
	test "$(q "$fixture" "SELECT label FROM ann_labels l JOIN ann_items i ON i.id = l.item_id WHERE i.task = 'turn-errors'")" = "stt_error,extraction_missed"
keys m1 +
keys m1 1
see m1 'tags now: extraction_missed'
check "+ on a tag it has takes it off" \
	test "$(q "$fixture" "SELECT label FROM ann_labels l JOIN ann_items i ON i.id = l.item_id WHERE i.task = 'turn-errors'")" = extraction_missed
quit m1
check "every screen quit cleanly" test "$(cat "$tmp"/*.rc | sort -u)" = 0
