#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptt-timeout: 120 (single-stepping under TCG)
# The exact model following a thread that migrates between CPUs in the
# middle of its user code (issue 13): 'pt-trace record -u --
# /ptt/work/exact_threads_migrate' (followed, inherit, stream mode, not
# pinned), whose main thread moves its worker thread from CPU to CPU
# every millisecond (sched_setaffinity) while the worker loops without a
# system call, so each move preempts it wherever it is (exact_threads'
# threads move themselves, inside sched_setaffinity).  Required: the
# truth has only the program's two threads; 'decode --tid T' of all the
# CPUs' traces names thread T alone and its flow, ordered by time, is
# exactly T's truth, for each thread; the worker's truth runs on both
# CPUs in at least 4 stretches (3 migrations inside its loop).  It runs
# on the debug kernel too (67 s there on a machine loaded twice as much,
# about 30 s on a quiet one): the stepped test of threads on two CPUs and
# of migration there.
#
# Exit 0 pass, 77 skip, 1 fail.

[ "$PTT_PROFILE" = icl ] || { echo "SKIP: exact_* run on icl"; exit 77; }
. /ptt/work/exact_lib.sh
. /ptt/work/exact_tasks.sh

prog=exact_threads_migrate
# The program's environment is PATH alone: static glibc's start-up
# (tunables) steps thousands of instructions per variable.
for v in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
	[ "$v" = PATH ] || unset "$v"
done
# Each thread decoded on its own only (decode --tid): time.
EXACT_NO_DECODE=1
exact_follow "$prog"
pids=$(exact_pids | tr '\n' ' ')
[ "$pids" = "$PID " ] || exact_fail "processes in the truth: $pids(want only $PID)"
n=0
for t in $(exact_tids "$PID"); do
	n=$((n + 1))
	exact_thread_decode "$t" "$prog"
done
[ "$n" = 2 ] || exact_fail "$n threads in the truth, the program has 2"
w=$(exact_tids "$PID" | grep -v -x "$PID" | head -n 1)
# The worker's instructions by TSC: a stretch per CPU it ran on in turn.
s=$(exact_cpus "$w" | uniq | wc -l)
c=$(exact_cpus "$w" | sort -u | wc -l)
echo "PTT-INFO worker $w: $s stretches on $c CPUs"
[ "$c" -ge 2 ] && [ "$s" -ge 4 ] ||
	exact_fail "the worker ran in $s stretches on $c CPU(s): not moved while it worked"
exact_finish
