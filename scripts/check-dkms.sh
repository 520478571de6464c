#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check stage: DKMS (Debian's) builds pt_trace.ko from the tree's
# dkms.conf against one kernel's headers, as it will after every kernel
# update.  Everything DKMS keeps goes into a private directory (its own
# source and dkms trees), so the host's /usr/src and /var/lib/dkms are
# left alone; the headers need not be installed (--kernelsourcedir).
# Usage: check-dkms.sh NAME KDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1 kdir=$2
kver=$(kernel_release "$kdir")
ver=$(cat "$ROOT/VERSION")
d=$WORK/dkms-$name
rm -rf "$d"
"$ROOT/scripts/stage-tree.sh" "$d/src/pt-trace-$ver"
mkdir -p "$d/tree"
opts=(--sourcetree "$d/src" --dkmstree "$d/tree" -m pt-trace -v "$ver")
dkms add "${opts[@]}"
dkms build "${opts[@]}" -k "$kver" --kernelsourcedir "$kdir" ||
	{ cat "$d/tree/pt-trace/$ver/build/make.log" >&2 || true; die "dkms build for $kver failed"; }
ko=$d/tree/pt-trace/$ver/$kver/x86_64/module/pt_trace.ko
ls "$d/tree/pt-trace/$ver/$kver/x86_64/module/" >&2
[ -f "$ko" ] || [ -f "$ko.xz" ] || die "dkms built no pt_trace.ko for $kver"
ko=$(ls "$ko"*)
[ "$(modinfo -F version "$ko")" = "$ver" ] || die "dkms' pt_trace.ko is not version $ver"
[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ] || die "dkms' pt_trace.ko is not for $kver"
say "dkms build for $kver: $ko, signer: $(modinfo -F signer "$ko")"
