#!/bin/bash
# End-to-end: `formdesk corpus build` lays out a small corpus from a fixture profile
# (tests/data/bench_e2e: 1 caller, 2 paths x 2 clinic answers, conditions ideal and noise;
# some answers recorded, the rest spoken by espeak-ng), then `formdesk bench` runs it
# offline: the report files exist, results.csv has the columns `formdesk select` reads,
# every SVG parses as XML, a rerun does no new work, and bad input is named.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
T=$tmp
D=tests/data/bench_e2e

"$BIN" corpus build --form $D/form.json --profiles $D/profiles.json --out "$T/c" --synthesize 2>"$T/build.err"
check "corpus build exits 0" "[ $? = 0 ]"
# 2 pregnancy paths x (clinic given | unknown) = 4 paths, each in the ideal and the noise
# condition; the noise variants of synthesized answers are made from their ideal audio.
calls=$(grep -c . "$T/c/expected.jsonl")
check "8 calls: 4 paths x 2 conditions" "[ $calls = 8 ]"
check "noise variants made and counted" "grep -q 'acoustic variants' $T/build.err && ! grep -q 'conditions left out' $T/build.err && ls $T/c/audios/*__noise.wav >/dev/null 2>&1"
check "recorded answers referred to by path, synthesized ones marked" \
	"grep -q 'clip.wav,ideal,false' $T/c/transcripts.csv && grep -q ',ideal,true' $T/c/transcripts.csv"
check "call ids name caller, path and condition" "grep -q '^sunita-p01-ideal,1,' $T/c/calls.csv"

"$BIN" bench --form $D/form.json --corpus "$T/c" --out "$T/out" --db "$T/b.db" 2>"$T/bench.err"
check "bench exits 0" "[ $? = 0 ]"
for f in report.md results.csv tradeoff-extract.svg tradeoff-call.svg sweep-reply.svg; do
	check "report file $f exists" "[ -s $T/out/$f ]"
done
check "results.csv has the columns select reads" \
	"head -1 $T/out/results.csv | grep -q '^stage,model,accuracy,p95_ms,cost_usd,'"
check "results.csv has a row per stage" "[ \$(grep -c -E '^(stt|extract|reply|call),' $T/out/results.csv) = 4 ]"
check "integration: form completion 1 on reference transcripts" \
	"grep -q '^call,call:reference+rules+script,1.000000,' $T/out/results.csv"
check "report counts the unit tests" "grep -q 'REPLY, end-call' $T/out/report.md"
check "report: p50/p95 of each latency part, each with what governs it, and per field asked" \
	"grep -q '^### Where a turn.s time goes' $T/out/report.md && grep -q '^| extract_ack | rules | ' $T/out/report.md && grep -q '^| formdesk | formdesk | ' $T/out/report.md && grep -qE '^\| name \| 8 \| [0-9.]+ / [0-9.]+ ms \|' $T/out/report.md"
check "every SVG parses as XML (and there are 9: the 8 stage charts and field-accuracy.svg)" \
	"python3 -c 'import sys, glob, xml.etree.ElementTree as E; g = glob.glob(sys.argv[1] + \"/*.svg\"); [E.parse(p) for p in g]; sys.exit(len(g) != 9)' $T/out"
"$BIN" select --results "$T/out/results-extract.csv" >/dev/null 2>&1
check "select reads a stage's results" "[ $? = 0 ]"
"$BIN" select --results "$T/out" >/dev/null 2>"$T/sel.err"
check "select refuses the folder's results.csv, which mixes stages, naming the line" \
	"[ $? = 2 ] && grep -q \"results.csv:3: column 'stage'\" $T/sel.err"
"$BIN" bench --form $D/form.json --corpus "$T/c" --out "$T/out" --db "$T/b.db" 2>"$T/again.err"
check "a rerun does no new work" "grep -q 'run now: 0, 0, 0, 0' $T/again.err"
check "no progress bar when stderr is not a terminal" "! grep -q '\[#' $T/bench.err"

"$BIN" bench --form $D/form.json --corpus "$T/nowhere" --out "$T/o2" --db "$T/b.db" 2>"$T/bad.err"
check "a missing corpus exits 2 naming it" "[ $? = 2 ] && grep -q nowhere $T/bad.err"
"$BIN" bench --form $D/form.json --corpus "$T/c" --out "$T/o2" --extract nosuch 2>"$T/bad2.err"
check "an unknown EXTRACT backend exits 2 naming it" "[ $? = 2 ] && grep -q nosuch $T/bad2.err"
"$BIN" bench --form $D/form.json --corpus "$T/c" --out "$T/o2" --db "$T/b.db" --judge nosuch 2>"$T/bad5.err"
check "an unknown judge exits 2 naming it" "[ $? = 2 ] && grep -q 'judge nosuch' $T/bad5.err"
printf '{"judge":"openai:judge-x"}' >"$T/judge.json"
env -u OPENAI_API_KEY FORMDESK_CONFIG="$T/judge.json" "$BIN" bench --form $D/form.json --corpus "$T/c" \
	--out "$T/o2" --db "$T/b.db" 2>"$T/bad6.err"
check "the config file's judge is used, its missing key named" \
	"[ $? = 2 ] && grep -q 'judge openai:judge-x: OPENAI_API_KEY is not set' $T/bad6.err"
printf '{"today":"2025-03-15","callers":[{"id":"Bad Id","answers":{}}]}' >"$T/bad.json"
"$BIN" corpus build --form $D/form.json --profiles "$T/bad.json" --out "$T/c2" 2>"$T/bad3.err"
check "a bad caller id exits 2 naming file, caller and field" \
	"[ $? = 2 ] && grep -q \"bad.json: callers\[0\] ('Bad Id'): field 'id'\" $T/bad3.err"
"$BIN" corpus build --form $D/form.json --profiles $D/profiles.json --out "$T/c3" 2>"$T/bad4.err"
check "a missing recording without --synthesize is named" \
	"[ $? = 2 ] && grep -q \"field 'pregnant': no recording for 'yes'\" $T/bad4.err"
