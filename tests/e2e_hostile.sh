#!/bin/bash
# e2e_hostile: text that is not valid UTF-8, or that hides words after a NUL, is refused as
# the fault it is, never stored as an answer: a model's value (bad bytes, \u0000) through a
# local chat-completions server (127.0.0.1, python3's standard library), a typed caller's
# line (bad bytes, a NUL byte). The output stays valid UTF-8 and the exit status says so.
# Files that are not files: an audio path that is a FIFO or a device is refused unread; a
# run whose turns' audio cannot be decoded exits 2. Time: a form of 20,000 options loads at
# once (it took minutes: each option was normalized against every other), a regex rule
# that would expand to 2^25 copies is refused at once, not compiled for minutes.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
FORM=forms/armman_enrollment.json
# ok STATUS WHAT: this script's checks give the status first
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
utf8() { python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$1"; }

cat >"$tmp/server.py" <<'PY'
import json, sys
from chatserver import serve
MODE = sys.argv[1]
def answer(body):
    with open(MODE + ".sent", "a") as f:
        f.write("%d\n" % len(body))
    mode = open(MODE).read().strip()
    if mode in ("long", "huge"):
        n = 100000 if mode == "long" else 1000000
        return 200, json.dumps({"ack": "a" * n, "fields": [{"field": "name", "value": "b" * (n // 2),
                                "skip": False, "reason": "none"}]})
    value = {"bytes": "Sun\udcffita", "nul": "Sun\u0000ita Devi", "ok": "Sunita", "refused": "x"}[mode]
    ack = "the form is complete, thank you" if mode == "refused" else "ji"
    return 200, json.dumps({"ack": ack, "fields": [{"field": "name", "value": value,
                            "skip": False, "reason": "none"}]}, ensure_ascii=False)
serve(answer)
PY
echo ok >"$tmp/mode"
serve_local "$tmp/server.py" "$tmp/mode"
export OPENAI_BASE_URL=http://127.0.0.1:$port OPENAI_API_KEY=sk-hostile-0123456789
printf '{"providers":{"openai":{"retries":0,"stream":false}}}' >"$tmp/cfg.json"

extract() { "$BIN" extract --form "$FORM" --field name --config "$tmp/cfg.json" --extract openai:m "mera naam Sunita hai" >"$tmp/out" 2>"$tmp/err"; }
extract
rc=$?
[ $rc = 0 ] && grep -q '"value":"Sunita"' "$tmp/out"
ok $? "extract: a good answer is taken (the server works)"
for mode in bytes nul; do
	echo $mode >"$tmp/mode"
	extract
	rc=$?
	# bad bytes: the whole answer is refused (a stage failure, exit 1); a \u0000 inside the
	# model's JSON: the extraction's fault, nothing taken
	! grep -q '"answered"' "$tmp/out" && utf8 "$tmp/out" &&
		grep -qE 'not valid UTF-8|NUL character' "$tmp/err"
	ok $? "extract: a model's value with $mode is refused as a fault, exit $rc ($(head -c 200 "$tmp/err" | tr '\n' ' '))"
	"$BIN" run --headless --form "$FORM" --corpus tests/data/corpus_good --db "$tmp/$mode.db" \
		--config "$tmp/cfg.json" --extract openai:m >"$tmp/out" 2>"$tmp/err"
	utf8 "$tmp/out" && ! grep -q '"name":"Sun' "$tmp/out" &&
		[ "$(sqlite3 "$tmp/$mode.db" "select count(*) from calls where form_data like '%Sun%ita%'")" = 0 ]
	ok $? "run: a model's value with $mode is stored nowhere, the output is valid UTF-8"
done

# the acknowledgement of an answer the rules refuse (a one-letter name) is not said
for mode in refused ok; do
	echo $mode >"$tmp/mode"
	echo "mera naam x" | "$BIN" --typed --headless --tts none --db "$tmp/ack-$mode.db" \
		--config "$tmp/cfg.json" --extract openai:m >/dev/null 2>&1
	sqlite3 "$tmp/ack-$mode.db" "select coalesce(ack, '-') from turns where transcript = 'mera naam x'" >"$tmp/ack-$mode"
done
[ "$(cat "$tmp/ack-refused")" = - ] && [ "$(cat "$tmp/ack-ok")" = ji ]
ok $? "typed: a refused answer's acknowledgement is neither said nor stored (refused: $(cat "$tmp/ack-refused"), taken: $(cat "$tmp/ack-ok"))"

# sizes: answers of 150 KB (an ack of 100 KB, a name of 50 KB) and of 1.5 MB, three turns
# each, as EXTRACT and as REPLY: cut or refused, and said so; the history sent back stays
# small and so does the database
for mode in long huge; do
	echo $mode >"$tmp/mode"
	: >"$tmp/mode.sent"
	printf 'mera naam Sunita\nGaya\nhaan\n' | "$BIN" --typed --headless --tts none --db "$tmp/size-$mode.db" \
		--config "$tmp/cfg.json" --extract openai:m --reply openai:m >/dev/null 2>"$tmp/err-$mode"
	db=$(stat -c %s "$tmp/size-$mode.db")
	sent=$(sort -n "$tmp/mode.sent" | tail -1)
	[ "$db" -lt 300000 ] && [ "$sent" -lt 60000 ]
	ok $? "sizes ($mode): database $db bytes, largest request $sent bytes"
done
sqlite3 "$tmp/size-long.db" "select extraction from turns" >"$tmp/faults"
grep -q 'ack cut to 400 bytes (it was 100000)' "$tmp/faults" &&
	grep -q 'name: a value of 50000 bytes refused (at most 1000)' "$tmp/faults" &&
	grep -q 'reply: [0-9]* bytes cut (at most 2000 are said and kept)' "$tmp/err-long"
ok $? "sizes: what was cut or refused is said (the extraction's fault, the run's messages)"
grep -q 'more than the 262144 an answer may be; refused' "$tmp/err-huge"
ok $? "sizes: a 1.5 MB answer is refused whole ($(grep -o 'the answer is [^;]*' "$tmp/err-huge" | head -1))"

# typed lines: bad bytes, a NUL byte, then a good line
printf 'mera naam Sun\xffita hai\nmera naam Sun\x00ita hai\nmera naam Sunita hai\n' |
	"$BIN" --typed --headless --tts none --db "$tmp/typed.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q 'not valid UTF-8 at byte 14; refused' "$tmp/err" &&
	grep -q 'stdin line 2: .*NUL byte (byte 14); refused' "$tmp/err"
ok $? "typed: bad bytes and a NUL byte are refused, named, exit 2 ($(tr '\n' ' ' <"$tmp/err" | head -c 300))"
utf8 "$tmp/out" && grep -q '"name":"Sunita"' "$tmp/out" &&
	[ "$(sqlite3 "$tmp/typed.db" "select count(*) from turns where transcript like '%Sun%ita%' and transcript != 'mera naam Sunita hai'")" = 0 ]
ok $? "typed: only the good line became a turn"

python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("forms/armman_enrollment.json"))
for q in d["questions"]:
    if q["name"] == "district":
        q["options"] = ["District number %d" % i for i in range(20000)] + ["  district NUMBER 7 "]
json.dump(d, open(sys.argv[1] + "/options.json", "w"), ensure_ascii=False)
for q in d["questions"]:
    if q["name"] == "aadhaar_last4":
        q["validation"] = {"type": "regex", "rules": {"pattern": "(" * 25 + "a" + "){1,2}" * 25}}
    if q["name"] == "district":
        q["options"] = ["Gaya", "Patna"]
json.dump(d, open(sys.argv[1] + "/regex.json", "w"), ensure_ascii=False)
PY
timeout 30 "$BIN" check-form "$tmp/options.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'options\[20000\]".*the same as options\[7\]' "$tmp/out"
ok $? "check-form: 20,001 options load within 30 s (sanitizer build), the repeated one named (exit $rc)"
timeout 30 "$BIN" check-form "$tmp/regex.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'regular expression is too large' "$tmp/out"
ok $? "check-form: a regex of 2^25 expanded copies is refused at once (exit $rc: $(head -c 200 "$tmp/out"))"

# audio paths that are not regular files: refused before anything opens them (a FIFO
# would block the reader for ever)
cp -r tests/data/corpus_good "$tmp/fifo"
rm "$tmp/fifo/audios/u_name.wav"
mkfifo "$tmp/fifo/audios/u_name.wav"
timeout 60 "$BIN" run --headless --form "$FORM" --corpus "$tmp/fifo" --db "$tmp/f.db" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "u_name.wav is not a regular file" "$tmp/err"
ok $? "run: a corpus audio that is a FIFO is refused, named, exit 2 ($(head -c 200 "$tmp/err"))"
for dev in "$tmp/fifo/audios/u_name.wav" /dev/zero; do
	timeout 60 "$BIN" vad "$dev" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q "not a regular file" "$tmp/err"
	ok $? "vad: $dev is refused unread, exit $rc"
done

# turns whose audio cannot be decoded (the fixture's files are empty): the run says so
"$BIN" run --headless --form "$FORM" --corpus tests/data/corpus_good --db "$tmp/u.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "turns' audio could not be read" "$tmp/err" && [ -s "$tmp/out" ]
ok $? "run: undecodable turn audio is exit 2 after the calls ($(tail -1 "$tmp/err"))"
echo "1..$n"
