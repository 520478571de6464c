#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 90
# The sideband's context-switch records agree with the PIPs in the trace
# (issue 13, "context-switch records agree with the PIPs/PGE/PGD in the
# trace"; follow_switch checks TIP.PGE/PGD): 'pt-trace record' (OS=1 and
# User=1, so the CPU sends PIP at each CR3 load and in PSB+) of
# /ptt/work/follow_pip_prog (tests/vm/work/follow_pip_prog.c: a parent
# and its forked child take turns on CPU 0 for 200 ms), followed with
# its child, while another process, not followed, spins on CPU 0 too.
# With OS=1 the model's sampled generator makes the packets
# (Documentation/model.rst), with the CR3 the CPU has at each sample.
# Each PIP of each CPU's trace (its time: the last timing packet's, the
# TSC of its PSB+ for one inside PSB+) goes to the followed run that
# holds that time on that CPU (the sideband's switch-in to switch-out),
# or to the next run (tracing is enabled in the scheduler's hook, before
# perf writes the switch-in record).  Required: no PIP outside the runs
# and after the last one; each followed process's PIPs after its exec
# name mostly one address space (CR3 without PCID and the PTI user bit),
# the two processes' differ, no PIP in one's runs names the other's, and
# at most 1 in 20 names neither (the kernel's own).  Tracing left on
# while the process beside them ran would put its CR3 in a followed run;
# a switch record written for the wrong task, the other process's CR3.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: follow_pip runs on icl"; exit 77; }
. /ptt/work/exact_lib.sh
exact_sampled_small

d=$OUT/follow_pip
mkdir -p "$d"
taskset -c 0 /ptt/work/follow_pip_prog spin 1 &
spin=$!
"$PT" record -o "$d/rec" -- /ptt/work/follow_pip_prog >"$d/rec.out" 2>&1
rc=$?
kill "$spin" 2>/dev/null
wait "$spin" 2>/dev/null
[ $rc = 0 ] || exact_fail "record exited $rc: $(tail -n 3 "$d/rec.out")"
set -- $(sed -n 's/^follow_pip_prog \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$d/rec.out")
[ $# = 2 ] || exact_fail "follow_pip_prog did not run to its end: $(head -n 3 "$d/rec.out")"
parent=$1 child=$2

# One line per PIP: "TSC pip CR3" (decimal TSC, CR3 masked to its page
# table: bits 11:0 (PCID) and 12 (PTI's user tables) clear).
pips() {
	"$PT" dump --time --no-pad "$1" | awk '
	function dec(h,   i, v) {
		v = 0
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	function out(t, c,   s, l) {
		s = substr(c, 1, length(c) - 3)
		l = index("0123456789abcdef", substr(s, length(s), 1)) - 1
		l -= l % 2
		printf "%.0f pip %s%s000\n", dec(t), substr(s, 1, length(s) - 1),
		       substr("0123456789abcdef", l + 1, 1)
	}
	$2 == "psb" { inpsb = 1; n = 0; next }
	$2 == "psbend" {
		inpsb = 0
		for (i = 0; i < n; i++)
			if (t != "")
				out(t, p[i])
		n = 0
		next
	}
	$2 == "ovf" { t = "" }
	$(NF - 1) == "tsc" && $2 != "pip" { t = $NF }
	$2 == "pip" {
		if (inpsb)
			p[n++] = $NF
		else if (t != "")
			out(t, $NF)
	}'
}

: >"$d/owned"
npip=0
for f in "$d"/rec/cpu*.pt; do
	c=${f##*/cpu}
	c=${c%.pt}
	pips "$f" >"$d/pips.$c" || exact_fail "dump of $f failed"
	npip=$((npip + $(wc -l <"$d/pips.$c")))
	# switch records of CPU c; exec records of every CPU
	awk -v c="$c" '$3 == c && $6 == "switch" { print $1, $7, $4 }
		$6 == "comm" && $9 == "exec" { print $1, "exec", $4 }' \
		"$d/rec/sideband.perf.txt" >"$d/sw.$c"
	sort -n -s -k1,1 "$d/sw.$c" "$d/pips.$c" | awk -v c="$c" '
	function own(p, t, x) {
		if (!(p in exec) || t >= exec[p])
			print p, x
	}
	$2 == "exec" { exec[$3] = $1; next }
	$2 == "in" {
		cur = $3
		for (i = 0; i < n; i++)
			own(cur, pt[i], px[i])
		n = 0
		next
	}
	$2 == "out" { cur = ""; next }
	$2 == "pip" {
		if (cur != "")
			own(cur, $1, $3)
		else {
			pt[n] = $1
			px[n++] = $3
		}
	}
	END {
		for (i = 0; i < n; i++)
			print "outside", px[i], pt[i], "cpu", c
	}' >>"$d/owned"
done
echo "PTT-INFO follow_pip: $npip PIPs; parent $parent, child $child; owners and CR3s: $(sort "$d/owned" | uniq -c | tr -s ' \n' ' ')"
[ "$npip" -gt 0 ] || exact_fail "no PIP in the traces (OS tracing off?)"
grep '^outside' "$d/owned" | head -n 3 | sed 's/^/PTT-INFO /'
! grep -q '^outside' "$d/owned" || exact_fail "PIPs after the last followed run on their CPU (above)"
# A process's address space: the CR3 most of its PIPs name.  The kernel
# loads a CR3 of its own at times in any task (on the debug kernel a few
# samples had one, in both processes' runs: text_poke's temporary mm or
# the like); those may be a few in all, never the other process's.
main_cr3() {
	awk -v p="$1" '$1 == p { print $2 }' "$d/owned" | sort | uniq -c |
		sort -rn | awk '{ print $2; exit }'
}
pa=$(main_cr3 "$parent")
ch=$(main_cr3 "$child")
[ -n "$pa" ] && [ -n "$ch" ] || exact_fail "no PIP in the runs of parent ($pa) or child ($ch)"
[ "$pa" != "$ch" ] || exact_fail "parent and child PIPs name one CR3 $pa"
# CR3s compare as strings ("" appended): one such as 00000000099e8000
# reads as a number, 99e8000, which overflows to inf, and busybox awk
# (the VM's) finds inf != inf.
x=$(awk -v a="$parent" -v b="$child" -v pa="$pa" -v ch="$ch" \
	'($1 == a && $2 "" == ch "") || ($1 == b && $2 "" == pa "")' "$d/owned" | wc -l)
[ "$x" = 0 ] || exact_fail "$x PIPs name the other process's CR3 (a switch record of the wrong task?)"
others=$(awk -v a="$parent" -v b="$child" '$1 != a && $1 != b' "$d/owned" | head -n 3)
[ -z "$others" ] || exact_fail "PIPs in runs of tasks not followed: $others"
m=$(awk -v pa="$pa" -v ch="$ch" '$2 "" != pa "" && $2 "" != ch ""' "$d/owned" | wc -l)
[ $((m * 20)) -le "$npip" ] ||
	exact_fail "$m of $npip PIPs name neither process's CR3 (tracing while the process beside them ran?)"
exact_finish
