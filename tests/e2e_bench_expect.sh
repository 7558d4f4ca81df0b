#!/bin/bash
# End to end: each unit test expects only what its stage decides, and the report's
# warnings point to documentation that exists.
# - The real-speech corpus (`formdesk bench --corpus respin`, when its clips are built):
#   every call is five turns of words that answer no question (name asked twice, then
#   skipped by the rules; district three times, then the call fails). Hand count, for N
#   calls: 5N EXTRACT tests, each expecting the asked field left empty (never "skipped":
#   that status is the rules' once the retries run out), all passed by the offline
#   extractor; 5N REPLY tests, N of them end-call; integration: the path asks 2 fields
#   per call, 2N of 2N right (over all 12 fields, 12N of 12N: nothing captured where
#   nothing was asked), N of N calls right with the status "failed"; replies by
#   kind: N openings, 4N questions after a caller turn, N closings (5N caller turns).
# - `select --stage STAGE` reads a bench folder directly.
# - Every `docs/evaluation.md, "SECTION"` a report prints names a heading of that file:
#   a corpus whose expected end the rules cannot reach, and a dead EXTRACT backend.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
FORM=forms/armman_enrollment.json

if [ -s corpus/respin/expected.jsonl ]; then
	N=$(grep -c . corpus/respin/expected.jsonl)
	T=$(tail -n +2 corpus/respin/calls.csv | grep -c .)
	check "respin: 5 turns per call ($N calls, $T turns)" '[ "$T" = $((5 * N)) ]'
	"$BIN" bench --form $FORM --corpus respin --out "$tmp/r" --db "$tmp/r.db" 2>"$tmp/r.err"
	check "respin: bench exits 0" '[ $? = 0 ]'
	check "respin: EXTRACT passes $((5 * N)) of $((5 * N)) (the hand count)" \
		'grep -q "^- passed $((5 * N)) of $((5 * N)): 100.00%" <(sed -n "/^## EXTRACT/,/^## /p" "$tmp/r/report.md")'
	check "respin: no EXTRACT test wants the rules' \"skipped\"" \
		'! grep -q "wanted .\"skipped\"" "$tmp/r/report.md"'
	check "respin: REPLY $((5 * N)) tests, $N end-call" \
		'grep -q "needing a reply: $((4 * N)) of $((4 * N)) passed; end-call: $N of $N passed" "$tmp/r/report.md"'
	check "respin: integration $((2 * N)) of $((2 * N)) fields, $N of $N calls (the hand count)" \
		'grep -q "answered or skipped): $((2 * N)) of $((2 * N)) fields" "$tmp/r/report.md" &&
		 grep -q "counts as wrong): $((12 * N)) of $((12 * N))," "$tmp/r/report.md" &&
		 grep -q "calls with every field right: $N of $N; call status as expected: $N of $N" "$tmp/r/report.md"'
	check "respin: replies by kind: $N openings, $((4 * N)) after a caller turn, $N closings for $((5 * N)) caller turns" \
		'grep -q "replies by kind ($N calls, $((5 * N)) caller turns): opening question $N of $N passing the five checks; question after a caller turn $((4 * N)) of $((4 * N)) passing them; closing words at the call.s end $N of $N given" "$tmp/r/report.md"'
	check "respin: no warning" '! grep -q Warning "$tmp/r/report.md"'
else
	ok "# SKIP respin corpus not built (no clips)"
fi

# A corpus whose expected end the rules cannot reach: c1 said "failed", the rules complete it.
cp -r tests/data/bench_corpus "$tmp/c"
sed -i '1s/"status":"complete"/"status":"failed"/' "$tmp/c/expected.jsonl"
"$BIN" bench --form tests/data/bench_form.json --corpus "$tmp/c" --out "$tmp/w" --db "$tmp/w.db" 2>/dev/null
check "an unreachable expected end is warned of" 'grep -q "1 calls. expected forms cannot be reached" "$tmp/w/report.md"'
# A dead EXTRACT backend (nothing listens on port 1).
printf '{"providers":{"local":{"retries":0,"timeout_ms":2000,"stream":false}}}' >"$tmp/conf.json"
FORMDESK_CONFIG="$tmp/conf.json" LOCAL_BASE_URL=http://127.0.0.1:1/v1 "$BIN" bench \
	--form tests/data/bench_form.json --corpus "$tmp/c" --out "$tmp/w" --db "$tmp/w.db" \
	--extract local 2>/dev/null
check "a dead backend exits 3" '[ $? = 3 ]'
check "its failed requests are warned of" 'grep -q "EXTRACT requests failed" "$tmp/w/report.md"'
sections=$(grep -ho 'docs/evaluation.md, \\\?"[^"\\]*' "$tmp"/*/report.md | sed 's/.*"//' | sort -u)
check "the warnings name sections ($(echo $sections | tr '\n' ' '))" '[ -n "$sections" ]'
while read -r s; do
	[ -n "$s" ] || continue
	check "docs/evaluation.md has the section \"$s\"" 'grep -q "^#\+ $s\$" docs/evaluation.md'
done <<<"$sections"
check "every warning points to docs/evaluation.md by section" \
	'! grep -h "Warning" "$tmp"/*/report.md | grep -v -q "docs/evaluation.md, \""'

# `select --stage STAGE` reads a bench folder directly (its results-STAGE.csv).
"$BIN" bench --form tests/data/bench_form.json --corpus tests/data/bench_corpus --out "$tmp/s" \
	--db "$tmp/s.db" 2>/dev/null
"$BIN" select --results "$tmp/s" --stage extract >"$tmp/sel1.txt" 2>&1
check "select --stage extract on the folder exits 0" '[ $? = 0 ]'
"$BIN" select --results "$tmp/s/results-extract.csv" >"$tmp/sel2.txt" 2>&1
check "... and says what select says on results-extract.csv" \
	'diff <(grep -v "^results:" "$tmp/sel1.txt") <(grep -v "^results:" "$tmp/sel2.txt") >/dev/null && grep -q "extract:rules" "$tmp/sel1.txt"'
"$BIN" select --results "$tmp/s" --stage nosuch >/dev/null 2>"$tmp/sel3.txt"
check "select --stage nosuch exits 2 naming it" '[ $? = 2 ] && grep -q "stage .nosuch." "$tmp/sel3.txt"'
check "an offline run says acoustic conditions cannot change its results" \
	'grep -q "STT is .reference.: every turn is the corpus.s reference transcript, so acoustic conditions cannot change these results" "$tmp/s/report.md"'
"$BIN" bench --form tests/data/fieldacc/form.json --corpus tests/data/fieldacc --out "$tmp/fa" \
	--db "$tmp/fa.db" 2>/dev/null
check "failures are tables (call, turn, field, expected, got, stage), not JSON lines" \
	'grep -q "^| call | turn | field | expected | got | stage |" "$tmp/fa/report.md" &&
	 grep -q "^| call | turn | field | check | expected | got |" "$tmp/fa/report.md" &&
	 ! grep -q "^- .*{\"" "$tmp"/*/report.md'
check "unit tests are named by call and turn, not by their stored key" '! grep -q "sunita|" "$tmp"/*/report.md'
