#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's 6.12 kernel headers (bookworm-security) into
# .cache/headers/ without installing them (installing pulls in the 6.12
# kernel, udev and a systemd upgrade); print the KDIR to build against.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=$(resolve_meta linux-headers-6.12-amd64)		# linux-headers-6.12.N+deb12-amd64
abi=${arch#linux-headers-}; abi=${abi%-amd64}		# 6.12.N+deb12
ver=$(candidate "$arch")
dir=$CACHE/headers/$arch-$ver
kdir=$dir/usr/src/$arch
if [ ! -f "$dir/.unpacked" ]; then
	rm -rf "$dir" && mkdir -p "$dir"
	for pkg in "$arch" "linux-headers-$abi-common" "linux-kbuild-$abi"; do
		dpkg-deb -x "$(fetch_deb "$pkg")" "$dir"
	done
	# The arch Makefile includes the common one by absolute path: point it
	# into our folder (the kbuild symlinks are relative already).
	sed -i "s|^include /usr/src/|include $dir/usr/src/|" "$kdir/Makefile"
	grep -q "^include $dir/" "$kdir/Makefile" ||
		die "$kdir/Makefile: no absolute include line to fix (package layout changed?)"
	touch "$dir/.unpacked"
fi
say "6.12 headers: $arch $ver"
echo "$kdir"
