#!/bin/bash
# The layering check (scripts/layers.sh): the tree as it is passes; a copy of it with one
# wrong-way include planted fails, naming the file and line; an agent/ <-> audio/ include
# fails too; an include of a folder below passes.
cd "$(dirname "$0")/.."
. tests/lib/e2e.sh

scripts/layers.sh >"$tmp/out" 2>&1
rc=$?
check "the tree passes the layering check" '[ $rc = 0 ] && [ ! -s "$tmp/out" ]'

# plant: copy the source folders, append one include to FILE, run the check on the copy
plant() {
	rm -rf "$tmp/tree"
	mkdir "$tmp/tree"
	cp -r base agent audio sessions annotations tui cli formdesk.c "$tmp/tree/"
	printf '#include "%s"\n' "$2" >>"$tmp/tree/$1"
	line=$(wc -l <"$tmp/tree/$1")
	scripts/layers.sh "$tmp/tree" >"$tmp/out" 2>&1
}

# fails WHAT FILE INCLUDE: planting INCLUDE in FILE makes the check fail, naming FILE:LINE
fails() {
	file=$2 inc=$3
	plant "$file" "$inc"
	rc=$?
	check "$1 fails, naming file and line" \
		'[ $rc = 1 ] && grep -q "^$file:$line: .*$inc" "$tmp/out"'
}

fails "sessions/ including tui/" sessions/store/store.c tui/screen.h
fails "audio/ including agent/" audio/ring.h agent/rules/form.h
fails "agent/ including audio/" agent/rules/flow.c audio/ring.h
fails "annotations/ including cli/" annotations/queue.c cli/opts.h
fails "tui/ including cli/" tui/simulate.c cli/commands.h
fails "base/ including agent/" base/err.c agent/rules/form.h
fails "agent/hindi/ including agent/rules/" agent/hindi/parse.c agent/rules/form.h
fails "agent/rules/ including agent/stages/" agent/rules/flow.c agent/stages/backend.h
fails "sessions/store/ including sessions/calls/" sessions/store/store.c sessions/calls/engine.h
fails "sessions/calls/ including sessions/eval/" sessions/calls/engine.c sessions/eval/stats.h

plant tui/callview.c sessions/store/store.h
rc=$?
check "tui/ including sessions/ (downward) passes" '[ $rc = 0 ]'
