#!/bin/bash
# End to end: `formdesk select` on small hand-computed result files (tests/data/select_*.csv,
# worked out in tests/data/select_cases.tsv): the ranking, JSON lines, the weight sweep and
# its leader changes, exit statuses, error messages and the SVG charts.
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
D=tests/data

"$BIN" select --results $D/select_basic.csv --max-p95-ms 5000 --min-accuracy 90 >"$tmp/table" 2>&1
rc=$?
check "table: exit 0 when there is a leader" '[ $rc = 0 ]'
check "table: A ranks first with U 0.8333" 'grep -Eq "^ +1  A +96\.00% +3000 .* 0\.8333$" "$tmp/table"'
check "table: D excluded for its p95" 'grep -q "p95 6000 ms is not below 5000 ms" "$tmp/table"'
check "table: C dominated by A" 'grep -q "dominated by A" "$tmp/table"'

"$BIN" select --results $D/select_basic.csv --max-p95-ms 5000 --min-accuracy 90 --json >"$tmp/json" 2>&1
python3 - "$tmp/json" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {r["model"]: r for r in rows}
assert [r["model"] for r in rows] == ["A", "E", "B", "C", "D"], rows
assert by["A"]["rank"] == 1 and abs(by["A"]["u"] - 0.8333333) < 1e-6
assert abs(by["E"]["u"] - 0.4) < 1e-9 and abs(by["B"]["u"] - 0.3) < 1e-9
assert by["C"]["excluded"] == "dominated" and by["C"]["dominated_by"] == "A"
assert by["D"]["excluded"] == "max_p95_ms" and "u" not in by["D"]
assert by["A"]["accuracy_pct"] == 96
print("fine")
PY
check "json: one line per candidate, exclusion reasons and U" 'grep -qx fine "$tmp/py"'

"$BIN" select --results $D/select_basic.csv --sweep 0:0.9:0.1 --json >"$tmp/sweep" 2>&1
python3 - "$tmp/sweep" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["leader"] for r in rows] == list("BBBAAAADDD"), rows
assert [r["w_a"] for r in rows] == [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
assert all(r["w_l"] == 0.1 and abs(r["w_a"] + r["w_l"] + r["w_c"] - 1) < 1e-9 for r in rows)
print("fine")
PY
check "sweep json: one line per step with w_a and leader" 'grep -qx fine "$tmp/py"'

"$BIN" select --results $D/select_basic.csv --sweep 0:0.9:0.1 >"$tmp/sweeph" 2>&1
check "sweep: prints where the leader changes" \
	'grep -q "leader changes at w_a = 0.3: B -> A" "$tmp/sweeph" && grep -q "leader changes at w_a = 0.7: A -> D" "$tmp/sweeph"'

"$BIN" select --results $D/select_basic.csv --max-p95-ms 500 >"$tmp/none" 2>&1
rc=$?
check "no candidate within the limits: exit 1 and says so" '[ $rc = 1 ] && grep -q "no candidate meets the limits" "$tmp/none"'

"$BIN" select --results $D/select_bad_number.csv >"$tmp/out" 2>"$tmp/err"
rc=$?
check "bad number: exit 2 naming file, line and column" \
	'[ $rc = 2 ] && grep -q "select_bad_number.csv:3: column .p95_ms.: .fast. is not a number" "$tmp/err"'

"$BIN" select --results $D/select_basic.csv --weights 0.5,0.5,0.5 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "weights not summing to 1: exit 2" '[ $rc = 2 ] && grep -q -- "--weights" "$tmp/err"'

"$BIN" select --results $D/select_basic.csv --sweep 0.5:1:0.1 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "sweep leaving w_c negative: exit 2 naming w_c" '[ $rc = 2 ] && grep -q "w_c" "$tmp/err"'

mkdir -p "$tmp/bench"
cp $D/select_basic.csv "$tmp/bench/results.csv"
"$BIN" select --results "$tmp/bench" --max-p95-ms 5000 --min-accuracy 90 --sweep 0.5:0.9:0.1 \
	--svg "$tmp/bench" >"$tmp/out" 2>&1
rc=$?
check "a results folder is read through results.csv" '[ $rc = 0 ] && grep -q "results.csv" "$tmp/out"'
python3 - "$tmp/bench/tradeoff.svg" "$tmp/bench/sweep.svg" >"$tmp/py" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
for f in sys.argv[1:]:
    root = ET.parse(f).getroot()
    assert root.tag == ns + "svg", root.tag
    texts = [t.text for t in root.iter(ns + "text")]
    assert "A" in texts and "E" in texts, texts
print("fine")
PY
check "--svg writes well-formed trade-off and sweep charts" 'grep -qx fine "$tmp/py"'
