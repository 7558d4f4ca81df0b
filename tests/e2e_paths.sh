#!/bin/bash
# End to end: `formdesk paths` on the enrollment form gives the paper's 48 paths, each a
# JSON line, and refuses bad --unknown lists with a message naming the field.
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
FORM=forms/armman_enrollment.json

"$BIN" paths --form $FORM --unknown linked_number,whatsapp_same,whatsapp_number,aadhaar_last4 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "paths exits 0" '[ $rc = 0 ]'
check "48 lines for the paper's unknown fields" '[ "$(wc -l <"$tmp/out")" = 48 ]'
python3 - "$tmp/out" >"$tmp/py" 2>&1 <<'PY'
import json, sys
paths = [json.loads(l) for l in open(sys.argv[1])]
assert [p["path"] for p in paths] == list(range(1, 49)), "numbered 1..48"
keys = {json.dumps(p["answers"], sort_keys=True) for p in paths}
assert len(keys) == 48, "all distinct"
preg = sum(1 for p in paths if p["answers"]["pregnant"] is True)
assert preg == 24, preg
# gestational age only if pregnant; child fields only if not
for p in paths:
    a = p["answers"]
    assert ("gestational_age" in a) == (a["pregnant"] is True)
    assert ("child_dob" in a) == (a["pregnant"] is False)
    assert ("linked_number" in a) == (a["phone_linked"] is False)
    assert ("whatsapp_number" in a) == (a["whatsapp_same"] is False)
ws = sorted({json.dumps([p["answers"]["whatsapp_same"], p["answers"].get("whatsapp_number")]) for p in paths})
assert len(ws) == 4, ws
print("fine")
PY
check "paths are distinct and follow the branches" 'grep -qx fine "$tmp/py"'

"$BIN" paths --form $FORM >"$tmp/out8" 2>&1
check "8 paths with no unknown field" '[ "$(wc -l <"$tmp/out8")" = 8 ]'

"$BIN" paths --form $FORM --unknown aadhaar_last4,district >/dev/null 2>"$tmp/err"
rc=$?
check "a required field in --unknown exits 2" '[ $rc = 2 ]'
check "the message names the required field" 'grep -q "district" "$tmp/err" && grep -q required "$tmp/err"'

"$BIN" paths --form $FORM --unknown no_such_field >/dev/null 2>"$tmp/err"
rc=$?
check "a field not in the form exits 2" '[ $rc = 2 ]'
check "the message names the missing field" 'grep -q "no_such_field" "$tmp/err"'

"$BIN" paths --form "$tmp/missing.json" >/dev/null 2>"$tmp/err"
rc=$?
check "a missing form file exits 2 naming it" '[ $rc = 2 ] && grep -q missing.json "$tmp/err"'
