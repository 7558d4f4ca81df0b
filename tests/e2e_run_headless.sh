#!/bin/bash
# formdesk run --headless: each call's JSON line carries why the call ended ("reason", as
# stored) and its row in the store ("db_id", calls.id), and a progress bar is drawn on
# stderr when it is a terminal (never when it is not).
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
# bench_corpus's audio files are empty placeholders (a run says so and exits 2): a copy with
# a real clip in each place, so the run itself succeeds.
cp -r tests/data/bench_corpus "$tmp/corpus"
for f in "$tmp"/corpus/audios/*.wav; do cp tests/data/bench_e2e/clip.wav "$f"; done
args="--headless --form tests/data/bench_form.json --corpus $tmp/corpus --db $tmp/r.db"

"$BIN" run $args >"$tmp/out.jsonl" 2>"$tmp/err.txt"
check "run --headless exits 0" '[ $? = 0 ]'
check "every call line has a reason and a db_id" \
	'python3 - "$tmp/out.jsonl" <<PY
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if "call_id" in l]
assert len(rows) == 2, rows
for r in rows:
    assert isinstance(r["db_id"], int) and r["db_id"] > 0, r
    assert isinstance(r["reason"], str) and r["reason"], r
PY'
check "db_id and reason are the store's" \
	'for id in c1 c2; do
		line=$(grep "\"call_id\":\"$id\"" "$tmp/out.jsonl")
		dbid=$(echo "$line" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"db_id\"])")
		reason=$(echo "$line" | python3 -c "import json,sys; print(json.load(sys.stdin)[\"reason\"])")
		[ "$(sqlite3 "$tmp/r.db" "select reason from calls where id = $dbid")" = "$reason" ] || exit 1
	done'
check "no progress bar when stderr is not a terminal" '! grep -q "\[#" "$tmp/err.txt"'
script -qec "$BIN run $args --db $tmp/r2.db >/dev/null" /dev/null >"$tmp/tty.txt" 2>&1
check "a progress bar on a terminal's stderr" 'grep -q "calls \[#*.*\] 100% 2/2" "$tmp/tty.txt"'
