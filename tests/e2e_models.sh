#!/bin/bash
# e2e_models: model options on every command: a provider whose key is not set is refused
# before anything runs, naming the environment variable (never a key); a bad --config is
# named; extract --extract tries one utterance on a local chat-completions server
# (127.0.0.1, python3's standard library) and prints the request's usage, not the key.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
FORM=forms/armman_enrollment.json
# ok STATUS WHAT: this script's checks give the status first
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

unset OPENAI_API_KEY OPENROUTER_API_KEY ANTHROPIC_API_KEY
"$BIN" run --headless --corpus tests/data/corpus_good --db "$tmp/a.db" --extract openrouter:google/gemini-3.5-flash >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q 'OPENROUTER_API_KEY is not set' "$tmp/err"
ok $? "run: a missing key is named by its variable, exit 2 ($(head -c 160 "$tmp/err" | tr '\n' ' '))"
"$BIN" --corpus tests/data/corpus_good --db "$tmp/b.db" --reply anthropic </dev/null >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q 'ANTHROPIC_API_KEY is not set' "$tmp/err"
ok $? "simulator: a missing key is named before the screen, exit 2"
"$BIN" extract --form "$FORM" --field pregnant --extract openai "haan ji" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'OPENAI_API_KEY is not set' "$tmp/err"
ok $? "extract: a missing key is named, nothing on stdout, exit 2"
"$BIN" run --headless --corpus tests/data/corpus_good --db "$tmp/c.db" --config "$tmp/none.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -qF "$tmp/none.json" "$tmp/err"
ok $? "run: a missing --config file is named, exit 2"

cat >"$tmp/server.py" <<'PY'
import json
from jsonserver import serve
def answer(req):
    auth = req.headers.get("Authorization", "")
    content = json.dumps({"ack": "ji", "fields": [{"field": "pregnant", "value": True,
                          "skip": False, "reason": "none"}]})
    return (200 if auth == "Bearer sk-e2e-KEY-0123456789" else 401), \
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
         "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": content}}],
         "usage": {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220}}
serve(answer)
PY
serve_local "$tmp/server.py"
printf '{"providers":{"openai":{"usd_per_million_input_tokens":1,"usd_per_million_output_tokens":2}}}' >"$tmp/cfg.json"
OPENAI_BASE_URL=http://127.0.0.1:$port OPENAI_API_KEY=sk-e2e-KEY-0123456789 \
	"$BIN" extract --form "$FORM" --field pregnant --config "$tmp/cfg.json" --extract openai:gpt-test "haan ji" >"$tmp/out" 2>"$tmp/err"
rc=$?
python3 - "$tmp/out" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
u = o["usage"]
assert o["pregnant"] == {"status": "answered", "value": True}, o
assert u["provider"] == "openai" and u["model"] == "gpt-test" and u["attempts"] == 1, u
assert u["tokens_in"] == 200 and u["tokens_out"] == 20 and abs(u["cost_usd"] - 0.00024) < 1e-12, u
PY
[ $? = 0 ] && [ $rc = 0 ]
ok $? "extract --extract openai: the model's answer through the rules, with tokens and cost ($(head -c 300 "$tmp/out"))"
! grep -qF 'sk-e2e-KEY-0123456789' "$tmp/out" "$tmp/err"
ok $? "extract: the key is not printed"
OPENAI_BASE_URL=http://127.0.0.1:$port OPENAI_API_KEY=sk-wrong \
	"$BIN" extract --form "$FORM" --field pregnant --extract openai:gpt-test "haan ji" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q '401' "$tmp/err" && ! grep -qF 'sk-wrong' "$tmp/err"
ok $? "extract: a refused key is exit 1 with the status, not the key ($(head -c 200 "$tmp/err"))"
echo "1..$n"
