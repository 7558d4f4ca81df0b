#!/bin/bash
# e2e_opts: the one option parser (cli/opts.h), the same for every command, from a table
# of cases: an unknown option (exit 2, named, the synopsis after it), an option without
# its value (exit 2, named), a number out of its kind or range (exit 2, named), a repeated
# option (the last value is the one used), --help (exit 0, usage on stdout), and the
# conventions: --name=VALUE, no abbreviations, "--" ends the options. TAP-style output.
set -u
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh

FORM=forms/armman_enrollment.json

# ---- every command: an unknown option, and --help ------------------------------------
# "WORDS|what its usage line begins with"
for c in "run|run" "simulate|simulate" "|" "extract|extract" "check-form|check-form" \
	"name-match|name-match" "providers|providers" "vad|vad" "audio-variants|audio-variants" \
	"devices|devices" "paths|paths" "corpus build|corpus build" "bench|bench" "select|select" \
	"corpus-respin|corpus-respin" "annotate|annotate" "calibrate|calibrate" "export|export" \
	"endpoint-eval|endpoint-eval"; do
	words=${c%%|*}
	want=${c#*|}
	# shellcheck disable=SC2086 # the words split on purpose
	"$BIN" $words --no-such-option </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "formdesk $words --no-such-option: exit 2, named, then the synopsis" \
		'[ $rc = 2 ] && grep -q "^formdesk${words:+ $words}: unknown option .--no-such-option.$" "$tmp/err" &&
		 grep -q "^usage: formdesk${want:+ $want}" "$tmp/err" && [ ! -s "$tmp/out" ]'
	# shellcheck disable=SC2086
	"$BIN" $words --help </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "formdesk $words --help: exit 0, usage on stdout" \
		'[ $rc = 0 ] && grep -q "^usage: formdesk${want:+ $want}" "$tmp/out" && [ ! -s "$tmp/err" ]'
	# shellcheck disable=SC2086
	"$BIN" $words -q </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "formdesk $words -q: a short option is unknown too" \
		'[ $rc = 2 ] && grep -q "unknown option .-q." "$tmp/err"'
done

# ---- an option without its value: "WORDS|the option" -----------------------------------
for c in "run|--form" "simulate|--corpus" "|--db" "extract|--field" "providers|--config" \
	"vad|--stop-ms" "audio-variants|--out" "paths|--unknown" "corpus build|--profiles" \
	"bench|--judge" "select|--results" "corpus-respin|--clips" "annotate|--task" \
	"calibrate|--seed" "export|--format" "endpoint-eval|--svg"; do
	words=${c%%|*}
	opt=${c#*|}
	# shellcheck disable=SC2086
	"$BIN" $words "$opt" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "formdesk $words $opt (no value): exit 2 naming it" \
		'[ $rc = 2 ] && grep -q -- "^formdesk${words:+ $words}: $opt needs a value$" "$tmp/err"'
done

# ---- a number out of its kind or range: "WORDS|option|value" ----------------------------
for c in "vad|--start-ms|12x" "vad|--stop-ms|-1" "vad|--turn-wait-ms|60001" \
	"vad|--min-loudness-db|3" "simulate|--speed|0" "simulate|--silence-ms|1.5" \
	"|--number-wait-ms|many" "simulate|--min-loudness-db|-inf" "bench|--concurrency|0" \
	"bench|--concurrency|2x" "audio-variants|--rate|7999" "audio-variants|--snr|nan" \
	"audio-variants|--fast|3" "select|--max-p95-ms|0" "calibrate|--seed|-3"; do
	IFS='|' read -r words opt val <<<"$c"
	# shellcheck disable=SC2086
	"$BIN" $words "$opt" "$val" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "formdesk $words $opt $val: exit 2 naming the option and the value" \
		'[ $rc = 2 ] && grep -q -- "$opt" "$tmp/err" && grep -qF -- "'"'"'$val'"'"'" "$tmp/err"'
done

# ---- a repeated option: the last value is used ---------------------------------------
# "WORDS ARGS|what stderr names (the last value)|what it must not name (the first)"
for c in "run --corpus $tmp/first --corpus $tmp/last|$tmp/last|$tmp/first" \
	"simulate --corpus $tmp/first --corpus $tmp/last|$tmp/last|$tmp/first" \
	"bench --form $FORM --out $tmp/o --corpus $tmp/first --corpus $tmp/last|$tmp/last|$tmp/first" \
	"extract --form $FORM --field first --field last haan|'last'|'first'" \
	"paths --form $tmp/first.json --form $tmp/last.json|$tmp/last|$tmp/first" \
	"providers --config $tmp/first.json --config $tmp/last.json|$tmp/last|$tmp/first" \
	"vad --vad nosuch --vad webrtc $tmp/last.wav|$tmp/last|nosuch" \
	"audio-variants --noise $tmp/first.wav --noise pinknoise --out $tmp/o $tmp/last.wav|$tmp/last|$tmp/first" \
	"select --results $tmp/first.csv --results $tmp/last.csv|$tmp/last|$tmp/first" \
	"corpus build --form $tmp/first.json --form $tmp/last.json --profiles p --out o|$tmp/last|$tmp/first" \
	"corpus-respin --clips $tmp/first --clips $tmp/last --out $tmp/o|$tmp/last|$tmp/first" \
	"annotate --task nosuch --task stt --annotator a --db $tmp/first.db --db $tmp/last.db|$tmp/last|nosuch" \
	"calibrate --format pdf --format csv --db $tmp/first.db --db $tmp/last.db|$tmp/last|pdf" \
	"export --format xml --format csv --db $tmp/first.db --db $tmp/last.db|$tmp/last|xml"; do
	IFS='|' read -r args want not <<<"$c"
	# shellcheck disable=SC2086
	"$BIN" $args </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "formdesk $args: the last value is used" \
		'[ $rc = 2 ] && grep -qF -- "$want" "$tmp/err" && ! grep -qF -- "$not" "$tmp/err"'
done

# ---- the conventions -----------------------------------------------------------------
"$BIN" paths --form=$FORM --unknown=linked_number >"$tmp/out" 2>"$tmp/err"
check "--name=VALUE is the same as --name VALUE" '[ $? = 0 ] && [ -s "$tmp/out" ]'
"$BIN" paths --fo $FORM >"$tmp/out" 2>"$tmp/err"
check "an abbreviation is not taken for the option" \
	'[ $? = 2 ] && grep -q "unknown option .--fo." "$tmp/err"'
"$BIN" run --telephone=yes >"$tmp/out" 2>"$tmp/err"
check "a flag given a value: exit 2 naming it" \
	'[ $? = 2 ] && grep -q -- "--telephone takes no value" "$tmp/err"'
"$BIN" name-match -- -Sunita -Sunita >"$tmp/out" 2>"$tmp/err"
check "-- ends the options: what follows is positional" '[ $? = 0 ] && [ "$(cat "$tmp/out")" = same ]'
"$BIN" name-match Sunita >"$tmp/out" 2>"$tmp/err"
check "a missing positional argument: exit 2, named, with the synopsis" \
	'[ $? = 2 ] && grep -q "A B is required" "$tmp/err" && grep -q "^usage: formdesk name-match" "$tmp/err"'
"$BIN" check-form a.json b.json >"$tmp/out" 2>"$tmp/err"
check "one positional argument too many: exit 2 naming it" \
	'[ $? = 2 ] && grep -q "unexpected argument .b.json." "$tmp/err"'
"$BIN" bench --form $FORM --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
check "a required option missing: exit 2 naming it, with the synopsis" \
	'[ $? = 2 ] && grep -q -- "--corpus DIR|demo|respin is required" "$tmp/err" && grep -q "^usage: formdesk bench" "$tmp/err"'
"$BIN" run --help >"$tmp/out"
check "the usage lists each option with its help from the same table" \
	'grep -q "^  --telephone  *the caller.s audio" "$tmp/out" && grep -q "^  --db FILE  *the database" "$tmp/out"'
