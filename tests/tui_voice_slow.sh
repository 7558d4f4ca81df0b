#!/bin/bash
# tui_voice_slow: the agent's words spoken in a hosted voice from the screens (the simulator's
# --tts, annotate's v) without holding the screen up. A local Sarvam server
# (tests/support/ttsserver.py) logs each request and answers it only 3 s later; while it
# waits, annotate's screen moves to the next item and the simulator's screen pauses at
# once, and afterwards the audio still comes: through annotate's player, into the
# simulator's --output-file. Driven in tmux (tests/lib/tmux.sh); TAP-style output.
set -u
cd "$(dirname "$0")/.."

. tests/lib/tmux.sh
tmux_start voiceslow sqlite3 python3
demo_corpus
serve_local tests/support/ttsserver.py "$tmp/said" 3
voice_env="SARVAM_BASE_URL=http://127.0.0.1:$port SARVAM_API_KEY=sv-e2e-key-0123"
voice_env="$voice_env FORMDESK_WORDS=$PWD/agent/words LANG=C.UTF-8 LC_ALL=C.UTF-8"
asked() { [ -f "$tmp/said" ] && wc -l <"$tmp/said" || echo 0; }
ms() { echo $(($(date +%s%N) / 1000000)); }
# by MS PATTERN SESSION: whether PATTERN shows on SESSION's screen (see) before the clock
# (ms) reads MS. A screen that waits for the voice shows nothing new until the server
# answers, 3 s after it was asked (asked_at).
by() {
	see "$3" "$2" $((($1 - $(ms)) / 1000 + 1)) || return 1
	local at
	at=$(ms)
	[ "$at" -lt "$1" ] && return 0
	echo "# /$2/ showed $((at - $1)) ms too late"
	return 1
}
# wait_asked N: until the server has been asked for N texts (deadline 60 s); asked_at is
# when that was seen (ms).
wait_asked() {
	local end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		asked_at=$(ms)
		[ "$(asked)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# ---- annotate: v starts the voice, the screen goes on, the player runs when it is done --
db=$tmp/ann.db
sqlite3 "$db" <tests/data/annotate_calls.sql >/dev/null
cat >"$tmp/player" <<SH
#!/bin/sh
echo "\$1" >>"$tmp/played"
SH
chmod +x "$tmp/player"
"${T[@]}" new-session -d -s ann -x 140 -y 40 \
	"cd '$PWD' && env $voice_env FORMDESK_PLAYER='$tmp/player' '$BIN' annotate --db '$db' \
	--task turn-errors --annotator asha --corpus tests/data/corpus_good --tts sarvam \
	2>'$tmp/ann.err'; echo \$? >'$tmp/ann.rc'; sleep 600"
PANE=ann
screen_up 'item 1 of [0-9]+' "annotate is up with a hosted voice"
before=$(asked)
"${T[@]}" send-keys -t ann v
wait_asked $((before + 1))
check "v asks the voice for the turn's words" test $? = 0
check "the status line says the words are being synthesized" \
	by $((asked_at + 2000)) 'synthesizing .*\.\.\.' ann
"${T[@]}" send-keys -t ann Space
check "while the voice is still working (3 s), space moves to the next item at once" \
	by $((asked_at + 2000)) 'item 2 of [0-9]+' ann
see ann 'played .*formdesk-voice-[0-9]*\.wav' 30
check "the voice's words reach the player when they come" \
	test $? = 0 -a -n "$(grep 'formdesk-voice-[0-9]*\.wav' "$tmp/played" 2>/dev/null)"
"${T[@]}" send-keys -t ann q
wait_file "$tmp/ann.rc"
check "annotate quits cleanly (exit 0, nothing on stderr from the sanitizers)" \
	test "$(cat "$tmp/ann.rc" 2>/dev/null)" = 0 -a -z "$(grep -E 'Sanitizer|runtime error' "$tmp/ann.err")"

# ---- the simulator: the played call's words in the voice, the screen never waits -------
"${T[@]}" new-session -d -s sim -x 160 -y 45 \
	"cd '$PWD' && env $voice_env '$BIN' --form '$FORM' --corpus '$corpus' --db '$tmp/sim.db' \
	--speed 1 --tts sarvam --output-file '$tmp/agent.wav' 2>'$tmp/sim.err'; \
	echo \$? >'$tmp/sim.rc'; sleep 600"
PANE=sim
screen_up 'Conversation.*Form.*Verdicts' "the simulator is up with a hosted voice"
before=$(asked)
wait_asked $((before + 1))
check "the played call's first words are asked of the voice" test $? = 0
"${T[@]}" send-keys -t sim Space
check "while the voice is still working (3 s), space pauses the call at once" \
	by $((asked_at + 2000)) '\[PAUSED\]' sim
# the first sentence's answer comes 3 s after it was asked; the cache keeps it (DB.tts/)
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ] && ! ls "$tmp/sim.db.tts" 2>/dev/null | grep -q '\.wav$'; do sleep 0.1; done
sleep 0.5 # its tenth of a second of tone plays out (the file sink is paced by the clock)
"${T[@]}" send-keys -t sim q
wait_file "$tmp/sim.rc"
check "the simulator quits cleanly (exit 0, nothing from the sanitizers)" \
	test "$(cat "$tmp/sim.rc" 2>/dev/null)" = 0 -a -z "$(grep -E 'Sanitizer|runtime error' "$tmp/sim.err")"
frames=$(python3 -c 'import sys, wave; print(wave.open(sys.argv[1]).getnframes())' "$tmp/agent.wav" 2>/dev/null || echo 0)
check "the voice's audio reached the output file afterwards ($frames samples)" test "$frames" -gt 800

echo "1..$n"
[ "$failed" = 0 ]
