#!/bin/bash
# extract and name-match end to end: the real binary on utterances of the enrollment form
# and of the test form, its JSON on stdout, and its errors (stderr, exit 2).
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
TMPD=$tmp
FORM=tests/data/parse_form.json
ENROL=forms/armman_enrollment.json
T="--today 2025-03-15"
# ok STATUS WHAT: this script's checks give the status first
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
# expect FIELD TEXT JSON: stdout equals JSON, exit 0
expect() {
	local out rc
	out=$("$BIN" extract --form "$FORM" --field "$1" $T "$2" 2>$TMPD/err); rc=$?
	[ "$rc" = 0 ] && [ "$out" = "$3" ]
	ok $? "extract $1 \"$2\" -> $3${out:+ (got $out)}"
}

expect linked_number "mera number hai nau aath saat chhe paanch chaar teen do ek shunya" \
	'{"linked_number":{"status":"answered","value":9876543210}}'
expect linked_number "9 8 7 6 5" \
	'{"linked_number":{"status":"invalid","error":"Phone number must be exactly 10 digits (got 5). Parsed digits: 98765"}}'
expect linked_number "number yaad nahi hai" '{"linked_number":{"status":"skipped","reason":"dont_know"}}'
expect linked_number "ji, boliye" '{"linked_number":{"status":"empty"}}'
expect child_dob "पिछले महीने की पाँच तारीख" '{"child_dob":{"status":"answered","value":"05-02-2025"}}'
expect pregnant "haan… nahi nahi, nahi hua" '{"pregnant":{"status":"answered","value":false}}'
expect district "dakshin kannada zila" '{"district":{"status":"answered","value":"Dakshina Kannada"}}'
expect name "mera naam Rekha Kumari hai aur main Gaya se hoon" \
	'{"name":{"status":"answered","value":"Rekha Kumari"},"district":{"status":"answered","value":"Gaya"}}'
expect gestational_age "saadhe paanch mahine" '{"gestational_age":{"status":"answered","value":5}}'

# the enrollment form, if present, reads the same way
if [ -f "$ENROL" ]; then
	out=$("$BIN" extract --form "$ENROL" --field pregnant $T "haan ji")
	case "$out" in *'"pregnant":{"status":"answered"'*) r=0 ;; *) r=1 ;; esac
	ok $r "enrollment form: pregnant 'haan ji' answered ($out)"
fi

# history is accepted as FormBharo's transcript shape
printf '[{"role":"agent","content":"आपका नाम क्या है?"},{"role":"user","content":"Sunita"}]' >$TMPD/hist.json
out=$("$BIN" extract --form "$FORM" --field name $T --history $TMPD/hist.json "Sunita Devi"); rc=$?
[ "$rc" = 0 ] && [ "$out" = '{"name":{"status":"answered","value":"Sunita Devi"}}' ]
ok $? "--history file accepted"

# errors: stderr names what is wrong, exit 2, nothing on stdout
err() {
	local out rc
	out=$("$BIN" "$@" 2>$TMPD/err); rc=$?
	[ "$rc" = 2 ] && [ -z "$out" ] && grep -q -- "$ERRWORD" $TMPD/err
	ok $? "error: $* -> exit 2, stderr mentions '$ERRWORD' ($(head -c 200 $TMPD/err))"
}
ERRWORD="no such question" err extract --form "$FORM" --field nosuch "haan"
ERRWORD="/nonexistent/form.json" err extract --form /nonexistent/form.json --field name "haan"
ERRWORD="--today" err extract --form "$FORM" --field name --today 2025-02-31 "haan"
ERRWORD="unknown option" err extract --form "$FORM" --field name --bogus "haan"
ERRWORD="TEXT" err extract --form "$FORM" --field name
ERRWORD="--form" err extract --field name "haan"
printf '[{"role":"user"}]' >$TMPD/badhist.json
ERRWORD="element 0" err extract --form "$FORM" --field name --history $TMPD/badhist.json "haan"
printf '[{"role":' >$TMPD/badhist.json
ERRWORD="line 1" err extract --form "$FORM" --field name --history $TMPD/badhist.json "haan"
mkdir -p $TMPD/words && cp agent/words/*.tsv $TMPD/words/ &&
	printf 'saat\tbogus\n' >>$TMPD/words/numbers.tsv
out=$(FORMDESK_WORDS=$TMPD/words "$BIN" extract --form "$FORM" --field name "haan" 2>$TMPD/err); rc=$?
[ "$rc" = 2 ] && grep -q "numbers.tsv line [0-9]*: unknown tag 'bogus'" $TMPD/err
ok $? "a bad word list names its file and line ($(cat $TMPD/err))"
rm -rf $TMPD/words $TMPD/hist.json $TMPD/badhist.json

# name-match
nm() {
	local out
	out=$("$BIN" name-match "$1" "$2")
	[ "$out" = "$3" ]
	ok $? "name-match $1 / $2 -> $3 (got $out)"
}
nm Laxmi लक्ष्मी same
nm Lakshmi Laxmi same
nm Sunita Sumita different
nm Sapna Swapna unsure
out=$("$BIN" name-match onlyone 2>/dev/null); rc=$?
[ "$rc" = 2 ]; ok $? "name-match with one name: exit 2"
