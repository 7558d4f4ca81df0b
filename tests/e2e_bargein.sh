#!/bin/bash
# e2e_bargein: barge-in without hardware, from a corpus. tests/data/corpus_bargein marks
# its second and third caller turns with calls.csv's barge_in_ms (the caller starts 1500
# ms and 0 ms after the agent began its question): `formdesk run --headless` records them
# as barge-ins exactly as a live call does (turns.barge_in, barge_in_ms, and "barge_in" in
# the decision record), the first turn not. --telephone passes each turn's audio through
# the 8 kHz mu-law telephone channel before VAD and STT: the condition says so and the
# real clip's speech is still found. A bad barge_in_ms is named with its file and line.
# TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
q() { sqlite3 -cmd ".timeout 5000" "$1" "$2"; } # busy timeout: a call may be writing
CORPUS=tests/data/corpus_bargein

"$BIN" run --headless --corpus "$CORPUS" --db "$tmp/a.db" >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
check "run: exit status 0" '[ $rc = 0 ]'
check "run: the call's turns all played" 'grep -q "\"turns\":3" "$tmp/a.out"'
rows=$(q "$tmp/a.db" "SELECT group_concat(idx||':'||input||'/'||barge_in||'/'||coalesce(barge_in_ms,'-'), ' ') FROM turns")
check "the database says which turns barged in and when ($rows)" '[ "$rows" = "1:corpus/0/- 2:corpus/1/1500 3:corpus/1/0" ]'
dec=$(q "$tmp/a.db" "SELECT group_concat(coalesce(json_extract(decision, '\$.barge_in.at_ms'),'-')||json_extract(decision, '\$.barge_in.during'), ' ') FROM turns")
check "the decision records say barge_in with at_ms ($dec)" '[ "$dec" = "1500speaking 0speaking" ]'
check "turn 1's decision has no barge_in" '[ "$(q "$tmp/a.db" "SELECT json_type(decision, \"\$.barge_in\") IS NULL FROM turns WHERE idx = 1")" = 1 ]'
check "barge-in turns are heard like any other (fields filled)" 'grep -q "\"district\":\"Gaya\"" "$tmp/a.out"'

"$BIN" run --headless --telephone --corpus "$CORPUS" --db "$tmp/t.db" >"$tmp/t.out" 2>"$tmp/t.err"
rc=$?
check "--telephone: exit status 0" '[ $rc = 0 ]'
check "--telephone: every turn's condition says the audio went through the telephone channel" \
	'[ "$(q "$tmp/t.db" "SELECT group_concat(DISTINCT condition) FROM turns")" = "ideal+telephone" ]'
check "--telephone: speech is still found in the band-limited mu-law audio" \
	'[ "$(q "$tmp/t.db" "SELECT count(*) FROM turns WHERE seg_start_ms IS NOT NULL")" = 3 ]'
check "--telephone: the barge-ins are recorded the same" \
	'[ "$(q "$tmp/t.db" "SELECT group_concat(barge_in||coalesce(barge_in_ms,\"-\"), \" \") FROM turns")" = "0- 11500 10" ]'
check "--telephone: same form as without it" \
	'[ "$(grep -o "\"form_data\":{[^}]*}" "$tmp/t.out")" = "$(grep -o "\"form_data\":{[^}]*}" "$tmp/a.out")" ]'

mkdir -p "$tmp/bad"
cp -r "$CORPUS"/. "$tmp/bad/"
sed -i 's|../bench_e2e/clip.wav|'"$PWD"'/tests/data/bench_e2e/clip.wav|' "$tmp/bad/transcripts.csv"
printf 'call_id,turn,utterance_id,condition,barge_in_ms\ncall1,1,u_name,ideal,-3\n' >"$tmp/bad/calls.csv"
"$BIN" run --headless --corpus "$tmp/bad" --db "$tmp/b.db" >/dev/null 2>"$tmp/b.err"
rc=$?
check "a negative barge_in_ms: exit 2, named with file, line and field" \
	'[ $rc = 2 ] && grep -q "calls.csv:2: field .barge_in_ms.: .-3. is not a whole number of ms" "$tmp/b.err"'
check "no sanitizer report" '! grep -qE "Sanitizer|runtime error" "$tmp"/*.err'
echo "1..$n"
