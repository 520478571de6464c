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
# Not on the debug kernel (about 1 ms a single step there under TCG):
# what it checks is the decoder's symbols and lines, the same on every
# kernel.
# And on 6.1 only of the two Debian kernels: the decoder is the same on
# both, and 6.12 is the slower guest (make check's 30-minute budget).
case $(uname -r) in
6.1.0-*) ;;
*) echo "SKIP: on Debian's 6.1 only (time budget; the decoder is the same on every kernel)"; exit 77 ;;
esac
. /ptt/work/exact_lib.sh

exact_run decode_cpp
d=$OUT/decode_cpp
E=/ptt/work/decode_cpp.expect
[ -s "$E" ] || exact_fail "$E missing from the initramfs"

t0=$(date +%s)
if "$PT" decode --format=raw --insn --lines "$d/rec/cpu0.pt" >"$d/raw" 2>"$d/raw.err"; then
	# IP  MNEMONIC OPERANDS  <SYM+0xOFF>  FILE:LINE (inlined NAME)
	awk -F'\t' '
	NR == FNR { want[$1] = $2 "\t" $3 "\t" $4 "\t" $5; next }
	/^[0-9a-f]{16}  / {
		ip = substr($0, 1, 16)
		if (!(ip in want) || (ip in seen))
			next
		seen[ip] = 1
		split(want[ip], w, "\t")
		rest = substr($0, 19)
		split(rest, m, " ")
		mn = m[1]
		if (mn != w[1] && !(substr(mn, 1, length(mn) - 1) == w[1] && substr(mn, length(mn)) ~ /[bwlq]/))
			mn = "BAD:" mn
		i = index(rest, " <")
		s = i ? substr(rest, i + 2) : ""
		j = index(s, ">  ")
		if (j) {
			sym = substr(s, 1, j - 1)
			li = substr(s, j + 3)
		} else {
			sym = substr(s, 1, length(s) - 1)
			li = "??:?"
		}
		sub(/\+0x[0-9a-f]+$/, "", sym)
		inl = "-"
		k = index(li, " (inlined ")
		if (k) {
			inl = substr(li, k + 10, length(li) - k - 10)
			li = substr(li, 1, k - 1)
			if (w[4] == "?")
				inl = "?"
		}
		n++
		if (inl != "-")
			ninl++
		if (sym ~ /</)
			ntmpl++
		if (mn != m[1] || sym != w[2] || li != w[3] || inl != w[4]) {
			bad++
			if (bad <= 10)
				printf "FAIL: %s: got %s|%s|%s|%s want %s|%s|%s|%s\n", ip, m[1], sym, li, inl, w[1], w[2], w[3], w[4]
		}
	}
	END {
		printf "PTT-INFO decode_cpp: %d distinct IPs of its functions checked (%d inlined, %d in a template), %d differ\n", n, ninl, ntmpl, bad
		if (n < 40 || !ninl || !ntmpl)
			print "FAIL: too few of the program'"'"'s instructions decoded to check"
		exit (bad || n < 40 || !ninl || !ntmpl)
	}' "$E" "$d/raw" || exact_fail "decode --insn --lines differs from objdump/addr2line"
else
	exact_fail "decode --format=raw --insn --lines exited non-zero: $(head -n 3 "$d/raw.err")"
fi

echo "PTT-INFO decode_cpp: --insn --lines and the check $(($(date +%s) - t0)) s"
exact_finish
