#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 60 (single-stepping under TCG)
# A followed program whose threads the scheduler's own load balancing
# moves between CPUs (issue 13), with the exact model: 'pt-trace record
# -u -- /ptt/work/follow_nolibc_balance' (followed, inherit, stream mode,
# not pinned) runs three busy threads on the two CPUs, which never block
# nor set their affinity, so each move is the balancer taking a thread
# where it was preempted, in its user code or in its read of /dev/zero
# (exact_migrate moves its worker with sched_setaffinity).  Three busy
# threads on two CPUs are as balanced as they can be, and the balancer
# moved one only once in 8 s in a CI run: so a shell loop outside the
# followed set spins beside them, pinned to CPU 0 and CPU 1 in turn
# (taskset), and each of its hops leaves one CPU with three busy tasks
# and the other with one, an imbalance the balancer mends by moving a
# thread of the program.  Required:
# the truth has only the program's three threads; the decode of all the
# CPUs' traces has as many instructions as the truth, and each thread's
# flow in it, ordered by time, is exactly that thread's truth; the
# threads' truth shows at least 2 moves between CPUs in all.
# Times (icl, an idle 2-CPU host): 6.1 and 6.12 about 3 s, debug 4.7 s.
#
# Recorded with --psb-period 0 (a PSB+ every 2 KiB), so that a PSB+ is
# often due when a thread is switched back in.  Seen once on the debug
# kernel with the default 4 KiB: the model sent that PSB+ instead of the
# enable's TSC and CBR, and the decoder, which knows an enable by its CBR
# outside PSB+ (decode_follow_enable()), gave the resumed thread's first
# instructions to the thread that ran before it on that CPU (the PSB's
# TSC was older than that thread's switch-out record).  Silicon sends an
# enable's timing packets at the WRMSR (Table 36-50 case 2d), and so does
# the model now; the failure was not seen again with the old model in 5
# runs here (6.12, debug), so this test is not shown to guard it.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: follow_balance runs on icl (exact model)"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

prog=follow_nolibc_balance
# The hopping spinner: busybox sh counts to 2000 in about 0.1 s under
# TCG, so it hops a few times a second (its exact rate does not matter).
hop='while :; do
	for c in 0 1; do
		taskset -p -c $c $$ >/dev/null || exit 1
		i=0
		while [ $i -lt 2000 ]; do i=$((i + 1)); done
	done
done'
sh -c "$hop" &
h=$!
# The program ends once its threads saw 6 moves (or after 8 s): more
# stretches to check than the 2 required.
EXACT_ARGS="8000 6"
EXACT_AFTER_RECORD="kill -0 $h || exact_fail 'the hopping spinner was not running'; kill $h; wait $h 2>/dev/null"
t0=$(date +%s)
exact_follow "$prog" --psb-period 0
t1=$(date +%s)
pids=$(exact_pids | tr '\n' ' ')
[ "$pids" = "$PID " ] || exact_fail "processes in the truth: $pids(want only $PID)"
exact_threads_all "$prog"
echo "PTT-INFO record, truth and decode $((t1 - t0)) s, comparisons $(($(date +%s) - t1)) s"
[ "$et_threads" = 3 ] || exact_fail "$et_threads threads in the truth, the program has 3"
echo "PTT-INFO $et_moves moves in the truth; the program saw: $(grep "^$prog " "$D/rec.out")"
[ "$et_moves" -ge 2 ] || exact_fail "$et_moves moves between CPUs in the truth: the balancer moved no thread while it worked"
exact_finish
