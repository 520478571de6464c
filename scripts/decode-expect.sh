#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What binutils (and LLVM) say about every instruction of a program's own
# functions, for tests/vm/decode_cpp.sh to hold pt-trace decode against:
# scripts/mkinitramfs.sh writes it next to the program in /ptt/work.
# Usage: decode-expect.sh PROG FUNC-REGEX > PROG.expect
# One line per instruction, tab-separated:
#   IP (16 hex digits)  objdump's mnemonic  objdump -C's function (the
#   ELF symbol holding it, as perf names it)  addr2line's FILE:LINE  the
#   inlined function there (llvm-addr2line -i's innermost frame), "?"
#   when inlined but no llvm-addr2line to name it, "-" when not inlined
# binutils' addr2line -f names sometimes the enclosing function inside an
# inlined one and sometimes the inlined one (2.40), hence objdump's symbol
# and LLVM's inlined frame for those columns.
set -euo pipefail
prog=$1 re=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

objdump -d -C --no-show-raw-insn "$prog" |
	awk -v re="^[0-9a-f]+ <($re)>:\$" '
	$0 ~ re { on = 1; fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn); next }
	/^$/ { on = 0 }
	on && /^ *[0-9a-f]+:\t/ {
		a = $1; sub(":", "", a); split($0, f, "\t"); split(f[2], m, " ")
		printf "%s\t%s\t%s\n", substr("0000000000000000" a, length(a) + 1), m[1], fn
	}' >"$tmp/insn"
[ -s "$tmp/insn" ] || { echo "decode-expect.sh: no function of $prog matches $re" >&2; exit 1; }
cut -f1 "$tmp/insn" | sed 's/^/0x/' >"$tmp/addrs"

# FUNC and FILE:LINE: two lines per address after -a's address line
addr2line -a -f -C -e "$prog" <"$tmp/addrs" |
	awk 'NR % 3 == 0 { sub(/ \(discriminator.*/, ""); print }' \
	>"$tmp/a2l"
# the inlined function: the first frame's name when -i gives more than one
if command -v llvm-addr2line >/dev/null; then
	llvm-addr2line -a -f -C -i -e "$prog" <"$tmp/addrs" |
		awk 'function out() { if (n) print (n > 1 ? first : "-") }
		/^0x[0-9a-f]+$/ { out(); n = 0; next }
		{ if (++k % 2 == 1) { n++; if (n == 1) first = $0 } }
		/^0x/ { k = 0 }
		END { out() }' >"$tmp/inl"
else
	addr2line -a -i -e "$prog" <"$tmp/addrs" |
		awk '/^0x[0-9a-f]+$/ { if (NR > 1) print (n > 1 ? "?" : "-"); n = 0; next }
		{ n++ } END { print (n > 1 ? "?" : "-") }' >"$tmp/inl"
fi
n=$(wc -l <"$tmp/insn")
[ "$(wc -l <"$tmp/a2l")" = "$n" ] && [ "$(wc -l <"$tmp/inl")" = "$n" ] ||
	{ echo "decode-expect.sh: addr2line gave a different count of answers" >&2; exit 1; }
paste "$tmp/insn" "$tmp/a2l" "$tmp/inl"
