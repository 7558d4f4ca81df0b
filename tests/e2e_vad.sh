#!/bin/bash
# e2e_vad: `formdesk vad` on the real binary. Recordings with known pauses are built here:
# an espeak-ng Hindi utterance (synthetic) twice, with a chosen gap of digital silence
# between them (16-bit PCM joined byte-wise behind a fresh WAV header); and the RESPIN
# clips (real speech) when present. TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
RESPIN=${FORMDESK_RESPIN:-../shared/corpus/respin}
fails=0
# notok WHAT: as tests/lib/e2e.sh's, also counted in fails for the exit status
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# A mono 16-bit WAV header for $1 data bytes at $2 Hz.
wav_header() {
	local bytes=$1 rate=$2
	le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $((($1 >> 8) & 255)))\\x$(printf %02x $((($1 >> 16) & 255)))\\x$(printf %02x $((($1 >> 24) & 255)))"; }
	printf 'RIFF'; le32 $((bytes + 36)); printf 'WAVEfmt '
	le32 16; printf '\x01\x00\x01\x00'; le32 "$rate"; le32 $((rate * 2)); printf '\x02\x00\x10\x00'
	printf 'data'; le32 "$bytes"
}

# join OUT GAP_MS: the synthetic utterance cut to its speech (as the endpointer finds it
# alone), GAP_MS of silence, the same again; so the pause between them is GAP_MS.
join() {
	local out=$1 gap=$2 rate s e
	rate=$(od -An -tu4 -j24 -N4 "$tmp/say.wav" | tr -d ' ')
	s=$(sed -n 's/.*"start_ms":\([0-9]*\).*/\1/p' "$tmp/say.json")
	e=$(sed -n 's/.*"end_ms":\([0-9]*\).*/\1/p' "$tmp/say.json")
	tail -c +45 "$tmp/say.wav" | tail -c +$((rate * s / 1000 * 2 + 1)) | head -c $((rate * (e - s) / 1000 * 2)) >"$tmp/say.pcm"
	head -c $((rate * gap / 1000 * 2)) /dev/zero >"$tmp/gap.pcm"
	head -c $((rate / 2 * 2)) /dev/zero >"$tmp/edge.pcm"
	cat "$tmp/edge.pcm" "$tmp/say.pcm" "$tmp/gap.pcm" "$tmp/say.pcm" "$tmp/edge.pcm" >"$tmp/body.pcm"
	{ wav_header "$(stat -c %s "$tmp/body.pcm")" "$rate"; cat "$tmp/body.pcm"; } >"$out"
}

lines_ok() { # every line is {"start_ms":N,"end_ms":N} with N < M
	local f=$1
	[ -s "$f" ] || return 1
	while read -r l; do
		[[ $l =~ ^\{\"start_ms\":([0-9]+),\"end_ms\":([0-9]+)\}$ ]] || return 1
		[ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] || return 1
	done <"$f"
}

if [ ! -x "$BIN" ]; then
	notok "formdesk binary at $BIN"
	exit 1
fi

if command -v espeak-ng >/dev/null && espeak-ng -v hi -w "$tmp/say.wav" "मेरा नाम सुनीता देवी है" 2>/dev/null; then
	"$BIN" vad "$tmp/say.wav" >"$tmp/say.json" 2>&1
	check "synthetic utterance alone: one utterance" '[ "$(wc -l <"$tmp/say.json")" = 1 ] && lines_ok "$tmp/say.json"'
	join "$tmp/gap1500.wav" 1500
	"$BIN" vad "$tmp/gap1500.wav" >"$tmp/out" 2>"$tmp/err"
	check "1.5 s pause: exit 0" '[ $? = 0 ]'
	check "1.5 s pause: JSON lines with start_ms < end_ms" 'lines_ok "$tmp/out"'
	check "1.5 s pause: two utterances" '[ "$(wc -l <"$tmp/out")" = 2 ]'
	gap=$(sed -n 's/.*"start_ms":\([0-9]*\).*/\1/p' "$tmp/out" | tail -1)
	end1=$(sed -n 's/.*"end_ms":\([0-9]*\).*/\1/p' "$tmp/out" | head -1)
	check "1.5 s pause: measured pause within 60 ms (30 ms per boundary) of 1.5 s" '[ $((gap - end1)) -ge 1440 ] && [ $((gap - end1)) -le 1560 ]'

	join "$tmp/gap300.wav" 300
	"$BIN" vad "$tmp/gap300.wav" >"$tmp/out" 2>&1
	check "0.3 s pause is inside the 0.2 s stop + 0.4 s turn wait: one utterance" '[ "$(wc -l <"$tmp/out")" = 1 ]'
	"$BIN" vad "$tmp/gap300.wav" --turn-wait-ms 0 >"$tmp/out" 2>&1
	check "--turn-wait-ms 0 splits at the 0.3 s pause" '[ "$(wc -l <"$tmp/out")" = 2 ]'
	"$BIN" vad "$tmp/gap1500.wav" --turn-wait-ms 2000 >"$tmp/out" 2>&1
	check "--turn-wait-ms 2000 joins across the 1.5 s pause" '[ "$(wc -l <"$tmp/out")" = 1 ]'
	"$BIN" vad "$tmp/gap1500.wav" --vad speex >"$tmp/out" 2>&1
	check "--vad speex finds the two utterances" '[ "$(wc -l <"$tmp/out")" = 2 ] && lines_ok "$tmp/out"'
	"$BIN" vad "$tmp/gap1500.wav" --start-ms 60000 >"$tmp/out" 2>&1
	check "--start-ms longer than the speech: no output, exit 0" '[ $? = 0 ] && [ ! -s "$tmp/out" ]'
	"$BIN" vad "$tmp/gap1500.wav" --min-loudness-db -0.5 >"$tmp/out" 2>&1
	check "--min-loudness-db above the speech: nothing" '[ ! -s "$tmp/out" ]'
else
	echo "# espeak-ng with a Hindi voice is missing: synthetic checks skipped"
fi

clip=$(ls "$RESPIN"/*/*.mp3 2>/dev/null | head -1)
if [ -n "$clip" ]; then
	"$BIN" vad "$clip" >"$tmp/out" 2>"$tmp/err"
	check "RESPIN clip (MP3, real speech): exit 0 and JSON lines" '[ $? = 0 ] && lines_ok "$tmp/out"'
	last=$(sed -n 's/.*"end_ms":\([0-9]*\).*/\1/p' "$tmp/out" | tail -1)
	check "RESPIN clip: utterances end within the 10.2 s clip" '[ "${last:-0}" -le 10200 ]'
else
	echo "# no RESPIN clips at $RESPIN (set FORMDESK_RESPIN): real-speech checks skipped"
fi

"$BIN" vad "$tmp/missing.wav" >"$tmp/out" 2>"$tmp/err"
check "missing file: exit 2" '[ $? = 2 ]'
check "missing file: stderr names the file" 'grep -q "missing.wav" "$tmp/err"'
check "missing file: nothing on stdout" '[ ! -s "$tmp/out" ]'
echo "not audio" >"$tmp/bad.wav"
"$BIN" vad "$tmp/bad.wav" >"$tmp/out" 2>"$tmp/err"
check "corrupt file: exit 2 and stderr names the file" '[ $? = 2 ] && grep -q "bad.wav" "$tmp/err"'
"$BIN" vad "$tmp/bad.wav" --vad silero >"$tmp/out" 2>"$tmp/err"
check "unknown --vad: exit 2 naming the option" '[ $? = 2 ] && grep -q -- "--vad" "$tmp/err"'
"$BIN" vad "$tmp/bad.wav" --stop-ms abc >"$tmp/out" 2>"$tmp/err"
check "bad --stop-ms: exit 2 naming the option" '[ $? = 2 ] && grep -q -- "--stop-ms" "$tmp/err"'
"$BIN" vad >"$tmp/out" 2>"$tmp/err"
check "no file: exit 2 with usage" '[ $? = 2 ] && grep -q usage "$tmp/err"'

echo "1..$n"
[ "$fails" = 0 ]
