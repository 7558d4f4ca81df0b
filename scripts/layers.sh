#!/bin/bash
# The layering check (DESIGN.md, "Folders"): every #include "..." in the source folders
# must point down the one direction
#
#   cli -> tui -> annotations -> sessions -> agent, audio -> base
#
# A folder may include its own files and those of any folder below it; agent/ and audio/
# are side by side and include nothing of each other. cli/ and formdesk.c may use
# everything; tests/ is not checked. An include that resolves to no file of ours (a
# library header in quotes) is not checked either.
#
# Usage: scripts/layers.sh [ROOT]   (ROOT: the tree to check, default the repository)
# Output: one line "FILE:LINE: FOLDER may not include TARGET" per wrong-way include on
# stderr; exit status 1 when there is one, 0 otherwise.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

# rank: a folder's height; a file may include files of its rank or lower, except that
# the two folders of rank 1 do not include each other.
rank() {
	case $1 in
	base) echo 0 ;;
	agent | audio) echo 1 ;;
	sessions) echo 2 ;;
	annotations) echo 3 ;;
	tui) echo 4 ;;
	cli | .) echo 5 ;;
	*) echo -1 ;;
	esac
}

# Known exceptions, "FROM_FOLDER TARGET_FOLDER": none (tui/ included cli/ until the
# simulator's command moved to cli/simulate.c).
known=""

bad=0
for f in formdesk.c base/*.[ch] agent/*.[ch] audio/*.[ch] audio/*.cc sessions/*.[ch] \
	annotations/*.[ch] tui/*.[ch] cli/*.[ch]; do
	[ -e "$f" ] || continue
	from=$(dirname "$f")
	rf=$(rank "$from")
	while IFS=: read -r line inc; do
		# "x.h" is looked up beside the file first, then from the root (-I.)
		if [ -e "$from/$inc" ]; then
			target=$from/$inc
		elif [ -e "$inc" ]; then
			target=$inc
		else
			continue
		fi
		target=${target#./}
		to=$(dirname "$target")
		to=${to%%/*}
		[ "$to" = "$from" ] && continue
		rt=$(rank "$to")
		[ "$rt" = -1 ] && continue
		ok=1
		if [ "$rt" -gt "$rf" ]; then
			ok=0
		elif [ "$rt" = 1 ] && [ "$rf" = 1 ]; then
			ok=0 # agent/ and audio/: neither uses the other
		fi
		if [ $ok = 0 ] && [ "$known" = "$from $to" ]; then
			ok=1
		fi
		if [ $ok = 0 ]; then
			echo "$f:$line: $from/ may not include $target (dependencies point cli -> tui -> annotations -> sessions -> agent, audio -> base)" >&2
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
done
exit $bad
