#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack a Debian kernel image, to boot in QEMU, into .cache/images/
# without installing it; print the path of its vmlinuz.
# Usage: fetch-image.sh META	(linux-image-amd64, linux-image-6.12-amd64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkg=$(resolve_meta "$1")
ver=$(candidate "$pkg")
dir=$CACHE/images/$pkg-$ver
if [ ! -f "$dir/.unpacked" ]; then
	rm -rf "$dir" && mkdir -p "$dir"
	dpkg-deb -x "$(fetch_deb "$pkg")" "$dir"
	touch "$dir/.unpacked"
fi
vmlinuz=$(ls "$dir"/boot/vmlinuz-* 2>/dev/null | head -n1)
[ -f "$vmlinuz" ] || die "$pkg $ver has no boot/vmlinuz-*"
say "kernel image: $pkg $ver"
echo "$vmlinuz"
