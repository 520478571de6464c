#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deps: packages, then the unpacked 6.12 headers, the 6.1 and 6.12
# kernel images, checkpatch.pl and the debug kernel, all in .cache/.
# Writes .cache/env (sourced by the other scripts) with every path, and
# prints the exact versions used.  Idempotent; a warm run takes seconds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=$ROOT/scripts

"$S/deps-packages.sh"
[ "$(id -u)" = 0 ] || [ -w "$ROOT" ] || die "$ROOT is not writable"
hold_lock "$CACHE/deps.lock"

hdr61=/usr/src/$(resolve_meta linux-headers-amd64)
[ -f "$hdr61/Makefile" ] || die "$hdr61 missing although linux-headers-amd64 is installed"
hdr612=$("$S/fetch-headers-6.12.sh")
img61=$("$S/fetch-image.sh" linux-image-amd64)
img612=$("$S/fetch-image.sh" linux-image-6.12-amd64)
checkpatch=$("$S/fetch-checkpatch.sh")
dbg=$("$S/build-debug-kernel.sh")

cat >"$CACHE/env.new" <<EOT
# written by scripts/deps.sh
KDIR_6_1=$hdr61
KDIR_6_12=$hdr612
KDIR_DEBUG=$dbg
VMLINUZ_6_1=$img61
VMLINUZ_6_12=$img612
VMLINUZ_DEBUG=$dbg/arch/x86/boot/bzImage
CHECKPATCH=$checkpatch
EOT
mv "$CACHE/env.new" "$CACHE/env"

say "versions used:"
{
	echo "  6.1 headers:   $(basename "$hdr61") $(candidate "$(basename "$hdr61")")"
	echo "  6.12 headers:  $(basename "$hdr612") (unpacked)"
	echo "  6.1 image:     $(basename "$(dirname "$(dirname "$img61")")")"
	echo "  6.12 image:    $(basename "$(dirname "$(dirname "$img612")")")"
	echo "  debug kernel:  $(basename "$dbg") ($(make -s -C "$dbg" kernelrelease 2>/dev/null))"
	echo "  qemu:          $(dpkg-query -W -f='${Version}' qemu-system-x86)"
	echo "  libipt:        $(dpkg-query -W -f='${Version}' libipt-dev)"
	echo "  sparse:        $(dpkg-query -W -f='${Version}' sparse)"
} >&2
