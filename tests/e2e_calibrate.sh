#!/bin/bash
# End to end: `formdesk calibrate` and `formdesk export` on the recorded calls of
# tests/data/annotate_calls.sql (corpus tests/data/corpus_good), with labels written by
# the sqlite3 shell. The figures are worked by hand in docs/annotation.md ("A worked
# example"). TAP-style output.
set -u
cd "$(dirname "$0")/.."
BIN=${FORMDESK_BIN:-./build/san/formdesk}
CORPUS=tests/data/corpus_good
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { # check "what" command...
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
# has FILE LINE: FILE holds exactly LINE (CRLF line ends ignored).
has() { tr -d '\r' <"$1" | grep -Fxq -- "$2" || { echo "# no line '$2' in:"; sed 's/^/#   /' "$1"; return 1; }; }
if ! command -v sqlite3 >/dev/null; then
	echo "not ok 1 - sqlite3 is not installed (scripts/deps.sh installs it)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/cal.db
sqlite3 "$db" <tests/data/annotate_calls.sql >/dev/null
cal() { "$BIN" calibrate --db "$db" --corpus $CORPUS "$@"; }

# ---- bad input -------------------------------------------------------------------------
cal --annotator asha >/dev/null 2>"$tmp/err"
check "--annotator with no labels exits 2, saying there are no annotators" \
	test $? = 2 -a -n "$(grep -F "no name-match labels by 'asha' (annotators: none)" "$tmp/err")"
check "--annotator refused: no item drawn, nothing judged" \
	test "$(sqlite3 "$db" "SELECT (SELECT count(*) FROM ann_items) + (SELECT count(*) FROM ann_judgements)")" = 0
cal --format pdf >/dev/null 2>"$tmp/err"
check "an unknown format exits 2 and is named" test $? = 2 -a -n "$(grep -F "'pdf'" "$tmp/err")"
cal --seed -3 >/dev/null 2>"$tmp/err"
check "a bad seed exits 2 and is named" test $? = 2 -a -n "$(grep -F "'-3'" "$tmp/err")"
"$BIN" calibrate --db "$tmp/none.db" >/dev/null 2>"$tmp/err"
check "a missing database is named" test $? = 2 -a -n "$(grep -F "$tmp/none.db" "$tmp/err")"
cal --llm nosuchprovider >/dev/null 2>"$tmp/err"
check "an unknown LLM judge provider exits 2 with a reason" test $? = 2 -a -n "$(grep -F 'nosuchprovider' "$tmp/err")"

# ---- no labels yet: the items and the deterministic judge's decisions ------------------
cal --format csv >"$tmp/c0" 2>"$tmp/err"
check "calibrate with no labels exits 0" test $? = 0
check "six name-match items drawn" test "$(sqlite3 "$db" "SELECT count(*) FROM ann_items WHERE task='name-match'")" = 6
check "the name judge decided each, under its name and version" \
	test "$(sqlite3 "$db" "SELECT group_concat(decision, ',') FROM (SELECT decision FROM ann_judgements WHERE judge='namematch' AND prompt_version='rules' ORDER BY item_id)")" = "same,same,different,unsure,same,different"
check "no labels: no figures" has "$tmp/c0" "judge,namematch,rules,all,0,,,,,0,0,0,0,0,0,,,,,"

# ---- two annotators --------------------------------------------------------------------
put() { sqlite3 "$db" "INSERT INTO ann_labels (item_id, annotator, label) SELECT id, '$1', '$3' FROM ann_items WHERE task='name-match' AND key='call $2 field name'"; }
label_all() { local who=$1 i=1; shift; for x in "$@"; do put "$who" $i "$x"; i=$((i + 1)); done; }
label_all asha same same different different same different
label_all ravi same same same different same different
cal --format csv >"$tmp/c2" 2>/dev/null
check "Cohen's kappa of two annotators: 2/3" has "$tmp/c2" "annotators,cohen,,all,6,,,,0.666667,,,,,,,,,,,"
check "judge, all items: accuracy .8, TPR 1, TNR .5, kappa .36/.56" \
	has "$tmp/c2" "judge,namematch,rules,all,5,0.800000,1.000000,0.500000,0.642857,3,0,0,0,1,1,,,,,"
check "judge, dev half" has "$tmp/c2" "judge,namematch,rules,dev,3,0.666667,1.000000,0.500000,0.500000,1,0,0,0,1,1,,,,,"
check "judge, held-out half: one class only, kappa 1 by definition, TNR undefined" \
	has "$tmp/c2" "judge,namematch,rules,test,2,1.000000,1.000000,,1.000000,2,0,0,0,0,0,,,,,"
check "the one disagreement to read" \
	has "$tmp/c2" 'disagreement,namematch,rules,dev,,,,,,,,,,,,4,Sunita Devi,Sunita,"asha=different, ravi=different",unsure'
cal >"$tmp/t2" 2>/dev/null
check "the table says which kappa rests on one class" grep -q 'kappa is defined as 1' "$tmp/t2"
check "the table counts the tied item" grep -q 'compared with judges 5 (dev 3, test 2); left out: 1 tied' "$tmp/t2"
check "the table lists the disagreement with the caller's words" grep -q 'caller said: mera naam Sunita hai' "$tmp/t2"

# ---- three annotators, and an LLM judge found in the judges' table ----------------------
label_all meena same same different different unsure same
sqlite3 "$db" "INSERT INTO ann_judgements (item_id, judge, prompt_version, decision) SELECT id, 'llm:fake:m', 'name-v1', 'same' FROM ann_items WHERE task='name-match'"
cal --format csv >"$tmp/c3" 2>/dev/null
check "Fleiss' kappa of three annotators: 66/174" has "$tmp/c3" "annotators,fleiss,,all,6,,,,0.379310,,,,,,,,,,,"
check "the name judge against the majority of three" \
	has "$tmp/c3" "judge,namematch,rules,all,6,0.833333,1.000000,0.666667,0.714286,3,0,0,0,2,1,,,,,"
check "held-out half" has "$tmp/c3" "judge,namematch,rules,test,3,1.000000,1.000000,1.000000,1.000000,2,0,0,0,1,0,,,,,"
check "the LLM judge with its prompt version, saying same to everything: kappa 0" \
	has "$tmp/c3" "judge,llm:fake:m,name-v1,all,6,0.500000,1.000000,0.000000,0.000000,3,0,0,3,0,0,,,,,"
cal --judge namematch --format csv >"$tmp/c4" 2>/dev/null
check "--judge keeps one judge" test "$(grep -c '^judge,' "$tmp/c4")" = 3 -a -z "$(grep llm: "$tmp/c4")"
cal --judge nobody >/dev/null 2>"$tmp/err"
check "--judge with no decisions exits 2 and says so" test $? = 2 -a -n "$(grep -F "'nobody'" "$tmp/err")"
cal --annotator nobody >"$tmp/o" 2>"$tmp/err"
check "an unknown --annotator exits 2 and lists the known ones, printing nothing" \
	test $? = 2 -a ! -s "$tmp/o" -a -n "$(grep -F "no name-match labels by 'nobody' (annotators: asha, meena, ravi)" "$tmp/err")"
# ravi against the truth (majority of three: same same different different same
# different): he says same on item 3, 5 of 6 agree; truth 3 same 3 different, ravi 4 same
# 2 different: chance (3*4 + 3*2)/36 = 1/2, kappa (5/6 - 1/2)/(1/2) = 2/3
cal --annotator ravi --judge namematch --format csv >"$tmp/a1" 2>/dev/null
check "--annotator ravi: his labels against the truth, agreement 5/6, kappa 2/3" \
	has "$tmp/a1" "annotator,ravi,,all,6,0.833333,,,0.666667,,,,,,,,,,,"
# the name judge (same same different unsure same different) against ravi's labels: rows
# ravi same 3/1/0, different 0/1/1: accuracy 4/6, TPR 3/4, TNR 1/2, chance 16/36, kappa 0.4
check "--annotator ravi: the judge compared with his labels" \
	has "$tmp/a1" "judge,namematch,rules,all,6,0.666667,0.750000,0.500000,0.400000,3,1,0,0,1,1,,,,,"
cal --annotator meena >"$tmp/a2" 2>/dev/null
check "--annotator meena (table): 4 of 6 agree with the truth, kappa 3/7" \
	grep -qF "annotator meena against the truth (a reviewer's final label, else the majority): 6 items, agreement 0.667, Cohen's kappa 0.429" "$tmp/a2"
cal --format markdown >"$tmp/md" 2>/dev/null
check "Markdown: a table per judge" grep -qF '| split | n | accuracy | TPR | TNR | Cohen'"'"'s kappa |' "$tmp/md"
check "Markdown: the judge's heading with its prompt version" grep -qF '### Judge llm:fake:m (prompt version name-v1)' "$tmp/md"
cal --seed 1 --format table >"$tmp/s1" 2>/dev/null
check "another seed, another split: item 4 moves from dev to test" \
	grep -q 'item 4 \[test\]' "$tmp/s1"
check "with the default seed item 4 is in dev" grep -q 'item 4 \[dev\]' "$tmp/t2"
cal --format csv >"$tmp/c5" 2>/dev/null
check "the same seed gives the same figures again" cmp -s "$tmp/c3" "$tmp/c5"

# ---- export ------------------------------------------------------------------------------
"$BIN" export --db "$db" --format jsonl >"$tmp/x.jsonl" 2>"$tmp/err"
check "export jsonl exits 0" test $? = 0
python3 - "$tmp/x.jsonl" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 6, len(rows)
r = rows[0]
assert r["data"]["expected"] == "Sunita Devi" and r["data"]["captured"] == "सुनीता देवी", r["data"]
assert r["data"]["task"] == "name-match" and r["data"]["field"] == "name"
who = sorted(a["completed_by"] for a in r["annotations"])
assert who == ["asha", "meena", "ravi"], who
res = r["annotations"][0]["result"][0]
assert res["type"] == "choices" and res["value"]["choices"] == ["same"], res
assert all(a["created_at"] for a in r["annotations"])
mv = sorted(p["model_version"] for p in r["predictions"])
assert mv == ["llm:fake:m@name-v1", "namematch@rules"], mv
print("fine")
PY
check "jsonl: Label Studio tasks with data, annotations (completed_by, choices), predictions" grep -qx fine "$tmp/py"
"$BIN" export --db "$db" --format csv >"$tmp/x.csv" 2>"$tmp/err"
python3 - "$tmp/x.csv" >"$tmp/py" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
assert len(rows) == 18, len(rows)
assert list(rows[0])[:3] == ["id", "item_id", "task"], list(rows[0])
r = [x for x in rows if x["key"] == "call 4 field name" and x["completed_by"] == "meena"][0]
assert r["choice"] == "different" and r["captured"] == "Sunita" and r["expected"] == "Sunita Devi", r
print("fine")
PY
check "csv: one row per label with the item's fields" grep -qx fine "$tmp/py"
"$BIN" export --db "$db" --format xml >/dev/null 2>"$tmp/err"
check "export with an unknown format exits 2" test $? = 2 -a -n "$(grep -F "'xml'" "$tmp/err")"
