#!/bin/bash
# tui_voice: the simulator speaks the agent's words of the calls it plays in the voice
# --tts names (here espeak, into a WAV file with --output-file instead of a sound card),
# driven in tmux like tui_sim; an unknown voice is refused before the screen opens.
set -u
cd "$(dirname "$0")/.."

. tests/lib/tmux.sh
tmux_start voice python3
PANE=voice
demo_corpus

"$BIN" --form "$FORM" --corpus "$corpus" --db "$tmp/x.db" --tts festival </dev/null >/dev/null 2>"$tmp/err"
rc=$?
check "an unknown voice exits 2 and is named before the screen" \
	test "$rc" = 2 -a -n "$(grep -F -- '--tts festival: unknown TTS provider' "$tmp/err")"

open_shell
"${T[@]}" send-keys -t voice "'$BIN' --form '$FORM' --corpus '$corpus' --db '$tmp/sim.db' --speed 2 --tts espeak --output-file '$tmp/agent.wav'; echo \"exit=\$?\"" Enter
screen_up 'Conversation.*Form.*Verdicts' "the simulator plays the corpus with a voice"
check "the calls play on: the caller's second turn shows" wait_for 'caller 2:' 60
sleep 1 # let the agent's next words start playing (what is checked below is the file)
"${T[@]}" send-keys -t voice q
check "q quits with status 0" wait_for 'exit=0' 30
seconds() { python3 -c 'import sys, wave; w = wave.open(sys.argv[1]); print(w.getnframes() / w.getframerate())' "$1" 2>/dev/null || echo 0; }
s=$(seconds "$tmp/agent.wav")
check "the agent's words were spoken into the output file ($s s)" python3 -c "import sys; sys.exit(0 if float('$s') > 1.0 else 1)"
[ "$failed" = 0 ]
