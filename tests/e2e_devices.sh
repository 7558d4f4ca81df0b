#!/bin/bash
# e2e_devices: `formdesk devices` / `--list-devices` on the real binary. With the system's
# ALSA configuration and no sound card PortAudio finds nothing: the program must say so,
# offer the corpus and typed modes, and print none of the ALSA/JACK start-up chatter. With
# a test-owned ALSA configuration (ALSA_CONFIG_PATH, this script's environment only) whose
# PCMs use the file plugin, the devices are listed. TAP-style output.
#
# Leak checking is off for runs on the system's configuration: ALSA loads plugin modules
# (pulse, jack, oss, ...) while probing and unloads them again, and memory those modules
# still hold is then reported as leaked although no code of ours allocated it (with
# dlclose disabled the report disappears).
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh

noleak="${ASAN_OPTIONS:-}:detect_leaks=0"

ASAN_OPTIONS=$noleak "$BIN" devices >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no device: exit status 1" '[ $rc = 1 ]'
check "no device: says so" 'grep -q "no audio device found" "$tmp/out"'
check "no device: offers corpus and typed modes" 'grep -q -- "--corpus demo" "$tmp/out" && grep -q -- "--typed" "$tmp/out"'
check "no device: nothing on stderr (library chatter silenced)" '[ ! -s "$tmp/err" ]'

ASAN_OPTIONS=$noleak FORMDESK_AUDIO_VERBOSE=1 "$BIN" devices >/dev/null 2>"$tmp/err2"
check "the libraries do print without silencing (so the check above can fail)" '[ -s "$tmp/err2" ]'

ASAN_OPTIONS=$noleak "$BIN" --list-devices >"$tmp/out2" 2>/dev/null
check "--list-devices is the same command" 'cmp -s "$tmp/out" "$tmp/out2"'

head -c 64000 /dev/zero >"$tmp/in.raw"
cat >"$tmp/asound.conf" <<CONF
pcm.default { type null }
pcm.fdcap { type file slave.pcm { type null } file "/dev/null" infile "$tmp/in.raw" format "raw" }
pcm.fdplay { type file slave.pcm { type null } file "$tmp/out.raw" format "raw" }
CONF
ALSA_CONFIG_PATH=$tmp/asound.conf "$BIN" devices >"$tmp/list" 2>"$tmp/err"
rc=$?
check "file-plugin devices: exit status 0" '[ $rc = 0 ]'
check "file-plugin devices: both listed with their host API" 'grep -q "fdcap .*ALSA" "$tmp/list" && grep -q "fdplay .*ALSA" "$tmp/list"'
check "file-plugin devices: the default is marked" 'grep -q "default .*\[default output\]" "$tmp/list"'
check "file-plugin devices: nothing on stderr" '[ ! -s "$tmp/err" ]'

"$BIN" devices extra >/dev/null 2>"$tmp/err"
rc=$?
check "an unexpected argument: exit 2 with a message" '[ $rc = 2 ] && grep -q "unexpected argument" "$tmp/err"'
