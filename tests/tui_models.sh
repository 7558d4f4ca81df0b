#!/bin/bash
# tui_models: the simulator on slow language models, driven in tmux. A local
# chat-completions server (127.0.0.1, python3's standard library) answers EXTRACT and
# REPLY after a delay read from a file for each request. While a model thinks the screen
# keeps drawing: the status bar names the stage waited for and its timer moves; turns
# still arrive; q quits at once with a request in flight, and the turn is recorded as
# cancelled. The key is never on the screen or in the database. TAP-style output;
# deadlines are generous and only bound waits for what is checked.
set -u
cd "$(dirname "$0")/.."
KEY=sk-tui-KEY-never-shown-0123456789

. tests/lib/tmux.sh
tmux_start models python3 sqlite3

# The model server: documented chat.completion objects; EXTRACT requests carry
# response_format and get an empty extraction, REPLY requests a Hindi question.
cat >"$tmp/server.py" <<'PY'
import json, sys, time
from jsonserver import serve
delay_file = sys.argv[1]
def answer(req):
    body = json.loads(req.body or b"{}")
    with open(delay_file) as f:
        delay = float(f.read().strip())
    end = time.monotonic() + delay
    while time.monotonic() < end:
        time.sleep(0.05)
    if "response_format" in body:
        content = json.dumps({"ack": "ji", "fields": []})
    else:
        content = "कृपया दोबारा बताइए?"
    return 200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                 "model": body.get("model", "m"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": content}}],
                 "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}}
serve(answer, threads=True)
PY
echo 2 >"$tmp/delay"
serve_local "$tmp/server.py" "$tmp/delay"

demo_corpus
echo "# corpus $corpus, binary $BIN, model server on port $port"

WAITING='waiting for (EXTRACT|REPLY) \(openai\) [0-9]+\.[0-9] s'
db=$tmp/sim.db
# The key reaches the shell through its environment, never typed (the check below would
# see a typed line).
waiting_shell "OPENAI_API_KEY=$KEY" "OPENAI_BASE_URL=http://127.0.0.1:$port"
"${T[@]}" send-keys -t sim "'$BIN' --form '$FORM' --corpus '$corpus' --db '$db' --speed 4 --extract openai:gpt-test --reply openai:gpt-test; echo \"exit=\$?\"" Enter

check "the status bar says the opening waits for REPLY" wait_for 'waiting for REPLY \(openai\) [0-9]+\.[0-9] s' 30
timer_moves 50
moved=$?
check "the timer moves while the model thinks ($first -> ${now:-nothing})" test $moved = 0
check "the opening arrives" wait_for 'agent: कृपया दोबारा बताइए' 30
check "a caller turn appears" wait_for 'caller 1: ' 60
check "EXTRACT is waited for, on screen" wait_for 'waiting for EXTRACT \(openai\)' 30
check "a turn completes with its cost in the status bar" wait_for 'turn [0-9]+ ms: .*cost \$' 60
check "the key is never on the screen" bash -c "! grep -qF '$KEY' '$tmp/seen'"

# q while a request is in flight: the answer is a minute away; the program leaves now.
echo 60 >"$tmp/delay"
check "a slow request is in flight (waited 3 s and more)" \
	wait_for 'waiting for (EXTRACT|REPLY) \(openai\) ([3-9]|[1-9][0-9])\.[0-9] s' 60
"${T[@]}" send-keys -t sim 'q'
check "q exits with status 0 without waiting for the model" wait_for '^exit=0' 20
check "  ... and the shell prompt is back" wait_for '^fdtest\$ ?$' 10

got=$(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM turns WHERE cancelled = 1 AND error LIKE '%cancelled while waiting for%'" 2>&1)
check "the turn in flight is recorded as cancelled ($got)" test "$got" = 1
got=$(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM stage_usage WHERE tokens_in = 50 AND tokens_out = 5" 2>&1)
check "finished requests are recorded with their tokens ($got)" test "${got:-0}" -gt 0 2>/dev/null
check "the key is not in the database" bash -c "! grep -qaF '$KEY' '$db' '$db-wal' 2>/dev/null"

echo "1..$n"
