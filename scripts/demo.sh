#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot Debian's 6.12 kernel in QEMU with pt_trace.ko on the
# software model of pt_trace_model.ko (this machine has no Intel PT) and
# run the demo:
# tools/demo/guest-demo.sh when it exists, else a minimal built-in one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=$ROOT/scripts

. "$CACHE/env"
hold_lock "$WORK/check.lock"
mods=$("$S/build-module.sh" demo "$KDIR_6_12")
[ ! -f "$ROOT/tools/Makefile" ] || make -s -C "$ROOT/tools" >&2
make -s -C "$ROOT/tests/vm" O="$WORK/vm-tests" BO="$WORK/vm-bench" >&2
"$S/mkinitramfs.sh" "$WORK/initramfs-demo.cpio.gz" "$mods" "$WORK/vm-tests"
"$S/vm-run.sh" demo "$VMLINUZ_6_12" "$WORK/initramfs-demo.cpio.gz" \
	max,vendor=GenuineIntel demo "$WORK/results/demo"
