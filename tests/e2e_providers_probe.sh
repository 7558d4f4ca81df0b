#!/bin/bash
# formdesk providers: a server that needs no key (the local one) is "configured, not
# reached" and not counted ready until --probe reaches it; --probe says whether it
# answered: nothing listening (port 1) is unreachable, a running server is reachable.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
cd "$tmp"

out=$(env -i PATH="$PATH" LOCAL_BASE_URL=http://127.0.0.1:1/v1 "$BIN" providers 2>&1)
check "providers exits 0" '[ $? = 0 ]'
check "the local server is configured, not reached" \
	'echo "$out" | grep -Eq "^llm +local .*none needed; configured, not reached \(--probe\)"'
ready=$(echo "$out" | sed -n 's/^\([0-9]*\) of [0-9]* providers ready.*/\1/p')
check "nothing is ready without keys or a probe (got '$ready')" '[ "$ready" = 0 ]'

out=$(env -i PATH="$PATH" LOCAL_BASE_URL=http://127.0.0.1:1/v1 "$BIN" providers --probe 2>&1)
check "--probe exits 0" '[ $? = 0 ]'
check "--probe: nothing listening is unreachable" \
	'echo "$out" | grep -Eq "^llm +local .*none needed; unreachable: "'

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
	sleep 0.1
done
out=$(env -i PATH="$PATH" LOCAL_BASE_URL=http://127.0.0.1:$port/v1 "$BIN" providers --probe 2>&1)
kill "$server"
check "--probe: a running server is reachable and counted ready" \
	'echo "$out" | grep -Eq "^llm +local .*none needed; reachable \(HTTP [0-9]+\)" && echo "$out" | grep -q "^1 of [0-9]* providers ready"'
