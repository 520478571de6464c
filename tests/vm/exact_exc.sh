#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 90 (single-stepping under TCG)
# User-mode exceptions in the exact model (issues 12, 15; model.rst
# "Exact mode"): /ptt/work/exact_nolibc_exc (no libc) raises #GP (hlt),
# #DE, #UD, #XM (if QEMU raises it) and #BP (int3) 4 times each, its
# handlers stepping over the faulting instruction; recorded with
# 'pt-trace record -u' on cpu0 with the model's exact/trap_irq knob on
# (an irq_work queued where the model learns of each exception, taken
# as soon as the kernel enables IRQs in the exception's kernel visit, as
# a timer's may be):
#  - 'decode --format=ip' is exactly the truth;
#  - no faulting instruction (#GP, #DE, #UD, #XM; nor the int3, which
#    libipt too takes for an instruction that did not run: FUP(its IP) +
#    TIP.PGD, int-iret-cpl_3.ptt) retires in the truth, and each has an
#    "out" line (FUP + TIP.PGD: the kernel is filtered) of its vector at
#    its IP once a round: sent at the fault's signal generation, the
#    int3's at its DIE_INT3; failed before: no vector, sent
#    with the next resume, and none of its own after a timer interrupt
#    at the same IP;
#  - the program's SIGTRAP handler ran once a round: record, which
#    ptraces its command, delivers the command's own SIGTRAP (it
#    swallowed every SIGTRAP before, taking each for an exec's);
#  - none of them has an out line of the irq_work's vector (0xf6): that
#    interrupt came in the exception's kernel visit, not in user code.
#    Fails on a model that takes it for one of user code at the #GP's
#    hlt (the kernel reports no die event for a #GP from user mode).
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_* run on icl"; exit 77; }
. /ptt/work/exact_lib.sh

prog=exact_nolibc_exc
rounds=4
irq_work=246	# IRQ_WORK_VECTOR
[ -w "$EX/trap_irq" ] || exact_fail "no $EX/trap_irq"
echo 1 >"$EX/trap_irq"
trap_irqs0=$(exact_stat trap_irqs)
if exact_rec $prog exc; then
	echo 0 >"$EX/trap_irq"
	exact_compare "$d/truth" "$d/got" "$prog"
	echo "PTT-INFO trap_irqs: $(($(exact_stat trap_irqs) - trap_irqs0)) irq_works queued"
	grep '^exc ' "$d/rec.out" | sed 's/^/PTT-INFO /'
	# The out lines of the program (one thread): IP [VECTOR].
	grep '^# out ' "$d/truth.0" |
		awk -v p="$pid" '$6 == p { print $7, $8 }' >"$d/outs"
	line=$(grep '^exc gp=' "$d/rec.out")
	ntrap=$(sed -n 's/^exc .*ntrap=\([0-9]*\).*/\1/p' "$d/rec.out")
	[ "${ntrap:-0}" = "$rounds" ] ||
		exact_fail "the program's SIGTRAP handler ran ${ntrap:-?} times (want $rounds): record must deliver its command's own SIGTRAP"
	nfpe=$(sed -n 's/^exc .*nfpe=\([0-9]*\).*/\1/p' "$d/rec.out")
	kinds="gp de ud"
	# #XM: only if QEMU raised it (SIGFPE twice a round).
	if [ "${nfpe:-0}" -ge $((2 * rounds)) ]; then
		kinds="$kinds xm"
	else
		echo "PTT-INFO no #XM raised (nfpe=$nfpe): not checked"
	fi
	for k in $kinds bp; do
		ip=$(echo "$line" | sed -n "s/.* $k=0x\([0-9a-f]*\).*/\1/p")
		[ -n "$ip" ] || { exact_fail "no $k= in: $line"; continue; }
		ret=$(grep -c "^$ip\$" "$d/truth")
		outs=$(awk -v ip="$ip" '$1 == ip' "$d/outs" | wc -l)
		irqs=$(awk -v ip="$ip" -v v=$irq_work '$1 == ip && $2 == v' "$d/outs" | wc -l)
		echo "PTT-INFO $k at $ip: retired $ret, out lines $outs ($irqs of vector $irq_work): $(awk -v ip="$ip" '$1 == ip { print $2 }' "$d/outs" | sort | uniq -c | tr -s ' \n' ' ')"
		[ "$ret" = 0 ] || exact_fail "$k: the faulting instruction at $ip retired $ret times in the truth"
		[ "$outs" -ge $rounds ] || exact_fail "$k: $outs out lines at $ip (want $rounds or more)"
		[ "$irqs" = 0 ] || exact_fail "$k: $irqs interrupts of vector $irq_work (the irq_work queued in its kernel visit) taken at $ip in user code"
		# Each with its own FUP + TIP.PGD and out line, of its vector:
		# sent where the model learns of it (a fault: its signal's
		# generation; int3, a trap: DIE_INT3, whether or not its
		# SIGTRAP is delivered), as a page fault's
		# at its tracepoint, after an interrupt there too (TIP.PGE
		# first).
		case $k in
		gp) v=13 ;; de) v=0 ;; ud) v=6 ;; xm) v=19 ;; bp) v=3 ;;
		esac
		own=$(awk -v ip="$ip" -v v=$v '$1 == ip && $2 == v' "$d/outs" | wc -l)
		[ "$own" -ge $rounds ] ||
			exact_fail "$k: $own out lines of vector $v at $ip (want $rounds or more)"
	done
fi
echo 0 >"$EX/trap_irq"
exact_finish
