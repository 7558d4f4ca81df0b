#!/bin/bash
# tui_review: the browser of recorded calls (formdesk review), driven in tmux at 160x45 on
# the runs fixture (tests/data/runs_form.json, tests/data/runs_corpus: c1 complete, c2
# failed on a district it was not offered, c3 complete on the re-ask). Keys are typed
# with send-keys, the screen read with capture-pane, polled with a deadline.
#  list:   every call with status, turns, unanswered fields and reason; s filters by
#          status, f by the stage that failed; / searches what the caller said.
#  call:   Enter opens one at turn 1; n and p step its turns; each shows the transcript,
#          EXTRACT, the verdicts, the decision and REPLY; turn 0 the opening and the end.
#  quit:   q goes back, q again quits, the shell is back.
#  --run and --field start the list filtered.
#  --against: two runs side by side, turn by turn, paired as the diff pairs them.
#  audio:  a plays a turn (ALSA's file plugin); l labels it for the turn-errors task.
#  paging: 303 calls, read a page at a time; space and b page, g and G go to the ends.
set -u
cd "$(dirname "$0")/.."

. tests/lib/tmux.sh
tmux_start review sqlite3
db=$tmp/review.db
PANE=review
"$BIN" run --headless --form tests/data/runs_form.json --corpus tests/data/runs_corpus --db "$db" >/dev/null 2>&1

open_shell
keys() { "${T[@]}" send-keys -t "$PANE" "$@"; }
keys "$BIN review --db $db" Enter
screen_up 'formdesk review · 3 of 3 calls · status any' "the list comes up with every call"
check "a failed call shows its unanswered fields and reason" \
	grep -qE '^  2 +1 +c2 +failed +3  district, pregnan.* district ran out of retries' "$tmp/screen"
keys s
check "s: only the complete calls" wait_for '2 of 3 calls · status complete'
keys s
check "s again: only the failed one" wait_for '1 of 3 calls · status failed'
keys Enter
check "Enter opens the call at its first turn" wait_for 'call 2 · run 1 · runs-fixture/c2 · failed · turn 1 of 3'
wait_for '^ms: audio' 10
check "the turn shows how the words came in, STT, EXTRACT, REPLY and the timings" \
	bash -c "grep -q 'input corpus · condition ideal' '$tmp/screen' && grep -q 'transcript: mera naam Rekha hai' '$tmp/screen' && grep -q '^EXTRACT' '$tmp/screen' && grep -q '^REPLY' '$tmp/screen' && grep -q '^ms: audio' '$tmp/screen'"
check "... and the end of speech to the agent's words, each part with what governs it" \
	bash -c "grep -q '^latency: speech end to sound' '$tmp/screen' && grep -qE '^  extract_ack +[0-9.]+ ms  rules' '$tmp/screen'"
keys n
check "n: turn 2, the district the form does not offer, its verdict failed" wait_for 'FAIL district type: Value must be one of: Gaya, Patna'
wait_for '^ms: audio' 10
check "... the decision: the re-ask, with retries used" bash -c "grep -q 'transcript: Nalanda' '$tmp/screen' && grep -q 'retries district: used 1 of 1' '$tmp/screen' && grep -q 'next: ask district' '$tmp/screen'"
keys p p
check "... the form as it stood after turn 2: the name only" grep -q 'form after this turn: {"name":"Rekha"}' "$tmp/screen"
check "p back to turn 0: the opening and how the call ended" wait_for 'the call ended failed: district ran out of retries'
keys q
check "q: back to the list" wait_for '1 of 3 calls · status failed'
keys s s s
check "s cycles back to every status" wait_for '3 of 3 calls · status any'
keys f
check "f: the calls where some stage failed (a refused answer here)" wait_for '2 of 3 calls · status any · fault any'
keys f
check "f again: a failed STT request, none here" wait_for '0 of 3 calls · status any · fault stt'
keys f f f
check "f to validation: c2 and c3, whose answers a validator refused" wait_for '2 of 3 calls · status any · fault validation'
keys f
check "f cycles back to any call" wait_for '3 of 3 calls · status any$'
keys / P a t n a Enter
check "/ finds the calls whose caller said Patna" wait_for '1 of 3 calls · status any · said: Patna'
check "... that is c3" grep -qE '^> 3 +1 +c3 +complete' "$tmp/screen"
keys q
check "q quits: the shell is back" wait_for '^fdtest\$ ?$' 30
keys "$BIN review --db $db --corpus runs-fixture --fault validation --status failed" Enter
check "--corpus, --fault and --status start the list filtered" wait_for '1 of 3 calls · status failed · corpus runs-fixture · fault validation'
keys q
wait_for '^fdtest\$ ?$' 30
keys "$BIN review --db $db --corpus nosuch" Enter
check "--corpus of no call: an empty list" wait_for '0 of 3 calls · status any · corpus nosuch'
keys q
wait_for '^fdtest\$ ?$' 30
keys "$BIN review --db $db --run 1 --field pregnant" Enter
check "--field: only the call that left pregnant unanswered" wait_for '1 of 3 calls · status any · unanswered pregnant'
check "... that is c2" grep -qE '^> 2 +1 +c2 +failed' "$tmp/screen"
keys q
check "q quits again" wait_for '^fdtest\$ ?$' 30
# Two runs side by side: run 1 replayed with Nalanda offered as a district (run 2, in a
# copy of the database); c2 opens beside its replay, paired as the diff pairs them, and
# the two first differ at turn 2's extraction (tests/e2e_replay.sh works the diff out).
sqlite3 "$db" ".backup '$tmp/pair.db'"
python3 -c "import json, sys; f = json.load(open(sys.argv[1])); f['questions'][1]['options'].append('Nalanda'); json.dump(f, open(sys.argv[2], 'w'), ensure_ascii=False)" tests/data/runs_form.json "$tmp/options.json"
"$BIN" replay --db "$tmp/pair.db" --run 1 --form "$tmp/options.json" >/dev/null 2>&1
keys "clear; $BIN review --db $tmp/pair.db --run 1 --against 2" Enter
check "--against: the list of run 1, against run 2" wait_for '3 of 3 calls · status any · against run 2'
keys j Enter
check "Enter: c2 beside its replay, the first divergence named" \
	wait_for '^run 1 against run 2 · first divergence: turn 2, extraction$'
check "... each side its own call at turn 1" \
	grep -qE '^call 2 · run 1 · runs-fixture/c2 · failed · turn 1 of 3 +│ call 5 · run 2 · runs-fixture/c2 · failed · turn 1 of 5' "$tmp/screen"
keys n
check "n: both at turn 2, the divergence is this turn" wait_for 'first divergence: turn 2, extraction \(this turn\)'
wait_for '^ms: audio' 10 >/dev/null
check "... A refuses Nalanda where B takes it, side by side" \
	bash -c "grep -q 'FAIL district type: Value must be one of: Gaya, Patna' '$tmp/screen' && grep -qE '│ +district: 2 -> \"Nalanda\" +answered' '$tmp/screen'"
keys n n n
check "n past A's last turn: B's turn 5 beside 'no turn 5'" \
	wait_for '\(this call has no turn 5: it ended after 3\) +│ caller$'
keys q
check "q: back to the list" wait_for '3 of 3 calls · status any · against run 2'
keys g Enter
check "c1: the two calls do not differ" wait_for '^run 1 against run 2 · the two calls do not differ$'
keys q c 9 Enter Enter
check "c then a run's number compares with it; one that is not there is named" \
	wait_for 'cannot compare: run 9: no such run'
keys q q
check "q q quits" wait_for '^fdtest\$ ?$' 30
keys "clear; $BIN review --db $tmp/pair.db --against 7; echo rc=\$?" Enter
check "--against an unknown run: named, exit 2" wait_for '^formdesk review: run 7: no such run in .*pair.db' 30
check "... exit 2" wait_for '^rc=2$' 30

# a: a turn's audio, played through ALSA's file plugin (a test-owned configuration, as
# e2e_devices): c2's turn 2, the corpus clip the caller said (1.5 s), then the agent's
# reply, 0.5 s of a recording of the call (agent.wav, placed with the store's columns).
# A recording that is gone is named. l then a tag's key: a turn-errors label.
mkdir -p "$tmp/rec"
python3 - "$tmp/rec/agent.wav" <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], 'wb')
w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
w.writeframes(b''.join(struct.pack('<h', int(8000 * math.sin(i / 8.0))) for i in range(32000)))
PY
cat >"$tmp/asound.conf" <<CONF
pcm.default { type null }
pcm.fdplay { type file slave.pcm { type null } file "$tmp/out.raw" format "raw" }
CONF
sqlite3 "$db" "UPDATE calls SET audio_dir = '$tmp/rec' WHERE id = 2;
 UPDATE turns SET agent_audio_start_ms = 1000, agent_audio_end_ms = 1500 WHERE call_id = 2 AND idx = 2;
 UPDATE turns SET audio = '$tmp/gone.wav' WHERE call_id = 2 AND idx = 3"
# ALSA's modules leave memory the leak checker cannot name (as e2e_live)
keys "clear; ALSA_CONFIG_PATH=$tmp/asound.conf ASAN_OPTIONS=detect_leaks=0 $BIN review --db $db --status failed --output-device fdplay --annotator asha" Enter
check "a failed call to play" wait_for '1 of 3 calls · status failed'
keys Enter n
check "... its turn 2" wait_for 'call 2 · run 1 · runs-fixture/c2 · failed · turn 2 of 3'
keys a
check "a: the caller's clip, then the agent's words from the call's recording" \
	wait_for 'played turn 2: 1.5 s of the caller, then 0.5 s of the agent' 30
bytes=$(stat -c %s "$tmp/out.raw" 2>/dev/null || echo 0)
check "... went to the output device: 2.0 s of samples at 16 kHz or more ($bytes bytes)" \
	test "$bytes" -ge 64000
keys n a
check "a on a turn whose recording is gone: named" \
	wait_for "turn 3: the caller's recording cannot be played: .*gone.wav"
keys p l
check "l: the turn-errors tags, each with its key" \
	wait_for 'label this turn \(turn-errors\): 1 STT error · 2 endpointing cut-off'
keys 5
check "5: the turn is labelled wrong option, as the annotator named" \
	wait_for 'turn 2 labelled "wrong option" for the turn-errors task, as asha'
check "... the label is in the annotation tables, on the turn's turn-errors item" \
	test "$(sqlite3 "$db" "SELECT i.task||'|'||i.key||'|'||i.turn||'|'||l.annotator||'|'||l.label FROM ann_labels l JOIN ann_items i ON i.id = l.item_id")" = \
	"turn-errors|turn $(sqlite3 "$db" 'SELECT id FROM turns WHERE call_id = 2 AND idx = 2')|2|asha|wrong_option"
keys l 1
check "l 1: a second tag, STT error, beside the first" \
	wait_for 'turn 2 labelled "STT error" for the turn-errors task, as asha \(label stt_error,wrong_option\)'
keys l 5
check "l 5 again takes wrong option off" wait_for 'turn 2: "wrong option" taken off asha.s label \(stt_error\)'
check "... the label kept is STT error alone" \
	test "$(sqlite3 "$db" "SELECT group_concat(label) FROM ann_labels")" = stt_error
keys l Escape
check "l then Esc labels nothing" wait_for 'not labelled$'
keys q q
check "q q quits" wait_for '^fdtest\$ ?$' 30

# A list longer than the screen is read a page at a time: 300 more calls (copies of the
# three), paged with space and b, g and G to its ends.
sqlite3 "$db" "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 100)
 INSERT INTO calls (corpus, corpus_call_id, status, reason, form_data, form_status, turns, run_id)
 SELECT c.corpus, c.corpus_call_id || '-' || k.i, c.status, c.reason, c.form_data, c.form_status,
 c.turns, c.run_id FROM k, calls c WHERE c.id <= 3 ORDER BY k.i, c.id"
keys "$BIN review --db $db" Enter
check "303 calls are counted" wait_for '303 of 303 calls · status any'
check "... the first screen shows the first of them" grep -qE '^> 1 +1 +c1 ' "$tmp/screen"
keys G
check "G: the last call, 303, is read and shown" wait_for '^> 303 +1 +c3-100 +complete'
keys g
check "g: back to the first" wait_for '^> 1 +1 +c1 '
keys Space
check "space: a page down (42 rows), call 43 under the cursor" wait_for '^> 43 +1 +c1-14 '
keys Space Space b
check "b: a page back up, call 85" wait_for '^> 85 +1 +c1-28 '
keys s s
check "s twice: the failed ones are counted by the store" wait_for '101 of 303 calls · status failed'
keys G
check "... G: the last failed call" wait_for '^> 302 +1 +c2-100 +failed'
keys q
check "q quits a third time" wait_for '^fdtest\$ ?$' 30
echo "1..$n"
[ "$failed" = 0 ]
