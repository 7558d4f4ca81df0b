#!/bin/bash
# End to end: `formdesk adjudicate` (--list, --decide), calibrate taking the final label
# as the truth and explaining its agreement, export writing the final label beside every
# annotator's, on the recorded calls of tests/data/annotate_calls.sql (corpus
# tests/data/corpus_good) with labels written by the sqlite3 shell; and bad input (no
# labels, an unknown task or annotator, a reviewer adjudicating their own labels only):
# a clear message and nothing written. The figures are worked in docs/annotation.md.
# TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
CORPUS=tests/data/corpus_good
# check WHAT COMMAND...: here the command runs as given (not eval'd), so $? of the command
# before is read at the call.
check() { local what=$1; shift; if "$@"; then ok "$what"; else notok "$what"; fi; }
# has FILE LINE: FILE holds exactly LINE (CRLF line ends ignored).
has() { tr -d '\r' <"$1" | grep -Fxq -- "$2" || { echo "# no line '$2' in:"; sed 's/^/#   /' "$1"; return 1; }; }
# holds FILE TEXT: FILE holds TEXT somewhere.
holds() { grep -Fq -- "$2" "$1" || { echo "# no '$2' in:"; sed 's/^/#   /' "$1"; return 1; }; }
command -v sqlite3 >/dev/null || { notok "sqlite3 is not installed (scripts/deps.sh installs it)"; exit 1; }
db=$tmp/adj.db
sqlite3 "$db" <tests/data/annotate_calls.sql >/dev/null
q() { sqlite3 "$db" "$1"; }
adj() { "$BIN" adjudicate --db "$db" "$@"; }
cal() { "$BIN" calibrate --db "$db" --corpus $CORPUS "$@"; }
# draw the items of both tasks (calibrate builds the queues as annotate does)
cal --task name-match >/dev/null 2>&1
cal --task turn-errors >/dev/null 2>&1

# ---- bad input: a clear message, nothing written ----------------------------------------
adj --task name-match --list >/dev/null 2>"$tmp/err"
check "adjudicate on a database without labels exits 2 and says so" \
	test $? = 2 -a -n "$(grep -F "has no name-match labels: nothing to adjudicate" "$tmp/err")"
"$BIN" export --db "$db" --format csv --out "$tmp/none.csv" 2>"$tmp/err"
check "export without labels exits 2, says so and makes no file" \
	test $? = 2 -a ! -e "$tmp/none.csv" -a -n "$(grep -F 'has no labels to export' "$tmp/err")"
adj --task names --list >/dev/null 2>"$tmp/err"
check "an unknown task exits 2 and is named" test $? = 2 -a -n "$(grep -F "'names'" "$tmp/err")"
adj --task name-match --decide 3=same >/dev/null 2>"$tmp/err"
check "deciding without --reviewer exits 2 and says so" test $? = 2 -a -n "$(grep -F -- '--reviewer' "$tmp/err")"

put() { q "INSERT INTO ann_labels (item_id, annotator, label) SELECT id, '$1', '$3' FROM ann_items WHERE task='name-match' AND key='call $2 field name'"; }
label_all() { local who=$1 i=1; shift; for x in "$@"; do put "$who" $i "$x"; i=$((i + 1)); done; }
label_all asha same same different different same different
label_all ravi same same same different same different
q "UPDATE ann_labels SET note = 'Sumita is how she spells it' WHERE annotator = 'ravi' AND item_id = (SELECT id FROM ann_items WHERE key = 'call 3 field name')"
label_all meena same same different different unsure same

adj --task name-match --list --annotator zed >/dev/null 2>"$tmp/err"
check "an unknown annotator exits 2 and the annotators are listed" \
	test $? = 2 -a -n "$(grep -F "'zed': no name-match labels by 'zed' (annotators: asha, meena, ravi)" "$tmp/err")"
"$BIN" export --db "$db" --format jsonl --annotator zed --out "$tmp/zed.jsonl" 2>"$tmp/err"
check "export with an unknown annotator exits 2 and makes no file" \
	test $? = 2 -a ! -e "$tmp/zed.jsonl" -a -n "$(grep -F "'zed'" "$tmp/err")"

# ---- three annotators: the list, a refusal, decisions ----------------------------------
adj --task name-match --list >"$tmp/list" 2>"$tmp/err"
check "--list exits 0" test $? = 0
check "three items in disagreement" has "$tmp/list" "name-match: 3 items in disagreement, 0 decided"
check "each annotator's label and note side by side" \
	has "$tmp/list" "  ravi         same             note: Sumita is how she spells it"
check "what the annotators saw" has "$tmp/list" "  captured     Sumita Devi"
check "an item the annotators agree on is not listed" test -z "$(grep -F 'call 1 field name' "$tmp/list")"
i3=$(q "SELECT id FROM ann_items WHERE key='call 3 field name'")
i5=$(q "SELECT id FROM ann_items WHERE key='call 5 field name'")
adj --task name-match --reviewer ravi --decide "$i3=same" >/dev/null 2>"$tmp/err"
check "a reviewer whose own label is the only disagreeing side is refused" \
	test $? = 2 -a -n "$(grep -F 'ravi is the only one who said same (everyone else said different)' "$tmp/err")"
check "the refusal wrote nothing" test "$(q "SELECT count(*) FROM ann_adjudications")" = 0
adj --task name-match --reviewer lead --decide "$i3=maybe" >/dev/null 2>"$tmp/err"
check "a label the task does not have is refused" \
	test $? = 2 -a -n "$(grep -F "'maybe' is not a name-match label" "$tmp/err")"
adj --task name-match --reviewer lead --decide "$i5=different" --note "the surname is missing" \
	>"$tmp/out" 2>"$tmp/err"
check "the lead decides item 5: different" test $? = 0 -a -n "$(grep -F 'final label different, decided by lead' "$tmp/out")"
check "stored with who decided and when" \
	test "$(q "SELECT reviewer||'|'||label||'|'||note||'|'||(decided_at LIKE '____-__-__T__:__:__.___Z') FROM ann_adjudications")" = "lead|different|the surname is missing|1"
adj --task name-match --reviewer asha --decide "$i3=different" >/dev/null 2>"$tmp/err"
check "asha, on the majority side, may decide item 3" test $? = 0
adj --task name-match --list >"$tmp/list2" 2>/dev/null
check "--list shows the final labels" has "$tmp/list2" "name-match: 3 items in disagreement, 2 decided"

# ---- calibrate: the final label is the truth; the agreement explains itself -------------
cal --format csv >"$tmp/c" 2>/dev/null
check "Fleiss' kappa of the three (66/174)" has "$tmp/c" "annotators,fleiss,,all,6,,,,0.379310,,,,,,,,,,,"
check "Gwet's AC1 beside it (43/79)" has "$tmp/c" "agreement,ac1,,all,,,,,0.544304,,,,,,,,,,,"
check "PABAK over every pair's labels (1/2)" has "$tmp/c" "agreement,pabak,,all,,,,,0.500000,,,,,,,,,,,"
check "Krippendorff's alpha (12/29)" has "$tmp/c" "agreement,alpha,,all,,,,,0.413793,,,,,,,,,,,"
check "per class: 10 labels of same, 2 items whose truth is same" \
	has "$tmp/c" "class,same,,all,10,,,,,,,,,,,,,,2,"
check "per class: item 5 counts as different, by the lead's decision" \
	has "$tmp/c" "class,different,,all,7,,,,,,,,,,,,,,4,"
check "the item in disagreement with its final label" \
	has "$tmp/c" "item_disagreement,lead,,all,,,,,,,,,,,,$i5,,,\"asha=same, meena=unsure, ravi=same\",different"
check "the name judge now disagrees on item 5 (people: different, the lead's label)" \
	grep -q "^disagreement,namematch,rules,.*,$i5,Sunita Devi,Suneeta Devi,.*,same" "$tmp/c"
check "the judge per prompt version and day" \
	grep -Eq "^trend,namematch,rules,[0-9]{4}-[0-9]{2}-[0-9]{2},6,0\.666667," "$tmp/c"
cal >"$tmp/t" 2>/dev/null
check "the table says how many items take a reviewer's label" \
	holds "$tmp/t" "items whose truth is a reviewer's final label (formdesk adjudicate): 2"
check "the table shows each pair's confusion" holds "$tmp/t" "asha x ravi: Cohen's kappa 0.667 on 6 items"

# ---- export: the final label beside every annotator's -------------------------------------
"$BIN" export --db "$db" --format jsonl --task name-match >"$tmp/x.jsonl" 2>"$tmp/err"
check "export jsonl exits 0" test $? = 0
python3 - "$tmp/x.jsonl" "$i5" >"$tmp/py" 2>&1 <<'PY'
import json, sys
rows = {r["id"]: r for r in map(json.loads, open(sys.argv[1]))}
r = rows[int(sys.argv[2])]
assert r["data"]["final_label"] == "different" and r["data"]["final_by"] == "lead", r["data"]
assert r["data"]["final_note"] == "the surname is missing" and r["data"]["final_at"]
assert sorted(a["completed_by"] for a in r["annotations"]) == ["asha", "meena", "ravi"]
undecided = [x for x in rows.values() if x["data"]["key"] == "call 1 field name"][0]
assert undecided["data"]["final_label"] is None
print("fine")
PY
check "jsonl: the final label, who and when beside the annotations" grep -qx fine "$tmp/py"
"$BIN" export --db "$db" --format csv --task name-match >"$tmp/x.csv" 2>"$tmp/err"
python3 - "$tmp/x.csv" >"$tmp/py" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
five = [r for r in rows if r["key"] == "call 5 field name"]
assert len(five) == 3, five
assert {r["completed_by"]: r["choice"] for r in five} == {"asha": "same", "meena": "unsure", "ravi": "same"}
assert all(r["final_label"] == "different" and r["final_by"] == "lead" and r["final_at"] for r in five)
assert all(r["final_label"] == "" for r in rows if r["key"] == "call 1 field name")
print("fine")
PY
check "csv: every annotator's row carries the final label" grep -qx fine "$tmp/py"
"$BIN" export --db "$db" --format csv --annotator meena >"$tmp/m.csv" 2>/dev/null
check "export --annotator: that annotator's labels only" \
	test "$(tail -n +2 "$tmp/m.csv" | cut -d, -f14 | sort -u | tr -d '\r')" = meena

# ---- turn-errors: per-tag counts and disagreements; no --task ------------------------------
tput_() { q "INSERT INTO ann_labels (item_id, annotator, label) SELECT id, '$1', '$3' FROM ann_items WHERE task='turn-errors' AND key='turn $2'"; }
for t in 1 2 3 4 5 6; do tput_ asha $t none; tput_ ravi $t none; done
tput_ asha 7 stt_error; tput_ ravi 7 none
tput_ asha 8 extraction_missed; tput_ ravi 8 stt_error
cal --task turn-errors >"$tmp/te" 2>/dev/null
check "turn-errors: Cohen's kappa of the two" \
	holds "$tmp/te" "inter-annotator agreement: Cohen's kappa 0.238 (observed 0.750, chance 0.672, 8 items)"
check "the count of labels per task" holds "$tmp/te" "labels by task: name-match 18, turn-errors 16, stt 0"
check "turn-errors: the count of each tag, per annotator" \
	grep -Eq '^  none +6 +7 +13 +6$' "$tmp/te"
check "turn-errors: a tag nobody used is listed with 0" grep -Eq '^  wrong_branch +0 +0 +0 +0$' "$tmp/te"
check "turn-errors: the two disagreements" holds "$tmp/te" "items the annotators disagree on (2, 0 decided"
check "turn-errors: a disagreement with both tags" holds "$tmp/te" "[turn 8] asha=extraction_missed, ravi=stt_error"
check "turn-errors: why kappa is low with 75% agreement" \
	holds "$tmp/te" "kappa is low although observed agreement is 75% because one label (none) makes up 81% of the labels: chance agreement is already 67%"
# a label with two tags counts for each tag; the item still differs from one tag alone
q "UPDATE ann_labels SET label = 'stt_error,extraction_missed' WHERE annotator = 'asha' AND item_id = (SELECT id FROM ann_items WHERE task = 'turn-errors' AND key = 'turn 8')"
cal --task turn-errors >"$tmp/te3" 2>/dev/null
check "two tags: each counts (stt_error twice from asha), the item's truth by the first" \
	grep -Eq '^  stt_error +2 +1 +3 +1$' "$tmp/te3"
check "two tags: extraction_missed still counted" grep -Eq '^  extraction_missed +1 +0 +1 +0$' "$tmp/te3"
check "two tags: still a disagreement with one tag" \
	holds "$tmp/te3" "[turn 8] asha=stt_error,extraction_missed, ravi=stt_error"
# each tag as its own yes/no question. stt_error: asha 0 0 0 0 0 0 1 1, ravi 0 0 0 0 0 0 0 1:
# table 6 0 / 1 1, observed 7/8, chance (6*7 + 2*1)/64 = 44/64, kappa .1875/.3125 = .6,
# PABAK .75; alpha: o00 12, o11 2, o01 = o10 1, n 16 (13 absent, 3 present): Do 2/16,
# De 2*13*3/(16*15) = .325, alpha 1 - .125/.325 = .615; truth present on turn 8, absent on
# 1-6, turn 7 a tie. extraction_missed: asha on turn 8 alone: chance 56/64, kappa 0.
check "per tag: stt_error's counts, truth and alpha" \
	holds "$tmp/te3" "stt_error: 3 labels; truth present on 1 items, absent on 6; Krippendorff's alpha 0.615 over 8 items"
check "per tag: stt_error's kappa, observed agreement and PABAK" \
	holds "$tmp/te3" "asha/ravi: Cohen's kappa 0.600 (observed 0.875, chance 0.688), PABAK 0.750, 8 items"
check "per tag: extraction_missed, used by one annotator once: kappa 0, PABAK .75" \
	holds "$tmp/te3" "asha/ravi: Cohen's kappa 0.000 (observed 0.875, chance 0.875), PABAK 0.750, 8 items"
cal --task turn-errors --format csv >"$tmp/te3.csv" 2>/dev/null
check "per tag, csv: the tag's row (labels, alpha, present, absent)" \
	has "$tmp/te3.csv" "tag,stt_error,,all,3,,,,0.615385,,,,,,,,,,1,6"
check "per tag, csv: the pair's row (items, observed, kappa, PABAK)" \
	has "$tmp/te3.csv" "tag_pair,stt_error,asha/ravi,all,8,0.875000,,,0.600000,,,,,,,,,,0.750000,"
cal >/dev/null 2>"$tmp/err"
check "no --task with labels of two tasks: both are listed" \
	test $? = 2 -a -n "$(grep -F 'holds labels of 2 tasks: name-match (' "$tmp/err" | grep -F 'turn-errors (16 labels); choose one with --task')"
q "DELETE FROM ann_labels WHERE item_id IN (SELECT id FROM ann_items WHERE task='name-match')"
cal >"$tmp/te2" 2>"$tmp/err"
check "no --task: the one task with labels is reported, not an empty name-match report" \
	test $? = 0 -a -n "$(head -1 "$tmp/te2" | grep -F 'turn-errors calibration')" -a -n "$(grep -F 'no --task: turn-errors' "$tmp/err")"
