#!/bin/bash
# End-to-end: `formdesk run --headless` on the two bundled corpora, with the reference
# transcripts, into a fresh database. TAP-style lines. Needs the corpora built (`make`).
#  demo:   form-completion accuracy exactly 1; every call complete; all 48 branch paths
#          for every caller; the expected status of every call met; per turn, the
#          end of speech to the first words in named parts adding up to the total.
#  respin: every call failed after 5 caller turns, nothing answered, name skipped.
#  store:  every turn of both runs is in the database, with its transcript and decision.
#  errors: a missing corpus, a bad --today and an unknown backend exit 2 naming the fault.
set -u
cd "$(dirname "$0")/.."
BIN=${FORMDESK_BIN:-./build/san/formdesk}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/run.db
n=0
fails=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
	fi
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# check PY_EXPR FILE: python3 evaluates the expression over `calls` (the JSON call lines
# of FILE) and `acc` (the accuracy line or None); prints what it found when false.
check() {
	python3 - "$2" "$1" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
calls = [l for l in lines if "call_id" in l]
accs = [l for l in lines if "form_completion_accuracy" in l]
acc = accs[-1] if accs else None
ok = eval(sys.argv[2])
if not ok:
    print("# false:", sys.argv[2], file=sys.stderr)
    print("# accuracy:", acc, "calls:", len(calls), file=sys.stderr)
    for c in calls[:3]:
        print("#", json.dumps(c, ensure_ascii=False)[:300], file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

sql() {
	sqlite3 -batch -noheader "$db" "$1"
}

# sql_is WANT QUERY WHAT: ok when QUERY's answer on the database is WANT; the line says WHAT
# and the answer.
sql_is() {
	local got
	got=$(sql "$2")
	[ "$got" = "$1" ]
	ok $? "$3 ($got)"
}

# ---- demo ----
if [ -f corpus/demo/corpus.json ]; then
	"$BIN" run --headless --form forms/armman_enrollment.json --corpus demo --db "$db" \
		>"$tmp/demo.out" 2>"$tmp/demo.err"
	rc=$?
	ok $rc "demo: run exits 0"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/demo.err" | head -20
	ok "$(check 'len(calls) == 144' "$tmp/demo.out"; echo $?)" "demo: one line per call (144)"
	check 'acc is not None and acc["form_completion_accuracy"] == 1 and acc["fields"] > 0 and acc["correct"] == acc["fields"]' "$tmp/demo.out"
	ok $? "demo: form_completion_accuracy is exactly 1"
	if [ "$(grep -c 'field' "$tmp/demo.err")" != 0 ]; then
		grep 'field' "$tmp/demo.err" | head -10 | sed 's/^/# /'
	fi
	check 'all(c["status"] == "complete" for c in calls)' "$tmp/demo.out"
	ok $? "demo: every call complete"
	check 'all(set(c) == {"call_id","db_id","status","reason","form_data","form_status","turns","cost_usd","latency_ms","requests","failed_requests","per_turn"} and c["turns"] > 0 and c["cost_usd"] == 0 and c["requests"] == 0 and set(c["latency_ms"]) == {"stt","extract","reply","turns","turn_max"} for c in calls)' "$tmp/demo.out"
	ok $? "demo: each line has call_id, status, form_data, form_status, turns, cost and latency (offline: no requests, no cost)"
	check 'all(len(c["per_turn"]) == c["turns"] and [t["turn"] for t in c["per_turn"]] == list(range(1, c["turns"] + 1)) and all([p["name"] for p in t["latency"]["parts"]] == ["endpointing","stt","extract_ack","rules","reply_first_sentence","tts_first_audio","playback_start","formdesk"] and all(isinstance(p["governed_by"], str) and p["governed_by"] for p in t["latency"]["parts"]) and abs(sum(p["ms"] for p in t["latency"]["parts"]) - t["latency"]["total_ms"]) < 1e-6 for t in c["per_turn"]) for c in calls)' "$tmp/demo.out"
	ok $? "demo: per turn, the end of speech to the agent's first words in named parts that add up to the total"
	check 'all(c["turns"] == sum(1 for s in c["form_status"].values() if s != "empty") for c in calls)' "$tmp/demo.out"
	ok $? "demo: one caller turn per question asked"
	sql_is "jhanvi=48 jhumri=48 khushboo=48" "SELECT group_concat(caller || '=' || n, ' ') FROM (SELECT caller, count(DISTINCT path) AS n FROM calls WHERE corpus = 'demo' GROUP BY caller ORDER BY caller)" \
		"demo: all 48 branch paths for every caller"
	# The 48 paths, as the expected forms show them: pregnancy x linked x WhatsApp x Aadhaar.
	check 'len({(c["form_status"]["gestational_age"], c["form_status"]["linked_number"], c["form_data"]["phone_linked"], c["form_status"]["whatsapp_same"], c["form_status"]["whatsapp_number"], c["form_status"]["aadhaar_last4"]) for c in calls}) == 48' "$tmp/demo.out"
	ok $? "demo: the final forms show 2 x 3 x 4 x 2 = 48 distinct paths"
	! grep -q 'expected status' "$tmp/demo.err"
	ok $? "demo: every call ends with its expected status"
	demo_turns=$(python3 -c 'import json,sys; print(sum(json.loads(l).get("turns",0) for l in open(sys.argv[1])))' "$tmp/demo.out")
	want_turns=$(($(wc -l <corpus/demo/calls.csv) - 1))
	[ "$demo_turns" = "$want_turns" ]
	ok $? "demo: the calls used every caller turn of calls.csv ($demo_turns of $want_turns)"
else
	skip "demo corpus" "corpus/demo not built (run make)"
fi

# ---- respin ----
if [ -f corpus/respin/corpus.json ]; then
	"$BIN" run --headless --corpus respin --db "$db" >"$tmp/respin.out" 2>"$tmp/respin.err"
	rc=$?
	ok $rc "respin: run exits 0"
	[ $rc = 0 ] || sed 's/^/# /' "$tmp/respin.err" | head -20
	check 'len(calls) == 19' "$tmp/respin.out"
	ok $? "respin: 19 calls"
	check 'all(c["status"] == "failed" for c in calls)' "$tmp/respin.out"
	ok $? "respin: every call failed"
	check 'all(c["turns"] == 5 for c in calls)' "$tmp/respin.out"
	ok $? "respin: 5 caller turns each"
	check 'all("answered" not in c["form_status"].values() and all(v is None for v in c["form_data"].values()) for c in calls)' "$tmp/respin.out"
	ok $? "respin: no field answered"
	check 'all(c["form_status"]["name"] == "skipped" for c in calls)' "$tmp/respin.out"
	ok $? "respin: name skipped"
	grep -q 'CC-BY-4.0' "$tmp/respin.err"
	ok $? "respin: the CC-BY-4.0 attribution is shown"
	sql_is "95" "SELECT count(*) FROM turns t JOIN calls c ON c.id = t.call_id WHERE c.corpus = 'respin' AND t.seg_start_ms IS NOT NULL" \
		"respin: the endpointer found speech in all 95 clips"
	sql_is "19" "SELECT count(*) FROM calls WHERE corpus = 'respin' AND reason LIKE 'district%'" \
		"respin: every call ends on district running out of retries"
else
	skip "respin corpus" "corpus/respin not built (clips absent)"
fi

# ---- the store ----
if [ -f "$db" ]; then
	want=$(cat "$tmp"/*.out | python3 -c 'import json,sys; print(sum(json.loads(l).get("turns",0) for l in sys.stdin if l.strip()))')
	got=$(sql "SELECT count(*) FROM turns")
	[ "$got" = "$want" ] && [ "$got" -gt 0 ]
	ok $? "store: every turn of both runs is in the database ($got of $want)"
	sql_is "0" "SELECT count(*) FROM turns WHERE transcript IS NULL OR decision IS NULL OR json_valid(decision) = 0" \
		"store: every turn has its transcript and decision"
	sql_is "0" "SELECT count(*) FROM calls WHERE status = 'in_progress' OR ended_at IS NULL" \
		"store: every call is closed with its status"
	sql_is "0" "SELECT count(*) FROM calls c WHERE turns != (SELECT count(*) FROM turns t WHERE t.call_id = c.id)" \
		"store: each call's turn count matches its turn rows"
	sql_is "wal" "PRAGMA journal_mode" \
		"store: WAL journal"
	if [ -f "$tmp/demo.out" ]; then
		got=$(sql "SELECT count(*) FROM verdicts v JOIN turns t ON t.id = v.turn_id JOIN calls c ON c.id = t.call_id WHERE c.corpus = 'demo'")
		[ "$got" -gt 0 ]
		ok $? "store: verdicts are rows ($got for the demo run)"
	fi
fi

# ---- a kill in the middle of a run ----
if [ -f corpus/demo/corpus.json ]; then
	kdb=$tmp/kill.db
	"$BIN" run --headless --corpus demo --db "$kdb" >/dev/null 2>&1 &
	pid=$!
	# Wait (without a deadline that could fail a slow machine) for some turns, then kill.
	for _ in $(seq 1 3000); do
		c=$(sqlite3 -batch -noheader "$kdb" "SELECT count(*) FROM turns" 2>/dev/null || echo 0)
		[ "${c:-0}" -ge 30 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	got=$(sqlite3 -batch -noheader "$kdb" "SELECT count(*) FROM turns")
	bad=$(sqlite3 -batch -noheader "$kdb" "SELECT count(*) FROM calls c WHERE turns != (SELECT count(*) FROM turns t WHERE t.call_id = c.id)")
	holes=$(sqlite3 -batch -noheader "$kdb" "SELECT count(*) FROM turns t WHERE idx > 1 AND NOT EXISTS (SELECT 1 FROM turns p WHERE p.call_id = t.call_id AND p.idx = t.idx - 1)")
	[ "${got:-0}" -gt 0 ] && [ "$bad" = 0 ] && [ "$holes" = 0 ]
	ok $? "kill -9 during a run: the $got finished turns are all there, whole and in order"
fi

# ---- errors ----
"$BIN" run --headless --corpus "$tmp/nowhere" --db "$tmp/e.db" >/dev/null 2>"$tmp/e1"
rc=$?
[ $rc = 2 ] && grep -q "$tmp/nowhere: no such corpus folder" "$tmp/e1"
ok $? "a missing corpus folder: exit 2 naming it"
"$BIN" run --headless --corpus tests/data/corpus_bad_utterance --db "$tmp/e.db" >/dev/null 2>"$tmp/e2"
rc=$?
[ $rc = 2 ] && grep -q "calls.csv:5: field 'utterance_id': unknown utterance 'u_nobody'" "$tmp/e2"
ok $? "a bad corpus: exit 2 with FILE:LINE: field"
"$BIN" run --headless --corpus "$tmp/x/respin" --db "$tmp/e.db" >/dev/null 2>"$tmp/e3"
rc=$?
[ $rc = 2 ] && grep -q 'FORMDESK_RESPIN' "$tmp/e3"
ok $? "a real-speech corpus never made: says where to get the clips"
"$BIN" run --headless --corpus demo --today 2025-13-40 --db "$tmp/e.db" >/dev/null 2>"$tmp/e4"
rc=$?
[ $rc = 2 ] && grep -q "today '2025-13-40'" "$tmp/e4"
ok $? "a bad --today: exit 2 naming it"
"$BIN" run --headless --corpus demo --extract nosuch --db "$tmp/e.db" >/dev/null 2>"$tmp/e5"
rc=$?
[ $rc = 2 ] && grep -qi 'extract' "$tmp/e5"
ok $? "an unknown backend: exit 2 naming it"

# ---- the corpus generators ----
python3 - corpus/demo/profiles.json "$tmp/p.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
del p["callers"][1]["answers"]["aadhaar_last4"]["dont_know"]
json.dump(p, open(sys.argv[2], "w"), ensure_ascii=False)
EOF
"$BIN" corpus build --form forms/armman_enrollment.json --profiles "$tmp/p.json" --out "$tmp/demo" --synthesize >/dev/null 2>"$tmp/g1"
rc=$?
[ $rc = 2 ] && grep -q "$tmp/p.json: callers\[1\] ('jhumri'): field 'aadhaar_last4': 'dont_know' must be the caller's words" "$tmp/g1"
ok $? "corpus build: a profile without a 'don't know' answer is named"
"$BIN" corpus build --form forms/armman_enrollment.json --profiles corpus/demo/profiles.json --out "$tmp/demo" --synthesize >"$tmp/g2" 2>&1 &&
	"$BIN" corpus build --form forms/armman_enrollment.json --profiles corpus/demo/profiles.json --out "$tmp/demo" --synthesize >/dev/null 2>&1 &&
	cmp -s "$tmp/demo/calls.csv" corpus/demo/calls.csv && cmp -s "$tmp/demo/expected.jsonl" corpus/demo/expected.jsonl
ok $? "corpus build: the same profiles give the same corpus as the bundled demo"
mkdir -p "$tmp/clips/aa"
printf 'c1\tपहला\n' >"$tmp/clips/aa/text.tsv"
"$BIN" corpus-respin --clips "$tmp/clips" --out "$tmp/r" >/dev/null 2>"$tmp/g3"
rc=$?
[ $rc = 2 ] && grep -q "text.tsv:1: clip .*c1.mp3" "$tmp/g3"
ok $? "corpus-respin: a missing clip is named with its text.tsv line"

# A corpus played with a form it was not made for, and a form that misbehaves: warnings on
# stderr before the calls (named file, field), the run still made.
"$BIN" run --headless --corpus tests/data/corpus_good --form tests/data/bench_form.json --db "$tmp/w.db" >"$tmp/w.out" 2>"$tmp/w.err"
grep -q "^formdesk run: tests/data/corpus_good/corpus.json:form: warning: corpus 'fixture' was made for the form forms/armman_enrollment.json, not tests/data/bench_form.json" "$tmp/w.err" &&
	grep -q "warning: corpus 'fixture' never answers 2 of the form's 3 fields .*: pregnant, months." "$tmp/w.err" &&
	grep -q "warning: corpus 'fixture' expects 1 field the form does not have: district." "$tmp/w.err" &&
	[ "$(grep -c '"call_id"' "$tmp/w.out")" -ge 1 ]
ok $? "run: a corpus made for another form is warned about, with the fields it never answers"
"$BIN" run --headless --corpus tests/data/corpus_good --form tests/data/forms/lint/misbehaving.json --db "$tmp/w2.db" >/dev/null 2>"$tmp/w2.err"
grep -q "^formdesk run: tests/data/forms/lint/misbehaving.json: warning: questions\[0\].script: Question 'no_script' (questions\[0\]) has no script" "$tmp/w2.err"
ok $? "run: the form's warnings (check-form's) are said before the calls"

echo "1..$n"
[ $fails = 0 ]
