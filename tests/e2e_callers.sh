#!/bin/bash
# e2e_callers: `formdesk callers` on the enrollment form with the demo profiles and every
# behaviour: every call ends as expected and the calls are recorded as one run; forms
# made worse on purpose show as a drop in exactly the behaviours and fields they should
# (district retry limit 0: the behaviours that need district asked twice; a branch on
# the wrong value: whatsapp_number only); --repeat reports pass^k; bad input (a profile
# without a value, an unknown behaviour, an invalid persona file) is named and runs
# nothing; a persona caller against a chat-completions server on 127.0.0.1 that plays
# her; audio callers through the telephone channel and the endpointer.
set -u
cd "$(dirname "$0")/.."
source tests/lib/e2e.sh
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
P=corpus/demo/profiles.json
F=forms/armman_enrollment.json
# jq-free reads of the summary line: python3 prints one value
j() { python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(eval(sys.argv[2]))" "$@"; }

"$BIN" callers --form $F --profiles $P --json --db "$tmp/good.db" >"$tmp/good.json" 2>"$tmp/good.err"
check "all behaviours: exit 0" "[ $? = 0 ]"
check "51 calls, every one ended as expected" "[ \"\$(j $tmp/good.json 'd[\"calls\"], d[\"complete\"]')\" = '(51, 51)' ]"
check "plain callers: every field right" "[ \"\$(j $tmp/good.json 'd[\"behaviours\"][\"plain\"][\"accuracy\"]')\" = 1 ]"
check "every behaviour is reported" "[ \"\$(j $tmp/good.json 'len(d[\"behaviours\"])')\" = 17 ]"
check "the calls are one run of recorded calls" \
	"[ \"\$(sqlite3 $tmp/good.db 'SELECT count(*) FROM calls WHERE run_id = 1')\" = 51 ]"
check "the run's source is callers" "\"$BIN\" runs --db $tmp/good.db | grep -q ' callers '"
check "turns record the behaviour and the barge-in" \
	"[ \"\$(sqlite3 $tmp/good.db \"SELECT count(*) FROM turns WHERE condition = 'barge-in' AND barge_in = 1\")\" -gt 0 ]"

# the same profiles, list and seed: the same calls
"$BIN" callers --form $F --profiles $P --json --db "$tmp/again.db" >"$tmp/again.json" 2>/dev/null
check "same seed, same report" "cmp -s <(sed 's/,\"run\":[0-9]*//' $tmp/good.json) <(sed 's/,\"run\":[0-9]*//' $tmp/again.json)"

python3 - "$tmp" <<'PY'
import json, sys
f = json.load(open("forms/armman_enrollment.json"))
for q in f["questions"]:
    if q["name"] == "district":
        q["retry_config"]["max_retries"] = 0
        q["retry_config"]["retry_messages"] = []
json.dump(f, open(sys.argv[1] + "/retry0.json", "w"), ensure_ascii=False)
f = json.load(open("forms/armman_enrollment.json"))
for b in f["branches"]:
    if b["id"] == "whatsapp_different":
        b["condition"]["equals"] = True
json.dump(f, open(sys.argv[1] + "/branch.json", "w"), ensure_ascii=False)
PY
"$BIN" callers --form "$tmp/retry0.json" --expect-form $F --profiles $P --json --db "$tmp/r0.db" >"$tmp/r0.json" 2>/dev/null
dropped=$(j "$tmp/r0.json" '",".join(sorted(k for k, v in d["behaviours"].items() if v["completion"] < 1))')
# A backchannel while the agent speaks costs no retry (docs/turn-taking.md): it needs no
# re-ask, so it is not among them.
check "district retry limit 0: completion drops in exactly the behaviours that need a re-ask ($dropped)" \
	"[ '$dropped' = 'decline,dont-know,repeat,silence,wrong-then-right' ]"
check "district retry limit 0: the other behaviours still complete" \
	"[ \"\$(j $tmp/r0.json 'sum(v[\"complete\"] for v in d[\"behaviours\"].values())')\" = 36 ]"

"$BIN" callers --form "$tmp/branch.json" --expect-form $F --profiles $P --json --db "$tmp/br.db" >"$tmp/br.json" 2>/dev/null
check "a branch on the wrong value: whatsapp_number is never right" \
	"[ \"\$(j $tmp/br.json 'd[\"fields\"][\"whatsapp_number\"][\"accuracy\"]')\" = 0 ]"
for f in name district pregnant phone_linked whatsapp_same aadhaar_last4; do
	check "a branch on the wrong value: $f unchanged" \
		"[ \"\$(j $tmp/br.json 'd[\"fields\"][\"$f\"]')\" = \"\$(j $tmp/good.json 'd[\"fields\"][\"$f\"]')\" ]"
done

"$BIN" callers --form $F --profiles $P --behaviours plain,hesitate --repeat 2 --db "$tmp/rep.db" >"$tmp/rep.out" 2>/dev/null
check "--repeat 2: pass^2 in the report" "grep -q '^pass^2: 6 of 6 calls passed all 2 runs' $tmp/rep.out"
check "--repeat 2: 12 recorded calls" "[ \"\$(sqlite3 $tmp/rep.db 'SELECT count(*) FROM calls')\" = 12 ]"
check "--repeat 2: per-behaviour table with intervals" "grep -qE '^  hesitate +6 +100.0% \\[' $tmp/rep.out"

# bad input: named, nothing run (no database made)
"$BIN" callers --form $F --profiles tests/data/callers/profiles_no_value.json --db "$tmp/bad1.db" >/dev/null 2>"$tmp/bad1.err"
check "a profile without a value: exit 2" "[ $? = 2 ]"
check "a profile without a value: file, line and field named" \
	"grep -q \"profiles_no_value.json:15: callers\\[0\\] ('sunita'): field 'district': no 'value'\" $tmp/bad1.err"
check "a profile without a value: nothing run" "[ ! -e $tmp/bad1.db ]"
"$BIN" callers --form $F --profiles $P --behaviours plain,shout --db "$tmp/bad2.db" >/dev/null 2>"$tmp/bad2.err"
check "an unknown behaviour: exit 2, named" "[ $? = 2 ] && grep -q \"'shout': no such behaviour\" $tmp/bad2.err"
check "an unknown behaviour: nothing run" "[ ! -e $tmp/bad2.db ]"
"$BIN" callers --form $F --profiles $P --caller-model local --persona tests/data/callers/persona_bad.json \
	--db "$tmp/bad3.db" >/dev/null 2>"$tmp/bad3.err"
check "an invalid persona: exit 2, file, line and field named" \
	"[ $? = 2 ] && grep -q \"persona_bad.json:5: field 'patience'\" $tmp/bad3.err"
check "an invalid persona: nothing run" "[ ! -e $tmp/bad3.db ]"
"$BIN" callers --form $F --profiles $P --audio --voice nosuch --db "$tmp/bad4.db" >/dev/null 2>"$tmp/bad4.err"
check "an unknown voice for --audio: exit 2, named, nothing run" \
	"[ $? = 2 ] && grep -q \"TTS 'nosuch'\" $tmp/bad4.err && [ ! -e $tmp/bad4.db ]"

# a persona caller: the server plays her, answering each question from her true answers
cat >"$tmp/caller.py" <<'PY'
import json, re, sys
from chatserver import serve
def answer(body):
    req = json.loads(body)
    with open(sys.argv[1], "a") as log:
        log.write(json.dumps(req, ensure_ascii=False) + "\n")
    facts = json.loads(re.search(r"will not say[^:]*: (\{.*\})", req["messages"][0]["content"]).group(1))
    plan = [("haan" if v is True else "nahi" if v is False else str(v))
            for v in facts.values() if v is not None]
    i = sum(m["role"] == "user" for m in req["messages"]) - 1
    return 200, plan[i] if i < len(plan) else "[silence]"
serve(answer)
PY
serve_local "$tmp/caller.py" "$tmp/requests.jsonl"
LOCAL_BASE_URL=http://127.0.0.1:$port "$BIN" callers --form $F \
	--profiles tests/data/callers/profiles.json --caller-model local:caller \
	--persona tests/data/callers/persona.json --db "$tmp/persona.db" >"$tmp/persona.out" 2>"$tmp/persona.err"
check "persona caller: exit 0" "[ $? = 0 ]"
check "persona caller: the call ends as expected, every field right" \
	"[ \"\$(j $tmp/persona.out 'd[\"complete\"], d[\"accuracy\"]')\" = '(1, 1)' ]"
check "persona caller: the caller model's requests counted apart" \
	"[ \"\$(j $tmp/persona.out 'd[\"caller_model\"][\"requests\"], d[\"caller_model\"][\"model\"]')\" = \"(9, 'caller')\" ]"
check "persona caller: the agent made no request of its own (offline)" \
	"[ \"\$(sqlite3 $tmp/persona.db 'SELECT count(*) FROM stage_usage')\" = 0 ]"
check "persona caller: the persona's temperature, who she is and only her path's answers go to the model" \
	"python3 -c \"import json; r=json.loads(open('$tmp/requests.jsonl').readline()); c=r['messages'][0]['content']; assert r['temperature']==0.9 and 'Gaya district, Bihar' in c and '\\\"gestational_age\\\":6' in c and 'child_name' not in c\""
check "persona caller: the model sees only the agent's words" \
	"python3 -c \"import json; r=[json.loads(l) for l in open('$tmp/requests.jsonl')][-1]; assert [m['role'] for m in r['messages'][1:3]]==['user','assistant'] and 'name' not in r['messages'][1]['content']\""

# audio callers: espeak-ng's words, the telephone channel, the endpointer
"$BIN" callers --form $F --profiles tests/data/callers/profiles.json --behaviours hesitate,digit-groups,barge-in \
	--audio --db "$tmp/audio.db" >"$tmp/audio.out" 2>"$tmp/audio.err"
check "audio callers: exit 0, the three calls end as expected" "[ $? = 0 ] && [ \"\$(j $tmp/audio.out 'd[\"complete\"]')\" = 3 ]"
check "audio callers: a barge-in is an audio turn recorded as one, with the ms into the agent's words" \
	"[ \"\$(sqlite3 $tmp/audio.db \"SELECT count(*) FROM turns WHERE input = 'mic' AND barge_in = 1 AND barge_in_ms = 1500\")\" -gt 5 ]"
check "audio callers: turns came in as audio through the telephone channel" \
	"[ \"\$(sqlite3 $tmp/audio.db \"SELECT count(*) FROM turns WHERE input = 'mic' AND condition LIKE '%+telephone'\")\" -gt 10 ]"
check "audio callers: the hesitation is two stretches of speech in one turn" \
	"sqlite3 $tmp/audio.db \"SELECT segments FROM turns WHERE condition = 'hesitate+telephone' LIMIT 1\" | grep -q '},{'"
check "audio callers: digit groups are heard as one turn" \
	"[ \"\$(sqlite3 $tmp/audio.db \"SELECT transcript FROM turns WHERE condition = 'digit-groups+telephone' AND transcript = '98765 43210'\")\" = '98765 43210' ]"
echo "1..$n"
