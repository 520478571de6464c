#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict over every project C and header file (drivers/,
# include/, tools/, tests/, scripts/: tracked or new, not ignored).  Any error,
# warning or check fails.
# Usage: checkpatch.sh CHECKPATCH_PL
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cp=$1
cd "$ROOT"
if git rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git ls-files -co --exclude-standard -- drivers include tools tests scripts |
		grep -E '\.[ch]$' | sort -u)
else
	files=$(find drivers include tools tests scripts -name '*.[ch]' ! -name '*.mod.c' \
		! -path 'tools/build/*' | sort)
fi

bad=0
n=0
for f in $files; do
	[ -f "$f" ] || continue		# deleted but still tracked
	n=$((n + 1))
	"$cp" --no-tree --strict --terse --no-summary --show-types -f "$f" || bad=$((bad + 1))
done
[ "$bad" = 0 ] || die "checkpatch: $bad of $n files not clean"
say "checkpatch: $n files clean"
