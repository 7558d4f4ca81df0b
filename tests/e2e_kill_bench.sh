#!/bin/bash
# e2e_kill_bench: kill -9 a `formdesk bench` run at moments drawn from a fixed seed, then
# run it again on the same bench database and --out folder: the resumed run finishes
# (exit 0) and its report equals a clean run's, timings aside: results.csv and the
# per-stage results without their latency columns, results-field.csv and errors.csv
# whole, report.md without its latency lines and folder names, and the integration's
# last run of calls (OUT/calls.db) call by call (status, turns, form).
# KILL_MOMENTS kills, each of a fresh run (default 3, what `make check` runs; `make
# killtest` runs more); KILL_SEED (default 18) picks the moments. TAP-style output.
set -u
cd "$(dirname "$0")/.."
DEFAULT_MOMENTS=3
source tests/lib/kill.sh
if ! command -v sqlite3 >/dev/null || [ ! -f corpus/demo/corpus.json ]; then
	echo "1..0 # skip: needs sqlite3 and the demo corpus (make corpora)"
	exit 0
fi

bench() { # bench NAME: the demo corpus's bench into $tmp/NAME.db and $tmp/NAME (exec: in a subshell)
	exec "$BIN" bench --form "$FORM" --corpus corpus/demo --out "$tmp/$1" --db "$tmp/$1.db" \
		>"$tmp/$1.out" 2>"$tmp/$1.err"
}

# report NAME: the report of $tmp/NAME, timings and the folder's name aside
report() {
	local o=$tmp/$1 f
	cut -d, -f1-3,5-8,10- "$o/results.csv"
	for f in stt extract reply call; do cut -d, -f1-2,4- "$o/results-$f.csv"; done
	cat "$o/results-field.csv" "$o/errors.csv"
	# the results table's p50 and p95 columns (fields 6 and 7 of its rows) blanked
	grep -v -E 'latency|p95|[0-9] ms' "$o/report.md" | sed "s|$o|OUT|g" |
		awk -F'|' -v OFS='|' 'NF == 11 && $6 ~ /^ [0-9.]+ $/ { $6 = ""; $7 = "" } { print }'
	sqlite3 -batch -noheader "$o/calls.db" "SELECT corpus_call_id || ' ' || status || ' ' || turns || ' ' || form_data FROM calls WHERE run_id = (SELECT max(run_id) FROM calls) ORDER BY corpus_call_id"
}

t0=$(now_ms)
(bench ref)
rc=$?
t_bench=$(($(now_ms) - t0))
[ $rc = 0 ] && [ -s "$tmp/ref/report.md" ]
ok $? "the clean bench: exit 0, a report ($t_bench ms)"
report ref >"$tmp/ref.report"

: >"$tmp/faults"
mid=0
for i in $(seq 1 "$MOMENTS"); do
	at=$(((RANDOM * 32768 + RANDOM) % (t_bench * 3 / 4 + 1))) # while it runs, mostly
	bench "k$i" &
	pid=$!
	sleep "$(ms_to_s "$at")"
	kill -0 $pid 2>/dev/null && mid=$((mid + 1))
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	(bench "k$i")
	rc=$?
	if [ $rc != 0 ]; then
		echo "kill $i at $at ms: the resumed bench exited $rc: $(tail -c 300 "$tmp/k$i.err")" >>"$tmp/faults"
	elif ! report "k$i" >"$tmp/k$i.report" 2>&1 || ! cmp -s "$tmp/ref.report" "$tmp/k$i.report"; then
		echo "kill $i at $at ms: the resumed bench's report differs from the clean one's:" >>"$tmp/faults"
		diff "$tmp/ref.report" "$tmp/k$i.report" | head -10 >>"$tmp/faults"
	fi
done
echo "# $mid of $MOMENTS kills came while the bench ran"
[ ! -s "$tmp/faults" ]
ok $? "kill -9 at $MOMENTS moments of a bench: each resume finishes, its report as the clean run's"
[ -s "$tmp/faults" ] && sed 's/^/# /' "$tmp/faults"
echo "1..$n"
