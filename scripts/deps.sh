#!/bin/sh
# Installs the Debian 12 packages formdesk needs to build, run and test, if any is missing.
# Needs root (or sudo) only when something is missing. `deps.sh fuzz` adds clang (libFuzzer)
# for `make fuzz`.
set -e
PKGS="build-essential pkg-config libcjson-dev libutf8proc-dev libsndfile1-dev libsamplerate0-dev
libspeexdsp-dev libwebrtc-audio-processing-dev libsqlite3-dev libncurses-dev portaudio19-dev
libespeak-ng-dev espeak-ng libsox-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libcmocka-dev
tmux sqlite3 libasound2-plugins python3"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "formdesk: installing missing Debian packages:$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
