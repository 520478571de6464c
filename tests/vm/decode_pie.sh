#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 300 (single-stepping under TCG: tens of us per instruction)
# pt-trace decode on a PIE linked against libc, recorded with the exact
# model (model_exact=1): /ptt/work/exact_pie (tests/vm/work/exact_pie.c:
# qsort with a callback, snprintf, printf; -O1 -g) recorded with
# 'pt-trace record -u' from ld.so's first instruction.
# - decode --format=ip must be the model's ground truth exactly;
# - decode --format=raw --insn --lines, for every decoded instruction of
#   the program's own functions and of its PLT entries, must give what
#   the host's binutils gave when the initramfs was built
#   (/ptt/work/exact_pie.expect, scripts/decode-expect.sh, moved to where
#   the program was loaded): objdump's mnemonic, objdump's symbol
#   ("qsort@plt" for a PLT entry), addr2line's FILE:LINE.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: decode_* on the exact model run on icl"; exit 77; }
# Not on the debug kernel (about 1 ms a single step there under TCG,
# make check's 30-minute budget): the recording's kernel parts (vdso,
# the exec's mappings) differ between Debian's 6.1 and 6.12, both run.
[ -e /proc/lockdep ] && { echo "SKIP: not on the debug kernel (time budget; 6.1 and 6.12 run it)"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/decode_lib.sh

exact_run exact_pie
d=$OUT/exact_pie
E=/ptt/work/exact_pie.expect
[ -s "$E" ] || exact_fail "$E missing from the initramfs"

if "$PT" decode --format=raw --insn --lines "$d/rec/cpu"*.pt >"$d/raw" 2>"$d/raw.err"; then
	# where the PIE was loaded: main's address there and in the file
	at=$(grep -m 1 ' <main>' "$d/raw" | cut -c1-16)
	link=$(awk -F'\t' '$3 == "main" { print $1; exit }' "$E")
	if [ -z "$at" ] || [ -z "$link" ]; then
		exact_fail "main not found (decoded: ${at:-none}, objdump: ${link:-none})"
	else
		decode_expect_rebase "$E" $((0x$at - 0x$link)) "$d/expect"
		decode_expect "$d/expect" "$d/raw" decode_pie 40 0 0 ||
			exact_fail "decode --insn --lines differs from objdump/addr2line"
		n=$(grep -c '@plt' "$d/expect")
		grep -q ' <qsort@plt>' "$d/raw" || exact_fail "no qsort@plt in the listing ($n PLT instructions expected)"
	fi
else
	exact_fail "decode --format=raw --insn --lines exited non-zero: $(head -n 3 "$d/raw.err")"
fi
exact_finish
