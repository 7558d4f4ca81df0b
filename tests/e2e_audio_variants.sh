#!/bin/bash
# e2e_audio_variants: `formdesk audio-variants` on the real binary, on a RESPIN clip (real
# speech) when present, else on espeak-ng Hindi speech (synthetic). Checks the five files,
# their durations (pace changes duration by the factor), the reported SNR against the
# request, that the endpointer still hears speech in every variant, the telephone option,
# the usage errors, the --out folder made when missing, and --help. TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
RESPIN=${FORMDESK_RESPIN:-../shared/corpus/respin}

clip=$(ls "$RESPIN"/*/*.mp3 2>/dev/null | head -1)
if [ -z "$clip" ]; then
	clip=$tmp/say.wav
	espeak-ng -v hi -w "$clip" "कृपया अपना पूरा नाम बताइए" # synthetic speech
fi
name=$(basename "$clip"); name=${name%.*}
mkdir -p "$tmp/out"

"$BIN" audio-variants "$clip" --out "$tmp/out" --snr 7.5 >"$tmp/lines" 2>"$tmp/err"
rc=$?
check "exit status 0" '[ $rc = 0 ]'
check "five JSON lines" '[ "$(wc -l <"$tmp/lines")" = 5 ]'
for c in ideal noise distance pace-fast pace-slow; do
	check "$c written" '[ -s "$tmp/out/$name.$c.wav" ]'
done
dur() { sed -n "s/.*\"condition\":\"$1\".*\"duration_ms\":\([0-9]*\).*/\1/p" "$tmp/lines"; }
ratio_ok() { # ideal / variant within 2% of factor
	awk -v a="$(dur ideal)" -v b="$(dur "$1")" -v f="$2" 'BEGIN { r = a / b; exit !(r > f * 0.98 && r < f * 1.02) }'
}
check "noise and distance keep the duration" '[ "$(dur noise)" = "$(dur ideal)" ] && [ "$(dur distance)" = "$(dur ideal)" ]'
check "pace-fast is 1.25 times as fast" 'ratio_ok pace-fast 1.25'
check "pace-slow is 0.8 times as fast" 'ratio_ok pace-slow 0.8'
snr=$(sed -n 's/.*"snr_db":\([-0-9.]*\).*/\1/p' "$tmp/lines")
check "reported SNR within 0.5 dB of 7.5 ($snr)" 'awk -v s="$snr" "BEGIN { exit !(s > 7.0 && s < 8.0) }"'
for c in ideal noise distance pace-fast pace-slow; do
	"$BIN" vad "$tmp/out/$name.$c.wav" >"$tmp/vad.$c" 2>/dev/null
	check "the endpointer hears speech in $c" '[ -s "$tmp/vad.$c" ]'
done

mkdir -p "$tmp/tel"
"$BIN" audio-variants "$clip" --out "$tmp/tel" --telephone --noise whitenoise --snr 20 >"$tmp/tlines" 2>"$tmp/err"
rc=$?
check "--telephone: exit 0, five files" '[ $rc = 0 ] && [ "$(ls "$tmp/tel" | wc -l)" = 5 ]'
check "--telephone: the endpointer hears speech through the channel" '"$BIN" vad "$tmp/tel/$name.ideal.wav" 2>/dev/null | grep -q start_ms'

"$BIN" audio-variants "$clip" >/dev/null 2>"$tmp/err"
check "no --out: exit 2 with usage" '[ $? = 2 ] && grep -q usage "$tmp/err"'
"$BIN" audio-variants "$clip" --out "$tmp/out" --snr loud >/dev/null 2>"$tmp/err"
check "bad --snr: exit 2 naming it" '[ $? = 2 ] && grep -q -- "--snr" "$tmp/err"'
"$BIN" audio-variants "$tmp/missing.wav" --out "$tmp/out" >/dev/null 2>"$tmp/err"
check "missing input: exit 2 naming the file" '[ $? = 2 ] && grep -q "missing.wav" "$tmp/err"'
"$BIN" audio-variants "$clip" --out "$tmp/out" --noise "$tmp/nonoise.wav" >/dev/null 2>"$tmp/err"
check "missing noise file: exit 2 naming it" '[ $? = 2 ] && grep -q "nonoise.wav" "$tmp/err"'
"$BIN" audio-variants "$clip" --out "$tmp/made" >/dev/null 2>"$tmp/err"
check "a missing --out folder is made: exit 0, five files" '[ $? = 0 ] && [ "$(ls "$tmp/made" | wc -l)" = 5 ]'
: >"$tmp/afile"
"$BIN" audio-variants "$clip" --out "$tmp/afile" >/dev/null 2>"$tmp/err"
check "--out naming a file: exit 2, not a folder" '[ $? = 2 ] && grep -q "not a folder" "$tmp/err"'
"$BIN" audio-variants "$clip" --out "$tmp/out" --noise babble >/dev/null 2>"$tmp/err"
check "unknown --noise: exit 2 naming the generated kinds" '[ $? = 2 ] && grep -q "pinknoise" "$tmp/err"'
"$BIN" audio-variants --help >"$tmp/help" 2>"$tmp/err"
check "--help: usage on stdout, exit 0" '[ $? = 0 ] && grep -q "^usage: formdesk audio-variants" "$tmp/help"'
