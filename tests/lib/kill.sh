# tests/lib/kill.sh: what the kill -9 scripts share (tests/e2e_kill*.sh). Sourced from the
# top of the tree after `set -u` with DEFAULT_MOMENTS set: BIN (an absolute path, as the
# runs may start elsewhere), FORM, MOMENTS (KILL_MOMENTS, else DEFAULT_MOMENTS), RANDOM
# seeded by KILL_SEED (default 18, so the same moments every time), leak checks off (a
# killed run leaks), tmp a private folder removed on exit, and the helpers: ok STATUS WHAT
# (TAP, counting in n), now_ms, ms_to_s MS.
BIN=${FORMDESK_BIN:-./build/san/formdesk}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
FORM=$PWD/forms/armman_enrollment.json
MOMENTS=${KILL_MOMENTS:-$DEFAULT_MOMENTS}
RANDOM=${KILL_SEED:-18}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:detect_leaks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
