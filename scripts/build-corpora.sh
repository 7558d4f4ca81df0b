#!/bin/sh
# Builds the two bundled corpora (format: corpus/README.md), after ./formdesk is built.
# Quick and idempotent: files are rewritten only when they change, and an answer is
# synthesized only when its audio is missing or its words changed.
#
#  corpus/demo    from corpus/demo/profiles.json: calls.csv, transcripts.csv,
#                 expected.jsonl, corpus.json (formdesk corpus-demo), and each distinct
#                 answer spoken by espeak-ng's Hindi voice into corpus/demo/audios/.
#  corpus/respin  from the RESPIN sample clips in $FORMDESK_RESPIN, else
#                 ../shared/corpus/respin beside the repository (formdesk corpus-respin);
#                 the clips are referred to by path, not copied. Without the clips it
#                 says where to get them and the build goes on.
set -eu
cd "$(dirname "$0")/.."
BIN=${FORMDESK:-./formdesk}
FORM=forms/armman_enrollment.json
JOBS=${JOBS:-2}

# ---- demo ----
list=$(mktemp)
trap 'rm -f "$list"' EXIT
"$BIN" corpus-demo --profiles corpus/demo/profiles.json --form "$FORM" --out corpus/demo >"$list"
mkdir -p corpus/demo/audios
command -v espeak-ng >/dev/null || {
	echo "build-corpora: espeak-ng is not installed (apt-get install espeak-ng): no demo audio" >&2
	exit 1
}
# Each job gets an audio path and the words, NUL-separated; the words are kept beside the
# audio so a changed answer is spoken again. Written to a temporary name, then renamed,
# so an interrupted build leaves no half-written file behind.
tab=$(printf '\t')
while IFS="$tab" read -r id text; do
	wav="corpus/demo/audios/$id.wav"
	if [ -s "$wav" ] && [ -f "$wav.txt" ] && [ "$(cat "$wav.txt")" = "$text" ]; then
		continue
	fi
	printf '%s\0%s\0' "$wav" "$text"
done <"$list" | xargs -0 -r -n 2 -P "$JOBS" sh -c '
	espeak-ng -v hi -w "$0.part" "$1" && printf "%s" "$1" >"$0.txt" && mv "$0.part" "$0"'
total=$(wc -l <"$list")
echo "build-corpora: demo corpus ready: $(grep -c . corpus/demo/expected.jsonl) calls, $total answers in corpus/demo/audios"

# ---- respin ----
clips=${FORMDESK_RESPIN:-../shared/corpus/respin}
if ls "$clips"/*/text.tsv >/dev/null 2>&1; then
	"$BIN" corpus-respin --clips "$clips" --form "$FORM" --out corpus/respin
else
	rm -rf corpus/respin
	cat >&2 <<EOF
build-corpora: no RESPIN clips at $clips, so the real-speech corpus (corpus/respin) is not
  made. It is built from the sample folder of github.com/labspire/respin_did_interspeech25
  (RESPIN-S1.0, IISc Bengaluru, CC-BY-4.0): put its language folders (bh ch mg mr mt, each
  with the .mp3 clips and text.tsv) at ../shared/corpus/respin beside the repository, or
  name their folder in FORMDESK_RESPIN, and run 'make corpora' again.
EOF
fi
