# tests/lib/serve.sh: starting the tests' local HTTP servers, sourced by tests/lib/e2e.sh
# and tests/lib/tmux.sh (which give tmp, and stop server_pid on exit).

# serve_local SCRIPT ARG...: start a local HTTP server (python3 SCRIPT ARG..., which prints
# its port first) in the background, with tests/support on its import path (jsonserver,
# chatserver); sets server_pid and port. Stops (a failed test, exit 1) when it does not
# come up within 10 s.
serve_local() {
	PYTHONPATH=tests/support${PYTHONPATH:+:$PYTHONPATH} python3 "$@" >"$tmp/port" 2>"$tmp/server.err" &
	server_pid=$!
	for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
	port=$(cat "$tmp/port")
	if [ -z "$port" ]; then
		echo "not ok 1 - the local server did not start: $(cat "$tmp/server.err")"
		exit 1
	fi
}
