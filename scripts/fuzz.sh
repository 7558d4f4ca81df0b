#!/bin/bash
# Runs each fuzz target given (build/fuzz/bin/fuzz_TARGET, built by `make fuzz`) for
# FUZZ_SECONDS seconds (default 60) on its seeds (made here from tests/data and the saved
# inputs under tests/fuzz/regress/TARGET/) and the corpus it grew before
# (build/fuzz/corpus/TARGET). Prints, per target, the executions and the findings; each
# finding (a crash, a sanitizer report, a leak, a timeout, memory out) is copied to
# tests/fuzz/regress/TARGET/ so `make check` runs it from then on. After a finding the
# target goes on for the time left (at most 5 findings a target; it stops when it finds an
# input already saved again). Exit status: 0 without findings, 1 with.
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
export FORMDESK_WORDS=${FORMDESK_WORDS:-$PWD/agent/words}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# seeds: one file per input, named by its origin
seed() { # target name < data
	mkdir -p "build/fuzz/seeds/$1"
	cat >"build/fuzz/seeds/$1/$2"
}
make_seeds() {
	rm -rf build/fuzz/seeds
	local f d i t
	for f in tests/data/forms/*.json forms/*.json; do seed form "$(basename "$f")" <"$f"; done
	for d in tests/data/corpus_*/; do
		[ -f "$d/corpus.json" ] || continue
		{
			for f in corpus.json calls.csv transcripts.csv expected.jsonl; do
				[ -f "$d/$f" ] && { echo "==> $f <=="; cat "$d/$f"; }
			done
		} | seed corpus "$(basename "$d")"
	done
	for f in tests/data/llm_*/response*.json tests/data/llm_*/*/response*.json; do
		[ -f "$f" ] || continue
		case "$f" in
		*anthropic*) t=anthropic ;;
		*) t=chat ;;
		esac
		{ printf '\x40'; cat "$f"; } | seed $t "$(echo "$f" | tr / _)"
	done
	i=0
	for t in elevenlabs sarvam deepgram openai groq google whispercpp; do
		f=tests/data/stt_$t/response.json
		[ -f "$f" ] && { printf "\\x$(printf %02x $i)"; cat "$f"; } | seed stt "$t.json"
		i=$((i + 1))
	done
	mkdir -p build/fuzz/seeds/extract
	for f in tests/data/parse_*.tsv; do
		awk -F'\t' -v out="build/fuzz/seeds/extract/$(basename "$f" .tsv)" \
			'!/^#/ && NF >= 3 { print $3 > (out "-" NR); close(out "-" NR) }' "$f"
	done
	for f in tests/data/corpus_*/audios/* tests/data/bench_corpus/audios/*; do
		[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 200000 ] && seed audio "$(echo "$f" | tr / _)" <"$f"
	done
	for f in tests/data/import/*.json*; do
		case "$f" in
		*.jsonl) printf '\x00' ;;
		*) printf '\x01' ;;
		esac | cat - "$f" | seed callimport "$(basename "$f")"
	done
	for d in tests/fuzz/regress/*/; do
		t=$(basename "$d")
		for f in "$d"*; do [ -f "$f" ] && seed "$t" "regress-$(basename "$f")" <"$f"; done
	done
}
make_seeds

total_found=0
printf '%-10s %12s %9s  %s\n' target executions findings saved
for t in "$@"; do
	bin=build/fuzz/bin/fuzz_$t
	mkdir -p "build/fuzz/corpus/$t" "build/fuzz/seeds/$t" "build/fuzz/findings/$t" "tests/fuzz/regress/$t"
	log=build/fuzz/$t.log
	: >"$log"
	execs=0
	found=0
	saved=""
	end=$(($(date +%s) + secs))
	while :; do
		left=$((end - $(date +%s)))
		[ "$left" -gt 0 ] && [ "$found" -lt 5 ] || break
		from=$(($(wc -l <"$log") + 1))
		"$bin" -max_total_time="$left" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
			-max_len=65536 -artifact_prefix="build/fuzz/findings/$t/" \
			"build/fuzz/corpus/$t" "build/fuzz/seeds/$t" >>"$log" 2>&1
		rc=$?
		# each run prints its own count; add the runs up
		execs=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
		art=$(tail -n +"$from" "$log" | grep -ao 'Test unit written to [^ ]*' | tail -1 | awk '{print $5}')
		if [ -n "$art" ] && [ -f "$art" ]; then
			dest=tests/fuzz/regress/$t/$(basename "$art")
			if [ -f "$dest" ]; then
				break # the same input again: the fault is known, time is better spent fixing it
			fi
			cp "$art" "$dest"
			saved="$saved $dest"
			found=$((found + 1))
		elif [ "$rc" != 0 ]; then
			echo "$t: the fuzzer stopped (exit $rc) without saving an input; see $log"
			found=$((found + 1))
			break
		fi
	done
	total_found=$((total_found + found))
	printf '%-10s %12s %9s %s\n' "$t" "$execs" "$found" "${saved:-}"
done
[ "$total_found" = 0 ]
