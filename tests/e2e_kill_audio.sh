#!/bin/bash
# e2e_kill_audio: kill -9 a live microphone call (ALSA's file plugin as the microphone, as
# e2e_live.sh) at moments drawn from a fixed seed, while the caller's and the agent's
# recordings are being written. After each kill, every recording the database names
# (calls.audio_dir: caller.wav, agent.wav) opens with libsndfile (`formdesk vad` reads it),
# through the audio loader review's `a` key and replay read it with (audiofile_read, which
# `formdesk vad` uses), its header's length is what the file holds, to within one write
# block (100 ms; the unfinished turn is kept, not cut to the last finished one), and every
# finished turn's stored span lies inside it. (`formdesk replay` refuses a killed call as
# still in progress, by its own rule, so the loader stands in for it.) Typed calls record
# nothing (calls.audio_dir stays NULL), so there is nothing to check of theirs here.
# KILL_MOMENTS kills (default 6, what `make check` runs; `make killtest` runs more);
# KILL_SEED (default 18) picks the moments. TAP-style output.
set -u
cd "$(dirname "$0")/.."
DEFAULT_MOMENTS=6
source tests/lib/kill.sh
q() { [ -f "$1" ] && sqlite3 -batch -noheader -cmd ".timeout 5000" "$1" "$2" 2>/dev/null; }

if ! command -v sqlite3 >/dev/null || ! command -v espeak-ng >/dev/null || ! command -v python3 >/dev/null; then
	echo "1..0 # skip: needs sqlite3, espeak-ng and python3"
	exit 0
fi

# The microphone's 25 s: silence with the caller's name spoken at 4.5 s (float32 mono
# 16 kHz, what the file plugin gives PortAudio).
espeak-ng -v hi -w "$tmp/name.wav" "मेरा नाम सुनीता देवी है" 2>/dev/null
echo "मेरा नाम सुनीता देवी है" >"$tmp/refs.txt"
python3 tests/support/mkraw.py "$tmp/in.f32" 25 "$tmp/name.wav" 4500
cat >"$tmp/asound.conf" <<CONF
pcm.default { type null }
pcm.fdcap { type file slave.pcm { type null } file "/dev/null" infile "$tmp/in.f32" format "raw" }
CONF

# frames WAV: "HEADER_FRAMES DATA_FRAMES": the header's length (Python's wave, a
# reader other than libsndfile) and the 16-bit samples the file holds after its header
frames() {
	python3 - "$1" <<'PY'
import os, sys, wave
w = wave.open(sys.argv[1])
data = (os.path.getsize(sys.argv[1]) - 44) // 2
print(w.getnframes(), data)
PY
}

# check DB: every recording DB names opens and is whole; prints the first fault
check() {
	local dir f hf df
	local id end
	for id in $(q "$1" "SELECT id FROM calls WHERE audio_dir IS NOT NULL"); do
		dir=$(q "$1" "SELECT audio_dir FROM calls WHERE id = $id")
		for f in caller agent; do
			[ -f "$dir/$f.wav" ] || { echo "$dir/$f.wav is named but missing"; return; }
			"$BIN" vad "$dir/$f.wav" >/dev/null 2>"$tmp/vad.err" ||
				{ echo "$dir/$f.wav does not open: $(head -c 200 "$tmp/vad.err")"; return; }
			read -r hf df < <(frames "$dir/$f.wav" 2>&1)
			[ -n "${df:-}" ] && [ $((df - hf)) -le 1600 ] && [ $((hf - df)) -le 0 ] ||
				{ echo "$dir/$f.wav: the header says ${hf:-?} samples, the file holds ${df:-?}"; return; }
			end=$(q "$1" "SELECT coalesce(max(${f}_audio_end_ms), 0) FROM turns WHERE call_id = $id")
			[ $((end * 16)) -le $((hf + 16)) ] ||
				{ echo "$dir/$f.wav: $hf samples, a finished turn ends at $end ms"; return; }
		done
	done
}

mic() { # mic DB N: a headless microphone call on fdcap into DB (exec: run it in a subshell)
	ALSA_CONFIG_PATH=$tmp/asound.conf exec "$BIN" --mic --headless --input-device fdcap \
		--output-file "$tmp/agent-$2.wav" --references "$tmp/refs.txt" --db "$1" \
		--form "$FORM" >"$tmp/out" 2>"$tmp/err"
}
t0=$(now_ms)
(mic "$tmp/ref.db" 0)
rc=$?
t_call=$(($(now_ms) - t0))
[ $rc = 0 ] && [ -z "$(check "$tmp/ref.db")" ] && [ -n "$(q "$tmp/ref.db" "SELECT audio_dir FROM calls")" ]
ok $? "the reference call: exit 0, its recordings whole ($t_call ms)"

db=$tmp/mic.db
killed_mid=0
: >"$tmp/faults"
for i in $(seq 1 "$MOMENTS"); do
	at=$((t_call / 10 + (RANDOM * 32768 + RANDOM) % (t_call * 9 / 10 + 1))) # past the start-up
	mic "$db" "$i" &
	pid=$!
	sleep "$(ms_to_s "$at")"
	kill -0 $pid 2>/dev/null && killed_mid=$((killed_mid + 1))
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	fault=$(check "$db")
	[ -n "$fault" ] && echo "kill $i at $at ms: $fault" >>"$tmp/faults"
done
echo "# $killed_mid of $MOMENTS kills came while the call ran"
[ ! -s "$tmp/faults" ] && [ "$killed_mid" -gt 0 ]
ok $? "kill -9 at $MOMENTS moments of a microphone call: every recording named opens, its header covers what the file holds"
[ -s "$tmp/faults" ] && sed 's/^/# /' "$tmp/faults"
echo "1..$n"
