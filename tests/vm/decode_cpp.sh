#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 300 (single-stepping under TCG: tens of us per instruction)
# pt-trace decode on a C++ program recorded with the exact model
# (model_exact=1, Documentation/model.rst "Exact mode"): /ptt/work/decode_cpp
# (tests/vm/work/decode_cpp.cc: a class with methods in a namespace, a
# template, a function inlined at -O2; static, -g) recorded with
# 'pt-trace record -u' on cpu0.
# - decode --format=ip must be the model's ground truth exactly;
# - decode --format=raw --insn --lines, for every decoded instruction of
#   the program's own functions, must give what the host's binutils and
#   LLVM gave when the initramfs was built (/ptt/work/decode_cpp.expect,
#   scripts/decode-expect.sh): objdump's mnemonic (capstone's AT&T may add
#   the size suffix), objdump -C's symbol (demangled), addr2line's
#   FILE:LINE and llvm-addr2line -i's inlined function.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: decode_* on the exact model run on icl"; exit 77; }
# Not on the debug kernel (about 1 ms a single step there under TCG,
# make check's 30-minute budget): the recording's kernel parts (vdso,
# the exec's mappings) differ between Debian's 6.1 and 6.12, both run.
[ -e /proc/lockdep ] && { echo "SKIP: not on the debug kernel (time budget; 6.1 and 6.12 run it)"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/decode_lib.sh

exact_run decode_cpp
d=$OUT/decode_cpp
E=/ptt/work/decode_cpp.expect
[ -s "$E" ] || exact_fail "$E missing from the initramfs"

t0=$(date +%s)
if "$PT" decode --format=raw --insn --lines "$d/rec/cpu0.pt" >"$d/raw" 2>"$d/raw.err"; then
	decode_expect "$E" "$d/raw" decode_cpp 40 1 1 ||
		exact_fail "decode --insn --lines differs from objdump/addr2line"
else
	exact_fail "decode --format=raw --insn --lines exited non-zero: $(head -n 3 "$d/raw.err")"
fi

echo "PTT-INFO decode_cpp: --insn --lines and the check $(($(date +%s) - t0)) s"
exact_finish
