#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# RET compression in the exact model (model_exact=1): the program without
# libc of exact_filter (/ptt/work/exact_nolibc: calls, recursion, a jump
# table, function pointers) recorded with 'pt-trace
# record -u' and with 'record -u --no-ret-compression' (DisRETC=1) must
# both decode to exactly the model's truth, and the packets must say how
# the RETs went: counting in the decoded instructions the conditional
# branches (J), near RETs (R) and indirect jmp/call (I), with DisRETC=1
# the trace has J TNT bits and R+I TIP packets; with DisRETC=0 it has
# J+C TNT bits and R+I-C TIPs, C > 0 compressed RETs.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_disretc runs on icl"; exit 77; }
. /ptt/work/exact_lib.sh

prog=exact_nolibc

# counts DIR: "J R I TNTBITS TIPS" of the recording in DIR.
counts() {
	"$PT" decode --format=raw --insn "$1/rec/cpu0.pt" 2>/dev/null | awk '
		{ m = $2; op = $3
		  if (m ~ /^(notrack|bnd|rep|repz)$/) { m = $3; op = $4 }
		  if (m ~ /^ret[qw]?$/) r++
		  else if (m ~ /^(jmp|call)[qw]?$/ && op ~ /^\*/) i++
		  else if ((m ~ /^j/ && m !~ /^jmp/) || m ~ /^loop/) j++ }
		END { printf "%d %d %d ", j, r, i }'
	"$PT" dump "$1/rec/cpu0.pt" | awk '
		$2 == "tnt.8" || $2 == "tnt.64" { t += length($3) }
		$2 == "tip" { p++ }
		END { print t + 0, p + 0 }'
}

for retc in on off; do
	if [ $retc = on ]; then
		exact_rec $prog retc_on || continue
	else
		exact_rec $prog retc_off --no-ret-compression || continue
	fi
	grep -q "^$prog " "$d/rec.out" || exact_fail "$prog did not run to its end: $(cat "$d/rec.out")"
	exact_compare "$d/truth" "$d/got" "ret compression $retc"
	grep -q "^ctl=" "$d/rec/sideband.txt" || exact_fail "no ctl= in the sideband"
	ctl=$(sed -n 's/^ctl=//p' "$d/rec/sideband.txt")
	dis=$(( (ctl >> 11) & 1 ))
	# shellcheck disable=SC2046
	set -- $(counts "$d")
	echo "PTT-INFO ret compression $retc: RTIT_CTL $ctl, jcc $1, ret $2, indirect $3, TNT bits $4, TIP $5"
	[ "$2" -gt 100 ] || exact_fail "ret compression $retc: only $2 RETs decoded"
	c=$(($4 - $1))
	if [ $retc = off ]; then
		[ $dis = 1 ] || exact_fail "--no-ret-compression: DisRETC not set in $ctl"
		[ "$c" = 0 ] || exact_fail "DisRETC=1: $4 TNT bits for $1 conditional branches"
		[ "$5" = $(($2 + $3)) ] || exact_fail "DisRETC=1: $5 TIPs for $2 RETs and $3 indirect branches"
	else
		[ $dis = 0 ] || exact_fail "DisRETC set in $ctl without --no-ret-compression"
		echo "PTT-INFO $c RETs compressed"
		[ "$c" -gt 0 ] && [ "$c" -le "$2" ] ||
			exact_fail "DisRETC=0: $c compressed RETs of $2 ($4 TNT bits, $1 conditional branches)"
		[ $(($5 + c)) = $(($2 + $3)) ] ||
			exact_fail "DisRETC=0: $5 TIPs + $c compressed != $2 RETs + $3 indirect"
	fi
done
exact_finish
