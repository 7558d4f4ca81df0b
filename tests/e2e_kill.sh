#!/bin/bash
# e2e_kill: kill -9 at random moments (a fixed seed, so the same moments every time) of a
# headless run and of a live typed call, each kill into the same database as the runs
# before it. After every kill: the database opens and passes PRAGMA integrity_check; every
# turn it held just before the kill is still there, whole (each ended call's turn count
# matches its rows, no turn missing before another), and every call the run had printed
# as ended is there as printed; the runs before are untouched. The next start on the
# killed database is the rerun; at the end one run and one call go to their end there and
# match a clean database's.
# KILL_MOMENTS kills of each (default 12, what `make check` runs; `make killtest` runs 50);
# KILL_SEED (default 18) picks the moments. TAP-style output.
set -u
cd "$(dirname "$0")/.."
DEFAULT_MOMENTS=12
source tests/lib/kill.sh
# q DB SQL: the answer; "" when DB is not there yet (the run was killed before making it)
q() { [ -f "$1" ] && sqlite3 -batch -noheader -cmd ".timeout 5000" "$1" "$2" 2>&1; }
# qn DB SQL: a count; 0 when DB or its tables are not there yet
qn() { local r; r=$(q "$1" "SELECT count(*) FROM sqlite_master WHERE name = 'turns'"); [ "$r" = 1 ] && q "$1" "$2" || echo 0; }

if ! command -v sqlite3 >/dev/null || [ ! -f corpus/demo/corpus.json ]; then
	echo "1..0 # skip: needs sqlite3 and the demo corpus (make corpora)"
	exit 0
fi

# A small corpus: the demo corpus's first 6 calls (their recordings are espeak-ng's).
c=$tmp/corpus
mkdir -p "$c"
ln -s "$PWD/corpus/demo/audios" "$c/audios"
cp corpus/demo/corpus.json corpus/demo/transcripts.csv "$c/"
ids=$(tail -n +2 corpus/demo/calls.csv | cut -d, -f1 | uniq | head -6)
{
	head -1 corpus/demo/calls.csv
	for i in $ids; do grep "^$i," corpus/demo/calls.csv; done
} >"$c/calls.csv"
for i in $ids; do grep "\"call_id\":\"$i\"" corpus/demo/expected.jsonl; done >"$c/expected.jsonl"

# whole DB: what a kill may not break (prints the first fault, nothing when whole).
whole() {
	local r
	[ -f "$1" ] || return 0
	r=$(q "$1" "PRAGMA integrity_check")
	[ "$r" = ok ] || { echo "integrity_check: $r"; return; }
	[ "$(qn "$1" "SELECT 1")" = 0 ] && return # killed before its tables were made
	r=$(q "$1" "SELECT count(*) FROM calls c WHERE ended_at IS NOT NULL AND turns != (SELECT count(*) FROM turns t WHERE t.call_id = c.id)")
	[ "$r" = 0 ] || { echo "$r ended calls whose turn count is not their rows"; return; }
	r=$(q "$1" "SELECT count(*) FROM turns t WHERE idx > 1 AND NOT EXISTS (SELECT 1 FROM turns p WHERE p.call_id = t.call_id AND p.idx = t.idx - 1)")
	[ "$r" = 0 ] || { echo "$r turns with one missing before them"; return; }
	r=$(q "$1" "SELECT count(*) FROM turns WHERE decision IS NOT NULL AND json_valid(decision) = 0")
	[ "$r" = 0 ] || echo "$r turns with a decision cut short"
}

# kills NAME DB T_MS CMD...: MOMENTS kills of CMD (stdin from $feed when set) at random
# moments in [0, T_MS + 10%] ms, each into DB; prints "not ok" lines' reasons into
# $tmp/NAME.faults.
kills() {
	local name=$1 db=$2 t=$3 i at pid before ended printed prev prev_turns fault
	shift 3
	: >"$tmp/$name.faults"
	mid=0
	for i in $(seq 1 "$MOMENTS"); do
		at=$(((RANDOM * 32768 + RANDOM) % (t + t / 10 + 1)))
		prev=$(qn "$db" "SELECT coalesce(max(run_id), 0) FROM calls")
		prev_turns=$(qn "$db" "SELECT count(*) FROM turns t JOIN calls c ON c.id = t.call_id WHERE c.run_id <= $prev")
		if [ -n "${feed:-}" ]; then
			"$BIN" "$@" < <(feed) >"$tmp/$name.out" 2>"$tmp/$name.err" &
		else
			"$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
		fi
		pid=$!
		sleep "$(ms_to_s "$at")"
		before=$(qn "$db" "SELECT count(*) FROM turns")
		kill -0 $pid 2>/dev/null && [ "$before" -gt "$prev_turns" ] && mid=$((mid + 1))
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		fault=$(whole "$db")
		if [ -z "$fault" ] && [ "$(qn "$db" "SELECT count(*) FROM turns")" -lt "$before" ]; then
			fault="turns before the kill: $before, after: $(qn "$db" "SELECT count(*) FROM turns")"
		fi
		printed=$(grep -c '"status"' "$tmp/$name.out")
		ended=$(qn "$db" "SELECT count(*) FROM calls WHERE run_id > $prev AND ended_at IS NOT NULL")
		if [ -z "$fault" ] && [ "$printed" -gt "$ended" ]; then
			fault="$printed calls printed as ended, $ended ended in the database"
		fi
		if [ -z "$fault" ] && [ "$(qn "$db" "SELECT count(*) FROM turns t JOIN calls c ON c.id = t.call_id WHERE c.run_id <= $prev")" != "$prev_turns" ]; then
			fault="the runs before the kill lost or gained turns"
		fi
		[ -n "$fault" ] && echo "kill $i at $at ms: $fault" >>"$tmp/$name.faults"
	done
	echo "# $name: $mid of $MOMENTS kills came while it ran with turns of its own recorded"
}

# ---- a headless run ----
ref=$tmp/ref.db
t0=$(now_ms)
"$BIN" run --headless --corpus "$c" --db "$ref" >"$tmp/ref.out" 2>"$tmp/ref.err"
rc=$?
t_run=$(($(now_ms) - t0))
[ $rc = 0 ] && [ "$(grep -c '"status"' "$tmp/ref.out")" = 6 ]
ok $? "the reference run: exit 0, 6 calls ($t_run ms)"

feed=
kdb=$tmp/run.db
kills run "$kdb" "$t_run" run --headless --corpus "$c" --db "$kdb"
[ ! -s "$tmp/run.faults" ]
ok $? "kill -9 at $MOMENTS moments of a headless run: the database whole, every turn kept"
[ -s "$tmp/run.faults" ] && sed 's/^/# /' "$tmp/run.faults"

"$BIN" run --headless --corpus "$c" --db "$kdb" >"$tmp/rerun.out" 2>"$tmp/rerun.err"
rc=$?
last=$(q "$kdb" "SELECT max(run_id) FROM calls")
calls() { q "$1" "SELECT group_concat(corpus_call_id || ' ' || status || ' ' || turns || ' ' || form_data, char(10)) FROM (SELECT * FROM calls WHERE run_id = $2 ORDER BY id)"; }
[ $rc = 0 ] && [ -z "$(whole "$kdb")" ] && [ "$(calls "$kdb" "$last")" = "$(calls "$ref" 1)" ]
ok $? "a rerun on the killed database goes to its end, its calls as on a clean database"
"$BIN" runs --db "$kdb" >/dev/null 2>"$tmp/runs.err"
ok $? "the runs of the killed database list"

# ---- a live typed call ----
lines=("" "मेरा नाम सुनीता देवी है" "Gaya" "primary health centre Gaya" "haan ji" "पाँच महीने" "haan" "ji haan" "ek do teen char")
feed() { for l in "${lines[@]}"; do printf "%s\n" "$l"; sleep 0.1; done; }
tref=$tmp/typed-ref.db
t0=$(now_ms)
"$BIN" --typed --headless --tts none --form "$FORM" --db "$tref" < <(feed) >"$tmp/tref.out" 2>"$tmp/tref.err"
rc=$?
t_call=$(($(now_ms) - t0))
[ $rc = 0 ] && grep -q '"status":"complete"' "$tmp/tref.out"
ok $? "the reference typed call: exit 0, complete ($t_call ms)"

feed=feed
tdb=$tmp/typed.db
kills typed "$tdb" "$t_call" --typed --headless --tts none --form "$FORM" --db "$tdb"
[ ! -s "$tmp/typed.faults" ]
ok $? "kill -9 at $MOMENTS moments of a live typed call: the database whole, every turn kept"
[ -s "$tmp/typed.faults" ] && sed 's/^/# /' "$tmp/typed.faults"

"$BIN" --typed --headless --tts none --form "$FORM" --db "$tdb" < <(feed) >"$tmp/tre.out" 2>"$tmp/tre.err"
rc=$?
last=$(q "$tdb" "SELECT max(run_id) FROM calls")
[ $rc = 0 ] && [ -z "$(whole "$tdb")" ] && [ "$(calls "$tdb" "$last")" = "$(calls "$tref" 1)" ]
ok $? "a typed call after the kills goes to its end, as on a clean database"
echo "1..$n"
