#!/bin/bash
# tui_review: the browser of recorded calls (formdesk review), driven in tmux at 160x45 on
# the runs fixture (tests/data/runs_form.json, tests/data/runs_corpus: c1 complete, c2
# failed on a district it was not offered, c3 complete on the re-ask). Keys are typed
# with send-keys, the screen read with capture-pane, polled with a deadline.
#  list:   every call with status, turns, unanswered fields and reason; s filters by
#          status; / searches what the caller said.
#  call:   Enter opens one at turn 1; n and p step its turns; each shows the transcript,
#          EXTRACT, the verdicts, the decision and REPLY; turn 0 the opening and the end.
#  quit:   q goes back, q again quits, the shell is back.
#  --run and --field start the list filtered.
#  paging: 303 calls, read a page at a time; space and b page, g and G go to the ends.
set -u
cd "$(dirname "$0")/.."
BIN=${FORMDESK_BIN:-./build/san/formdesk}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac

. tests/lib/tmux.sh
need_tools tmux sqlite3
need_bin

tmp=$(mktemp -d)
db=$tmp/review.db
T=(tmux -L "formdesk-review-$$" -f /dev/null)
PANE=review
cleanup() {
	"${T[@]}" kill-server 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
"$BIN" run --headless --form tests/data/runs_form.json --corpus tests/data/runs_corpus --db "$db" >/dev/null 2>&1

open_shell
keys() { "${T[@]}" send-keys -t "$PANE" "$@"; }
keys "$BIN review --db $db" Enter
screen_up 'formdesk review · 3 of 3 calls · status any' "the list comes up with every call"
check "a failed call shows its unanswered fields and reason" \
	grep -qE '^  2 +1 +c2 +failed +3  district, pregnan.* district ran out of retries' "$tmp/screen"
keys s
check "s: only the complete calls" wait_for '2 of 3 calls · status complete'
keys s
check "s again: only the failed one" wait_for '1 of 3 calls · status failed'
keys Enter
check "Enter opens the call at its first turn" wait_for 'call 2 · run 1 · runs-fixture/c2 · failed · turn 1 of 3'
wait_for '^ms: audio' 10
check "the turn shows how the words came in, STT, EXTRACT, REPLY and the timings" \
	bash -c "grep -q 'input corpus · condition ideal' '$tmp/screen' && grep -q 'transcript: mera naam Rekha hai' '$tmp/screen' && grep -q '^EXTRACT' '$tmp/screen' && grep -q '^REPLY' '$tmp/screen' && grep -q '^ms: audio' '$tmp/screen'"
keys n
check "n: turn 2, the district the form does not offer, its verdict failed" wait_for 'FAIL district type: Value must be one of: Gaya, Patna'
wait_for '^ms: audio' 10
check "... the decision: the re-ask, with retries used" bash -c "grep -q 'transcript: Nalanda' '$tmp/screen' && grep -q 'retries district: used 1 of 1' '$tmp/screen' && grep -q 'next: ask district' '$tmp/screen'"
keys p p
check "... the form as it stood after turn 2: the name only" grep -q 'form after this turn: {"name":"Rekha"}' "$tmp/screen"
check "p back to turn 0: the opening and how the call ended" wait_for 'the call ended failed: district ran out of retries'
keys q
check "q: back to the list" wait_for '1 of 3 calls · status failed'
keys s s s
check "s cycles back to every status" wait_for '3 of 3 calls · status any'
keys / P a t n a Enter
check "/ finds the calls whose caller said Patna" wait_for '1 of 3 calls · status any · said: Patna'
check "... that is c3" grep -qE '^> 3 +1 +c3 +complete' "$tmp/screen"
keys q
check "q quits: the shell is back" wait_for '^fdtest\$ ?$' 30
keys "$BIN review --db $db --run 1 --field pregnant" Enter
check "--field: only the call that left pregnant unanswered" wait_for '1 of 3 calls · status any · unanswered pregnant'
check "... that is c2" grep -qE '^> 2 +1 +c2 +failed' "$tmp/screen"
keys q
check "q quits again" wait_for '^fdtest\$ ?$' 30
# A list longer than the screen is read a page at a time: 300 more calls (copies of the
# three), paged with space and b, g and G to its ends.
sqlite3 "$db" "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 100)
 INSERT INTO calls (corpus, corpus_call_id, status, reason, form_data, form_status, turns, run_id)
 SELECT c.corpus, c.corpus_call_id || '-' || k.i, c.status, c.reason, c.form_data, c.form_status,
 c.turns, c.run_id FROM k, calls c WHERE c.id <= 3 ORDER BY k.i, c.id"
keys "$BIN review --db $db" Enter
check "303 calls are counted" wait_for '303 of 303 calls · status any'
check "... the first screen shows the first of them" grep -qE '^> 1 +1 +c1 ' "$tmp/screen"
keys G
check "G: the last call, 303, is read and shown" wait_for '^> 303 +1 +c3-100 +complete'
keys g
check "g: back to the first" wait_for '^> 1 +1 +c1 '
keys Space
check "space: a page down (42 rows), call 43 under the cursor" wait_for '^> 43 +1 +c1-14 '
keys Space Space b
check "b: a page back up, call 85" wait_for '^> 85 +1 +c1-28 '
keys s s
check "s twice: the failed ones are counted by the store" wait_for '101 of 303 calls · status failed'
keys G
check "... G: the last failed call" wait_for '^> 302 +1 +c2-100 +failed'
keys q
check "q quits a third time" wait_for '^fdtest\$ ?$' 30
echo "1..$n"
[ "$failed" = 0 ]
