#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.1 (the tree for the debug kernel and for
# checkpatch.pl) into .cache/src/<version>; print that folder.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkg=$(resolve_meta linux-source)
ver=$(candidate "$pkg")
dir=$CACHE/src/$pkg-$ver
if [ ! -f "$dir/.unpacked" ]; then
	deb=$(fetch_deb "$pkg")
	say "unpacking $pkg $ver"
	rm -rf "$dir" && mkdir -p "$dir"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
		tar -xJ -C "$dir" --strip-components=1
	touch "$dir/.unpacked"
fi
say "kernel source: $pkg $ver"
echo "$dir"
