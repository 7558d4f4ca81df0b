# tests/lib/e2e.sh: what the end-to-end scripts share. Sourced from the top of the tree
# after `set -u`: BIN is the binary ($FORMDESK_BIN, default the sanitizer build),
# FORMDESK_WORDS the word lists (exported), tmp a private folder removed on exit (kept and
# named when KEEP_TMP is set, to look at after a failure) together with the local server
# whose pid the script keeps in server_pid, and the TAP helpers count in n: ok WHAT, notok
# WHAT, check WHAT CONDITION (CONDITION is eval'd; ok when it succeeds); need TOOL... stops
# the script with one failure when a tool is missing; serve_local (tests/lib/serve.sh)
# starts a local server.
BIN=${FORMDESK_BIN:-./build/san/formdesk}
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
. tests/lib/serve.sh
tmp=$(mktemp -d)
server_pid=
e2e_cleanup() {
	[ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null
	if [ -n "${KEEP_TMP:-}" ]; then echo "# kept $tmp"; else rm -rf "$tmp"; fi
}
trap e2e_cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }
need() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "not ok 1 - $tool is not installed"; exit 1; }
	done
}
