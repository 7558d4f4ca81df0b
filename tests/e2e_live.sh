#!/bin/bash
# e2e_live: live calls from the command line, no hardware and no screen.
#
# --mic --headless takes the caller's audio through PortAudio from ALSA's file plugin: a
# test-owned ALSA configuration (ALSA_CONFIG_PATH, this script's environment only) whose
# PCM "fdcap" reads a raw float32 16 kHz file the test composed from silence and a phrase
# spoken by espeak-ng's Hindi voice (synthetic speech), and a "default" PCM (PortAudio
# needs one). The file plugin's null slave has no clock, so capture runs faster than real
# time; the agent's words go into a WAV file (--output-file) that plays on the call's
# audio clock, so both sides stay in step and the run takes far less than the call lasts.
#
# Run 1, silence only: the opening, then a silence re-prompt 3.0 s after the agent
# stops, and so on until the rules end the call; its database tells where the first
# re-prompt begins. Run 2 puts the caller's answer 800 ms into that re-prompt: a barge-in.
# Checked: the JSON line, the turns (input, silence, barge-in and when, transcripts from
# --references), the decision record's "barge_in", the recordings and their offsets.
# Also: no input device at all (the system's ALSA configuration and no sound card): the
# message before any screen, exit 2, no library chatter; --typed --headless from stdin.
# TAP-style output.
#
# Leak checking is off for runs through PortAudio (see e2e_devices.sh: ALSA's plugin
# modules keep memory no code of ours allocated).
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
FORM=$PWD/forms/armman_enrollment.json
q() { sqlite3 -cmd ".timeout 5000" "$1" "$2"; } # busy timeout: a call may be writing

need espeak-ng python3 sqlite3
noleak="${ASAN_OPTIONS:-}:detect_leaks=0"

# ---- no input device ----------------------------------------------------------------
ASAN_OPTIONS=$noleak "$BIN" --mic --headless --db "$tmp/none.db" --form "$FORM" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "no device: exit status 2" '[ $rc = 2 ]'
check "no device: says so and offers typed and corpus modes" \
	'grep -qx "formdesk: no audio input device: try --typed or --corpus demo" "$tmp/err"'
check "no device: nothing else on stderr (library chatter silenced)" '[ "$(wc -l <"$tmp/err")" = 1 ]'
check "no device: nothing on stdout" '[ ! -s "$tmp/out" ]'

# ---- typed, headless -------------------------------------------------------------------
printf 'mera naam Sunita Devi hai\n\nGaya\n' |
	"$BIN" --typed --headless --tts none --db "$tmp/typed.db" --form "$FORM" >"$tmp/typed.out" 2>"$tmp/typed.err"
rc=$?
check "typed: exit status 0" '[ $rc = 0 ]'
check "typed: one JSON line with the form as filled" \
	'[ "$(wc -l <"$tmp/typed.out")" = 1 ] && grep -q "\"input\":\"typed\"" "$tmp/typed.out" && grep -q "\"name\":\"Sunita Devi\"" "$tmp/typed.out" && grep -q "\"district\":\"Gaya\"" "$tmp/typed.out"'
check "typed: the empty line counted as a silence" 'grep -q "\"silences\":1" "$tmp/typed.out"'
check "typed: the lines running out hang up" 'grep -q "\"reason\":\"abandoned: the caller.s lines ran out\"" "$tmp/typed.out"'
check "typed: turns recorded as typed, the empty line as silence, no STT" \
	'[ "$(q "$tmp/typed.db" "SELECT group_concat(idx||input||silence||coalesce(transcript,\"-\"), \",\") FROM turns")" = "1typed0mera naam Sunita Devi hai,2typed1-,3typed0Gaya" ] && [ "$(q "$tmp/typed.db" "SELECT count(*) FROM stage_usage")" = 0 ]'

# ---- the microphone through ALSA's file plugin -----------------------------------------
cat >"$tmp/asound.conf" <<CONF
pcm.default { type null }
pcm.fdcap { type file slave.pcm { type null } file "/dev/null" infile "$tmp/in.f32" format "raw" }
CONF
espeak-ng -v hi -w "$tmp/name.wav" "मेरा नाम सुनीता देवी है" 2>/dev/null
echo "मेरा नाम सुनीता देवी है" >"$tmp/refs.txt"

mic() { # mic DB OUT.wav: a headless microphone call on fdcap
	ALSA_CONFIG_PATH=$tmp/asound.conf ASAN_OPTIONS=$noleak timeout 300 "$BIN" --mic --headless \
		--input-device fdcap --output-file "$2" --references "$tmp/refs.txt" \
		--db "$1" --form "$FORM" >"$1.out" 2>"$1.err"
}

# The file holds 25 s (the capture ring holds 30 s of it, so nothing is dropped before
# the loop reads it); what the plugin gives after its end is silence.
python3 tests/support/mkraw.py "$tmp/in.f32" 25
mic "$tmp/r1.db" "$tmp/agent1.wav"
rc=$?
check "silence: exit status 0" '[ $rc = 0 ]'
check "silence: the call ends by the rules (required district out of retries)" \
	'grep -q "\"status\":\"failed\"" "$tmp/r1.db.out" && grep -q "district ran out of retries" "$tmp/r1.db.out"'
check "silence: every turn is a silence turn through the engine" \
	'[ "$(q "$tmp/r1.db" "SELECT count(*)||\"/\"||sum(silence)||\"/\"||min(input)||max(input) FROM turns")" = "5/5/micmic" ]'
check "silence: the retries were used by the field rules (name skipped, district skipped)" \
	'grep -q "\"name\":\"skipped\",\"district\":\"skipped\"" "$tmp/r1.db.out"'
# The re-prompt comes 3.0 s after the agent stops (+ at most two 100 ms reads).
gap=$(q "$tmp/r1.db" "SELECT b.agent_audio_start_ms - a.agent_audio_end_ms FROM turns a JOIN turns b ON b.call_id = a.call_id AND b.idx = a.idx + 1 WHERE a.idx = 1")
check "silence: the re-prompt begins 3.0 s after the agent stopped ($gap ms)" '[ "${gap:-0}" -ge 3000 ] && [ "${gap:-0}" -le 3300 ]'
reprompt=$(q "$tmp/r1.db" "SELECT agent_audio_start_ms FROM turns WHERE idx = 1")
check "silence: the first re-prompt has a place in the recording ($reprompt ms)" '[ "${reprompt:-0}" -gt 0 ]'

# Run 2: the answer 800 ms into the first re-prompt.
at=$((reprompt + 800))
python3 tests/support/mkraw.py "$tmp/in.f32" 25 "$tmp/name.wav" "$at"
mic "$tmp/r2.db" "$tmp/agent2.wav"
rc=$?
check "barge-in: exit status 0" '[ $rc = 0 ]'
check "barge-in: the JSON line counts one barge-in and names the recordings" \
	'grep -q "\"barge_ins\":1" "$tmp/r2.db.out" && grep -q "\"audio_dir\":\"$tmp/r2.audio/call-1\"" "$tmp/r2.db.out"'
row=$(q "$tmp/r2.db" "SELECT idx||'|'||input||'|'||silence||'|'||barge_in||'|'||transcript FROM turns WHERE barge_in = 1")
check "barge-in: turn 2 is the caller's answer, a barge-in ($row)" '[ "$row" = "2|mic|0|1|मेरा नाम सुनीता देवी है" ]'
bms=$(q "$tmp/r2.db" "SELECT barge_in_ms FROM turns WHERE idx = 2")
check "barge-in: 800 ms of speech in + the 100 ms start: at about 900 ms ($bms)" '[ "${bms:-0}" -ge 800 ] && [ "${bms:-0}" -le 1100 ]'
check "barge-in: the decision record says so with at_ms" \
	'[ "$(q "$tmp/r2.db" "SELECT json_extract(decision, \"\$.barge_in.at_ms\")||json_extract(decision, \"\$.barge_in.during\") FROM turns WHERE idx = 2")" = "${bms}speaking" ]'
check "barge-in: the answer filled the name" 'grep -q "\"name\":\"सुनीता देवी\"" "$tmp/r2.db.out"'
cut=$(q "$tmp/r2.db" "SELECT agent_audio_end_ms - agent_audio_start_ms FROM turns WHERE idx = 1")
check "barge-in: the re-prompt's recording stops where it was cut ($cut ms)" '[ "$cut" = "$bms" ]'
cs=$(q "$tmp/r2.db" "SELECT caller_audio_start_ms||' '||caller_audio_end_ms FROM turns WHERE idx = 2")
read -r cstart cend <<<"$cs"
check "barge-in: the caller's words lie where the file has them ($cs, spoken from $at ms)" \
	'[ "$cstart" -ge $((at - 50)) ] && [ "$cstart" -le $((at + 300)) ] && [ "$cend" -gt "$cstart" ]'
check "recording: caller.wav and agent.wav beside the database" \
	'[ -s "$tmp/r2.audio/call-1/caller.wav" ] && [ -s "$tmp/r2.audio/call-1/agent.wav" ] && [ "$(q "$tmp/r2.db" "SELECT audio_dir FROM calls")" = "$tmp/r2.audio/call-1" ]'
wavs=$(python3 -c "
import wave, sys
for p in sys.argv[1:]:
    w = wave.open(p); print(w.getframerate(), w.getnchannels(), w.getnframes() * 1000 // w.getframerate())
" "$tmp/r2.audio/call-1/caller.wav" "$tmp/r2.audio/call-1/agent.wav" 2>&1)
clen=$(echo "$wavs" | sed -n 1p | awk '{print $3}')
alen=$(echo "$wavs" | sed -n 2p | awk '{print $3}')
check "recording: both 16 kHz mono WAV ($(echo $wavs))" '[ "$(echo "$wavs" | awk "{print \$1 \$2}" | sort -u)" = "160001" ]'
check "recording: every turn's offsets lie inside the files" \
	'[ "$(q "$tmp/r2.db" "SELECT count(*) FROM turns WHERE caller_audio_end_ms > $clen OR agent_audio_end_ms > $alen OR agent_audio_start_ms > agent_audio_end_ms")" = 0 ]'
check "recording: every reply has its place in agent.wav" \
	'[ "$(q "$tmp/r2.db" "SELECT count(*) FROM turns WHERE agent_audio_start_ms IS NULL")" = 0 ]'
check "the agent's words were played into the output file" '[ -s "$tmp/agent2.wav" ]'
# The microphone call replayed from its recording (tests/e2e_replay.sh has the rest of replay).
"$BIN" replay --db "$tmp/r2.db" --run 1 --from audio >"$tmp/replay.out" 2>"$tmp/replay.err"
"$BIN" diff --db "$tmp/r2.db" 1 2 --format json >"$tmp/replay.diff" 2>>"$tmp/replay.err"
check "replay: the microphone call from its caller.wav, endpointed again, diffs the same" \
	'head -1 "$tmp/replay.diff" | grep -q "\"change\":\"same\"" && [ "$(q "$tmp/r2.db" "SELECT group_concat(input, \",\") FROM turns t JOIN calls c ON c.id = t.call_id WHERE c.run_id = 2 AND t.silence = 0")" = mic ]'
check "no sanitizer report" '! grep -qE "Sanitizer|runtime error" "$tmp"/*.err'

echo "1..$n"
