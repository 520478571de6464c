#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# MTC and CYC in the exact model (model_exact=1): the program without
# libc of exact_filter (/ptt/work/exact_nolibc) recorded with 'pt-trace
# record -u --mtc=F --cyc=T' must
#  - hold MTC and CYC packets between its PSBs (SDM 36.3.6, 36.4.2.13/14:
#    MTC when the crystal-clock bit MTCFreq selects changes, CYC before
#    the packets of a cycle once CycThresh cycles passed);
#  - decode ('decode --format=ip') to exactly the model's truth, the same
#    instructions as without timing packets;
#  - give libipt's time ('decode --tsc') that never goes back and moves
#    between the TSC packets (a quarter of the instructions at least at
#    a time no TSC packet holds: without MTC and CYC there is none);
#  - time no instruction later than the TSC at which the truth saw it
#    retire, but where libipt's rule does so on silicon too: libipt
#    gives the instruction whose TNT bit or TIP it reads (and the ones
#    up to its next query) the time of the event it reads ahead to when
#    only timing packets lie between: FUP + TIP.PGD of an interrupt or
#    switch, the TIP.PGD of a syscall then an enable's TSC/TMA/CBR,
#    PSB+; that event came after they retired.  Such an instruction is
#    let be late when its time stays the same up to the truth's next
#    transition (out, resume, psb) and is not later than its TSC.  All
#    other lateness is the model's: the model places each MTC between
#    the steps its clock edge fell between, after the pending TNT bits
#    of the instructions before it (a partial TNT; placed before them,
#    73% of the instructions were late on 6.12), and PSB+ right after
#    the event whose bytes reach PSBFreq, with that event's TSC (at the
#    next event, a step later, the branches before it were late).
# MTCFreq 3 (the default period: an MTC every 8 crystal clocks, many per
# step under TCG) and CycThresh 6 (32 cycles).
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_timing runs on icl (MTC and CYC)"; exit 77; }
. /ptt/work/exact_lib.sh

prog=exact_nolibc

# dump_count KIND: how many KIND packets $d/summary ('dump -s') counts.
dump_count() {
	awk -v k="$1" '$1 == k { n = $2 } END { print n + 0 }' "$d/summary"
}

# check_time WHAT: the recording in $d.
check_time() {
	grep -q "^$prog " "$d/rec.out" || exact_fail "$1: $prog did not run to its end: $(cat "$d/rec.out")"
	tr=$d/rec/cpu0.pt
	# One decode: the TSC column and the IPs (as --format=ip prints them).
	"$PT" decode --format=raw --tsc "$tr" >"$d/raw" 2>"$d/time.err" ||
		exact_fail "$1: decode --tsc exited $?: $(head -n 3 "$d/time.err")"
	awk '{ print $1, $2 }' "$d/raw" >"$d/time"
	awk '{ print $2 }' "$d/raw" >"$d/got"
	exact_compare "$d/truth" "$d/got" "$1"
	"$PT" dump -s "$tr" >"$d/summary"
	mtc=$(dump_count mtc) cyc=$(dump_count cyc)
	tsc=$(dump_count tsc) psb=$(dump_count psb)
	echo "PTT-INFO $1: $psb PSB, $tsc TSC, $mtc MTC, $cyc CYC"
	[ "$mtc" -gt 0 ] || exact_fail "$1: no MTC packet"
	[ "$cyc" -gt 0 ] || exact_fail "$1: no CYC packet"
	# The truth of the process in order: its instructions (i TSC IP) and
	# its transitions (e TSC KIND: out, resume, psb), after which libipt
	# may time the instructions before them late (see the header).
	awk -v t="$pid" '$1 != "#" && $4 == t { print "i", $1, $6 }
		$1 == "#" && $6 == t { print "e", $3, $2 }' "$d/truth.0" >"$d/truth.tsc"
	# The TSC packets' values: without MTC and CYC every time is one.
	"$PT" dump "$tr" | awk '$2 == "tsc" { print "tsc", $3 }' >>"$d/truth.tsc"
	# shellcheck disable=SC2046
	set -- "$1" $(awk '
		function hex(s,  i, v) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function key(s) { sub(/^0+/, "", s); return s }
		NR == FNR && $1 == "tsc" { tscv[key($2)] = 1; next }
		NR == FNR && $1 == "i" { m++; want[m] = $2; wip[m] = $3; next }
		# ev[k]: the TSC of the transition after instruction k, if any
		# comes before the next instruction; nt[k]: of the first after it.
		NR == FNR && $1 == "e" { if (m) ev[m] = $2
			for (k = m; k > 0 && !(k in nt); k--) nt[k] = $2
			next }
		NR == FNR { next }
		{ n++
		  if ($2 != wip[n]) { bad++; if (!fi) fi = n ":ip:" $2 ":want:" wip[n]; next }
		  t = hex($1); tm[n] = t; th[n] = $1
		  if (n > 1 && t < last) { back++; if (!fb) fb = n ":" $1 }
		  if (!(key($1) in tscv)) between++
		  last = t }
		END {
		  # By event (ok[k]): the time does not change from k to the
		  # last instruction before a transition, and is not later than
		  # the truth TSC of that transition.
		  for (k = n; k > 0; k--) {
			ok[k] = (k in ev) || (k < n && tm[k] == tm[k + 1] && ok[k + 1])
			if (tm[k] <= want[k] + 0)
				continue
			if (ok[k] && (k in nt) && tm[k] <= nt[k] + 0) {
				byev++
				continue
			}
			late++
			fl = k ":" th[k] ">" want[k]
		  }
		  printf "%d %d %d %d %d %d %s|%s|%s\n", n, bad + 0, back + 0, late + 0, between + 0, byev + 0, fi, fb, fl }' \
		"$d/truth.tsc" "$d/time")
	echo "PTT-INFO $1: $2 timed instructions ($3 not the truth's), $4 backwards, $5 later than the truth, $7 timed by the event after them, $6 timed between TSC packets"
	case "$8" in "||") ;; *) echo "PTT-INFO $1: first (other ip|back|late): $8" ;; esac
	[ "$2" = "$(wc -l <"$d/truth")" ] && [ "$3" = 0 ] ||
		exact_fail "$1: decode --tsc listed $2 instructions, $3 of them not the truth's ($(wc -l <"$d/truth"))"
	[ "$4" = 0 ] || exact_fail "$1: the time went back $4 times"
	[ "$5" = 0 ] || exact_fail "$1: $5 of $2 instructions timed later than the truth, not by an event after them: timing packets placed before the packets of instructions that retired before them"
	[ "$6" -ge $(($2 / 4)) ] || exact_fail "$1: only $6 of $2 instructions timed between TSC packets: MTC/CYC did not advance the time"
	head -n 3 "$d/time.err" | sed "s/^/$1 decode --tsc: /"
}

EXACT_NODECODE=1
exact_rec $prog mtc3_cyc6 --mtc=3 --cyc=6 && check_time "mtc 3 cyc 6"
exact_finish
