#!/bin/bash
# e2e_turntake: turn-taking a real caller survives (docs/turn-taking.md), end to end.
#
# Corpus runs (calls.csv's barge_in_ms puts a turn inside the agent's words; the clips are
# espeak-ng's Hindi voice, the reference STT gives the words):
# - backchannels: "हम्म" and "हाँ हाँ" during the intro, "हाँ" after "अब बस तीन सवाल बचे
#   हैं।" but before its question: no answer, no retry used, the agent goes on from the
#   sentence it was cut in;
# - a hesitation: "उम्म्म्म", then "गया": one turn, judged once, no retry used, the agent
#   silent in between;
# - a re-ask after silence states no validation error;
# - on language models (a chat-completions server on 127.0.0.1): the question a barge-in
#   cut off stands in EXTRACT's and REPLY's history and in the store only as far as it
#   played, marked as cut off; no "जी" before an error line; the opening begins with the
#   form's intro.
# A microphone call through ALSA's file plugin with a cloud STT (whisper.cpp's protocol)
# that answers late: "मेरा नाम सुनीता देवी है", then "गया" 1.1 s later while the first
# turn's STT is still in flight: her words make one turn, and the name is not "गया". Also
# through the microphone: a backchannel inside the opening, a hesitation inside a question.
# TAP-style output. Leak checking is off for the run through PortAudio (e2e_devices.sh).
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
FORM=$PWD/forms/armman_enrollment.json
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
q() { sqlite3 -cmd ".timeout 5000" "$1" "$2"; } # busy timeout: a call may be writing
need espeak-ng python3 sqlite3

# ---- a corpus of synthetic clips ------------------------------------------------------
C=$tmp/corpus
mkdir -p "$C/audios"
cat >"$C/corpus.json" <<'EOF'
{"name": "turntake", "form": "forms/armman_enrollment.json", "synthetic": true, "today": "2025-03-15"}
EOF
# id|words spoken|reference transcript
clips='u_hmm|हम्म|हम्म
u_haanhaan|हाँ हाँ|हाँ हाँ
u_haan|हाँ|हाँ
u_name|मेरा नाम सुनीता देवी है|mera naam Sunita Devi hai
u_gaya|गया|Gaya
u_clinic|प्राथमिक स्वास्थ्य केंद्र गया|primary health centre Gaya
u_yes|हाँ जी|haan ji
u_months|पाँच महीने|paanch mahine
u_no|नहीं|nahi
u_umm|उम्म्म्म|उम्म्म्म
u_gaya2|गया|गया
u_dunno|कुछ नहीं पता|kuch nahi pata'
echo "id,text" >"$C/transcripts.csv"
while IFS='|' read -r id said ref; do
	espeak-ng -v hi -w "$C/audios/$id.wav" "$said" 2>/dev/null
	echo "$id,$ref" >>"$C/transcripts.csv"
done <<<"$clips"
python3 -c "
import wave
w = wave.open('$C/audios/u_silence.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2)
w.setframerate(16000); w.writeframes(bytes(2 * 24000)); w.close()"
echo "u_silence," >>"$C/transcripts.csv"
cp tests/data/turntake_calls.csv "$C/calls.csv"

"$BIN" run --headless --corpus "$C" --db "$tmp/c.db" >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
check "corpus run: exit status 0" '[ $rc = 0 ]'
line() { grep "\"call_id\":\"$1\"" "$tmp/c.out"; }
turn() { q "$tmp/c.db" "SELECT $3 FROM turns WHERE idx = $2 AND call_id = (SELECT id FROM calls WHERE corpus_call_id = '$1')"; }

# 2. backchannels
check "backchannel 'हम्म' in the intro: not the name's answer, no retry used" \
	'line bc1 | grep -q "\"name\":\"Sunita Devi\"" && [ "$(turn bc1 2 "json_extract(decision, \"\$.retries.used\")")" = 0 ]'
check "backchannel 'हम्म': not judged (no decision), the agent goes on from the sentence it cut" \
	'[ "$(turn bc1 1 "coalesce(decision, \"NULL\")")" = NULL ] && turn bc1 1 reply | grep -q "कृपया अपना पूरा नाम बताइए।$" && ! turn bc1 1 reply | grep -q "^नमस्ते"'
check "backchannel 'हाँ' before the phone question is asked: phone_linked is not true" \
	'! line bc1 | grep -q "\"phone_linked\":true" && line bc1 | grep -q "\"phone_linked\":false"'
check "backchannel 'हाँ': the agent says the question it had not reached, nothing else" \
	'[ "$(turn bc1 7 reply)" = "आप जिस नंबर से बात कर रही हैं, क्या वही नंबर क्लिनिक में लिखा हुआ है?" ]'
check "backchannel 'हाँ': no retry of phone_linked used" \
	'[ "$(turn bc1 8 "json_extract(decision, \"\$.retries.used\")||json_extract(decision, \"\$.retries.field\")")" = 0phone_linked ]'
check "backchannel 'हाँ हाँ' in the intro: the name question keeps its one retry" \
	'line bc2 | grep -q "\"name\":\"Sunita Devi\"" && [ "$(turn bc2 2 "json_extract(decision, \"\$.retries.used\")")" = 0 ]'

# 3. a hesitation
check "hesitation 'उम्म्म्म': held, not judged, the agent says nothing" \
	'[ "$(turn hz 2 "coalesce(decision, \"NULL\")||\"|\"||coalesce(reply, \"NULL\")")" = "NULL|NULL" ]'
check "hesitation: joins what follows ('उम्म्म्म गया'), district Gaya with no retry used" \
	'[ "$(turn hz 3 transcript)" = "उम्म्म्म गया" ] && line hz | grep -q "\"district\":\"Gaya\"" && [ "$(turn hz 3 "json_extract(decision, \"\$.retries.used\")")" = 0 ]'
check "hesitation: no invalid verdict, no retry message" \
	'[ "$(q "$tmp/c.db" "SELECT count(*) FROM verdicts v JOIN turns t ON t.id = v.turn_id JOIN calls c ON c.id = t.call_id WHERE c.corpus_call_id = \"hz\" AND v.ok = 0")" = 0 ]'

# 6b. a re-ask after silence
reask=$(turn sil 5 reply)
check "silence: the re-ask states no validation error ($reask)" \
	'[ -n "$reask" ] && ! echo "$reask" | grep -q "एक से दस" && echo "$reask" | grep -q "आपको गर्भ से कितने महीने हो गए हैं?"'
check "silence: the decision record says so" '[ "$(turn sil 5 "json_extract(decision, \"\$.silence\")")" = 1 ]'
check "silence: the answer after it is taken" 'line sil | grep -q "\"gestational_age\":5"'
python3 -c "
import json, sys
f = json.load(open('$FORM'))
f['scripts']['reask'] = 'मैं सुन नहीं पाई।'
json.dump(f, open('$tmp/reask.json', 'w'), ensure_ascii=False)"
"$BIN" run --headless --corpus "$C" --form "$tmp/reask.json" --db "$tmp/r.db" >/dev/null 2>"$tmp/r.err"
check "silence: a form's own scripts.reask is said before the question" \
	'[ "$(q "$tmp/r.db" "SELECT reply FROM turns WHERE idx = 5 AND call_id = (SELECT id FROM calls WHERE corpus_call_id = \"sil\")")" = "मैं सुन नहीं पाई। आपको गर्भ से कितने महीने हो गए हैं?" ]'

# ---- language models: history, acknowledgement, intro -------------------------------
cat >"$tmp/model.py" <<'PY'
# EXTRACT (requests with response_format) answers from the caller's latest words; REPLY
# says the decided question's script. Every request body is logged, one a line.
import json, sys
sys.path.insert(0, "tests/support")
from chatserver import serve
log = open(sys.argv[1], "a")

def answer(body):
    log.write(body.decode("utf-8") + "\n")
    log.flush()
    b = json.loads(body)
    msgs = b.get("messages", [])
    if "response_format" in b:
        said = msgs[-1].get("content", "") if msgs else ""
        fields = []
        if "Sunita" in said:
            fields = [{"field": "name", "value": "Sunita Devi", "skip": False, "reason": "none"}]
        elif "Gaya" in said and "centre" not in said:
            fields = [{"field": "district", "value": 1, "skip": False, "reason": "none"}]
        return 200, json.dumps({"ack": "जी", "fields": fields}, ensure_ascii=False)
    for m in reversed(msgs):
        for c in m.get("tool_calls") or []:
            args = c.get("function", {}).get("arguments") or c.get("arguments")
            if isinstance(args, str):
                args = json.loads(args)
            return 200, args.get("script") or args.get("message") or "ठीक है।"
    return 200, "ठीक है।"

serve(answer)
PY
python3 "$tmp/model.py" "$tmp/requests.log" >"$tmp/port" 2>/dev/null &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
cat >"$tmp/llm.json" <<'EOF'
{"providers": {"openai": {"retries": 0, "timeout_ms": 20000}}}
EOF
M=$tmp/mcorpus
mkdir -p "$M"
cp -r "$C/audios" "$C/transcripts.csv" "$C/corpus.json" "$M/"
cat >"$M/calls.csv" <<'EOF'
call_id,turn,utterance_id,condition,barge_in_ms
m1,1,u_name,ideal,
m1,2,u_gaya,ideal,1500
m1,3,u_dunno,ideal,
EOF
OPENAI_BASE_URL=http://127.0.0.1:$(cat "$tmp/port") OPENAI_API_KEY=sk-test-0123456789 \
	"$BIN" run --headless --corpus "$M" --db "$tmp/m.db" --config "$tmp/llm.json" \
	--extract openai --reply openai >"$tmp/m.out" 2>"$tmp/m.err"
rc=$?
check "models: exit status 0" '[ $rc = 0 ]'
cut=$(q "$tmp/m.db" "SELECT reply FROM turns WHERE idx = 1")
check "the question cut 1500 ms in is stored as far as it played, marked ($cut)" \
	'[ "$cut" = "आप किस ज़िले में रहती [cut off here: the caller interrupted and did not hear the rest]" ]'
python3 - "$tmp/requests.log" >"$tmp/hist" <<'PY'
# For each request after the barge-in: whether its history holds the cut question whole,
# and whether it holds it cut and marked.
import json, sys
for line in open(sys.argv[1]):
    b = json.loads(line)
    text = json.dumps(b["messages"], ensure_ascii=False)
    if "Gaya" not in text and "kuch nahi" not in text:
        continue
    kind = "extract" if "response_format" in b else "reply"
    told = any(m.get("role") == "tool" and "barge_in" in m.get("content", "") for m in b["messages"])
    print(kind, "whole" if "आप किस ज़िले में रहती हैं?\"" in text else "-",
          "marked" if "रहती [cut off here: the caller interrupted" in text else "-",
          "told" if told else "-")
PY
check "EXTRACT and REPLY requests after the barge-in: the question only as heard, marked as cut off" \
	'grep -q "^extract - marked" "$tmp/hist" && grep -q "^reply - marked" "$tmp/hist" && ! grep -q whole "$tmp/hist"'
check "REPLY's tool result says the caller barged in" 'grep -q "^reply - marked told" "$tmp/hist"'
check "no 'जी' said before an error line (turn 3 answered nothing: the question is asked again)" \
	'[ "$(q "$tmp/m.db" "SELECT coalesce(ack, \"NULL\")||\"|\"||json_extract(decision, \"\$.retries.used\") FROM turns WHERE idx = 3")" = "NULL|1" ]'
check "an answer taken keeps its 'जी'" '[ "$(q "$tmp/m.db" "SELECT ack FROM turns WHERE idx = 2")" = "जी" ]'
check "with a model REPLY the call opens with the form's intro" \
	'q "$tmp/m.db" "SELECT opening FROM calls" | grep -q "^नमस्ते! यह माँ और बच्चे के स्वास्थ्य की एक मुफ़्त सेवा है।.*कृपया अपना पूरा नाम बताइए।$"'

# ---- 1. a microphone call, her words while a late STT is in flight ------------------
cat >"$tmp/stt.py" <<'PY'
# whisper.cpp's /inference, answering after DELAY s: the WAV's stretches of speech
# (10 ms frames above -40 dBFS, gaps under 300 ms bridged) read as the test's phrases by
# length: over 1.2 s the name, else "गया". Prints its port, logs each answer.
import array, http.server, io, json, math, sys, time, wave
delay, log = float(sys.argv[1]), open(sys.argv[2], "a")

def words(wav):
    w = wave.open(io.BytesIO(wav))
    rate, x = w.getframerate(), array.array("h", w.readframes(w.getnframes()))
    n = rate // 100
    loud = [math.sqrt(sum(v * v for v in x[i:i + n]) / n) > 328 for i in range(0, len(x) - n, n)]
    runs, start, quiet = [], None, 0
    for i, on in enumerate(loud + [False] * 31):
        if on:
            start = i if start is None else start
            quiet = 0
        elif start is not None:
            quiet += 1
            if quiet > 30:
                runs.append((i - quiet + 1 - start) * 10)
                start = None
    return " ".join("मेरा नाम सुनीता देवी है" if ms > 1200 else "गया" for ms in runs)

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        at = body.find(b"RIFF")
        text = words(body[at:]) if at >= 0 else ""
        time.sleep(delay)
        log.write(text + "\n")
        log.flush()
        out = json.dumps({"text": text}, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$tmp/stt.py" 2.5 "$tmp/stt.log" >"$tmp/sttport" 2>/dev/null &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/sttport" ] && break; sleep 0.1; done
cat >"$tmp/asound.conf" <<CONF
pcm.default { type null }
pcm.fdcap { type file slave.pcm { type null } file "/dev/null" infile "$tmp/in.f32" format "raw" }
CONF
mic() { # mic NAME [OPTION...]: a headless microphone call on fdcap ($tmp/in.f32) into
	# $tmp/NAME.db, the agent's words into $tmp/NAME.wav, the JSON line in $tmp/NAME.out
	local name=$1
	shift
	ALSA_CONFIG_PATH=$tmp/asound.conf ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 300 \
		"$BIN" --mic --headless --input-device fdcap --output-file "$tmp/$name.wav" \
		--db "$tmp/$name.db" --form "$FORM" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
# The name 2 s into the opening (a barge-in: her turn ends while the agent thinks), "गया"
# 1.1 s after the name's clip ends, while the name's STT (2.5 s late) is in flight.
name_ms=$(python3 -c "import wave; w = wave.open('$C/audios/u_name.wav'); print(w.getnframes() * 1000 // w.getframerate())")
python3 tests/support/mkraw.py "$tmp/in.f32" 25 "$C/audios/u_name.wav" 2000 "$C/audios/u_gaya.wav" $((2000 + name_ms + 1100))
WHISPERCPP_BASE_URL=http://127.0.0.1:$(cat "$tmp/sttport") mic l --stt whispercpp
rc=$?
check "live, late STT: exit status 0" '[ $rc = 0 ]'
check "live, late STT: her second words came while the first turn's STT was in flight (it was cancelled)" \
	'[ "$(q "$tmp/l.db" "SELECT count(*) FROM turns WHERE cancelled = 1 AND error LIKE \"%waiting for STT: barge-in%\"")" = 1 ]'
check "live, late STT: the name is hers, not 'गया' ($(grep -o '"name":"[^"]*"' "$tmp/l.out" | head -1))" \
	'grep -q "\"name\":\"सुनीता देवी\"" "$tmp/l.out" && ! grep -q "\"name\":\"गया\"" "$tmp/l.out"'
check "live, late STT: her words before and after make one turn, in order" \
	'[ "$(q "$tmp/l.db" "SELECT transcript FROM turns WHERE cancelled = 0 AND transcript IS NOT NULL ORDER BY idx LIMIT 1")" = "मेरा नाम सुनीता देवी है गया" ]'

# ---- 2. and 4. live: a backchannel in the opening -----------------------------------
# "हम्म" 3 s into the opening, inside its second sentence (references stand in for STT);
# her name 12 s in, while the agent goes on.
printf 'हम्म\nमेरा नाम सुनीता देवी है\n' >"$tmp/refs.txt"
python3 tests/support/mkraw.py "$tmp/in.f32" 25 "$C/audios/u_hmm.wav" 3000 "$C/audios/u_name.wav" 12000
mic b --references "$tmp/refs.txt"
rc=$?
check "live backchannel: exit status 0" '[ $rc = 0 ]'
check "live backchannel: not judged, the agent goes on from the sentence it was cut in" \
	'[ "$(q "$tmp/b.db" "SELECT barge_in||\"|\"||coalesce(decision, \"NULL\") FROM turns WHERE idx = 1")" = "1|NULL" ] && q "$tmp/b.db" "SELECT reply FROM turns WHERE idx = 1" | grep -q "^यह माँ और बच्चे के स्वास्थ्य की एक मुफ़्त सेवा है। मैं आपसे"'
check "live backchannel: the opening is stored as far as it played (by its audio), marked" \
	'q "$tmp/b.db" "SELECT opening FROM calls" | grep -q "^नमस्ते!.* \[cut off here: the caller interrupted and did not hear the rest\]$"'
check "live backchannel: the name is answered with its retry unused" \
	'grep -q "\"name\":\"सुनीता देवी\"" "$tmp/b.out" && [ "$(q "$tmp/b.db" "SELECT json_extract(decision, \"\$.retries.used\") FROM turns WHERE idx = 2")" = 0 ]'

# ---- 3. live: a hesitation ------------------------------------------------------------
# Her name 2 s into the opening; "उम्म्म्म" 5 s in (inside the district question that
# follows), "गया" 0.8 s after it.
printf 'मेरा नाम सुनीता देवी है\nउम्म्म्म\nगया\n' >"$tmp/refs.txt"
umm_ms=$(python3 -c "import wave; w = wave.open('$C/audios/u_umm.wav'); print(w.getnframes() * 1000 // w.getframerate())")
python3 tests/support/mkraw.py "$tmp/in.f32" 25 "$C/audios/u_name.wav" 2000 "$C/audios/u_umm.wav" 5000 \
	"$C/audios/u_gaya.wav" $((5000 + umm_ms + 800))
mic h --references "$tmp/refs.txt"
rc=$?
check "live hesitation: exit status 0" '[ $rc = 0 ]'
check "live hesitation: 'उम्म्म्म' held: no decision, the agent says nothing" \
	'[ "$(q "$tmp/h.db" "SELECT transcript||\"|\"||coalesce(decision, \"NULL\")||\"|\"||coalesce(reply, \"NULL\") FROM turns WHERE idx = 2")" = "उम्म्म्म|NULL|NULL" ]'
check "live hesitation: one turn with what follows, district Gaya, no retry used" \
	'[ "$(q "$tmp/h.db" "SELECT transcript||\"|\"||json_extract(decision, \"\$.retries.used\")||\"|\"||barge_in FROM turns WHERE idx = 3")" = "उम्म्म्म गया|0|0" ] && grep -q "\"district\":\"Gaya\"" "$tmp/h.out"'

# ---- 4. a line cut before it began is not stored as said ----------------------------
"$BIN" run --headless --corpus tests/data/corpus_bargein --db "$tmp/z.db" >/dev/null 2>"$tmp/z.err"
check "a reply cut at 0 ms is stored as not heard" \
	'[ "$(q "$tmp/z.db" "SELECT reply FROM turns WHERE idx = 2")" = "[not heard: the caller interrupted before these words began]" ]'
check "no sanitizer report" '! grep -qE "Sanitizer|runtime error" "$tmp"/*.err'
echo "1..$n"
