#!/bin/bash
# The layering check (DESIGN.md, "Folders"): every #include "..." in the source folders
# must point down the one direction
#
#   cli -> tui -> annotations -> sessions/eval -> sessions/calls -> sessions/corpus
#       -> sessions/store -> agent/stages -> agent/rules -> agent/hindi -> base
#                                    audio -> base
#
# A folder may include its own files and those of any folder below it; audio/ sits beside
# agent/ and neither includes the other. cli/ and formdesk.c may use everything; tests/ is
# not checked. An include that resolves to no file of ours (a library header in quotes) is
# not checked either.
#
# Usage: scripts/layers.sh [ROOT]   (ROOT: the tree to check, default the repository)
# Output: one line "FILE:LINE: FOLDER may not include TARGET" per wrong-way include on
# stderr; exit status 1 when there is one, 0 otherwise.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

# folder: a file's layer, its top folder, or for agent/ and sessions/ the subfolder.
folder() {
	case $1 in
	agent/* | sessions/*)
		rest=${1#*/}
		echo "${1%%/*}/${rest%%/*}"
		;;
	*/*) echo "${1%%/*}" ;;
	*) echo . ;;
	esac
}

# rank: a layer's height; a file may include files of its rank or lower, except that
# audio/ and agent/ do not include each other.
rank() {
	case $1 in
	base) echo 0 ;;
	agent/hindi) echo 1 ;;
	agent/rules) echo 2 ;;
	agent/stages | audio) echo 3 ;;
	sessions/store) echo 4 ;;
	sessions/corpus) echo 5 ;;
	sessions/calls) echo 6 ;;
	sessions/eval) echo 7 ;;
	annotations) echo 8 ;;
	tui) echo 9 ;;
	cli | .) echo 10 ;;
	*) echo -1 ;;
	esac
}

# Known exceptions, "FROM_FOLDER TARGET_FOLDER": none (tui/ included cli/ until the
# simulator's command moved to cli/simulate.c).
known=""

bad=0
for f in formdesk.c base/*.[ch] agent/*/*.[ch] audio/*.[ch] audio/*.cc sessions/*/*.[ch] \
	annotations/*.[ch] tui/*.[ch] cli/*.[ch]; do
	[ -e "$f" ] || continue
	from=$(folder "$f")
	rf=$(rank "$from")
	while IFS=: read -r line inc; do
		# "x.h" is looked up beside the file first, then from the root (-I.)
		if [ -e "$(dirname "$f")/$inc" ]; then
			target=$(dirname "$f")/$inc
		elif [ -e "$inc" ]; then
			target=$inc
		else
			continue
		fi
		target=${target#./}
		to=$(folder "$target")
		[ "$to" = "$from" ] && continue
		rt=$(rank "$to")
		[ "$rt" = -1 ] && continue
		ok=1
		if [ "$rt" -gt "$rf" ]; then
			ok=0
		elif [ "${from%%/*}" = agent ] && [ "$to" = audio ] ||
			[ "$from" = audio ] && [ "${to%%/*}" = agent ]; then
			ok=0 # agent/ and audio/: neither uses the other
		fi
		if [ $ok = 0 ] && [ "$known" = "$from $to" ]; then
			ok=1
		fi
		if [ $ok = 0 ]; then
			echo "$f:$line: $from/ may not include $target (dependencies point cli -> tui -> annotations -> sessions/{eval,calls,corpus,store} -> agent/{stages,rules,hindi}, audio -> base)" >&2
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done
exit $bad
