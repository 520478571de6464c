#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl with its spelling.txt and const_structs.checkpatch, taken
# from Debian's linux-source (no package installs them); print its path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$("$ROOT/scripts/fetch-source.sh")
dir=$CACHE/checkpatch/$(basename "$src")
if [ ! -x "$dir/checkpatch.pl" ]; then
	mkdir -p "$dir"
	cp "$src"/scripts/{spelling.txt,const_structs.checkpatch,checkpatch.pl} "$dir/"
fi
echo "$dir/checkpatch.pl"
