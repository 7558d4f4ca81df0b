#!/bin/bash
# e2e_help: every command prints its own usage with --help (and -h): on stdout, exit 0,
# the first line naming the command; and formdesk --help lists the commands. The select
# usage prints its percent sign once. TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh

"$BIN" --help >"$tmp/out" 2>"$tmp/err"
check "formdesk --help: exit 0, lists the commands" \
	'[ $? = 0 ] && grep -q "^  check-form FILE" "$tmp/out" && grep -q "COMMAND --help" "$tmp/out"'

# "WORDS|usage prefix": the command's words, then what its usage line begins with.
for c in "check-form|check-form" "run|run" "simulate|simulate" "extract|extract" \
	"name-match|name-match" "providers|providers" "vad|vad" "audio-variants|audio-variants" \
	"devices|devices" "paths|paths" "corpus build|corpus build" "corpus|corpus build" \
	"bench|bench" "select|select" "corpus-respin|corpus-respin" "annotate|annotate" \
	"calibrate|calibrate" "export|export"; do
	words=${c%%|*}
	want=${c#*|}
	for h in --help -h; do
		# shellcheck disable=SC2086 # the words split on purpose
		"$BIN" $words $h >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "$words $h: exit 0, usage on stdout, nothing on stderr" \
			'[ $rc = 0 ] && grep -q "^usage: formdesk $want" "$tmp/out" && [ ! -s "$tmp/err" ]'
	done
done

"$BIN" select --help >"$tmp/out" 2>&1
check "select --help writes PCT% with one percent sign" \
	'grep -q "PCT% " "$tmp/out" && ! grep -q "%%" "$tmp/out"'
"$BIN" extract --help >"$tmp/out" 2>&1
check "extract --help says what the --history file holds" 'grep -q "\"role\"" "$tmp/out"'

# Bad usage still goes to stderr with exit 2.
"$BIN" check-form >"$tmp/out" 2>"$tmp/err"
check "check-form without FILE: exit 2, usage on stderr" \
	'[ $? = 2 ] && grep -q "^usage: formdesk check-form" "$tmp/err" && [ ! -s "$tmp/out" ]'
"$BIN" corpus-respin --bogus >"$tmp/out" 2>"$tmp/err"
check "corpus-respin with a bad option: exit 2 naming it, with the usage" \
	'[ $? = 2 ] && grep -q "bogus" "$tmp/err" && grep -q "^usage: formdesk corpus-respin" "$tmp/err"'
