#!/bin/bash
# check-form end to end: exit codes and stdout of the real binary on good and bad configs.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh
TMPD=$tmp
# ok STATUS WHAT: this script's checks give the status first
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

out=$("$BIN" check-form forms/armman_enrollment.json); rc=$?
[ "$rc" = 0 ] && [ -z "$out" ]; ok $? "enrollment form is valid: exit 0, no output"

out=$("$BIN" check-form tests/data/forms/valid_write_shape.json); rc=$?
[ "$rc" = 0 ] && [ -z "$out" ]; ok $? "write shape is valid"

for f in unknown_branch controller_after equals_non_boolean duplicate_names missing_keys \
	 malformed_trailing_comma wrong_types; do
	out=$("$BIN" check-form "tests/data/forms/$f.json"); rc=$?
	[ "$rc" = 1 ] && [ "$out" = "$(cat "tests/data/forms/$f.expected")" ]
	ok $? "$f: exit 1 and the expected validation_issues"
done

out=$("$BIN" check-form tests/data/forms/unknown_branch.json)
[ "$out" = '{"validation_issues":[{"field":"questions[0].branch_id","message":"Question references unknown branch '"'nope'"'."}]}' ]
ok $? "unknown branch: FormBharo's message and field path"

out=$("$BIN" check-form tests/data/forms/malformed_unquoted.json)
case "$out" in *'"field":""'*'"message":"line 1, column 11:'*) r=0 ;; *) r=1 ;; esac
ok $r "malformed JSON: field \"\" and line/column"

out=$("$BIN" check-form /nonexistent/form.json 2>$TMPD/err); rc=$?
[ "$rc" = 2 ] && [ -z "$out" ] && grep -q /nonexistent/form.json $TMPD/err
ok $? "unreadable file: exit 2, stderr names it"
rm -f $TMPD/err

"$BIN" check-form >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ]; ok $? "no file: usage, exit 2"

# Warnings: a form that loads but misbehaves is accepted (exit 0, stdout empty) with one
# line per warning on stderr naming the question by name and index; --strict refuses it.
lint=tests/data/forms/lint/misbehaving.json
out=$("$BIN" check-form "$lint" 2>$TMPD/err); rc=$?
[ "$rc" = 0 ] && [ -z "$out" ] &&
	[ "$(grep -c ': warning: ' $TMPD/err)" = "$(grep -c "^$lint	" tests/data/formlint.tsv)" ] &&
	grep -q "^formdesk check-form: $lint: warning: questions\[0\].script: Question 'no_script' (questions\[0\]) has no script" $TMPD/err
ok $? "misbehaving form: exit 0, one warning line per tsv row, naming field, name and index"
"$BIN" check-form --strict "$lint" >/dev/null 2>&1; rc=$?
[ "$rc" = 1 ]; ok $? "--strict: warnings make exit 1"
out=$("$BIN" check-form --strict forms/armman_enrollment.json 2>$TMPD/err); rc=$?
[ "$rc" = 0 ] && [ -z "$out" ] && [ ! -s $TMPD/err ]
ok $? "--strict on the enrollment form: no warning, exit 0"
