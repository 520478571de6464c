#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# The exact model (model_exact=1) applies the address ranges to the IP of
# each instruction, as silicon does (SDM 36.2.4.3).  A program without
# libc (/ptt/work/exact_nolibc) is recorded with 'pt-trace record -u'
# through the driver on cpu0:
#  - --filter in_hot (ADDR0_CFG=1 over that function, which calls two
#    functions outside and is called directly and indirectly): 'decode
#    --format=ip' must be exactly the instructions of the model's truth
#    (everything the program ran) that lie in the range, and the trace
#    must hold one TIP.PGE per entry into the range and one TIP.PGD per
#    exit from it, as the truth has them;
#  - --filter over in_hot's first three instructions only: the same with
#    a linear exit from the range;
#  - --stop-at stop_here (ADDR0_CFG=2, flight mode): the recorder sees
#    Status.Stopped, the trace ends with TIP.PGD and TraceStop, and the
#    decode is exactly the truth up to the first instruction of stop_here
#    (the truth goes on after it until the recorder, which looks ten times
#    a second, ends the recording), and the last TIP.PGD holds its IP.
#
# Exit 0 pass, 77 skip, 1 fail.

# icl has the address ranges (bdw, min: none).
[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_filter runs on icl"; exit 77; }
. /ptt/work/exact_lib.sh

prog=exact_nolibc

# in_range FILE: the lines (16-digit IPs) of FILE in [A,B], as strings.
in_range() {
	awk -v a="$A" -v b="$B" '{ ip = $1 ""; if (ip >= a "" && ip <= b "") print }' "$1"
}

# dump_count TRACE KIND: how many KIND packets the trace holds.
dump_count() {
	"$PT" dump -s "$1" | awk -v k="$2" '$1 == k { n = $2 } END { print n + 0 }'
}

# check_filter WHAT: the recording in $d filtered to [A,B].
check_filter() {
	grep -q "^$prog " "$d/rec.out" || exact_fail "$prog did not run to its end: $(cat "$d/rec.out")"
	in_range "$d/truth" >"$d/want"
	all=$(wc -l <"$d/truth") want=$(wc -l <"$d/want")
	[ "$all" -gt "$want" ] || exact_fail "$1: nothing outside the range ran ($all instructions)"
	exact_compare "$d/want" "$d/got" "$1 [$A,$B]"
	# Entries and exits as the truth has them; an asynchronous leave
	# inside the range (the task switched out: "out", or tracing
	# switched off under it, then "resume" where it is switched in) is
	# a FUP + TIP.PGD, and a TIP.PGE follows where it goes on.  A page
	# fault's out line (with a vector) in the range after such a leave
	# or a resume, the task not stepped since: TIP.PGE + FUP + TIP.PGD.
	# shellcheck disable=SC2046
	set -- "$1" $(awk -v p="$pid" -v a="$A" -v b="$B" '
		$1 == "#" && $2 == "out" && NF == 8 && $5 == p && !inr &&
		    $7 "" >= a "" && $7 "" <= b "" { pge++; pgd++; next }
		$1 == "#" { if (($2 == "out" || $2 == "resume") && $5 == p && inr) { pgd++; inr = 0 } next }
		$4 != p { next }
		{ ip = $6 ""; i = ip >= a "" && ip <= b ""
		  if (i && !inr) pge++
		  if (!i && inr) pgd++
		  inr = i }
		END { print pge + 0, pgd + 0 }' "$d/truth.0")
	pge=$(dump_count "$d/rec/cpu0.pt" tip.pge)
	pgd=$(dump_count "$d/rec/cpu0.pt" tip.pgd)
	echo "PTT-INFO $1: $2 entries, $3 exits in the truth; tip.pge $pge, tip.pgd $pgd"
	[ "$2" -ge 40 ] || exact_fail "$1: only $2 entries into the range"
	[ "$pge" = "$2" ] || exact_fail "$1: $pge TIP.PGE for $2 entries into the range"
	[ "$pgd" = "$3" ] || exact_fail "$1: $pgd TIP.PGD for $3 exits from the range"
}

# 1. the IP filter over a function
A="" B=""
if exact_rec $prog filter --filter in_hot; then
	# shellcheck disable=SC2046
	set -- $(sed -n 's/^filter=in_hot 0x\([0-9a-f]*\) 0x\([0-9a-f]*\) .*/\1 \2/p' "$d/rec/sideband.txt")
	if [ -z "$2" ]; then
		exact_fail "filter: no 'filter in_hot' range in the sideband"
	else
		A=$(printf '%016x' "0x$1") B=$(printf '%016x' "0x$2")
		check_filter "filter in_hot"
	fi
fi

# 2. a range that ends after in_hot's third instruction: a linear exit
if [ -n "$A" ]; then
	B=$(awk -v a="$A" '$1 "" == a "" { n = 1 } n && n++ == 4 { print; exit }' "$d/truth")
	B=$(printf '%016x' $((0x$B - 1)))
	exact_rec $prog linear --filter "0x$A-0x$B" && check_filter "filter linear exit"
fi

# 2. TraceStop
if exact_rec $prog stop -b 1M --stop-at stop_here; then
	grep -q "the trace stopped at stop_here on cpu 0" "$d/rec.out" ||
		exact_fail "stop: the recorder saw no Status.Stopped: $(cat "$d/rec.out")"
	set -- $(sed -n 's/^stop_at=stop_here 0x\([0-9a-f]*\) .*/\1/p' "$d/rec/sideband.txt")
	S=$(printf '%016x' "0x$1")
	awk -v s="$S" '$1 "" == s "" { exit } { print }' "$d/truth" >"$d/want"
	at=$(grep -n "^$S\$" "$d/truth" | head -n 1 | cut -d: -f1)
	all=$(wc -l <"$d/truth") want=$(wc -l <"$d/want")
	echo "PTT-INFO stop at $S: truth $all instructions, stop_here is number ${at:-none}"
	# The trace says where it stopped: its last TIP.PGD holds S.  The
	# truth may end right before S, when the recorder ended the
	# recording before the task's next step.
	pgd=$("$PT" dump --lastip "$d/rec/cpu0.pt" | awk '$2 == "tip.pgd" { l = $0 } END { print l }')
	echo "$pgd" | grep -q "$S" || exact_fail "stop: the last TIP.PGD is not at stop_here ($S): $pgd"
	exact_compare "$d/want" "$d/got" "stop"
	last=$("$PT" dump "$d/rec/cpu0.pt" | awk '$2 != "pad" { p = q; q = $2 } END { print p, q }')
	[ "$last" = "tip.pgd stop" ] || exact_fail "stop: the trace ends with '$last', not 'tip.pgd stop'"
fi
exact_finish
