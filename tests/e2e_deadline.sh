#!/bin/bash
# e2e_deadline: a command that calls a provider once, outside the engine (`formdesk
# extract`), honours the same per-turn deadline as a call's turn: --turn-deadline-ms, else
# the config file's "deadlines"."turn_ms". Against a local server that accepts the request
# and never answers (127.0.0.1, python3's standard library), with the provider's own
# timeout at 8 s: the request ends at the deadline, exit 1, the reason names the deadline.
set -u
cd "$(dirname "$0")/.."
source tests/lib/e2e.sh
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
FORM=forms/armman_enrollment.json
now_ms() { echo $(($(date +%s%N) / 1000000)); }

cat >"$tmp/server.py" <<'PY'
import sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class Silent(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(60)
s = ThreadingHTTPServer(("127.0.0.1", 0), Silent)
s.daemon_threads = True
print(s.server_address[1], flush=True)
s.serve_forever()
PY
serve_local "$tmp/server.py"
export OPENAI_BASE_URL=http://127.0.0.1:$port OPENAI_API_KEY=sk-silent-server-0123456789
printf '{"providers":{"openai":{"retries":0,"timeout_ms":8000,"stream":false}}}' >"$tmp/cfg.json"
printf '{"providers":{"openai":{"retries":0,"timeout_ms":8000,"stream":false}},"deadlines":{"turn_ms":1200}}' >"$tmp/cfg-dl.json"

# extract CONFIG [OPTION...]: sets rc and ms
extract() {
	local cfg=$1 t0
	shift
	t0=$(now_ms)
	"$BIN" extract --form "$FORM" --field name --config "$cfg" --extract openai:m "$@" \
		"mera naam Sunita hai" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ms=$(($(now_ms) - t0))
}

extract "$tmp/cfg.json" --turn-deadline-ms 1000
check "extract --turn-deadline-ms 1000: ends at the deadline, exit 1 ($rc, $ms ms: $(head -c 200 "$tmp/err"))" \
	'[ $rc = 1 ] && [ $ms -lt 6000 ] && grep -q "deadline of 1000 ms" "$tmp/err" && [ ! -s "$tmp/out" ]'
extract "$tmp/cfg-dl.json"
check "extract with the config file's deadlines.turn_ms 1200: ends at it, exit 1 ($rc, $ms ms: $(head -c 200 "$tmp/err"))" \
	'[ $rc = 1 ] && [ $ms -lt 6000 ] && grep -q "deadline of 1200 ms" "$tmp/err"'
extract "$tmp/cfg-dl.json" --turn-deadline-ms 900
check "extract: --turn-deadline-ms wins over the config file's ($rc, $ms ms)" \
	'[ $rc = 1 ] && grep -q "deadline of 900 ms" "$tmp/err"'
"$BIN" extract --form "$FORM" --field name --turn-deadline-ms 0 "mera naam Sunita hai" >/dev/null 2>"$tmp/err"
check "extract --turn-deadline-ms 0: refused as out of range, exit 2" '[ $? = 2 ] && [ -s "$tmp/err" ]'
"$BIN" extract --form "$FORM" --field name --turn-deadline-ms 500 "mera naam Sunita hai" >"$tmp/out" 2>"$tmp/err"
check "extract offline with a deadline: answered as before" '[ $? = 0 ] && grep -q "Sunita" "$tmp/out"'
echo "1..$n"
