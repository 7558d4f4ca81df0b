#!/bin/bash
# e2e_endpoint_eval: `formdesk endpoint-eval` on the real binary and the demo corpus
# (synthetic speech; made by `make corpora`): usage, bad options, the table and the chart.
# With answers joined by 900 ms gaps, 200 ms stop plus 200 ms wait cuts every answer and
# 200 + 1200 ms none (the demo's clips have no pause as long inside them). TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh

"$BIN" endpoint-eval --help >"$tmp/out" 2>"$tmp/err"
check "--help: exit 0, usage on stdout" \
	'[ $? = 0 ] && grep -q "^usage: formdesk endpoint-eval" "$tmp/out" && [ ! -s "$tmp/err" ]'
"$BIN" endpoint-eval >"$tmp/out" 2>"$tmp/err"
check "no --corpus: exit 2 naming it" '[ $? = 2 ] && grep -q -- "--corpus DIR is required" "$tmp/err"'
"$BIN" endpoint-eval --corpus demo --sweep stop=abc >"$tmp/out" 2>"$tmp/err"
check "bad --sweep: exit 2 naming it" '[ $? = 2 ] && grep -q -- "--sweep" "$tmp/err"'
"$BIN" endpoint-eval --corpus demo --gaps 300,-1 >"$tmp/out" 2>"$tmp/err"
check "bad --gaps: exit 2 naming it" '[ $? = 2 ] && grep -q -- "--gaps" "$tmp/err"'
"$BIN" endpoint-eval --corpus "$tmp/none" >"$tmp/out" 2>"$tmp/err"
check "missing corpus: exit 2" '[ $? = 2 ] && [ -s "$tmp/err" ]'

if [ -f corpus/demo/corpus.json ]; then
	"$BIN" endpoint-eval --corpus demo --gaps 900 --sweep stop=200,wait=200,1200 --svg "$tmp/c.svg" \
		>"$tmp/out" 2>"$tmp/err"
	check "demo: exit 0, a row per kind and setting" \
		'[ $? = 0 ] && [ $(grep -c "^\(digits\|date\|name\|yes/no\|option\) " "$tmp/out") = 10 ]'
	check "demo: a 900 ms pause cuts every answer at 200 + 200 ms" \
		'[ $(grep -cE "^[a-z/]+ +200 +200 +([0-9]+) +\\1 +\\(100\\.0%\\)" "$tmp/out") = 5 ]'
	check "demo: and none at 200 + 1200 ms, the turn ended 1400 ms after the speech" \
		'[ $(grep -cE "^[a-z/]+ +200 +1200 +[0-9]+ +0 +\\( *0\\.0%\\) +1400 ms +1400 ms" "$tmp/out") = 5 ]'
	check "demo: the chart is an SVG" 'grep -q "<svg" "$tmp/c.svg"'
else
	ok "# SKIP no demo corpus (make corpora)"
fi
echo "1..$n"
