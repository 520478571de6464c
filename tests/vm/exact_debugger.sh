#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 90 (single-stepping under TCG)
# A debugger single-steps a task that the exact model steps too (issue
# 12: "never swallow a debugger's or ptrace's step"; model.rst, the die
# notifier passes on a step of a task with TIF_SINGLESTEP): 'pt-trace
# record -u -- /ptt/work/exact_nolibc_debugger' (tests/vm/work/
# exact_nolibc_debugger.c): the parent forks a child that stops itself
# under PTRACE_TRACEME, single-steps it 100 times with PTRACE_SINGLESTEP
# (its RIP at each stop), then lets it run to its end.  Both are
# followed (inherit).  Required: the debugger got all 100 SIGTRAP stops
# and the child ran to its end (no stray SIGTRAP from a TF left set);
# the RIPs it saw are 100 consecutive instructions of the child's
# truth, each the one after the instruction that stepped; each process's
# decode equals its truth.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_debugger runs on icl"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

prog=exact_nolibc_debugger
exact_follow $prog
n=$(sed -n 's/^exact_nolibc_debugger \([0-9]*\)$/\1/p' "$D/rec.out")
[ "$n" = 100 ] ||
	exact_fail "the debugger's steps: '$n' (want 100; 2000: no SIGSTOP, 1000+N: the child did not end after N steps)"
parent=$PID
child=$(exact_pids | grep -vx "$parent" | tr -d '\n')
[ "$(exact_pids | wc -l)" = 2 ] && [ -n "$child" ] ||
	exact_fail "processes in the truth: $(exact_pids | tr '\n' ' ')(want $parent and one child)"
exact_process "$parent" debugger
exact_process "$child" child
# The debugger's RIPs: a run of the child's truth.
sed -n 's/^dbg //p' "$D/rec.out" >"$D/dbg"
first=$(head -n 1 "$D/dbg")
hit=0
for l in $(grep -n -x "$first" "$D/want.$child" | cut -d: -f1); do
	sed -n "$l,$((l + 99))p" "$D/want.$child" | cmp -s - "$D/dbg" && hit=$((hit + 1))
done
[ "$hit" = 1 ] || exact_fail "the debugger's 100 RIPs are $hit runs of the child's truth (want 1; first $first)"
echo "PTT-INFO exact_debugger: $n steps seen by the debugger, at $first..$(tail -n 1 "$D/dbg") in the child's truth"
exact_finish
