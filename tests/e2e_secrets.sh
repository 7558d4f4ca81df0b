#!/bin/bash
# e2e_secrets: a model server (127.0.0.1, python3's standard library) that quotes the
# caller's key in its errors and in its answers, at offsets from 0 to 400 bytes into its
# words: after a headless run, neither the key nor any 8 bytes of it in a row are in the
# output, the messages, the run's database or its exports.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
# ok STATUS WHAT: this script's checks give the status first
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
KEY=sk-proj-Zq8Xv3Lm7Pw2Rt9Yb4Nc6Hd1Jf5Kg0Aa
export KEY

cat >"$tmp/server.py" <<'PY'
import json, os, sys
from chatserver import serve
KEY = os.environ["KEY"]
OFFSETS = [0, 1, 150, 185, 189, 190, 191, 195, 198, 199, 200, 210, 250, 300, 399, 400]
count = [0]
def answer(body):
    i = count[0]
    count[0] += 1
    off = OFFSETS[(i // 2) % len(OFFSETS)]
    said = "".join(chr(97 + k % 26) for k in range(off)) + KEY + " is not valid"
    if i % 2 == 0:
        return 400, {"error": {"message": said, "type": "invalid_request_error"}}
    return 200, json.dumps({"ack": said, "fields": [{"field": "name", "value": said,
                           "skip": False, "reason": "none"}]})
serve(answer)
PY
serve_local "$tmp/server.py"
printf '{"providers":{"openai":{"retries":0,"stream":false}}}' >"$tmp/cfg.json"

# every 8 bytes of the key in a row, one per line, for grep -F
python3 -c 'import os; k = os.environ["KEY"]; print("\n".join(k[i:i + 8] for i in range(len(k) - 7)))' >"$tmp/grams"

for round in 1 2 3; do
	OPENAI_BASE_URL=http://127.0.0.1:$port OPENAI_API_KEY=$KEY \
		"$BIN" run --headless --form forms/armman_enrollment.json --corpus tests/data/corpus_good \
		--db "$tmp/run.db" --config "$tmp/cfg.json" --extract openai:gpt-test --reply openai:gpt-test \
		>>"$tmp/out" 2>>"$tmp/err"
done
[ -s "$tmp/out" ]
ok $? "run: three headless runs against a server quoting the key ($(wc -l <"$tmp/out") lines)"
! grep -qF -f "$tmp/grams" "$tmp/out" "$tmp/err"
ok $? "run: no 8 bytes of the key in its output or messages"
sqlite3 "$tmp/run.db" .dump >"$tmp/dump.sql" && [ -s "$tmp/dump.sql" ] && grep -q '\*\*\*' "$tmp/dump.sql"
ok $? "the database holds the providers' words with the key scrubbed"
! grep -qF -f "$tmp/grams" "$tmp/dump.sql"
ok $? "the database: no 8 bytes of the key ($(grep -oF -f "$tmp/grams" "$tmp/dump.sql" | head -3 | tr '\n' ' '))"
for task in name-match turn-errors stt; do
	"$BIN" export --db "$tmp/run.db" --format jsonl --task $task --all >>"$tmp/export" 2>>"$tmp/export.err"
done
! grep -qF -f "$tmp/grams" "$tmp/export" "$tmp/export.err"
ok $? "exports: no 8 bytes of the key ($(wc -c <"$tmp/export") bytes exported)"
echo "1..$n"
