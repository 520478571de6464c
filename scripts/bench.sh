#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: run tests/bench/vm/* in the VM (Debian 6.12, model backend)
# and tests/bench/host/* here.  Benchmarks print ratios; nothing is
# asserted on time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
S=$ROOT/scripts

. "$CACHE/env"
hold_lock "$WORK/check.lock"
if compgen -G "$ROOT/tests/bench/vm/*" >/dev/null; then
	mods=$("$S/build-module.sh" bench "$KDIR_6_12")
	[ ! -f "$ROOT/tools/Makefile" ] || make -s -C "$ROOT/tools" >&2
	make -s -C "$ROOT/tests/vm" O="$WORK/vm-tests" BO="$WORK/vm-bench" >&2
	"$S/mkinitramfs.sh" "$WORK/initramfs-bench.cpio.gz" "$mods" "$WORK/vm-tests" \
		"$WORK/vm-bench"
	# pti=off: the driver refuses BTS under PTI (design.rst, "PTI"), and
	# the BTS benchmark needs it; the ratios are measured in this boot.
	PTT_APPEND="pti=off" "$S/vm-run.sh" bench "$VMLINUZ_6_12" \
		"$WORK/initramfs-bench.cpio.gz" max,vendor=GenuineIntel bench \
		"$WORK/results/bench"
else
	say "no VM benchmarks (tests/bench/vm/*)"
fi
# Host benchmarks: scripts and programs (a script builds its own C).
for b in "$ROOT"/tests/bench/host/*; do
	case $b in
	*.sh) say "host benchmark: ${b#"$ROOT"/}"; bash "$b" ;;
	*.c | *.h) ;;
	*) [ ! -x "$b" ] || { say "host benchmark: ${b#"$ROOT"/}"; "$b"; } ;;
	esac
done
