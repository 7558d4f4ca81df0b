#!/bin/bash
# End to end: `formdesk corpus-respin` writes the expected end of each call as the rule
# layer runs it for a caller who is never understood, not as a copy of the rules would.
# The form nests a `present: false` branch under a branch that closes (consent skipped
# closes "agreed", so its email question is never asked, and "no_email", controlled by
# that email question, closes with it): no_email_reason is never asked, so a call is
# consent 3 turns then skipped, city 2 turns then the call fails: 5 turns.
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh

mkdir -p "$tmp/clips/bh"
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
	printf 'clip%s\tkuch bhi nahin\n' $i >>"$tmp/clips/bh/text.tsv"
	: >"$tmp/clips/bh/clip$i.mp3"
done
cat >"$tmp/form.json" <<'JSON'
{
  "title": "nested branches",
  "questions": [
    {"name": "consent", "label": "Do you agree?", "type": "boolean", "required": false},
    {"name": "email", "label": "Email?", "type": "string", "required": false, "branch_id": "agreed"},
    {"name": "no_email_reason", "label": "Why not?", "type": "string", "required": false, "branch_id": "no_email"},
    {"name": "city", "label": "City?", "type": "string", "required": true, "retry_config": {"max_retries": 1}}
  ],
  "branches": [
    {"id": "agreed", "condition": {"field": "consent", "equals": true}},
    {"id": "no_email", "condition": {"field": "email", "present": false}}
  ]
}
JSON

"$BIN" corpus-respin --clips "$tmp/clips" --form "$tmp/form.json" --out "$tmp/out" 2>"$tmp/err"
rc=$?
check "corpus-respin exits 0" '[ $rc = 0 ]'
check "2 calls of 5 turns from 12 clips" 'grep -q "2 calls of 5 turns from 12 clips (consent=skipped city=failed)" "$tmp/err"'
check "calls.csv: 10 turns" '[ "$(tail -n +2 "$tmp/out/calls.csv" | wc -l)" = 10 ]'
want='{"call_id":"respin-01","form_data":{"consent":null,"email":null,"no_email_reason":null,"city":null},"form_status":{"consent":"skipped","email":"empty","no_email_reason":"empty","city":"skipped"},"status":"failed"}'
check "expected.jsonl: the flow's end (no_email_reason never asked)" '[ "$(head -1 "$tmp/out/expected.jsonl")" = "$want" ]'
