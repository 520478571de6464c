# SPDX-License-Identifier: GPL-2.0
# Sourced by the decode_* tests (tests/vm/decode_*.sh) after exact_lib.sh.
#
# decode_expect EXPECT RAW NAME MIN NEED_INLINED NEED_TEMPLATE: every
# instruction of RAW ('pt-trace decode --format=raw --insn --lines':
# IP  MNEMONIC OPERANDS  <SYM+0xOFF>  FILE:LINE (inlined NAME)) whose IP
# EXPECT lists (scripts/decode-expect.sh: what objdump, addr2line and
# llvm-addr2line said when the initramfs was built) must match it:
# objdump's mnemonic (capstone's AT&T may add the size suffix), objdump
# -C's symbol, addr2line's FILE:LINE ("??:0" and no line alike), the
# inlined function.  At least MIN distinct IPs checked, and with
# NEED_INLINED / NEED_TEMPLATE 1 some inlined / in a template.  Prints a
# PTT-INFO line and the first differences; status 0 when all match.
decode_expect() {
	awk -F'\t' -v name="$3" -v min="$4" -v need_inl="$5" -v need_tmpl="$6" '
	NR == FNR {
		li = $4 == "??:0" ? "??:?" : $4
		want[$1] = $2 "\t" $3 "\t" li "\t" $5
		next
	}
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
		printf "PTT-INFO %s: %d distinct IPs of its functions checked (%d inlined, %d in a template), %d differ\n", name, n, ninl, ntmpl, bad
		few = n < min || (need_inl && !ninl) || (need_tmpl && !ntmpl)
		if (few)
			print "FAIL: too few of the program'"'"'s instructions decoded to check"
		exit (bad || few)
	}' "$1" "$2"
}

# decode_expect_rebase EXPECT BIAS OUT: EXPECT with each IP moved by BIAS
# (a PIE's load address: objdump lists it at its link addresses).
decode_expect_rebase() {
	while IFS= read -r l; do
		ip=${l%%	*}
		printf '%016x%s\n' $((0x$ip + $2)) "${l#"$ip"}"
	done <"$1" >"$3"
}
