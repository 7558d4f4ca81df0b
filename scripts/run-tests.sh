#!/bin/bash
# Runs every test: the cmocka programs given as arguments (built with ASan/UBSan), then
# every tests/*.sh (end-to-end runs of build/san/formdesk and tmux screen tests, TAP-style
# "ok"/"not ok" lines). Prints the tally as its last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export FORMDESK_BIN=${FORMDESK_BIN:-$PWD/build/san/formdesk}
export FORMDESK_WORDS=$PWD/agent/words
passed=0
failed=0
failures=()
log=build/test-logs
mkdir -p "$log"

# tally NAME LOG RC PASSED FAILED: add one program's counts (a non-zero exit with no failure
# counted is one failure) and print its line.
tally() {
	local name=$1 out=$2 rc=$3 p=$4 f=$5
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-40s %4d passed %4d failed\n' "$name" "$p" "$f"
	[ "$f" != 0 ] && failures+=("$out")
}

for t in "$@"; do
	name=$(basename "$t")
	out="$log/$name.log"
	"$t" >"$out" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	tally "$name" "$out" "$rc" "${p:-0}" "${f:-0}"
done

for t in tests/*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t")
	out="$log/$name.log"
	bash "$t" >"$out" 2>&1
	rc=$?
	tally "$name" "$out" "$rc" "$(grep -c '^ok ' "$out")" "$(grep -c '^not ok ' "$out")"
done

for f in "${failures[@]}"; do
	echo "---- $f"
	grep -E '^not ok|FAILED|ERROR|Sanitizer|runtime error|error:' "$f" | head -40
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
