#!/bin/bash
# e2e_tts: the agent's hosted voice and its cache, against a local server answering as
# Sarvam documents (tests/support/ttsserver.py, which logs every text it is asked to say).
# `formdesk tts warm` synthesizes a form's fixed scripts once into DB.tts/ (files written
# whole: none left half-made); warming again asks nothing; a typed call in that voice asks
# only for what is not kept, and the same call again asks nothing at all.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
FORM=forms/armman_enrollment.json
pass() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; }
asked() { [ -f "$tmp/said" ] && wc -l <"$tmp/said" || echo 0; }

serve_local tests/support/ttsserver.py "$tmp/said"
export SARVAM_BASE_URL=http://127.0.0.1:$port

unset SARVAM_API_KEY
"$BIN" tts warm --form "$FORM" --tts sarvam --db "$tmp/calls.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && grep -q "SARVAM_API_KEY is not set" "$tmp/err"
pass $? "tts warm without the key: exit 2, naming the variable"
export SARVAM_API_KEY=sv-e2e-key-0123
"$BIN" tts warm --form "$FORM" --tts espeak --db "$tmp/calls.db" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "offline voice is not cached" "$tmp/err"
pass $? "tts warm with an offline voice: exit 2"

"$BIN" tts warm --form "$FORM" --tts sarvam --db "$tmp/calls.db" >"$tmp/out" 2>"$tmp/err"
rc=$?
made=$(sed -n 's/.*: \([0-9]*\) sentences synthesized, [0-9]* already kept.*/\1/p' "$tmp/out")
# a sentence the form says twice (the same retry message under two questions) is made once
again=$(sed -n 's/.*: [0-9]* sentences synthesized, \([0-9]*\) already kept.*/\1/p' "$tmp/out")
[ $rc = 0 ] && [ -n "$made" ] && [ "$made" -gt 20 ]
pass $? "tts warm: exit 0, the form's sentences synthesized ($made)"
[ "$(asked)" = "$made" ]
pass $? "tts warm: one request a sentence"
grep -q "आपकी जानकारी सुरक्षित रखी जाएगी।" "$tmp/said"
pass $? "tts warm: the intro's sentences were asked for"
[ "$(ls "$tmp/calls.db.tts" | grep -c '^[0-9a-f]\{64\}\.wav$')" = "$made" ] &&
	[ "$(ls "$tmp/calls.db.tts" | grep -vc '^[0-9a-f]\{64\}\.wav$')" = 0 ]
pass $? "the cache holds one whole file a sentence, named by its hash, nothing half-written"

"$BIN" tts warm --form "$FORM" --tts sarvam --db "$tmp/calls.db" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] && grep -q ": 0 sentences synthesized, $((made + again)) already kept" "$tmp/out" && [ "$(asked)" = "$made" ]
pass $? "tts warm again: nothing synthesized, no request"

before=$(asked)
printf 'mera naam Sunita Devi hai\nGaya\n' |
	"$BIN" --typed --headless --tts sarvam --output-file "$tmp/agent1.wav" --db "$tmp/calls.db" \
		--form "$FORM" >"$tmp/call1" 2>"$tmp/err1"
rc=$?
first=$(( $(asked) - before ))
[ $rc = 0 ] && [ -s "$tmp/agent1.wav" ] && grep -q '"name":"Sunita Devi"' "$tmp/call1"
pass $? "a typed call in the hosted voice: exit 0, the agent's words played into the file"
# the scripts were warmed: only what is not a fixed script (the acknowledgements) is asked
! grep -q "कृपया अपना पूरा नाम बताइए" <(tail -n "$first" "$tmp/said" 2>/dev/null)
pass $? "the warmed scripts were not asked for again ($first new sentences)"
before=$(asked)
printf 'mera naam Sunita Devi hai\nGaya\n' |
	"$BIN" --typed --headless --tts sarvam --output-file "$tmp/agent2.wav" --db "$tmp/calls.db" \
		--form "$FORM" >"$tmp/call2" 2>"$tmp/err2"
[ $? = 0 ] && [ "$(asked)" = "$before" ] && [ -s "$tmp/agent2.wav" ]
pass $? "the same call again: every sentence from the cache, no request"
