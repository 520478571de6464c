#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# abi_compat32: the ABI from a 32-bit (i386) process, through
# compat_ioctl (work/abi_compat32.c says what it checks).  Skipped where
# the kernel runs no i386 programs (the debug kernel: no
# IA32_EMULATION) or gcc could not build one; icl only (nothing here
# depends on the profile).
P=/ptt/work/abi_compat32
[ -x $P ] || { echo "SKIP: no i386 build (gcc -m32)"; exit 77; }
[ "$PTT_PROFILE" = icl ] || { echo "SKIP: icl only"; exit 77; }
# /proc/sys/abi/vsyscall32 exists only with IA32_EMULATION.
[ -e /proc/sys/abi/vsyscall32 ] || { echo "SKIP: this kernel runs no i386 programs"; exit 77; }
out=$($P 2>&1)
rc=$?
echo "$out" | sed 's/^/  /'
[ $rc = 0 ] || { echo "FAIL: abi_compat32 exit $rc" >&2; exit 1; }
echo "$out" | grep -q '^abi_compat32: all as expected$' || { echo "FAIL: abi_compat32 said nothing" >&2; exit 1; }
