#!/bin/sh
# Builds the two bundled corpora (format: corpus/README.md), after ./formdesk is built.
# Quick and idempotent: files are rewritten only when they change, and an answer is
# synthesized only when its audio is missing or its words changed.
#
#  corpus/demo    from corpus/demo/profiles.json by `formdesk corpus build`: calls.csv,
#                 transcripts.csv, expected.jsonl, corpus.json, and each distinct answer
#                 spoken by espeak-ng's Hindi voice into corpus/demo/audios/.
#  corpus/respin  from the RESPIN sample clips in $FORMDESK_RESPIN, else
#                 ../shared/corpus/respin beside the repository (formdesk corpus-respin);
#                 the clips are referred to by path, not copied. Without the clips it
#                 says where to get them and the build goes on.
set -eu
cd "$(dirname "$0")/.."
BIN=${FORMDESK:-./formdesk}
FORM=forms/armman_enrollment.json

# ---- demo ----
command -v espeak-ng >/dev/null || {
	echo "build-corpora: espeak-ng is not installed (apt-get install espeak-ng): no demo audio" >&2
	exit 1
}
"$BIN" corpus build --form "$FORM" --profiles corpus/demo/profiles.json --out corpus/demo \
	--synthesize 2>&1 | sed 's/^formdesk corpus build/build-corpora: demo corpus/'

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
