#!/bin/bash
# End-to-end: runs, replay, diff and the gate on the real binary, with the runs fixture
# (tests/data/runs_form.json, tests/data/runs_corpus: three calls; c2 answers a district
# the form does not offer, c3 answers it on the re-ask) and three changed forms made from
# it: an option added, a retry limit lowered, a branch turned round. TAP-style lines.
#  runs:    run --headless records a run with the form's SHA-256, its corpus and source;
#           `runs` lists completion and accuracy; an older database is migrated into runs.
#  replay:  the run replayed unchanged diffs as identical and passes the gate.
#  diffs:   each changed form gives the diff worked out by hand (per call: change, first
#           diverging turn and stage, fields that differ, unanswered turns).
#  gate:    a planted regression fails it (exit 1), naming the calls that broke.
#  bad input: unknown run or call, a newer schema, a form the calls do not fit, a
#           recording that is gone: exit 2, a message naming it, nothing written.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
db=$tmp/runs.db
form=tests/data/runs_form.json

"$BIN" run --headless --form $form --corpus tests/data/runs_corpus --db "$db" >"$tmp/run.out" 2>"$tmp/run.err"
check "run --headless records run 1" '[ "$(sqlite3 "$db" "SELECT count(*) FROM calls WHERE run_id = 1")" = 3 ]'
sha=$(sha256sum $form | cut -d" " -f1)
check "the run keeps the form whole, with its SHA-256" \
	'[ "$(sqlite3 "$db" "SELECT form_sha256 FROM runs WHERE id = 1")" = "$sha" ] && [ "$(sqlite3 "$db" "SELECT length(CAST(form_json AS BLOB)) FROM runs")" = "$(wc -c <$form)" ]'
"$BIN" runs --db "$db" --json >"$tmp/runs.json"
check "runs --json: source, calls, completion, accuracy, backends, today" 'python3 - "$tmp/runs.json" <<EOF
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1, r
r = r[0]
assert (r["run"], r["source"], r["calls"], r["complete"], r["accuracy"], r["corpus"]) == (1, "run", 3, 2, 0.8, "runs-fixture"), r
assert (r["stt"], r["extract"], r["reply"]) == ("reference", "rules", "script"), r
EOF'
check "the run's options: today from the corpus, endpointing, telephone" \
	'[ "$(sqlite3 "$db" "SELECT json_extract(options, \"\$.today\") || json_extract(options, \"\$.endpointing.stop_ms\") || json_extract(options, \"\$.telephone\") FROM runs")" = "2025-03-152000" ]'

# An unchanged replay is identical.
"$BIN" replay --db "$db" --run 1 >"$tmp/replay.out" 2>"$tmp/replay.err"
check "replay prints the new run as its last line" \
	'tail -1 "$tmp/replay.out" | python3 -c "import json,sys; d=json.load(sys.stdin); assert (d[\"run\"], d[\"replay_of\"], d[\"calls\"], d[\"turns\"], d[\"unanswered\"]) == (2, 1, 3, 11, 0), d"'
"$BIN" diff --db "$db" 1 2 --format json --gate >"$tmp/same.json" 2>"$tmp/same.err"
rc=$?
check "unchanged replay: every call the same, gate passes" '[ $rc = 0 ] && python3 - "$tmp/same.json" <<EOF
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
calls, s = lines[:-1], lines[-1]
assert [c["change"] for c in calls] == ["same"] * 3, calls
assert all(c["diverge"] is None and c["unanswered"] == [] for c in calls)
assert (s["summary"], s["same"], s["fixed"], s["broken"], s["gate"]["failed"]) == (True, 3, 0, 0, False), s
assert s["accuracy"] == {"a": 0.8, "b": 0.8}, s
EOF'
check "the gate says it passed" 'grep -q "gate passed" "$tmp/same.err"'

# Three changed forms.
python3 - $form "$tmp" <<'EOF'
import copy, json, sys
f = json.load(open(sys.argv[1]))
def save(name, g):
    json.dump(g, open(sys.argv[2] + "/" + name + ".json", "w"), ensure_ascii=False)
g = copy.deepcopy(f); g["questions"][1]["options"].append("Nalanda"); save("options", g)
g = copy.deepcopy(f); g["questions"][1]["retry_config"]["max_retries"] = 0; save("retry", g)
g = copy.deepcopy(f); g["branches"][0]["condition"]["equals"] = False; save("branch", g)
EOF
for v in options retry branch; do
	"$BIN" replay --db "$db" --run 1 --form "$tmp/$v.json" >"$tmp/$v.out" 2>>"$tmp/replay.err"
	"$BIN" diff --db "$db" 1 "$(tail -1 "$tmp/$v.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')" \
		--format json --gate >"$tmp/$v.diff" 2>"$tmp/$v.gate"
	echo $? >"$tmp/$v.rc"
done
# The hand-worked diffs. Per call: change, first divergence (turn, stage), the fields
# that differ, the unanswered turns (run, turn, field).
#  options (Nalanda offered): c1 untouched. c2's district is now answered at turn 2 (its
#   extraction finds the option), so pregnant is asked at turn 3; the recording (which
#   ended at turn 3 when district ran out) never answered it: silence at turns 3, 4, 5,
#   pregnant skipped, the call fails as before: changed. c3's first answer, Nalanda, is
#   now taken: district Nalanda where Patna was expected: broken. The gate passes: one
#   broken call is chance (p = 1) and no required field's accuracy fell (district: c2
#   right, c3 wrong, still 2 of 3).
#  retry (district re-asked 0 times): the decisions differ from turn 2 on in every call
#   (the retry limit is in them); c1 ends as before; c2 fails at turn 2; c3 fails at turn
#   2 with district skipped and pregnant never asked: broken; the gate fails (district
#   and pregnant accuracy fall) naming c3.
#  branch (months asked when not pregnant): the opening decision already differs (the
#   branch condition is in it); c1's pregnant branch is off, months never asked: broken;
#   c2 fails on district as before; c3's months is asked at turn 5, never answered:
#   silence at 5, 6, 7, months skipped, the call fails (months was not expected, so c3
#   is still right on every field it is judged on: changed); the gate fails naming c1.
check "options: the hand-worked diff" '[ "$(cat $tmp/options.rc)" = 0 ] && python3 - "$tmp/options.diff" <<EOF
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
got = [(c["call"], c["change"], c["diverge"] and (c["diverge"]["turn"], c["diverge"]["stage"]),
        [f["field"] for f in c["fields"] if not f["same"]],
        [(u["run"], u["turn"], u["field"]) for u in c["unanswered"]]) for c in lines[:-1]]
want = [("c1", "same", None, [], []),
        ("c2", "changed", (2, "extraction"), ["district", "pregnant"],
         [("b", 3, "pregnant"), ("b", 4, "pregnant"), ("b", 5, "pregnant")]),
        ("c3", "broken", (2, "extraction"), ["district"], [])]
assert got == want, got
c2 = lines[1]["fields"][1]
assert c2["a"] == {"value": None, "status": "skipped", "retries": 2, "verdict": "options failed: \"Nalanda\" is not one of the options", "branch": None} or c2["a"]["status"] == "skipped", c2
assert c2["b"]["value"] == "Nalanda" and c2["b"]["status"] == "answered", c2
s = lines[-1]
assert (s["fixed"], s["broken"], s["changed"], s["same"], s["mcnemar"]["p"], s["gate"]["failed"]) == (0, 1, 1, 1, 1, False), s
assert s["fields"]["district"] == {"a": 2/3, "b": 2/3, "required": True}, s
EOF'
check "retry: the hand-worked diff, the gate fails naming c3" '[ "$(cat $tmp/retry.rc)" = 1 ] && python3 - "$tmp/retry.diff" <<EOF
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
got = [(c["call"], c["change"], c["b"]["status"], (c["diverge"]["turn"], c["diverge"]["stage"]),
        [f["field"] for f in c["fields"] if not f["same"]]) for c in lines[:-1]]
want = [("c1", "changed", "complete", (2, "decision"), []),
        ("c2", "changed", "failed", (2, "decision"), ["district"]),
        ("c3", "broken", "failed", (2, "decision"), ["district", "pregnant"])]
assert got == want, got
s = lines[-1]
assert s["gate"]["broke"] == ["c3"] and len(s["gate"]["reasons"]) == 2, s
assert s["accuracy"] == {"a": 0.8, "b": 0.6}, s
EOF' 
check "retry: the gate message names the field and the call" \
	'grep -q "required field .district.: accuracy fell from 66.7% to 33.3%" "$tmp/retry.gate" && grep -q "calls that broke: c3" "$tmp/retry.gate"'
check "branch: the hand-worked diff, unanswered months, the gate fails naming c1" '[ "$(cat $tmp/branch.rc)" = 1 ] && python3 - "$tmp/branch.diff" <<EOF
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
got = [(c["call"], c["change"], (c["diverge"]["turn"], c["diverge"]["stage"]),
        [f["field"] for f in c["fields"] if not f["same"]],
        [(u["run"], u["turn"], u["field"]) for u in c["unanswered"]]) for c in lines[:-1]]
want = [("c1", "broken", (0, "decision"), ["pregnant", "months"], []),
        ("c2", "changed", (0, "decision"), [], []),
        ("c3", "changed", (0, "decision"), ["pregnant", "months"],
         [("b", 5, "months"), ("b", 6, "months"), ("b", 7, "months")])]
assert got == want, got
p = lines[0]["fields"][2]
assert (p["a"]["branch"], p["b"]["branch"]) == ("is_pregnant=on", "is_pregnant=off"), p
s = lines[-1]
assert s["gate"]["broke"] == ["c1"] and s["fields"]["months"] == {"a": 1, "b": 0, "required": True}, s
EOF'

# The other formats.
"$BIN" diff --db "$db" 1 3 --format markdown >"$tmp/d.md"
check "markdown: a table of the calls that changed and a summary" \
	'grep -q "^| c3 *| broken" "$tmp/d.md" && grep -q "^- 3 calls matched: 0 fixed, 1 broken, 1 changed, 1 unchanged" "$tmp/d.md" && ! grep -q "^| c1" "$tmp/d.md"'
"$BIN" diff --db "$db" 1 3 --format csv >"$tmp/d.csv"
check "csv: a header and one row per matched call" \
	'[ "$(head -1 "$tmp/d.csv")" = "call,change,status_a,status_b,reason_a,reason_b,diverge,fields,unanswered" ] && [ "$(wc -l <"$tmp/d.csv")" = 4 ] && grep -q "^c3,broken,complete,complete," "$tmp/d.csv"'

# Calls by id, into another database.
"$BIN" replay --db "$db" --call 1 --call 3 --out-db "$tmp/out.db" >"$tmp/calls.out" 2>&1
check "replay --call N ... --out-db: the calls named, in a new file" \
	'tail -1 "$tmp/calls.out" | grep -q "\"run\":1,.*\"calls\":2," && [ "$(sqlite3 "$tmp/out.db" "SELECT group_concat(replay_of) FROM calls")" = "1,3" ]'
"$BIN" diff --db "$db" 1 1 --db-b "$tmp/out.db" --format json >"$tmp/outdiff.json"
check "diff --db-b: the runs of two files, matched by corpus call id" \
	'tail -1 "$tmp/outdiff.json" | grep -q "\"calls\":2,\"fixed\":0,\"broken\":0,\"changed\":0,\"same\":2,\"only_a\":1,\"only_b\":0"'

# A typed live call is a run of its own; replayed from its words it is the same call.
printf 'mera naam Sunita hai\nGaya\n' | "$BIN" --typed --headless --tts none --form $form --db "$tmp/typed.db" >/dev/null 2>&1
"$BIN" replay --db "$tmp/typed.db" --run 1 >"$tmp/typed.out" 2>&1
"$BIN" diff --db "$tmp/typed.db" 1 2 --format json >"$tmp/typed.diff"
check "a typed live call: a run of source typed, replayed the same" \
	'[ "$(sqlite3 "$tmp/typed.db" "SELECT group_concat(source) FROM runs")" = "typed,replay" ] && head -1 "$tmp/typed.diff" | grep -q "^{\"call\":\"call 1\",\"change\":\"same\"" && [ "$(sqlite3 "$tmp/typed.db" "SELECT count(DISTINCT reason) FROM calls")" = 1 ]'

# bench's integration calls: a run of source bench in OUT/calls.db, replayable.
"$BIN" bench --form tests/data/bench_form.json --corpus tests/data/bench_corpus --out "$tmp/bench" --db "$tmp/bench.db" >/dev/null 2>&1
"$BIN" replay --db "$tmp/bench/calls.db" --run 1 >/dev/null 2>&1
"$BIN" diff --db "$tmp/bench/calls.db" 1 2 --format json --gate >"$tmp/bdiff.json" 2>/dev/null; rc=$?
check "bench: its integration calls a run of source bench, replayed the same" \
	'[ "$(sqlite3 "$tmp/bench/calls.db" "SELECT group_concat(source || count, \",\") FROM (SELECT source, (SELECT count(*) FROM calls c WHERE c.run_id = r.id) AS count FROM runs r ORDER BY id)")" = "bench2,replay2" ] && [ $rc = 0 ] && tail -1 "$tmp/bdiff.json" | grep -q "\"calls\":2,\"fixed\":0,\"broken\":0,\"changed\":0,\"same\":2"'

python3 -c "import json, sys; f = json.load(open(sys.argv[1])); f['questions'][2]['validation']['rules']['max'] = 4; json.dump(f, open(sys.argv[2], 'w'))" tests/data/bench_form.json "$tmp/bench4.json"
"$BIN" bench --form "$tmp/bench4.json" --corpus tests/data/bench_corpus --out "$tmp/bench" --db "$tmp/bench.db" --baseline 1 >"$tmp/bbase.out" 2>"$tmp/bbase.err"; rc=$?
check "bench --baseline: a lower months limit breaks c1, the gate fails (exit 1)" \
	'[ $rc = 1 ] && grep -q "^c1 *broken *complete *-> failed" "$tmp/bbase.out" && grep -q "required field .months.: accuracy fell from 100.0% to 0.0%" "$tmp/bbase.err"'
"$BIN" bench --form tests/data/bench_form.json --corpus tests/data/bench_corpus --out "$tmp/bench" --db "$tmp/bench.db" --baseline 99 >/dev/null 2>"$tmp/bbase.err"; rc=$?
check "bench --baseline with an unknown run: exit 2, names it" '[ $rc = 2 ] && grep -q "baseline 99: no such run in" "$tmp/bbase.err"'

# Calls from outside: FormBharo's conversations and plain JSONL, into runs of source import.
idb=$tmp/import.db
"$BIN" import --db "$idb" --form $form --formbharo tests/data/import/formbharo.json --today 2025-03-15 >"$tmp/fb.out" 2>&1
check "import --formbharo: each conversation played through the form" \
	'[ "$(head -2 "$tmp/fb.out" | tr -d "\n")" = "{\"call_id\":\"conv_a1\",\"status\":\"complete\",\"turns\":4}{\"call_id\":\"conv_a2\",\"status\":\"failed\",\"turns\":3}" ] && tail -1 "$tmp/fb.out" | grep -q "{\"run\":1,\"calls\":2}"'
check "... its caller turns as turns, the recording kept, the run of source import" \
	'[ "$(sqlite3 "$idb" "SELECT group_concat(transcript, \"|\") FROM turns WHERE call_id = 1")" = "mera naam Sunita hai|Gaya|haan|paanch mahine" ] && [ "$(sqlite3 "$idb" "SELECT audio LIKE \"%/bench_e2e/clip.wav\" FROM turns WHERE id = 1")" = 1 ] && [ "$(sqlite3 "$idb" "SELECT source || corpus FROM runs")" = "importformbharo.json" ]'
"$BIN" import --db "$idb" --form $form --jsonl tests/data/import/calls.jsonl --today 2025-03-15 >"$tmp/jl.out" 2>&1
check "import --jsonl: calls j1 and j2, agent lines left out" \
	'grep -q "{\"call_id\":\"j1\",\"status\":\"complete\",\"turns\":3}" "$tmp/jl.out" && grep -q "{\"call_id\":\"j2\",\"status\":\"failed\",\"turns\":1}" "$tmp/jl.out"'
"$BIN" replay --db "$idb" --run 1 >/dev/null 2>&1
"$BIN" diff --db "$idb" 1 3 --format json >"$tmp/idiff.json"
check "an imported run replays the same, matched by conversation id" \
	'tail -1 "$tmp/idiff.json" | grep -q "\"calls\":2,\"fixed\":0,\"broken\":0,\"changed\":0,\"same\":2" && head -1 "$tmp/idiff.json" | grep -q "^{\"call\":\"conv_a1\""'
printf '{"call":"x","speaker":"user","text":"a"}\n{"call":"y","speaker":"user","text":"b"}\n{"call":"x","speaker":"user","text":"c"}\n' >"$tmp/apart.jsonl"
printf '{"call":"x","speaker":"caller","text":"a"}\n' >"$tmp/speaker.jsonl"
printf '{"call":"x","speaker":"user","text":"a","audio":"gone.wav"}\n' >"$tmp/audio.jsonl"
printf '[{"conversation_id":"c9","status":"complete"}]\n' >"$tmp/notr.json"
printf '{"call":"x","speaker":"user","text":"a"}\n{"call":"x","speaker":"user","text":"naam\\u0000 Sunita"}\n' >"$tmp/nul.jsonl"
printf '{"call":"x","speaker":"user","text":"naam \377"}\n' >"$tmp/bytes.jsonl"
printf '[[{"speaker":"user","text":"a"}]]\n' >"$tmp/nested.json"
ibefore=$(sqlite3 "$idb" "SELECT count(*) FROM runs")
bad=0
for c in "jsonl apart.jsonl:3: call 'x' again after other calls" "jsonl speaker.jsonl:1: speaker 'caller': expected agent or user" \
	 "jsonl audio.jsonl:1: audio '$tmp/gone.wav': no such file" "formbharo notr.json: conversation c9: no \"transcript\"" \
	 "jsonl nul.jsonl:2: \\u0000 (a NUL) in a string" "jsonl bytes.jsonl:1: not UTF-8 text (byte 0xFF)" \
	 "formbharo nested.json: conversation 1: expected an object"; do
	set -- $c
	"$BIN" import --db "$idb" --form $form --$1 "$tmp/${2%%:*}" >/dev/null 2>"$tmp/ie"; rc=$?
	msg=${c#* }
	{ [ $rc = 2 ] && grep -qF "$tmp/$msg" "$tmp/ie"; } || { bad=1; echo "# $c: rc $rc: $(cat "$tmp/ie")"; }
done
check "bad imports: exit 2 naming the file, line or conversation, nothing written" \
	'[ $bad = 0 ] && [ "$(sqlite3 "$idb" "SELECT count(*) FROM runs")" = "$ibefore" ]'

# Bad input: a clear message naming it, exit 2, nothing written.
counts() { sqlite3 "$db" "SELECT (SELECT count(*) FROM runs) || '/' || (SELECT count(*) FROM calls)"; }
before=$(counts)
"$BIN" replay --db "$db" --run 99 >/dev/null 2>"$tmp/e1"; rc=$?
check "replay of an unknown run: exit 2, names it" '[ $rc = 2 ] && grep -q "run 99: no such run in" "$tmp/e1"'
"$BIN" replay --db "$db" --call 999 >/dev/null 2>"$tmp/e2"; rc=$?
check "replay of an unknown call: exit 2, names it" '[ $rc = 2 ] && grep -q "call 999: no such call in" "$tmp/e2"'
"$BIN" diff --db "$db" 1 99 >/dev/null 2>"$tmp/e3"; rc=$?
check "diff with an unknown run: exit 2, names it" '[ $rc = 2 ] && grep -q "run 99: no such run in" "$tmp/e3"'
python3 -c "import json,sys; f = json.load(open(sys.argv[1])); [q.update(name = 'other_' + q['name']) for q in f['questions']]; f['branches'][0]['condition']['field'] = 'other_pregnant'; json.dump(f, open(sys.argv[2], 'w'))" $form "$tmp/other.json"
"$BIN" replay --db "$db" --run 1 --form "$tmp/other.json" >/dev/null 2>"$tmp/e4"; rc=$?
check "a form the calls do not fit: exit 2, names the call and the form" \
	'[ $rc = 2 ] && grep -q "call 1 (runs-fixture/c1) does not fit the form" "$tmp/e4"'
mkdir -p "$tmp/gone"
cp -r tests/data/runs_corpus "$tmp/gone/corpus"
cp tests/data/bench_e2e/clip.wav "$tmp/gone/clip.wav"
sed -i "s#\.\./bench_e2e/clip\.wav#$tmp/gone/clip.wav#" "$tmp/gone/corpus/transcripts.csv"
"$BIN" run --headless --form $form --corpus "$tmp/gone/corpus" --db "$tmp/gone.db" >/dev/null 2>&1
rm "$tmp/gone/clip.wav"
g_before=$(sqlite3 "$tmp/gone.db" "SELECT count(*) FROM runs")
"$BIN" replay --db "$tmp/gone.db" --run 1 --stt whispercpp >/dev/null 2>"$tmp/e5"; rc=$?
check "a recording that is gone: exit 2, names the file, nothing written" \
	'[ $rc = 2 ] && grep -q "turn 1: its recording $tmp/gone/clip.wav is gone" "$tmp/e5" && [ "$(sqlite3 "$tmp/gone.db" "SELECT count(*) FROM runs")" = "$g_before" ]'
"$BIN" replay --db "$tmp/gone.db" --run 1 >"$tmp/words.out" 2>&1
check "... while its recorded words still replay" 'tail -1 "$tmp/words.out" | grep -q "\"calls\":3,"'
check "nothing was written by the refused commands" '[ "$(counts)" = "$before" ]'
cp "$db" "$tmp/new.db"
sqlite3 "$tmp/new.db" "PRAGMA user_version = 99"
"$BIN" runs --db "$tmp/new.db" >/dev/null 2>"$tmp/e6"; rc=$?
check "a database of a newer schema: exit 2, both versions named" \
	'[ $rc = 2 ] && grep -q "new.db: schema version 99 is newer than this formdesk knows (6)" "$tmp/e6"'
# a version 4 file: its tables (version 1's and each version's delta), then its rows
cat tests/data/store_v[1-4]_schema.sql tests/data/store_v4.sql | sqlite3 "$tmp/v4.db"
"$BIN" runs --db "$tmp/v4.db" --json >"$tmp/v4.json"
check "a database of an older schema: its calls in runs, marked migrated" \
	'[ "$(python3 -c "import json,sys; print(\",\".join(r[\"source\"]+str(r[\"calls\"])+str(r[\"migrated\"]) for r in map(json.loads, open(sys.argv[1]))))" "$tmp/v4.json")" = "run2True,run1True,typed1True,mic1True" ]'
"$BIN" replay --db "$tmp/v4.db" --run 9 >/dev/null 2>"$tmp/e7"; rc=$?
check "an unknown run of a migrated database: exit 2" '[ $rc = 2 ] && grep -q "run 9: no such run" "$tmp/e7"'
echo "1..$n"
