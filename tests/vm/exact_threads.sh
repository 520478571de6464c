#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 300 (single-stepping under TCG: tens of us per instruction)
# The exact model (Documentation/model.rst "Exact mode") following a
# program with two threads across CPUs (issues 12 and 13): 'pt-trace
# record -u -- /ptt/work/exact_threads' (the default: the program
# followed on every CPU, stream mode, not pinned; tests/vm/work/
# exact_threads.c puts each thread on CPU 0 and CPU 1 in turn) while
# another process, not followed, spins on both CPUs.  Required: the
# model's ground truth (all CPUs, merged by TSC) has only the program's
# two threads; the decode of all the traces (--format=perf: each
# instruction's task and time) names only the program's process and has
# as many instructions as that truth; each thread's instructions in it,
# ordered by time, are exactly its truth; each thread ran on both CPUs.
#
# Exit 0 pass, 77 skip, 1 fail.

# On bdw too: there every TraceEn 0->1 sends PSB+ (no configurable PSB),
# stamped at the switch-in's WRMSR, before perf's switch-out record of
# the thread before; decode tells it from a periodic PSB+ by the next
# PSB+'s time (tools.rst, "A CPU without configurable PSB").  Before
# that, the new thread's first 140 instructions after clone() went to
# the main thread there.
[ "$PTT_PROFILE" = icl ] || [ "$PTT_PROFILE" = bdw ] ||
	{ echo "SKIP: exact_threads runs on icl and bdw"; exit 77; }
# On the debug kernel (lockdep, KASAN) exact_threads took 40-50 s of
# make check's 30-minute budget: there the same two threads without
# libc's start-up and pthreads (tests/vm/work/exact_nolibc_threads.c, a
# raw clone(); 3042 instructions), 58 s under a host load of 14-16.
prog=exact_threads
[ ! -e /proc/lockdep ] || prog=exact_nolibc_threads
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

# The other process: a spinner on each CPU, started before the program
# (niced: the program is switched out for it now and then, not half the
# time).  busybox has renice, not nice; a spinner that is not running
# when the recording ends fails the test (its check below would prove
# nothing).
spin='renice -n 19 -p $$ >/dev/null && while :; do :; done'
taskset -c 0 sh -c "$spin" &
s0=$!
taskset -c 1 sh -c "$spin" &
s1=$!

EXACT_AFTER_RECORD="kill -0 $s0 && kill -0 $s1 || exact_fail 'a spinner was not running'; kill $s0 $s1; wait $s0 $s1 2>/dev/null"
exact_follow $prog

pids=$(exact_pids | tr '\n' ' ')
[ "$pids" = "$PID " ] || exact_fail "processes in the truth: $pids(want only $PID)"
grep -q -e " $s0 " -e " $s1 " "$D/all" && exact_fail "the unfollowed spinners were stepped"
pids=$(exact_decoded_pids | tr '\n' ' ')
[ "$pids" = "$PID " ] || exact_fail "processes in the decode: $pids(want only $PID)"
tids=$(exact_tids "$PID")
n=0
for t in $tids; do
	n=$((n + 1))
	exact_thread "$t" $prog
	c=$(exact_cpus "$t" | sort -u | wc -l)
	[ "$c" -ge 2 ] || exact_fail "thread $t ran on $c CPU(s), the program puts it on two"
done
[ "$n" = 2 ] || exact_fail "$n threads in the truth, the program has 2"
exact_finish
