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

# Both cores: a few files per run (checkpatch.pl takes several), and the
# files with a finding counted from its terse "FILE:LINE: TYPE:" lines.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in $files; do
	if [ -f "$f" ]; then echo "$f"; fi	# deleted but tracked: skipped
done >"$tmp/files"
n=$(wc -l <"$tmp/files")
rc=0
xargs -r -P "$(nproc)" -n 16 "$cp" --no-tree --strict --terse --no-summary \
	--show-types -f <"$tmp/files" >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
bad=$(sed -n 's/^\([^: ]*\):[0-9]*: .*/\1/p' "$tmp/out" | sort -u | wc -l)
[ "$rc" = 0 ] || [ "$bad" != 0 ] || bad="?"
[ "$bad" = 0 ] || die "checkpatch: $bad of $n files not clean"
say "checkpatch: $n files clean"
